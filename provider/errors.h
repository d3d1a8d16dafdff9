// errors.h - the provider's reason codes. Strings live in errors.cc and are
// handed to OpenSSL by get_reason_strings, so `openssl` prints them.
#pragma once

#include "cpu/mldsa.h"

#include <openssl/core.h>
#include <openssl/macros.h>

namespace mldsa::prov {

enum Reason : int {
  R_CONTEXT_TOO_LONG = 100,      // "context string longer than 255 bytes"
  R_UNSUPPORTED_DIGEST,          // "unsupported digest for ML-DSA"
  R_SEED_PRIV_MISMATCH,          // "private key seed does not match the expanded key"
  R_PUB_PRIV_MISMATCH,           // "public key does not match the private key"
  R_BAD_PUBLIC_KEY_LENGTH,
  R_BAD_PRIVATE_KEY_LENGTH,
  R_BAD_SEED_LENGTH,
  R_BAD_SIGNATURE_LENGTH,
  R_BAD_MU_LENGTH,
  R_BAD_ENTROPY_LENGTH,
  R_S1_OUT_OF_RANGE,
  R_S2_OUT_OF_RANGE,
  R_T0_MISMATCH,
  R_TR_MISMATCH,
  R_MALFORMED_HINT,
  R_VERIFY_FAILED,
  R_MISSING_KEY,                 // "no key set" / key lacks the part the operation needs
  R_WRONG_KEY_TYPE,
  R_BUFFER_TOO_SMALL,
  R_RNG_FAILURE,
  R_SIGN_ATTEMPTS_EXHAUSTED,
  R_BAD_ENCODING,                // malformed DER / key format
  R_FORMAT_NOT_ALLOWED,          // PKCS#8 format not in ml-dsa.input_formats
  R_UNKNOWN_FORMAT,
  R_OPERATION_NOT_INITIALIZED,
  R_BAD_MESSAGE_ENCODING,
  R_NOT_SUPPORTED,
  R_INTERNAL_ERROR,
  R_BAD_DIGEST_LENGTH,           // HashML-DSA: pre-hash digest of the wrong length
  R_PARAM_AFTER_UPDATE,          // a signing parameter changed after message data arrived
  R_BAD_CONFIG,                  // a routing setting (openssl.cnf / MLDSA_ACCEL_*) is malformed
  R_GPU_UNAVAILABLE,             // gpu = on, but no GPU can be used
  R_END,                         // not a reason: one past the last (add new reasons above)
};

// Raises an OpenSSL error with the provider's reason (ERR_new + ERR_set_debug
// + ERR_set_error through the core's upcalls).
#define MLDSA_RAISE(reason) ::mldsa::prov::raise_error((reason), OPENSSL_FILE, OPENSSL_LINE, __func__)
void raise_error(int reason, const char* file, int line, const char* func);
// The same with a detail text after the reason ("gpu_max_batch: '0' is ...").
#define MLDSA_RAISE_DETAIL(reason, detail) \
  ::mldsa::prov::raise_error_detail((reason), OPENSSL_FILE, OPENSSL_LINE, __func__, (detail))
void raise_error_detail(int reason, const char* file, int line, const char* func, const char* detail);
// Maps a core Status to a reason and raises it.
void raise_status(mldsa::Status s, const char* file, int line, const char* func);
#define MLDSA_RAISE_STATUS(st) ::mldsa::prov::raise_status((st), OPENSSL_FILE, OPENSSL_LINE, __func__)

// The table get_reason_strings returns: one entry per reason, {0, NULL} last.
const OSSL_ITEM* reason_strings();
// The core's error upcalls of each live provider instance (OSSL_provider_init
// attaches, teardown detaches); raise_error uses the newest live one.
void errors_attach(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in);
void errors_detach(const OSSL_CORE_HANDLE* handle);

}  // namespace mldsa::prov
