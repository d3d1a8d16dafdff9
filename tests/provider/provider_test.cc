// provider_test.cc - loading the module: its parameters, algorithm names, the
// superset signature table on this core, reason strings, OIDs, configuration.
#include "provctx/errors.h"
#include "tests/provider/provider_fixture.h"

#include <openssl/conf.h>
#include <openssl/objects.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <unistd.h>

namespace mldsa::test {
namespace {

using ProviderLoad = ProviderTest;

TEST_F(ProviderLoad, GettableParams) {
  const char* name = nullptr;
  const char* version = nullptr;
  const char* buildinfo = nullptr;
  int status = 0;
  OSSL_PARAM p[] = {
      OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, &name, 0),
      OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, &version, 0),
      OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, &buildinfo, 0),
      OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, &status),
      OSSL_PARAM_END,
  };
  ASSERT_EQ(OSSL_PROVIDER_get_params(prov_, p), 1);
  ASSERT_NE(name, nullptr);
  EXPECT_STREQ(name, "mldsa-accel");
  ASSERT_NE(version, nullptr);
  EXPECT_GT(std::string(version).size(), 0u);
  ASSERT_NE(buildinfo, nullptr);
  EXPECT_NE(std::string(buildinfo).find("mldsa-accel"), std::string::npos);
  EXPECT_EQ(status, 1);
  const OSSL_PARAM* gettable = OSSL_PROVIDER_gettable_params(prov_);
  for (const char* key : {"name", "version", "buildinfo", "status"})
    EXPECT_NE(OSSL_PARAM_locate_const(gettable, key), nullptr) << key;
  // Types `openssl list -providers -verbose` can print, status as the
  // default provider declares it.
  EXPECT_EQ(OSSL_PARAM_locate_const(gettable, "status")->data_type, OSSL_PARAM_INTEGER);
  for (const OSSL_PARAM* g = gettable; g->key != nullptr; ++g)
    EXPECT_TRUE(g->data_type == OSSL_PARAM_INTEGER || g->data_type == OSSL_PARAM_UNSIGNED_INTEGER ||
                g->data_type == OSSL_PARAM_UTF8_STRING || g->data_type == OSSL_PARAM_UTF8_PTR)
        << g->key << " has type " << g->data_type;
  char mean[32] = "";
  OSSL_PARAM m[] = {OSSL_PARAM_utf8_string("mean-batch-size", mean, sizeof mean), OSSL_PARAM_END};
  ASSERT_EQ(OSSL_PROVIDER_get_params(prov_, m), 1);
  EXPECT_NE(std::string(mean).find('.'), std::string::npos) << mean;
}

TEST_F(ProviderLoad, KeyManagersUnderEveryName) {
  for (const char* name : {"ML-DSA-44", "MLDSA44", "2.16.840.1.101.3.4.3.17", "id-ml-dsa-44", "ML-DSA-65", "MLDSA65",
                           "2.16.840.1.101.3.4.3.18", "id-ml-dsa-65", "ML-DSA-87", "MLDSA87",
                           "2.16.840.1.101.3.4.3.19", "id-ml-dsa-87"}) {
    EVP_KEYMGMT* km = EVP_KEYMGMT_fetch(libctx_, name, "provider=mldsa-accel");
    EXPECT_NE(km, nullptr) << name;
    if (km != nullptr) {
      EXPECT_TRUE(EVP_KEYMGMT_is_a(km, name));
    }
    EVP_KEYMGMT_free(km);
  }
}

// The table carries 3.4+ function ids (sign_message_*, query_key_types);
// this core must still accept it.
TEST_F(ProviderLoad, SignatureTableAcceptedByThisCore) {
  for (const char* name :
       {"ML-DSA-44", "ML-DSA-65", "ML-DSA-87", "id-ml-dsa-65", "2.16.840.1.101.3.4.3.19",
        "HASH-ML-DSA-44-WITH-SHA512", "id-hash-ml-dsa-65-with-sha512", "2.16.840.1.101.3.4.3.34"}) {
    EVP_SIGNATURE* sig = EVP_SIGNATURE_fetch(libctx_, name, "provider=mldsa-accel");
    EXPECT_NE(sig, nullptr) << name << ": " << last_reason();
    EVP_SIGNATURE_free(sig);
  }
  Dispatch d(prov_, OSSL_OP_SIGNATURE, "ML-DSA-65");
  ASSERT_TRUE(d.found());
  for (int id = 27; id <= 32; ++id) EXPECT_NE(d.get<void(void)>(id), nullptr) << "function id " << id;
}

TEST_F(ProviderLoad, EveryReasonHasAString) {
  // Raise one error through the module to learn its library number.
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed_of(1));
  ASSERT_NE(pkey, nullptr);
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ASSERT_EQ(EVP_DigestSignInit_ex(md, nullptr, "SHA256", libctx_, nullptr, pkey, nullptr), 0);
  const unsigned long err = ERR_peek_last_error();
  EXPECT_TRUE(raised("unsupported digest for ML-DSA"));
  const int lib = ERR_GET_LIB(err);
  for (int r = prov::R_CONTEXT_TOO_LONG; r < prov::R_END; ++r) {
    const char* s = ERR_reason_error_string(ERR_PACK(lib, 0, r));
    EXPECT_NE(s, nullptr) << "reason " << r;
  }
  EXPECT_STREQ(ERR_reason_error_string(ERR_PACK(lib, 0, prov::R_CONTEXT_TOO_LONG)),
               "context string longer than 255 bytes");
  EXPECT_STREQ(ERR_reason_error_string(ERR_PACK(lib, 0, prov::R_SEED_PRIV_MISMATCH)),
               "private key seed does not match the expanded key");
  EVP_MD_CTX_free(md);
  EVP_PKEY_free(pkey);
}

// X.509 verification on 3.0 maps a signature OID to (digest, key type)
// through the sigid table the module fills.
TEST_F(ProviderLoad, ObjectsAndSigidsRegistered) {
  struct Row {
    const char* oid;
    const char* sn;
    const char* key_oid;
  };
  const Row rows[] = {
      {"2.16.840.1.101.3.4.3.17", "id-ml-dsa-44", "2.16.840.1.101.3.4.3.17"},
      {"2.16.840.1.101.3.4.3.18", "id-ml-dsa-65", "2.16.840.1.101.3.4.3.18"},
      {"2.16.840.1.101.3.4.3.19", "id-ml-dsa-87", "2.16.840.1.101.3.4.3.19"},
      {"2.16.840.1.101.3.4.3.32", "id-hash-ml-dsa-44-with-sha512", "2.16.840.1.101.3.4.3.17"},
      {"2.16.840.1.101.3.4.3.33", "id-hash-ml-dsa-65-with-sha512", "2.16.840.1.101.3.4.3.18"},
      {"2.16.840.1.101.3.4.3.34", "id-hash-ml-dsa-87-with-sha512", "2.16.840.1.101.3.4.3.19"},
  };
  for (const Row& r : rows) {
    const int nid = OBJ_txt2nid(r.oid);
    ASSERT_NE(nid, NID_undef) << r.oid;
    EXPECT_STREQ(OBJ_nid2sn(nid), r.sn);
    int md = -1, pk = -1;
    ASSERT_EQ(OBJ_find_sigid_algs(nid, &md, &pk), 1) << r.sn;
    EXPECT_EQ(md, NID_undef) << r.sn;
    EXPECT_EQ(pk, OBJ_txt2nid(r.key_oid)) << r.sn;
  }
}

// A second library context loads the module again (a second instance).
TEST_F(ProviderLoad, TwoInstancesAtOnce) {
  OSSL_LIB_CTX* other = OSSL_LIB_CTX_new();
  ASSERT_NE(other, nullptr);
  ASSERT_TRUE(OSSL_PROVIDER_set_default_search_path(other, MLDSA_PROVIDER_DIR));
  OSSL_PROVIDER* p2 = OSSL_PROVIDER_load(other, "mldsa-accel");
  ASSERT_NE(p2, nullptr);
  OSSL_PROVIDER_unload(p2);
  OSSL_LIB_CTX_free(other);
  // Errors still resolve to strings through the remaining instance.
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed_of(2));
  ASSERT_NE(pkey, nullptr);
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  EXPECT_EQ(EVP_DigestSignInit_ex(md, nullptr, "SHA256", libctx_, nullptr, pkey, nullptr), 0);
  EXPECT_TRUE(raised("unsupported digest for ML-DSA"));
  EVP_MD_CTX_free(md);
  EVP_PKEY_free(pkey);
}

// The library number of the newest error, after one raised through libctx's
// instance (EVP_DigestSignInit with a digest ML-DSA refuses).
int error_library_of(OSSL_LIB_CTX* libctx, EVP_PKEY* pkey) {
  ERR_clear_error();
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  EXPECT_EQ(EVP_DigestSignInit_ex(md, nullptr, "SHA256", libctx, nullptr, pkey, nullptr), 0);
  EVP_MD_CTX_free(md);
  unsigned long e = 0;
  for (unsigned long x; (x = ERR_get_error()) != 0;)
    if (ERR_GET_REASON(x) == prov::R_UNSUPPORTED_DIGEST) e = x;
  EXPECT_NE(e, 0u) << "no unsupported-digest error raised";
  return ERR_GET_LIB(e);
}

// Each error is raised through the instance doing the work: with a second
// instance loaded (newer), the first one's errors keep its library number,
// and still resolve to their strings after the second is freed.
TEST_F(ProviderLoad, ErrorsComeFromTheInstanceDoingTheWork) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed_of(3));
  ASSERT_NE(pkey, nullptr);
  const int lib_a = error_library_of(libctx_, pkey);

  OSSL_LIB_CTX* other = OSSL_LIB_CTX_new();
  ASSERT_NE(other, nullptr);
  ASSERT_TRUE(OSSL_PROVIDER_set_default_search_path(other, MLDSA_PROVIDER_DIR));
  OSSL_PROVIDER* p2 = OSSL_PROVIDER_load(other, "mldsa-accel");
  ASSERT_NE(p2, nullptr);
  OSSL_PROVIDER* deflt_b = OSSL_PROVIDER_load(other, "default");  // its DRBG, for the unseeded keygen
  ASSERT_NE(deflt_b, nullptr);
  EVP_PKEY* pkey_b = nullptr;
  EVP_PKEY_CTX* gen = EVP_PKEY_CTX_new_from_name(other, "ML-DSA-44", nullptr);
  ASSERT_EQ(EVP_PKEY_keygen_init(gen), 1);
  ASSERT_EQ(EVP_PKEY_keygen(gen, &pkey_b), 1);
  EVP_PKEY_CTX_free(gen);
  const int lib_b = error_library_of(other, pkey_b);
  EXPECT_NE(lib_b, lib_a);
  EXPECT_EQ(error_library_of(libctx_, pkey), lib_a) << "an error of the first instance under the second's number";

  // An error of the first instance waits in the queue while the second goes.
  ERR_clear_error();
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ASSERT_EQ(EVP_DigestVerifyInit_ex(md, nullptr, nullptr, libctx_, nullptr, pkey, nullptr), 1);
  const uint8_t short_sig[10] = {};
  EXPECT_NE(EVP_DigestVerify(md, short_sig, sizeof short_sig, short_sig, sizeof short_sig), 1);
  EVP_MD_CTX_free(md);
  EVP_PKEY_free(pkey_b);
  OSSL_PROVIDER_unload(deflt_b);
  OSSL_PROVIDER_unload(p2);
  OSSL_LIB_CTX_free(other);
  EXPECT_TRUE(raised("wrong length for an ML-DSA signature"));
  EVP_PKEY_free(pkey);
}

// Without a random generator in the library context (the default provider not
// loaded), key generation and hedged signing fail with a reason that says what
// to activate, instead of drawing from another source; what needs no
// randomness (a key from a seed, deterministic signing, verifying) still works.
TEST_F(ProviderLoad, NoRandomGeneratorIsANamedError) {
  const std::string reason = "no random generator in the library context: activate the default provider";
  OSSL_LIB_CTX* bare = OSSL_LIB_CTX_new();
  ASSERT_NE(bare, nullptr);
  ASSERT_TRUE(OSSL_PROVIDER_set_default_search_path(bare, MLDSA_PROVIDER_DIR));
  OSSL_PROVIDER* p2 = OSSL_PROVIDER_load(bare, "mldsa-accel");
  ASSERT_NE(p2, nullptr);
  ERR_clear_error();
  for (const char* alg : {"ML-DSA-65", "dilithium3"}) {
    EVP_PKEY* none = nullptr;
    EVP_PKEY_CTX* gen = EVP_PKEY_CTX_new_from_name(bare, alg, nullptr);
    ASSERT_NE(gen, nullptr) << alg;
    ASSERT_EQ(EVP_PKEY_keygen_init(gen), 1) << alg;
    EXPECT_LE(EVP_PKEY_keygen(gen, &none), 0) << alg << ": an unseeded keygen succeeded without a DRBG";
    EXPECT_EQ(none, nullptr);
    EXPECT_TRUE(raised(reason)) << alg;
    EVP_PKEY_CTX_free(gen);
  }

  // A key from a seed, then hedged signing (fails, named) and deterministic
  // signing (works, and verifies).
  std::vector<uint8_t> seed = seed_of(7);
  OSSL_PARAM params[] = {OSSL_PARAM_construct_octet_string("seed", seed.data(), seed.size()), OSSL_PARAM_construct_end()};
  EVP_PKEY_CTX* gen = EVP_PKEY_CTX_new_from_name(bare, "ML-DSA-65", nullptr);
  ASSERT_EQ(EVP_PKEY_keygen_init(gen), 1);
  ASSERT_EQ(EVP_PKEY_CTX_set_params(gen, params), 1);
  EVP_PKEY* pkey = nullptr;
  ASSERT_EQ(EVP_PKEY_keygen(gen, &pkey), 1);
  EVP_PKEY_CTX_free(gen);
  const uint8_t msg[] = "no randomness here";
  std::vector<uint8_t> sig(4096);
  for (int deterministic : {0, 1}) {
    OSSL_PARAM sp[] = {OSSL_PARAM_construct_int("deterministic", &deterministic), OSSL_PARAM_construct_end()};
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    ASSERT_EQ(EVP_DigestSignInit_ex(md, nullptr, nullptr, bare, nullptr, pkey, sp), 1);
    size_t siglen = sig.size();
    const int ok = EVP_DigestSign(md, sig.data(), &siglen, msg, sizeof msg);
    EVP_MD_CTX_free(md);
    if (deterministic == 0) {
      EXPECT_NE(ok, 1) << "a hedged signature was made without a DRBG";
      EXPECT_TRUE(raised(reason));
      continue;
    }
    ASSERT_EQ(ok, 1);
    md = EVP_MD_CTX_new();
    ASSERT_EQ(EVP_DigestVerifyInit_ex(md, nullptr, nullptr, bare, nullptr, pkey, nullptr), 1);
    EXPECT_EQ(EVP_DigestVerify(md, sig.data(), siglen, msg, sizeof msg), 1);
    EVP_MD_CTX_free(md);
  }
  EVP_PKEY_free(pkey);
  OSSL_PROVIDER_unload(p2);
  OSSL_LIB_CTX_free(bare);
  ERR_clear_error();
}

// A refused load (a bad setting) still prints its reason by name:
// the strings are registered for the refused instance's library number.
TEST(ProviderRefusal, ReasonPrintsByName) {
  OSSL_LIB_CTX* libctx = OSSL_LIB_CTX_new();
  ASSERT_NE(libctx, nullptr);
  ASSERT_TRUE(OSSL_PROVIDER_set_default_search_path(libctx, MLDSA_PROVIDER_DIR));
  setenv("MLDSA_ACCEL_GPU_MAX_BATCH", "lots", 1);
  ERR_clear_error();
  OSSL_PROVIDER* prov = OSSL_PROVIDER_load(libctx, "mldsa-accel");
  unsetenv("MLDSA_ACCEL_GPU_MAX_BATCH");
  EXPECT_EQ(prov, nullptr);
  bool found = false;
  for (unsigned long e; (e = ERR_get_error()) != 0;) {
    const char* reason = ERR_reason_error_string(e);
    const char* lib = ERR_lib_error_string(e);
    if (reason != nullptr && std::string(reason) == "bad mldsa-accel setting") {
      found = true;
      EXPECT_STREQ(lib, "mldsa-accel");
    }
  }
  EXPECT_TRUE(found) << "the refusal's reason did not resolve to its string";
  OSSL_PROVIDER_unload(prov);
  OSSL_LIB_CTX_free(libctx);
}

// ---------------------------------------------------------------------------
// Configuration: openssl.cnf keys and MLDSA_ACCEL_* overrides

class ProviderConfig : public ::testing::Test {
 protected:
  void TearDown() override {
    unsetenv("MLDSA_ACCEL_RETAIN_SEED");
    unsetenv("MLDSA_ACCEL_PREFER_SEED");
    if (!conf_path_.empty()) std::remove(conf_path_.c_str());
    OSSL_PROVIDER_unload(deflt_);
    OSSL_PROVIDER_unload(prov_);
    OSSL_LIB_CTX_free(libctx_);
  }

  // Loads the module through a config file with these extra section lines.
  bool load_with_config(const std::string& extra) {
    // One file per test and process: ctest runs tests in parallel.
    conf_path_ = ::testing::TempDir() + "mldsa_accel_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
                 std::to_string(getpid()) + ".cnf";
    std::ofstream f(conf_path_);
    f << "openssl_conf = openssl_init\n[openssl_init]\nproviders = provider_sect\n"
      << "[provider_sect]\nmldsa-accel = mldsa_sect\ndefault = default_sect\n"
      << "[mldsa_sect]\nmodule = " MLDSA_PROVIDER_DIR "/mldsa-accel.so\nactivate = 1\n"
      << extra << "\n[default_sect]\nactivate = 1\n";
    f.close();
    libctx_ = OSSL_LIB_CTX_new();
    if (libctx_ == nullptr || !OSSL_LIB_CTX_load_config(libctx_, conf_path_.c_str())) {
      ERR_print_errors_fp(stderr);
      return false;
    }
    return OSSL_PROVIDER_available(libctx_, "mldsa-accel") == 1;
  }

  bool load_plain() {
    libctx_ = OSSL_LIB_CTX_new();
    return libctx_ != nullptr && OSSL_PROVIDER_set_default_search_path(libctx_, MLDSA_PROVIDER_DIR) &&
           (prov_ = OSSL_PROVIDER_load(libctx_, "mldsa-accel")) != nullptr &&
           (deflt_ = OSSL_PROVIDER_load(libctx_, "default")) != nullptr;
  }

  // Generates a key from a fixed seed; returns whether the key kept it.
  bool keygen_keeps_seed() {
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx_, "ML-DSA-65", nullptr);
    std::vector<uint8_t> seed = seed_of(9);
    OSSL_PARAM p[] = {OSSL_PARAM_octet_string("seed", seed.data(), seed.size()), OSSL_PARAM_END};
    EVP_PKEY* pkey = nullptr;
    EXPECT_EQ(EVP_PKEY_keygen_init(ctx), 1);
    EXPECT_EQ(EVP_PKEY_CTX_set_params(ctx, p), 1);
    EXPECT_EQ(EVP_PKEY_keygen(ctx, &pkey), 1);
    size_t len = 0;
    const bool kept = pkey != nullptr && EVP_PKEY_get_octet_string_param(pkey, "seed", nullptr, 0, &len) == 1 &&
                      len == SEED_BYTES;
    EXPECT_GT(ProviderTest::octets(pkey, "priv").size(), 0u);
    EVP_PKEY_free(pkey);
    EVP_PKEY_CTX_free(ctx);
    return kept;
  }

  OSSL_LIB_CTX* libctx_ = nullptr;
  OSSL_PROVIDER* prov_ = nullptr;
  OSSL_PROVIDER* deflt_ = nullptr;
  std::string conf_path_;
};

TEST_F(ProviderConfig, DefaultRetainsSeed) {
  ASSERT_TRUE(load_plain());
  EXPECT_TRUE(keygen_keeps_seed());
}

TEST_F(ProviderConfig, RetainSeedNoFromConfigFile) {
  ASSERT_TRUE(load_with_config("ml-dsa.retain_seed = no"));
  EXPECT_FALSE(keygen_keeps_seed());
}

TEST_F(ProviderConfig, EnvironmentOverridesConfigFile) {
  setenv("MLDSA_ACCEL_RETAIN_SEED", "yes", 1);
  ASSERT_TRUE(load_with_config("ml-dsa.retain_seed = no"));
  EXPECT_TRUE(keygen_keeps_seed());
}

TEST_F(ProviderConfig, RetainSeedNoFromEnvironment) {
  setenv("MLDSA_ACCEL_RETAIN_SEED", "0", 1);
  ASSERT_TRUE(load_plain());
  EXPECT_FALSE(keygen_keeps_seed());
}

}  // namespace
}  // namespace mldsa::test
