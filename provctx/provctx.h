// provctx.h - the provider context every dispatch function receives: one per
// loaded instance of the module (each library context loading it has its own).
#pragma once

#include "provctx/errors.h"

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/types.h>

#include <string>
#include <string_view>

namespace mldsa::prov {

// Settings from the provider's openssl.cnf section (and MLDSA_ACCEL_* overrides).
struct Config {
  bool retain_seed = true;    // ml-dsa.retain_seed: keep the seed in generated/loaded keys
  bool prefer_seed = true;    // ml-dsa.prefer_seed: seed wins over priv on import when both given
  std::string input_formats;  // ml-dsa.input_formats: PKCS#8 formats accepted ("" = all)
  std::string output_formats; // ml-dsa.output_formats: PKCS#8 formats in order of preference ("" = default)
  bool pkcs8_public_key = false; // pkcs8_public_key: write PKCS#8 v2 with the public key in publicKey [1]
  bool tls_dilithium = false;    // tls_dilithium: offer round-3 Dilithium's TLS 1.3 code points (TLS-SIGALG)
};

struct ProvCtx {
  const OSSL_CORE_HANDLE* handle = nullptr;
  ErrorSink errors;                // this instance's error upcalls (provctx/errors.h)
  bool from_config = false;        // loaded by a configuration file's provider section
  OSSL_LIB_CTX* libctx = nullptr;  // child library context: hashing, RNG, ASN.1 go through it
  Config config;
  std::string core_version;        // the running libcrypto's version ("3.0.19"), from the core
};

// Config keys (OpenSSL 3.5's names) and their environment overrides.
inline constexpr const char* CONFIG_RETAIN_SEED = "ml-dsa.retain_seed";      // MLDSA_ACCEL_RETAIN_SEED
inline constexpr const char* CONFIG_PREFER_SEED = "ml-dsa.prefer_seed";      // MLDSA_ACCEL_PREFER_SEED
inline constexpr const char* CONFIG_INPUT_FORMATS = "ml-dsa.input_formats";  // MLDSA_ACCEL_INPUT_FORMATS
inline constexpr const char* CONFIG_OUTPUT_FORMATS = "ml-dsa.output_formats";// MLDSA_ACCEL_OUTPUT_FORMATS
inline constexpr const char* CONFIG_PKCS8_PUBLIC_KEY = "pkcs8_public_key";   // MLDSA_ACCEL_PKCS8_PUBLIC_KEY
inline constexpr const char* CONFIG_TLS_DILITHIUM = "tls_dilithium";         // MLDSA_ACCEL_TLS_DILITHIUM

// Reads the provider's settings through the core's get_params (the keys of
// the provider's openssl.cnf section); an MLDSA_ACCEL_* variable in the
// environment overrides its key. Unset or unreadable values keep the defaults.
Config read_config(const OSSL_CORE_HANDLE* handle, OSSL_FUNC_core_get_params_fn* core_get_params);
// "1"/"yes"/"true"/"on" and "0"/"no"/"false"/"off", any case; false if neither.
bool parse_bool(std::string_view text, bool& out);

inline OSSL_LIB_CTX* libctx_of(void* provctx) {
  return provctx ? static_cast<ProvCtx*>(provctx)->libctx : nullptr;
}

}  // namespace mldsa::prov
