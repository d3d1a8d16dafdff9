// provctx.h - the provider context every dispatch function receives: one per
// loaded instance of the module (each library context loading it has its own).
#pragma once

#include "provctx/errors.h"
#include "provctx/settings.h"

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mldsa::prov {

struct ProvCtx {
  const OSSL_CORE_HANDLE* handle = nullptr;
  ErrorSink errors;                // this instance's error upcalls (provctx/errors.h)
  bool from_config = false;        // loaded by a configuration file's provider section
  OSSL_LIB_CTX* libctx = nullptr;  // child library context: hashing, RNG, ASN.1 go through it
  Settings settings;               // provctx/settings.h
  std::string core_version;        // the running libcrypto's version ("3.0.19"), from the core
};

// The settings of an instance: its openssl.cnf section through the core,
// then the MLDSA_ACCEL_* environment (test rows only with test_rows). False
// with *why on a bad value or an unknown key, which refuses the load.
bool read_settings(const OSSL_CORE_HANDLE* handle, OSSL_FUNC_core_get_params_fn* get_params, bool test_rows,
                   Settings& out, std::string* why);

// Fills out with len bytes from the DRBG of ctx's library context (ctx may be
// nullptr: the default library context). False with a named error raised:
// R_NO_RANDOMNESS when the context has no generator, R_RNG_FAILURE when it fails.
bool private_random(const ProvCtx* ctx, uint8_t* out, size_t len);

inline OSSL_LIB_CTX* libctx_of(void* provctx) {
  return provctx ? static_cast<ProvCtx*>(provctx)->libctx : nullptr;
}

}  // namespace mldsa::prov
