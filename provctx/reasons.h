// reasons.h - the provider's reason codes (what ERR_GET_REASON gives for its
// errors), their texts, and the reason of each core Status. No OpenSSL calls:
// the bulk C API (bulk/) reports the same reasons without a provider.
#pragma once

#include "cpu/mldsa.h"

#include <openssl/core.h>

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
  R_BAD_CONFIG,                  // a setting (openssl.cnf key / MLDSA_ACCEL_*) is malformed or unknown
  R_GPU_UNAVAILABLE,             // gpu = on, but no GPU can be used
  R_BAD_PARAM_TYPE,              // an OSSL_PARAM of the wrong type (detail: its name and the expected type)
  R_CONTEXT_UNSUPPORTED,         // a context string with a round-3 Dilithium key
  R_PREHASH_UNSUPPORTED,         // HashML-DSA (hash-ml-dsa) with a round-3 Dilithium key
  R_NULL_PARAM_DATA,             // an OSSL_PARAM whose data is NULL where bytes are needed (detail: its name)
  R_NO_RANDOMNESS,               // the library context has no random generator (no provider offering a DRBG is active)
  R_WRONG_TRADITIONAL_KEY,       // a composite's traditional key of the wrong type, RSA size or curve
  R_TRADITIONAL_UNAVAILABLE,     // a composite's traditional algorithm is not in the library context
  R_TRADITIONAL_FAILED,          // a composite's traditional half failed (sign, keygen, encoding)
  R_BAD_COMPOSITE_KEY,           // a composite key of the wrong length, or a half that does not parse
  R_BAD_COMPOSITE_SIGNATURE_LENGTH,  // a composite signature too short or too long for its key
  R_WRONG_COMPOSITE,             // a key of another algorithm given to a composite's operation
  R_HASH_ML_DSA_KEY,             // a key bound to HashML-DSA used for pure ML-DSA
  R_BAD_FALCON_KEY_LENGTH,       // a Falcon public or private key of the wrong length (detail: which and the length)
  R_BAD_FALCON_KEY,              // a Falcon key with a wrong header byte or a value that does not decode (detail)
  R_FALCON_F_MISMATCH,           // a Falcon private key whose F does not satisfy f G - g F = q
  R_WRONG_FALCON_KEY,            // a key of another Falcon parameter set (or not Falcon) given to a Falcon operation
  R_BAD_FALCON_SIGNATURE_LENGTH, // a Falcon signature too short or too long for its format
  R_BAD_FALCON_SIGNATURE_HEADER, // a Falcon signature whose first byte is not 0x30 + logn
  R_MALFORMED_FALCON_SIGNATURE,  // a Falcon signature whose compressed s2 does not decode
  R_FALCON_SIGNATURE_TRAILING_BYTES,  // bytes after a Falcon signature's compressed s2
  R_END,                         // not a reason: one past the last (add new reasons above)
};

// The table get_reason_strings returns: one entry per reason, {0, NULL} last.
const OSSL_ITEM* reason_strings();
// The text of one reason ("internal error" for an unknown one).
const char* reason_text(int reason);
// The reason raised for a core Status (0 for ok).
int reason_of(mldsa::Status s);

}  // namespace mldsa::prov
