// kat_test.cc - ACVP sigGen known answers through the provider: the
// signatures EVP (and, for HashML-DSA, the module's dispatch table) produce
// equal NIST's expected bytes. Vectors: tests/vectors/sigGen*.txt (see
// tests/vectors/README.md for their source).
#include "tests/core/acvp_vectors.h"
#include "tests/provider/provider_fixture.h"

namespace mldsa::test {
namespace {

class ProviderKat : public ProviderTest, public ::testing::WithParamInterface<const char*> {
 protected:
  EVP_PKEY* key_of(const AcvpRecord& r, ParamSet set) {
    if (r.has("seed")) return fromdata(set, r.bytes("seed"), {}, {});
    return fromdata(set, {}, r.bytes("sk"), {});
  }

  void* raw_key_of(const AcvpRecord& r, ParamSet set, std::unique_ptr<RawKey>& holder) {
    if (r.has("seed")) {
      holder = std::make_unique<RawKey>(prov_, set, r.bytes("seed"));
      return holder->get();
    }
    // An expanded key: import it through the keymgmt dispatch.
    Dispatch km(prov_, OSSL_OP_KEYMGMT, params(set).name);
    auto km_new = km.get<OSSL_FUNC_keymgmt_new_fn>(OSSL_FUNC_KEYMGMT_NEW);
    auto km_import = km.get<OSSL_FUNC_keymgmt_import_fn>(OSSL_FUNC_KEYMGMT_IMPORT);
    free_ = km.get<OSSL_FUNC_keymgmt_free_fn>(OSSL_FUNC_KEYMGMT_FREE);
    void* k = km_new(OSSL_PROVIDER_get0_provider_ctx(prov_));
    auto sk = r.bytes("sk");
    OSSL_PARAM p[] = {OSSL_PARAM_octet_string("priv", sk.data(), sk.size()), OSSL_PARAM_END};
    if (km_import(k, OSSL_KEYMGMT_SELECT_KEYPAIR, p) != 1) {
      free_(k);
      return nullptr;
    }
    raw_ = k;
    return k;
  }

  void TearDown() override {
    if (raw_ != nullptr) free_(raw_);
    raw_ = nullptr;
    ProviderTest::TearDown();
  }

  // Options every path shares: deterministic or the given rnd, the context.
  std::vector<OSSL_PARAM> common_params(const AcvpRecord& r, std::vector<uint8_t>& rnd, std::vector<uint8_t>& ctx,
                                        int& det) {
    std::vector<OSSL_PARAM> p;
    det = r.flag("deterministic") ? 1 : 0;
    if (det) {
      p.push_back(OSSL_PARAM_construct_int("deterministic", &det));
    } else {
      rnd = r.bytes("rnd");
      p.push_back(OSSL_PARAM_construct_octet_string("test-entropy", rnd.data(), rnd.size()));
    }
    if (r.has("context")) {
      ctx = r.bytes("context");
      p.push_back(OSSL_PARAM_construct_octet_string("context-string", ctx.data(), ctx.size()));
    }
    return p;
  }

  OSSL_FUNC_keymgmt_free_fn* free_ = nullptr;
  void* raw_ = nullptr;
};

TEST_P(ProviderKat, SigGen) {
  const AcvpFile& file = load_acvp(GetParam());
  ASSERT_TRUE(file.error.empty()) << file.error;
  ASSERT_FALSE(file.records.empty());
  size_t checked = 0, skipped = 0;
  for (const AcvpRecord& r : file.records) {
    SCOPED_TRACE(r.id());
    const Params* pp = params_by_name(r.text("parameterSet"));
    ASSERT_NE(pp, nullptr);
    std::vector<uint8_t> rnd, ctx;
    int det = 0, one = 1, raw = 0;
    std::vector<OSSL_PARAM> p = common_params(r, rnd, ctx, det);
    const bool external = r.text("signatureInterface") == "external";
    const bool prehash = external && r.text("preHash") == "preHash";
    std::vector<uint8_t> input = r.has("mu") ? r.bytes("mu") : r.bytes("message");
    std::vector<uint8_t> sig;

    if (prehash) {
      // The module's HashML-DSA algorithms use SHA-512 only.
      if (r.text("hashAlg") != "SHA2-512") {
        ++skipped;
        continue;
      }
      p.push_back(OSSL_PARAM_construct_end());
      std::unique_ptr<RawKey> holder;
      void* key = raw_key_of(r, pp->id, holder);
      ASSERT_NE(key, nullptr) << last_reason();
      const std::string name = std::string("HASH-") + pp->name + "-WITH-SHA512";
      Dispatch d(prov_, OSSL_OP_SIGNATURE, name.c_str());
      auto newctx = d.get<OSSL_FUNC_signature_newctx_fn>(OSSL_FUNC_SIGNATURE_NEWCTX);
      auto freectx = d.get<OSSL_FUNC_signature_freectx_fn>(OSSL_FUNC_SIGNATURE_FREECTX);
      auto init = d.get<OSSL_FUNC_signature_sign_init_fn>(27);  // sign_message_init
      auto sign = d.get<OSSL_FUNC_signature_sign_fn>(OSSL_FUNC_SIGNATURE_SIGN);
      void* c = newctx(OSSL_PROVIDER_get0_provider_ctx(prov_), nullptr);
      sig.resize(pp->sig_bytes);
      size_t len = 0;
      EXPECT_EQ(init(c, key, p.data()), 1);
      EXPECT_EQ(sign(c, sig.data(), &len, sig.size(), input.data(), input.size()), 1) << last_reason();
      freectx(c);
      if (raw_ != nullptr) {
        free_(raw_);
        raw_ = nullptr;
      }
    } else {
      if (!external) {
        if (r.flag("externalMu"))
          p.push_back(OSSL_PARAM_construct_int("mu", &one));
        else
          p.push_back(OSSL_PARAM_construct_int("message-encoding", &raw));
      }
      p.push_back(OSSL_PARAM_construct_end());
      EVP_PKEY* pkey = key_of(r, pp->id);
      ASSERT_NE(pkey, nullptr) << last_reason();
      EVP_MD_CTX* md = EVP_MD_CTX_new();
      size_t len = pp->sig_bytes;
      sig.resize(len);
      EXPECT_EQ(EVP_DigestSignInit_ex(md, nullptr, nullptr, libctx_, nullptr, pkey, p.data()), 1);
      EXPECT_EQ(EVP_DigestSign(md, sig.data(), &len, input.data(), input.size()), 1) << last_reason();
      EVP_MD_CTX_free(md);
      EVP_PKEY_free(pkey);
    }
    EXPECT_EQ(sig, r.bytes("signature"));
    ++checked;
  }
  EXPECT_GT(checked, 0u);
  std::printf("%s: %zu known answers checked through the provider; %zu HashML-DSA cases with a hash other "
              "than SHA-512 not applicable (the module's HashML-DSA algorithms are SHA-512 only)\n",
              GetParam(), checked, skipped);
}

INSTANTIATE_TEST_SUITE_P(Vectors, ProviderKat, ::testing::Values("sigGen.txt", "sigGen-tr1.txt"),
                         [](const auto& info) {
                           return std::string(info.param) == "sigGen.txt" ? std::string("sigGen")
                                                                          : std::string("sigGen_tr1");
                         });

}  // namespace
}  // namespace mldsa::test
