// provider_env.h - what the provider fuzz targets share: one library context
// with mldsa-accel registered as a built-in provider (the module's objects
// are linked into the target, so its code is instrumented and covered) and
// OpenSSL's default provider (PEM, encrypted PKCS#8, SHA-512, the DRBG).
#pragma once

#include <openssl/core.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

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

// The fuzzer's bytes read front to back; past the end every read is zero, so
// any input is a complete one.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(byte() << 8 | byte()); }
  // n bytes (fewer, zero-padded, past the end).
  std::vector<uint8_t> bytes(size_t n) {
    std::vector<uint8_t> out(n, 0);
    for (size_t i = 0; i < n && pos_ < size_; ++i) out[i] = data_[pos_++];
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// A failed call must leave a named error: something on the queue, and the
// newest entry with a reason string.
inline void expect_named_error(const char* what) {
  const unsigned long e = ERR_peek_last_error();
  if (e == 0) {
    std::fprintf(stderr, "fuzz check failed: %s failed with an empty error queue\n", what);
    std::abort();
  }
  if (ERR_reason_error_string(e) == nullptr) {
    std::fprintf(stderr, "fuzz check failed: %s failed with an unnamed reason (lib %d, reason %d)\n", what,
                 ERR_GET_LIB(e), ERR_GET_REASON(e));
    ERR_print_errors_fp(stderr);
    std::abort();
  }
  ERR_clear_error();
}

inline bool is_mldsa(const EVP_PKEY* pkey) {
  static const char* const kNames[] = {"ML-DSA-44", "ML-DSA-65", "ML-DSA-87", "dilithium2", "dilithium3", "dilithium5"};
  for (const char* name : kNames)
    if (EVP_PKEY_is_a(pkey, name)) return true;
  return false;
}

}  // namespace mldsa::fuzz
