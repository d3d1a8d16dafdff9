// kat_test.cc - known answers through the provider, on the CPU backend
// MLDSA_ACCEL_CPU names (ctest runs this file once per backend):
//  - ACVP sigGen: the signatures EVP produces equal NIST's, for every
//    interface: pure (with context), HashML-DSA with each of FIPS 204's
//    twelve hashes through the "hash-ml-dsa" parameter (EVP_DigestSign over
//    the message and EVP_PKEY_sign over the digest; SHA2-512 also through the
//    module's HASH-ML-DSA-xx-WITH-SHA512 dispatch table), internal, external mu;
//  - ACVP sigVer: EVP's verdict is NIST's, the same interfaces;
//  - the round-3 Dilithium KATs: EVP signs deterministically to the KAT
//    signature and verifies it.
// Vectors: tests/vectors/ (see tests/vectors/README.md for their source).
#include "tests/core/acvp_vectors.h"
#include "tests/core/nist_kat.h"
#include "tests/core/reference_hash.h"
#include "tests/provider/provider_fixture.h"

#include <cstdlib>
#include <map>

namespace mldsa::test {
namespace {

// The backend the module's core runs must be the one ctest asked for
// (MLDSA_ACCEL_CPU); a CPU without it skips.
class KatTest : public ProviderTest {
 protected:
  void SetUp() override {
    ProviderTest::SetUp();
    if (HasFatalFailure()) return;
    const char* want = std::getenv("MLDSA_ACCEL_CPU");
    if (want == nullptr || *want == '\0') return;
    char* active = nullptr;
    OSSL_PARAM q[] = {OSSL_PARAM_utf8_ptr("cpu-backend", &active, 0), OSSL_PARAM_END};
    ASSERT_EQ(OSSL_PROVIDER_get_params(prov_, q), 1);
    ASSERT_NE(active, nullptr);
    if (std::string(active) == want) return;
    if (!select_backend(want)) GTEST_SKIP() << "skipped: this CPU lacks " << want << " (the module runs " << active << ")";
    FAIL() << "MLDSA_ACCEL_CPU=" << want << " but the module runs " << active;
  }

  EVP_PKEY* key_of(const AcvpRecord& r, ParamSet set) {
    if (r.has("seed")) return fromdata(set, r.bytes("seed"), {}, {});
    if (r.has("sk")) return fromdata(set, {}, r.bytes("sk"), {});
    return fromdata(set, {}, {}, r.bytes("pk"), EVP_PKEY_PUBLIC_KEY);
  }

  // The record's options as signature parameters: deterministic or the
  // given rnd, the context, and how the input is to be read.
  struct Options {
    std::vector<uint8_t> rnd, ctx;
    std::string hash;
    int det = 0, one = 1, raw = 0;
    std::vector<OSSL_PARAM> p;
    bool prehash = false;
    Options(const AcvpRecord& r, bool with_rnd) {
      if (with_rnd) {
        det = r.flag("deterministic") ? 1 : 0;
        if (det) {
          p.push_back(OSSL_PARAM_construct_int("deterministic", &det));
        } else {
          rnd = r.bytes("rnd");
          p.push_back(OSSL_PARAM_construct_octet_string("test-entropy", rnd.data(), rnd.size()));
        }
      }
      const bool external = r.text("signatureInterface") == "external";
      if (external) {
        ctx = r.bytes("context");
        p.push_back(OSSL_PARAM_construct_octet_string("context-string", ctx.data(), ctx.size()));
      }
      prehash = external && r.text("preHash") == "preHash";
      if (prehash) {
        hash = r.text("hashAlg");
        p.push_back(OSSL_PARAM_construct_utf8_string("hash-ml-dsa", hash.data(), 0));
      } else if (!external) {
        p.push_back(r.flag("externalMu") ? OSSL_PARAM_construct_int("mu", &one)
                                         : OSSL_PARAM_construct_int("message-encoding", &raw));
      }
      p.push_back(OSSL_PARAM_construct_end());
    }
  };

  std::vector<uint8_t> input_of(const AcvpRecord& r) { return r.has("mu") ? r.bytes("mu") : r.bytes("message"); }

  // HashML-DSA's digest of the message, by OpenSSL (an implementation apart from the module).
  std::vector<uint8_t> digest_of(const AcvpRecord& r) {
    HashAlg h;
    if (!hash_from_name(r.text("hashAlg"), h)) return {};
    return openssl_digest(h, r.bytes("message"));
  }

  std::vector<uint8_t> digest_sign(EVP_PKEY* pkey, std::span<const uint8_t> in, const OSSL_PARAM* p, size_t n) {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    std::vector<uint8_t> sig(n);
    size_t len = n;
    const bool ok = EVP_DigestSignInit_ex(md, nullptr, nullptr, libctx_, nullptr, pkey, p) == 1 &&
                    EVP_DigestSign(md, sig.data(), &len, in.data(), in.size()) == 1 && len == n;
    EVP_MD_CTX_free(md);
    return ok ? sig : std::vector<uint8_t>{};
  }

  int digest_verify(EVP_PKEY* pkey, std::span<const uint8_t> in, std::span<const uint8_t> sig, const OSSL_PARAM* p) {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    int r = EVP_DigestVerifyInit_ex(md, nullptr, nullptr, libctx_, nullptr, pkey, p);
    if (r == 1) r = EVP_DigestVerify(md, sig.data(), sig.size(), in.data(), in.size());
    EVP_MD_CTX_free(md);
    return r;
  }

  // EVP_PKEY_sign / EVP_PKEY_verify: with hash-ml-dsa the input is the digest.
  std::vector<uint8_t> pkey_sign(EVP_PKEY* pkey, std::span<const uint8_t> tbs, const OSSL_PARAM* p, size_t n) {
    EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_pkey(libctx_, pkey, nullptr);
    std::vector<uint8_t> sig(n);
    size_t len = n;
    const bool ok = c != nullptr && EVP_PKEY_sign_init_ex(c, p) == 1 &&
                    EVP_PKEY_sign(c, sig.data(), &len, tbs.data(), tbs.size()) == 1 && len == n;
    EVP_PKEY_CTX_free(c);
    return ok ? sig : std::vector<uint8_t>{};
  }

  int pkey_verify(EVP_PKEY* pkey, std::span<const uint8_t> tbs, std::span<const uint8_t> sig, const OSSL_PARAM* p) {
    EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_pkey(libctx_, pkey, nullptr);
    int r = c != nullptr ? EVP_PKEY_verify_init_ex(c, p) : 0;
    if (r == 1) r = EVP_PKEY_verify(c, sig.data(), sig.size(), tbs.data(), tbs.size());
    EVP_PKEY_CTX_free(c);
    return r;
  }

  // The SHA-512 HashML-DSA algorithm through the module's dispatch table
  // (EVP on 3.0 cannot fetch a signature by name), given the digest.
  std::vector<uint8_t> hash_alg_sign(const AcvpRecord& r, const Params& pp, std::span<const uint8_t> digest,
                                     const OSSL_PARAM* p) {
    Dispatch km(prov_, OSSL_OP_KEYMGMT, pp.name);
    auto km_new = km.get<OSSL_FUNC_keymgmt_new_fn>(OSSL_FUNC_KEYMGMT_NEW);
    auto km_import = km.get<OSSL_FUNC_keymgmt_import_fn>(OSSL_FUNC_KEYMGMT_IMPORT);
    auto km_free = km.get<OSSL_FUNC_keymgmt_free_fn>(OSSL_FUNC_KEYMGMT_FREE);
    void* key = km_new(OSSL_PROVIDER_get0_provider_ctx(prov_));
    auto material = r.has("seed") ? r.bytes("seed") : r.bytes("sk");
    OSSL_PARAM kp[] = {OSSL_PARAM_octet_string(r.has("seed") ? "seed" : "priv", material.data(), material.size()),
                       OSSL_PARAM_END};
    std::vector<uint8_t> sig(pp.sig_bytes);
    size_t len = 0;
    const std::string name = std::string("HASH-") + pp.name + "-WITH-SHA512";
    Dispatch d(prov_, OSSL_OP_SIGNATURE, name.c_str());
    auto newctx = d.get<OSSL_FUNC_signature_newctx_fn>(OSSL_FUNC_SIGNATURE_NEWCTX);
    auto freectx = d.get<OSSL_FUNC_signature_freectx_fn>(OSSL_FUNC_SIGNATURE_FREECTX);
    auto init = d.get<OSSL_FUNC_signature_sign_init_fn>(OSSL_FUNC_SIGNATURE_SIGN_INIT);
    auto sign = d.get<OSSL_FUNC_signature_sign_fn>(OSSL_FUNC_SIGNATURE_SIGN);
    void* c = newctx(OSSL_PROVIDER_get0_provider_ctx(prov_), nullptr);
    const bool ok = km_import(key, OSSL_KEYMGMT_SELECT_KEYPAIR, kp) == 1 && init(c, key, p) == 1 &&
                    sign(c, sig.data(), &len, sig.size(), digest.data(), digest.size()) == 1;
    freectx(c);
    km_free(key);
    return ok ? sig : std::vector<uint8_t>{};
  }
};

class ProviderSigGen : public KatTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(ProviderSigGen, KnownAnswers) {
  const AcvpFile& file = load_acvp(GetParam());
  ASSERT_TRUE(file.error.empty()) << file.error;
  ASSERT_FALSE(file.records.empty());
  std::map<std::string, size_t> hashes;
  size_t checked = 0;
  for (const AcvpRecord& r : file.records) {
    SCOPED_TRACE(r.id() + " " + r.text("hashAlg"));
    const Params* pp = params_by_name(r.text("parameterSet"));
    ASSERT_NE(pp, nullptr);
    Options o(r, true);
    EVP_PKEY* pkey = key_of(r, pp->id);
    ASSERT_NE(pkey, nullptr) << last_reason();
    const std::vector<uint8_t> want = r.bytes("signature");
    EXPECT_EQ(digest_sign(pkey, input_of(r), o.p.data(), pp->sig_bytes), want) << last_reason();
    if (o.prehash) {
      const std::vector<uint8_t> digest = digest_of(r);
      ASSERT_FALSE(digest.empty()) << "OpenSSL cannot compute " << r.text("hashAlg");
      EXPECT_EQ(pkey_sign(pkey, digest, o.p.data(), pp->sig_bytes), want) << last_reason();
      if (o.hash == "SHA2-512") {
        // The algorithm fixes the hash: the same parameters less hash-ml-dsa.
        std::vector<OSSL_PARAM> p(o.p.begin(), o.p.end() - 2);
        p.push_back(OSSL_PARAM_construct_end());
        EXPECT_EQ(hash_alg_sign(r, *pp, digest, p.data()), want) << last_reason();
      }
      ++hashes[o.hash];
    }
    EVP_PKEY_free(pkey);
    ++checked;
  }
  EXPECT_EQ(hashes.size(), 12u) << "every FIPS 204 hash has a case";
  std::printf("%s: %zu known answers checked through the provider, HashML-DSA with %zu hashes\n", GetParam(), checked,
              hashes.size());
}

INSTANTIATE_TEST_SUITE_P(Vectors, ProviderSigGen, ::testing::Values("sigGen.txt", "sigGen-tr1.txt"),
                         [](const auto& info) {
                           return std::string(info.param) == "sigGen.txt" ? std::string("sigGen")
                                                                          : std::string("sigGen_tr1");
                         });

// Each sigVer case's verdict through EVP_DigestVerify and, for HashML-DSA,
// EVP_PKEY_verify over the digest; a HashML-DSA signature never verifies as
// a pure one.
TEST_F(KatTest, SigVerVerdicts) {
  const AcvpFile& file = load_acvp("sigVer.txt");
  ASSERT_TRUE(file.error.empty()) << file.error;
  size_t checked = 0, prehash = 0;
  for (const AcvpRecord& r : file.records) {
    SCOPED_TRACE(r.id() + " " + r.text("hashAlg") + " " + r.text("reason"));
    const Params* pp = params_by_name(r.text("parameterSet"));
    ASSERT_NE(pp, nullptr);
    Options o(r, false);
    EVP_PKEY* pkey = key_of(r, pp->id);
    ASSERT_NE(pkey, nullptr) << last_reason();
    const int want = r.flag("testPassed") ? 1 : 0;
    const std::vector<uint8_t> sig = r.bytes("signature");
    EXPECT_EQ(digest_verify(pkey, input_of(r), sig, o.p.data()), want);
    if (o.prehash) {
      EXPECT_EQ(pkey_verify(pkey, digest_of(r), sig, o.p.data()), want);
      // The same signature as pure ML-DSA (no hash-ml-dsa): never valid.
      std::vector<OSSL_PARAM> pure(o.p.begin(), o.p.end() - 2);
      pure.push_back(OSSL_PARAM_construct_end());
      EXPECT_EQ(digest_verify(pkey, input_of(r), sig, pure.data()), 0);
      ++prehash;
    }
    ERR_clear_error();
    EVP_PKEY_free(pkey);
    ++checked;
  }
  EXPECT_EQ(checked, 180u);
  EXPECT_GT(prehash, 0u);
  std::printf("sigVer.txt: %zu verdicts checked through the provider (%zu HashML-DSA)\n", checked, prehash);
}

// --- CRYSTALS-Dilithium round 3 -----------------------------------------------

class ProviderRound3 : public KatTest, public ::testing::WithParamInterface<ParamSet> {};

TEST_P(ProviderRound3, KnownAnswers) {
  const Params& p = params(GetParam());
  const KatFile kat = load_round3_kat(p.name);
  ASSERT_TRUE(kat.error.empty()) << kat.error;
  ASSERT_EQ(kat.records.size(), 2u);
  for (const KatRecord& r : kat.records) {
    SCOPED_TRACE("count = " + r.at("count"));
    const auto seed = from_hex(r.at("seed")), msg = from_hex(r.at("msg")), pk = from_hex(r.at("pk")),
               sk = from_hex(r.at("sk")), sm = from_hex(r.at("sm"));
    const std::vector<uint8_t> want(sm.begin(), sm.begin() + p.sig_bytes);
    // keygen with the KAT's zeta as the "seed" parameter.
    EVP_PKEY* gen = keygen(p.id, kat_keygen_seed(seed));
    ASSERT_NE(gen, nullptr);
    EXPECT_EQ(octets(gen, "pub"), pk);
    EXPECT_EQ(octets(gen, "priv"), sk);
    int det = 1;
    OSSL_PARAM dp[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_END};
    EXPECT_EQ(digest_sign(gen, msg, dp, p.sig_bytes), want) << last_reason();
    EVP_PKEY* imported = fromdata(p.id, {}, sk, {});
    ASSERT_NE(imported, nullptr) << last_reason();
    EXPECT_EQ(digest_sign(imported, msg, dp, p.sig_bytes), want) << last_reason();
    EXPECT_EQ(pkey_sign(imported, msg, dp, p.sig_bytes), want) << last_reason();  // tbs is the message
    EVP_PKEY* pub = fromdata(p.id, {}, {}, pk, EVP_PKEY_PUBLIC_KEY);
    ASSERT_NE(pub, nullptr);
    EXPECT_EQ(digest_verify(pub, msg, want, nullptr), 1);
    EXPECT_EQ(pkey_verify(pub, msg, want, nullptr), 1);
    auto bad = want;
    bad[3] ^= 1;
    EXPECT_EQ(digest_verify(pub, msg, bad, nullptr), 0);
    ERR_clear_error();
    EVP_PKEY_free(pub);
    EVP_PKEY_free(imported);
    EVP_PKEY_free(gen);
  }
}

INSTANTIATE_TEST_SUITE_P(Dilithium, ProviderRound3,
                         ::testing::Values(ParamSet::DILITHIUM2, ParamSet::DILITHIUM3, ParamSet::DILITHIUM5),
                         [](const auto& info) { return std::string(params(info.param).name); });

}  // namespace
}  // namespace mldsa::test
