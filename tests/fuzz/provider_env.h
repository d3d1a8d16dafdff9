// provider_env.h - what the provider fuzz targets share: one library context
// with mldsa-accel registered as a built-in provider (the module's objects
// are linked into the target, so its code is instrumented and covered) and
// OpenSSL's default provider (PEM, encrypted PKCS#8, SHA-512, the DRBG).
#pragma once

#include <openssl/core.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdio>
#include <cstdlib>

extern "C" int OSSL_provider_init(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in,
                                  const OSSL_DISPATCH** out, void** provctx);

namespace mldsa::fuzz {

// Stops the run: libFuzzer saves the input that got here as a crash.
[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what);
  ERR_print_errors_fp(stderr);
  std::abort();
}

inline OSSL_LIB_CTX* libctx() {
  static OSSL_LIB_CTX* ctx = [] {
    OSSL_LIB_CTX* c = OSSL_LIB_CTX_new();
    if (c == nullptr || OSSL_PROVIDER_add_builtin(c, "mldsa-accel", OSSL_provider_init) != 1 ||
        OSSL_PROVIDER_load(c, "mldsa-accel") == nullptr || OSSL_PROVIDER_load(c, "default") == nullptr)
      fail("cannot load the providers");
    return c;
  }();
  return ctx;
}

inline bool is_mldsa(const EVP_PKEY* pkey) {
  static const char* const kNames[] = {"ML-DSA-44", "ML-DSA-65", "ML-DSA-87", "dilithium2", "dilithium3", "dilithium5"};
  for (const char* name : kNames)
    if (EVP_PKEY_is_a(pkey, name)) return true;
  return false;
}

}  // namespace mldsa::fuzz
