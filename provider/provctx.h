// provctx.h - the provider context every dispatch function receives.
#pragma once

#include <openssl/core.h>
#include <openssl/types.h>

#include <string>

namespace mldsa::prov {

// Settings from the provider's openssl.cnf section (and MLDSA_ACCEL_* overrides).
struct Config {
  bool retain_seed = true;    // ml-dsa.retain_seed: keep the seed in generated/loaded keys
  bool prefer_seed = true;    // ml-dsa.prefer_seed: seed wins over priv on import when both given
  std::string input_formats;  // ml-dsa.input_formats: PKCS#8 formats accepted ("" = all)
  std::string output_formats; // ml-dsa.output_formats: PKCS#8 formats in order of preference ("" = default)
};

struct ProvCtx {
  const OSSL_CORE_HANDLE* handle = nullptr;
  OSSL_LIB_CTX* libctx = nullptr;  // child library context: hashing, RNG, ASN.1 go through it
  Config config;
};

inline OSSL_LIB_CTX* libctx_of(void* provctx) {
  return provctx ? static_cast<ProvCtx*>(provctx)->libctx : nullptr;
}

}  // namespace mldsa::prov
