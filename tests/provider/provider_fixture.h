// provider_fixture.h - a fresh OpenSSL library context with the built
// mldsa-accel module loaded, and small EVP helpers shared by the provider tests.
#pragma once

#include <gtest/gtest.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstdint>
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "cpu/mldsa.h"

#ifndef MLDSA_PROVIDER_DIR
#error "MLDSA_PROVIDER_DIR must name the folder holding mldsa-accel.so"
#endif

namespace mldsa::test {

inline constexpr ParamSet kSets[] = {ParamSet::ML_DSA_44, ParamSet::ML_DSA_65, ParamSet::ML_DSA_87};

// The reason of the newest error in the queue, as text ("" when none).
inline std::string last_reason() {
  unsigned long e = ERR_peek_last_error();
  const char* r = e ? ERR_reason_error_string(e) : nullptr;
  return r ? r : "";
}

// Whether the error queue holds reason (EVP may add its own errors after the
// provider's); drains the queue. The failure message lists what it held.
inline ::testing::AssertionResult raised(const std::string& reason) {
  std::string seen;
  bool found = false;
  for (unsigned long e; (e = ERR_get_error()) != 0;) {
    const char* r = ERR_reason_error_string(e);
    const std::string text = r ? r : "(lib " + std::to_string(ERR_GET_LIB(e)) + " reason " + std::to_string(ERR_GET_REASON(e)) + ")";
    found = found || text == reason;
    seen += (seen.empty() ? "" : " | ") + text;
  }
  if (found) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << reason << "\" not raised; queue: " << (seen.empty() ? "(empty)" : seen);
}

// Whether the error queue holds reason with a detail text that names the
// parameter `name` ("seed: ..."); drains the queue.
inline ::testing::AssertionResult raised_for(const std::string& reason, const std::string& name) {
  std::string seen;
  bool found = false;
  const char* data = nullptr;
  int flags = 0;
  for (unsigned long e; (e = ERR_get_error_all(nullptr, nullptr, nullptr, &data, &flags)) != 0;) {
    const char* r = ERR_reason_error_string(e);
    const std::string text = std::string(r ? r : "(unnamed reason)") + " [" + ((flags & ERR_TXT_STRING) ? data : "") + "]";
    found = found || (r != nullptr && r == reason && (flags & ERR_TXT_STRING) != 0 &&
                      std::string_view(data).find(name) != std::string_view::npos);
    seen += (seen.empty() ? "" : " | ") + text;
  }
  if (found) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << reason << "\" naming " << name
                                       << " not raised; queue: " << (seen.empty() ? "(empty)" : seen);
}

inline std::vector<uint8_t> seed_of(uint8_t tag) {
  std::vector<uint8_t> s(SEED_BYTES);
  for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<uint8_t>(tag * 29 + i * 3 + 5);
  return s;
}

// The module loaded once per test process into its own library context
// (plus "default" for SHA-512, the DRBG and PEM/PKCS#8 wrapping). Once, because
// every load of a provider takes a new error library number and OpenSSL 3.0
// has only 128 of them: the 129th instance's errors would lose their strings.
struct SharedProvider {
  OSSL_LIB_CTX* libctx = nullptr;
  OSSL_PROVIDER* prov = nullptr;
  OSSL_PROVIDER* deflt = nullptr;

  static const SharedProvider& get() {
    static const SharedProvider shared = [] {
      SharedProvider s;
      s.libctx = OSSL_LIB_CTX_new();
      if (s.libctx == nullptr || !OSSL_PROVIDER_set_default_search_path(s.libctx, MLDSA_PROVIDER_DIR)) return s;
      s.prov = OSSL_PROVIDER_load(s.libctx, "mldsa-accel");
      s.deflt = OSSL_PROVIDER_load(s.libctx, "default");
      if (s.prov == nullptr) ERR_print_errors_fp(stderr);
      return s;
    }();
    return shared;
  }
};

class ProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ERR_clear_error();
    const SharedProvider& s = SharedProvider::get();
    ASSERT_NE(s.prov, nullptr) << "could not load mldsa-accel from " MLDSA_PROVIDER_DIR;
    ASSERT_NE(s.deflt, nullptr);
    libctx_ = s.libctx;
    prov_ = s.prov;
  }
  void TearDown() override { ERR_clear_error(); }

  // A key generated from fresh randomness.
  EVP_PKEY* random_keygen(ParamSet set) {
    EVP_PKEY* pkey = nullptr;
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx_, params(set).name, nullptr);
    if (ctx == nullptr || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_keygen(ctx, &pkey) != 1) pkey = nullptr;
    EVP_PKEY_CTX_free(ctx);
    return pkey;
  }

  // A key generated from a fixed seed (the "seed" keygen parameter).
  EVP_PKEY* keygen(ParamSet set, const std::vector<uint8_t>& seed) {
    EVP_PKEY* pkey = nullptr;
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx_, params(set).name, nullptr);
    EXPECT_NE(ctx, nullptr);
    if (ctx == nullptr) return nullptr;
    OSSL_PARAM p[] = {
        OSSL_PARAM_octet_string("seed", const_cast<uint8_t*>(seed.data()), seed.size()),
        OSSL_PARAM_END,
    };
    EXPECT_EQ(EVP_PKEY_keygen_init(ctx), 1);
    EXPECT_EQ(EVP_PKEY_CTX_set_params(ctx, p), 1);
    EXPECT_EQ(EVP_PKEY_keygen(ctx, &pkey), 1) << last_reason();
    EVP_PKEY_CTX_free(ctx);
    return pkey;
  }

  // EVP_PKEY_fromdata with whichever of seed / priv / pub are non-empty.
  EVP_PKEY* fromdata(ParamSet set, const std::vector<uint8_t>& seed, const std::vector<uint8_t>& priv,
                     const std::vector<uint8_t>& pub, int selection = EVP_PKEY_KEYPAIR) {
    EVP_PKEY* pkey = nullptr;
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx_, params(set).name, nullptr);
    if (ctx == nullptr) return nullptr;
    OSSL_PARAM p[4];
    int n = 0;
    if (!seed.empty()) p[n++] = OSSL_PARAM_construct_octet_string("seed", const_cast<uint8_t*>(seed.data()), seed.size());
    if (!priv.empty()) p[n++] = OSSL_PARAM_construct_octet_string("priv", const_cast<uint8_t*>(priv.data()), priv.size());
    if (!pub.empty()) p[n++] = OSSL_PARAM_construct_octet_string("pub", const_cast<uint8_t*>(pub.data()), pub.size());
    p[n] = OSSL_PARAM_construct_end();
    if (EVP_PKEY_fromdata_init(ctx) != 1 || EVP_PKEY_fromdata(ctx, &pkey, selection, p) != 1) pkey = nullptr;
    EVP_PKEY_CTX_free(ctx);
    return pkey;
  }


 public:
  // An octet-string key parameter ("seed", "priv", "pub"); empty if absent.
  static std::vector<uint8_t> octets(const EVP_PKEY* pkey, const char* name) {
    size_t len = 0;
    if (EVP_PKEY_get_octet_string_param(pkey, name, nullptr, 0, &len) != 1) return {};
    std::vector<uint8_t> out(len);
    if (EVP_PKEY_get_octet_string_param(pkey, name, out.data(), out.size(), &len) != 1) return {};
    out.resize(len);
    return out;
  }

 protected:
  OSSL_LIB_CTX* libctx_ = nullptr;
  OSSL_PROVIDER* prov_ = nullptr;
};

// Finds a function in the provider's own dispatch table for an algorithm,
// to drive entry points the 3.0 EVP layer never calls (sign_message_*, the
// HashML-DSA algorithms) exactly as a 3.4+ core would.
class Dispatch {
 public:
  Dispatch(OSSL_PROVIDER* prov, int operation, const char* name) {
    int no_cache = 0;
    const OSSL_ALGORITHM* algs = OSSL_PROVIDER_query_operation(prov, operation, &no_cache);
    for (; algs != nullptr && algs->algorithm_names != nullptr; ++algs) {
      std::string_view names = algs->algorithm_names;
      for (size_t start = 0; start <= names.size();) {
        const size_t end = std::min(names.find(':', start), names.size());
        if (names.substr(start, end - start) == name) fns_ = algs->implementation;
        start = end + 1;
      }
      if (fns_ != nullptr) break;
    }
  }
  bool found() const { return fns_ != nullptr; }
  template <typename Fn>
  Fn* get(int id) const {
    for (const OSSL_DISPATCH* f = fns_; f != nullptr && f->function_id != 0; ++f)
      if (f->function_id == id) return reinterpret_cast<Fn*>(f->function);
    return nullptr;
  }

 private:
  const OSSL_DISPATCH* fns_ = nullptr;
};

}  // namespace mldsa::test

namespace mldsa::test {

// A key object made through the provider's own keymgmt functions (the
// keydata an EVP_PKEY would hold), for the Dispatch-level tests.
class RawKey {
 public:
  RawKey(OSSL_PROVIDER* prov, ParamSet set, const std::vector<uint8_t>& seed, const std::vector<uint8_t>& pub = {})
      : km_(prov, OSSL_OP_KEYMGMT, params(set).name) {
    auto km_new = km_.get<OSSL_FUNC_keymgmt_new_fn>(OSSL_FUNC_KEYMGMT_NEW);
    auto km_import = km_.get<OSSL_FUNC_keymgmt_import_fn>(OSSL_FUNC_KEYMGMT_IMPORT);
    free_ = km_.get<OSSL_FUNC_keymgmt_free_fn>(OSSL_FUNC_KEYMGMT_FREE);
    if (km_new == nullptr || km_import == nullptr || free_ == nullptr) return;
    key_ = km_new(OSSL_PROVIDER_get0_provider_ctx(prov));
    OSSL_PARAM p[2];
    if (!seed.empty())
      p[0] = OSSL_PARAM_construct_octet_string("seed", const_cast<uint8_t*>(seed.data()), seed.size());
    else
      p[0] = OSSL_PARAM_construct_octet_string("pub", const_cast<uint8_t*>(pub.data()), pub.size());
    p[1] = OSSL_PARAM_construct_end();
    if (key_ != nullptr && km_import(key_, OSSL_KEYMGMT_SELECT_KEYPAIR, p) != 1) {
      free_(key_);
      key_ = nullptr;
    }
  }
  ~RawKey() {
    if (key_ != nullptr) free_(key_);
  }
  RawKey(const RawKey&) = delete;
  RawKey& operator=(const RawKey&) = delete;
  void* get() const { return key_; }

 private:
  Dispatch km_;
  OSSL_FUNC_keymgmt_free_fn* free_ = nullptr;
  void* key_ = nullptr;
};

}  // namespace mldsa::test
