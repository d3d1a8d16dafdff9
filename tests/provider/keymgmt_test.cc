// keymgmt_test.cc - ML-DSA keys through EVP: generation, import / export,
// parameters, match, validate, dup, and every rejected import.
#include "tests/provider/provider_fixture.h"

#include <cstdlib>
#include <memory>

namespace mldsa::test {
namespace {

using Keymgmt = ProviderTest;

std::unique_ptr<PrivateKey> core_key(ParamSet set, const std::vector<uint8_t>& seed) {
  std::unique_ptr<PrivateKey> k;
  EXPECT_EQ(PrivateKey::from_seed(params(set), seed, k), Status::ok);
  return k;
}

std::vector<uint8_t> vec(std::span<const uint8_t> s) { return {s.begin(), s.end()}; }

TEST_F(Keymgmt, RandomKeygen) {
  for (ParamSet set : kSets) {
    SCOPED_TRACE(params(set).name);
    EVP_PKEY* a = random_keygen(set);
    EVP_PKEY* b = random_keygen(set);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(EVP_PKEY_is_a(a, params(set).name));
    EXPECT_EQ(octets(a, "pub").size(), params(set).pk_bytes);
    EXPECT_EQ(octets(a, "priv").size(), params(set).sk_bytes);
    EXPECT_EQ(octets(a, "seed").size(), SEED_BYTES);
    EXPECT_NE(octets(a, "pub"), octets(b, "pub"));
    EXPECT_NE(EVP_PKEY_eq(a, b), 1);
    EVP_PKEY_free(a);
    EVP_PKEY_free(b);
  }
}

TEST_F(Keymgmt, SeededKeygenEqualsCore) {
  for (ParamSet set : kSets) {
    SCOPED_TRACE(params(set).name);
    const auto seed = seed_of(3);
    EVP_PKEY* pkey = keygen(set, seed);
    ASSERT_NE(pkey, nullptr);
    auto ref = core_key(set, seed);
    EXPECT_EQ(octets(pkey, "pub"), vec(ref->public_key().encoded()));
    EXPECT_EQ(octets(pkey, "priv"), vec(ref->encoded()));
    EXPECT_EQ(octets(pkey, "seed"), seed);
    EVP_PKEY_free(pkey);
  }
}

// openssl genpkey -pkeyopt hexseed:... goes through ctrl_str -> "seed".
TEST_F(Keymgmt, HexSeedCtrlString) {
  const auto seed = seed_of(4);
  std::string hex;
  char buf[3];
  for (uint8_t b : seed) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    hex += buf;
  }
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx_, "ML-DSA-44", nullptr);
  ASSERT_EQ(EVP_PKEY_keygen_init(ctx), 1);
  ASSERT_EQ(EVP_PKEY_CTX_ctrl_str(ctx, "hexseed", hex.c_str()), 1) << last_reason();
  EVP_PKEY* pkey = nullptr;
  ASSERT_EQ(EVP_PKEY_keygen(ctx, &pkey), 1);
  EXPECT_EQ(octets(pkey, "pub"), vec(core_key(ParamSet::ML_DSA_44, seed)->public_key().encoded()));
  EVP_PKEY_free(pkey);
  EVP_PKEY_CTX_free(ctx);
}

TEST_F(Keymgmt, KeygenRejectsBadSeedLength) {
  for (size_t len : {0u, 31u, 33u}) {
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx_, "ML-DSA-65", nullptr);
    ASSERT_EQ(EVP_PKEY_keygen_init(ctx), 1);
    std::vector<uint8_t> seed(len, 7);
    OSSL_PARAM p[] = {OSSL_PARAM_octet_string("seed", seed.data(), seed.size()), OSSL_PARAM_END};
    ERR_clear_error();
    EXPECT_NE(EVP_PKEY_CTX_set_params(ctx, p), 1) << len;
    EXPECT_TRUE(raised("ML-DSA seed must be 32 bytes")) << len;
    EVP_PKEY_CTX_free(ctx);
  }
}

// A seed (or key part) of the wrong type is named as such, not as a seed
// of the wrong length.
TEST_F(Keymgmt, WrongTypedParametersAreNamed) {
  char text[] = "0123456789abcdef0123456789abcdef";
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx_, "ML-DSA-65", nullptr);
  ASSERT_EQ(EVP_PKEY_keygen_init(ctx), 1);
  OSSL_PARAM seed[] = {OSSL_PARAM_utf8_string("seed", text, 32), OSSL_PARAM_END};
  ERR_clear_error();
  EXPECT_NE(EVP_PKEY_CTX_set_params(ctx, seed), 1);
  EXPECT_TRUE(raised("parameter of the wrong type"));
  int number = 1;
  OSSL_PARAM props[] = {OSSL_PARAM_int("properties", &number), OSSL_PARAM_END};
  EXPECT_NE(EVP_PKEY_CTX_set_params(ctx, props), 1);
  EXPECT_TRUE(raised("parameter of the wrong type"));
  EVP_PKEY_CTX_free(ctx);

  for (const char* part : {"seed", "priv", "pub"}) {
    EVP_PKEY_CTX* ictx = EVP_PKEY_CTX_new_from_name(libctx_, "ML-DSA-65", nullptr);
    ASSERT_EQ(EVP_PKEY_fromdata_init(ictx), 1);
    OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(part, text, 32), OSSL_PARAM_END};
    EVP_PKEY* pkey = nullptr;
    ERR_clear_error();
    EXPECT_NE(EVP_PKEY_fromdata(ictx, &pkey, EVP_PKEY_KEYPAIR, p), 1) << part;
    EXPECT_TRUE(raised("parameter of the wrong type")) << part;
    EVP_PKEY_free(pkey);
    EVP_PKEY_CTX_free(ictx);
  }
}

// A key parameter with NULL data and a non-zero size (or a pointer type
// whose pointer is NULL), for keygen and for import with each selection:
// refused with a reason naming it, never a crash.
TEST_F(Keymgmt, NullParameterDataIsNamed) {
  struct Case {
    const char* name;
    unsigned int type;
    size_t size;
  };
  const Case gen_cases[] = {{"seed", OSSL_PARAM_OCTET_STRING, SEED_BYTES},
                            {"seed", OSSL_PARAM_OCTET_PTR, SEED_BYTES},
                            {"properties", OSSL_PARAM_UTF8_STRING, 4},
                            {"properties", OSSL_PARAM_UTF8_PTR, 0}};
  for (const Case& c : gen_cases) {
    SCOPED_TRACE(std::string("keygen ") + c.name + " type " + std::to_string(c.type));
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx_, "ML-DSA-65", nullptr);
    ASSERT_EQ(EVP_PKEY_keygen_init(ctx), 1);
    OSSL_PARAM p[] = {{c.name, c.type, nullptr, c.size, OSSL_PARAM_UNMODIFIED}, OSSL_PARAM_END};
    ERR_clear_error();
    EXPECT_EQ(EVP_PKEY_CTX_set_params(ctx, p), 0);
    EXPECT_TRUE(raised_for("parameter data is NULL", c.name));
    EVP_PKEY_CTX_free(ctx);
  }
  const size_t sizes[] = {SEED_BYTES, params(ParamSet::ML_DSA_65).sk_bytes, params(ParamSet::ML_DSA_65).pk_bytes};
  const char* parts[] = {"seed", "priv", "pub"};
  for (int selection : {EVP_PKEY_KEYPAIR, EVP_PKEY_PUBLIC_KEY}) {
    for (size_t i = 0; i < 3; ++i) {
      if (selection == EVP_PKEY_PUBLIC_KEY && i != 2) continue;  // only pub is read then
      for (unsigned int type : {OSSL_PARAM_OCTET_STRING, OSSL_PARAM_OCTET_PTR}) {
        SCOPED_TRACE(std::string("import ") + parts[i] + " selection " + std::to_string(selection) + " type " +
                     std::to_string(type));
        EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx_, "ML-DSA-65", nullptr);
        ASSERT_EQ(EVP_PKEY_fromdata_init(ctx), 1);
        OSSL_PARAM p[] = {{parts[i], type, nullptr, sizes[i], OSSL_PARAM_UNMODIFIED}, OSSL_PARAM_END};
        EVP_PKEY* pkey = nullptr;
        ERR_clear_error();
        EXPECT_EQ(EVP_PKEY_fromdata(ctx, &pkey, selection, p), 0);
        EXPECT_EQ(pkey, nullptr);
        EXPECT_TRUE(raised_for("parameter data is NULL", parts[i]));
        EVP_PKEY_free(pkey);
        EVP_PKEY_CTX_free(ctx);
      }
    }
  }
}

TEST_F(Keymgmt, GetParams) {
  struct Expect {
    ParamSet set;
    int bits, secbits, category, size;
  };
  // Sizes as OpenSSL 3.5 reports them: bits of the public key, lambda, NIST
  // category, signature bytes.
  for (const Expect& e : {Expect{ParamSet::ML_DSA_44, 1312 * 8, 128, 2, 2420},
                          Expect{ParamSet::ML_DSA_65, 1952 * 8, 192, 3, 3309},
                          Expect{ParamSet::ML_DSA_87, 2592 * 8, 256, 5, 4627}}) {
    SCOPED_TRACE(params(e.set).name);
    EVP_PKEY* pkey = keygen(e.set, seed_of(5));
    ASSERT_NE(pkey, nullptr);
    EXPECT_EQ(EVP_PKEY_get_bits(pkey), e.bits);
    EXPECT_EQ(EVP_PKEY_get_security_bits(pkey), e.secbits);
    EXPECT_EQ(EVP_PKEY_get_size(pkey), e.size);
    int category = 0;
    EXPECT_EQ(EVP_PKEY_get_int_param(pkey, "security-category", &category), 1);
    EXPECT_EQ(category, e.category);
    char md[16] = "x";
    size_t mdlen = 0;
    EXPECT_EQ(EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_MANDATORY_DIGEST, md, sizeof md, &mdlen), 1);
    EXPECT_STREQ(md, "");
    const OSSL_PARAM* gettable = EVP_PKEY_gettable_params(pkey);
    for (const char* k : {"bits", "security-bits", "security-category", "max-size", "mandatory-digest", "seed",
                          "pub", "priv"})
      EXPECT_NE(OSSL_PARAM_locate_const(gettable, k), nullptr) << k;
    EVP_PKEY_free(pkey);
  }
}

TEST_F(Keymgmt, ImportEachForm) {
  for (ParamSet set : kSets) {
    SCOPED_TRACE(params(set).name);
    const auto seed = seed_of(6);
    auto ref = core_key(set, seed);
    const auto sk = vec(ref->encoded()), pk = vec(ref->public_key().encoded());

    EVP_PKEY* from_seed = fromdata(set, seed, {}, {});
    ASSERT_NE(from_seed, nullptr) << last_reason();
    EXPECT_EQ(octets(from_seed, "priv"), sk);
    EXPECT_EQ(octets(from_seed, "pub"), pk);

    EVP_PKEY* from_sk = fromdata(set, {}, sk, {});
    ASSERT_NE(from_sk, nullptr) << last_reason();
    EXPECT_TRUE(octets(from_sk, "seed").empty());
    EXPECT_EQ(octets(from_sk, "pub"), pk);

    EVP_PKEY* all = fromdata(set, seed, sk, pk);
    ASSERT_NE(all, nullptr) << last_reason();
    EXPECT_EQ(octets(all, "seed"), seed);

    EVP_PKEY* pub_only = fromdata(set, {}, {}, pk, EVP_PKEY_PUBLIC_KEY);
    ASSERT_NE(pub_only, nullptr) << last_reason();
    EXPECT_TRUE(octets(pub_only, "priv").empty());

    EXPECT_EQ(EVP_PKEY_eq(from_seed, from_sk), 1);
    EXPECT_EQ(EVP_PKEY_eq(from_seed, pub_only), 1);
    EXPECT_EQ(EVP_PKEY_eq(all, from_sk), 1);
    for (EVP_PKEY* k : {from_seed, from_sk, all, pub_only}) EVP_PKEY_free(k);
  }
}

TEST_F(Keymgmt, ImportRejections) {
  const ParamSet set = ParamSet::ML_DSA_65;
  auto ref = core_key(set, seed_of(7));
  auto other = core_key(set, seed_of(8));
  const auto seed = seed_of(7);
  const auto sk = vec(ref->encoded()), pk = vec(ref->public_key().encoded());
  const auto other_sk = vec(other->encoded()), other_pk = vec(other->public_key().encoded());

  struct Case {
    const char* what;
    std::vector<uint8_t> seed, priv, pub;
    const char* reason;
  };
  std::vector<uint8_t> bad_s1 = sk;
  bad_s1[128] = 0xff;  // first s1 bytes (after rho, K, tr): coefficients eta - 7
  const Case cases[] = {
      {"seed vs other priv", seed, other_sk, {}, "private key seed does not match the expanded key"},
      {"seed vs other pub", seed, {}, other_pk, "public key does not match the private key"},
      {"priv vs other pub", {}, sk, other_pk, "public key does not match the private key"},
      {"short seed", std::vector<uint8_t>(31, 1), {}, {}, "ML-DSA seed must be 32 bytes"},
      {"short priv", {}, std::vector<uint8_t>(sk.begin(), sk.end() - 1), {}, "wrong length for an ML-DSA private key"},
      {"44-sized pub", {}, {}, std::vector<uint8_t>(1312, 0), "wrong length for an ML-DSA public key"},
      {"s1 out of range", {}, bad_s1, {}, "private key s1 coefficient out of range"},
  };
  for (const Case& c : cases) {
    ERR_clear_error();
    EVP_PKEY* pkey = fromdata(set, c.seed, c.priv, c.pub);
    EXPECT_EQ(pkey, nullptr) << c.what;
    EXPECT_TRUE(raised(c.reason)) << c.what;
    EVP_PKEY_free(pkey);
  }
  // Nothing at all.
  ERR_clear_error();
  EXPECT_EQ(fromdata(set, {}, {}, {}), nullptr);
}

// An import whose selection names no key part (only domain parameters,
// which these keys do not have, or nothing) fails with a reason, not an
// empty error queue (found by tests/fuzz/params_fuzz.cc).
TEST_F(Keymgmt, ImportWithoutKeyPartIsNamed) {
  const auto pub = vec(core_key(ParamSet::ML_DSA_44, seed_of(9))->public_key().encoded());
  for (int selection : {EVP_PKEY_KEY_PARAMETERS, 0}) {
    ERR_clear_error();
    EXPECT_EQ(fromdata(ParamSet::ML_DSA_44, {}, {}, pub, selection), nullptr) << selection;
    EXPECT_TRUE(raised("operation not supported by ML-DSA")) << selection;
  }
}

// prefer_seed = no: the expanded key is what gets loaded, so a malformed one
// is reported as such rather than as a mismatch with the seed.
TEST_F(Keymgmt, PreferSeedNo) {
  setenv("MLDSA_ACCEL_PREFER_SEED", "no", 1);
  OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
  ASSERT_TRUE(OSSL_PROVIDER_set_default_search_path(ctx, MLDSA_PROVIDER_DIR));
  OSSL_PROVIDER* p = OSSL_PROVIDER_load(ctx, "mldsa-accel");
  unsetenv("MLDSA_ACCEL_PREFER_SEED");
  ASSERT_NE(p, nullptr);
  const auto seed = seed_of(10);
  auto ref = core_key(ParamSet::ML_DSA_44, seed);
  std::vector<uint8_t> bad = vec(ref->encoded());
  bad[128] = 0xff;
  std::swap(libctx_, ctx);  // fromdata() works on libctx_
  ERR_clear_error();
  EXPECT_EQ(fromdata(ParamSet::ML_DSA_44, seed, bad, {}), nullptr);
  EXPECT_TRUE(raised("private key s1 coefficient out of range"));
  EVP_PKEY* good = fromdata(ParamSet::ML_DSA_44, seed, vec(ref->encoded()), {});
  EXPECT_NE(good, nullptr);
  EVP_PKEY_free(good);
  std::swap(libctx_, ctx);
  // Default (prefer_seed = yes): the seed is used and the sk compared with it.
  ERR_clear_error();
  EXPECT_EQ(fromdata(ParamSet::ML_DSA_44, seed, bad, {}), nullptr);
  EXPECT_TRUE(raised("private key seed does not match the expanded key"));
  OSSL_PROVIDER_unload(p);
  OSSL_LIB_CTX_free(ctx);
}

TEST_F(Keymgmt, ExportTodata) {
  const auto seed = seed_of(11);
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_87, seed);
  ASSERT_NE(pkey, nullptr);
  OSSL_PARAM* out = nullptr;
  ASSERT_EQ(EVP_PKEY_todata(pkey, EVP_PKEY_KEYPAIR, &out), 1);
  auto ref = core_key(ParamSet::ML_DSA_87, seed);
  auto get = [&](const char* name) {
    const OSSL_PARAM* p = OSSL_PARAM_locate_const(out, name);
    const void* d = nullptr;
    size_t n = 0;
    if (p == nullptr || !OSSL_PARAM_get_octet_string_ptr(p, &d, &n)) return std::vector<uint8_t>{};
    return std::vector<uint8_t>(static_cast<const uint8_t*>(d), static_cast<const uint8_t*>(d) + n);
  };
  EXPECT_EQ(get("seed"), seed);
  EXPECT_EQ(get("priv"), vec(ref->encoded()));
  EXPECT_EQ(get("pub"), vec(ref->public_key().encoded()));
  OSSL_PARAM_free(out);
  out = nullptr;
  ASSERT_EQ(EVP_PKEY_todata(pkey, EVP_PKEY_PUBLIC_KEY, &out), 1);
  EXPECT_EQ(OSSL_PARAM_locate_const(out, "priv"), nullptr);
  EXPECT_EQ(OSSL_PARAM_locate_const(out, "seed"), nullptr);
  EXPECT_NE(OSSL_PARAM_locate_const(out, "pub"), nullptr);
  OSSL_PARAM_free(out);
  EVP_PKEY_free(pkey);
}

TEST_F(Keymgmt, ValidateAndCheck) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed_of(12));
  ASSERT_NE(pkey, nullptr);
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(libctx_, pkey, nullptr);
  EXPECT_EQ(EVP_PKEY_check(ctx), 1) << last_reason();
  EXPECT_EQ(EVP_PKEY_pairwise_check(ctx), 1);
  EXPECT_EQ(EVP_PKEY_public_check(ctx), 1);
  EXPECT_EQ(EVP_PKEY_private_check(ctx), 1);
  EVP_PKEY_CTX_free(ctx);

  EVP_PKEY* pub = fromdata(ParamSet::ML_DSA_44, {}, {}, octets(pkey, "pub"), EVP_PKEY_PUBLIC_KEY);
  ASSERT_NE(pub, nullptr);
  ctx = EVP_PKEY_CTX_new_from_pkey(libctx_, pub, nullptr);
  EXPECT_EQ(EVP_PKEY_public_check(ctx), 1);
  ERR_clear_error();
  EXPECT_NE(EVP_PKEY_check(ctx), 1);  // no private part to pair with
  EVP_PKEY_CTX_free(ctx);
  EVP_PKEY_free(pub);
  EVP_PKEY_free(pkey);
}

TEST_F(Keymgmt, DupKeepsEverything) {
  for (bool with_seed : {true, false}) {
    const auto seed = seed_of(13);
    auto ref = core_key(ParamSet::ML_DSA_65, seed);
    EVP_PKEY* pkey = with_seed ? keygen(ParamSet::ML_DSA_65, seed) : fromdata(ParamSet::ML_DSA_65, {}, vec(ref->encoded()), {});
    ASSERT_NE(pkey, nullptr);
    EVP_PKEY* copy = EVP_PKEY_dup(pkey);
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(EVP_PKEY_eq(pkey, copy), 1);
    EXPECT_EQ(octets(copy, "priv"), octets(pkey, "priv"));
    EXPECT_EQ(octets(copy, "seed"), with_seed ? seed : std::vector<uint8_t>{});
    EVP_PKEY_free(copy);
    EVP_PKEY_free(pkey);
  }
}

TEST_F(Keymgmt, MatchAcrossParameterSets) {
  EVP_PKEY* a = keygen(ParamSet::ML_DSA_44, seed_of(14));
  EVP_PKEY* b = keygen(ParamSet::ML_DSA_65, seed_of(14));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(EVP_PKEY_eq(a, b), 1);
  EVP_PKEY_free(a);
  EVP_PKEY_free(b);
}

}  // namespace
}  // namespace mldsa::test
