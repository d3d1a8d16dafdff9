// reasons.cc - the text of each of the provider's reason codes, and the
// reason of each core Status.
#include "provctx/reasons.h"

namespace mldsa::prov {

namespace {

const OSSL_ITEM kReasons[] = {
    {R_CONTEXT_TOO_LONG, const_cast<char*>("context string longer than 255 bytes")},
    {R_UNSUPPORTED_DIGEST, const_cast<char*>("unsupported digest for ML-DSA")},
    {R_SEED_PRIV_MISMATCH, const_cast<char*>("private key seed does not match the expanded key")},
    {R_PUB_PRIV_MISMATCH, const_cast<char*>("public key does not match the private key")},
    {R_BAD_PUBLIC_KEY_LENGTH, const_cast<char*>("wrong length for an ML-DSA public key")},
    {R_BAD_PRIVATE_KEY_LENGTH, const_cast<char*>("wrong length for an ML-DSA private key")},
    {R_BAD_SEED_LENGTH, const_cast<char*>("ML-DSA seed must be 32 bytes")},
    {R_BAD_SIGNATURE_LENGTH, const_cast<char*>("wrong length for an ML-DSA signature")},
    {R_BAD_MU_LENGTH, const_cast<char*>("mu must be 64 bytes")},
    {R_BAD_ENTROPY_LENGTH, const_cast<char*>("test-entropy must be 32 bytes")},
    {R_S1_OUT_OF_RANGE, const_cast<char*>("private key s1 coefficient out of range")},
    {R_S2_OUT_OF_RANGE, const_cast<char*>("private key s2 coefficient out of range")},
    {R_T0_MISMATCH, const_cast<char*>("private key t0 does not match s1 and s2")},
    {R_TR_MISMATCH, const_cast<char*>("private key tr does not match its public key")},
    {R_MALFORMED_HINT, const_cast<char*>("malformed signature hint")},
    {R_VERIFY_FAILED, const_cast<char*>("signature verification failed")},
    {R_MISSING_KEY, const_cast<char*>("no key, or the key lacks the part the operation needs")},
    {R_WRONG_KEY_TYPE, const_cast<char*>("key is not of this ML-DSA parameter set")},
    {R_BUFFER_TOO_SMALL, const_cast<char*>("output buffer too small")},
    {R_RNG_FAILURE, const_cast<char*>("random number generation failed")},
    {R_SIGN_ATTEMPTS_EXHAUSTED, const_cast<char*>("no signature within the FIPS 204 loop limit (is the private key corrupt?)")},
    {R_BAD_ENCODING, const_cast<char*>("malformed ML-DSA key encoding")},
    {R_FORMAT_NOT_ALLOWED, const_cast<char*>("ML-DSA private key format not allowed by ml-dsa.input_formats")},
    {R_UNKNOWN_FORMAT, const_cast<char*>("unknown ML-DSA private key format")},
    {R_OPERATION_NOT_INITIALIZED, const_cast<char*>("operation not initialized")},
    {R_BAD_MESSAGE_ENCODING, const_cast<char*>("message-encoding must be 0 (raw) or 1 (pure)")},
    {R_NOT_SUPPORTED, const_cast<char*>("operation not supported by ML-DSA")},
    {R_INTERNAL_ERROR, const_cast<char*>("internal error")},
    {R_BAD_DIGEST_LENGTH, const_cast<char*>("pre-hash digest has the wrong length")},
    {R_PARAM_AFTER_UPDATE, const_cast<char*>("signature parameter set after message data")},
    {R_BAD_CONFIG, const_cast<char*>("bad mldsa-accel setting")},
    {R_GPU_UNAVAILABLE, const_cast<char*>("gpu = on, but no GPU can be used")},
    {R_BAD_PARAM_TYPE, const_cast<char*>("parameter of the wrong type")},
    {R_CONTEXT_UNSUPPORTED, const_cast<char*>("round-3 Dilithium has no context string")},
    {R_PREHASH_UNSUPPORTED, const_cast<char*>("HashML-DSA needs an ML-DSA key (round-3 Dilithium has no pre-hash variant)")},
    {R_NULL_PARAM_DATA, const_cast<char*>("parameter data is NULL")},
    {R_NO_RANDOMNESS, const_cast<char*>("no random generator in the library context: activate the default provider")},
    {R_WRONG_TRADITIONAL_KEY, const_cast<char*>("composite's traditional key of the wrong type, RSA size or curve")},
    {R_TRADITIONAL_UNAVAILABLE, const_cast<char*>("composite's traditional algorithm not available (load the default provider)")},
    {R_TRADITIONAL_FAILED, const_cast<char*>("composite's traditional half failed")},
    {R_BAD_COMPOSITE_KEY, const_cast<char*>("malformed composite key")},
    {R_BAD_COMPOSITE_SIGNATURE_LENGTH, const_cast<char*>("wrong length for a composite signature")},
    {R_WRONG_COMPOSITE, const_cast<char*>("key is not of this composite algorithm")},
    {R_HASH_ML_DSA_KEY, const_cast<char*>("key is bound to HashML-DSA: pure ML-DSA refused")},
    {R_BAD_FALCON_KEY_LENGTH, const_cast<char*>("wrong length for a Falcon key")},
    {R_BAD_FALCON_KEY, const_cast<char*>("malformed Falcon key")},
    {R_FALCON_F_MISMATCH, const_cast<char*>("Falcon private key: F does not satisfy f G - g F = q")},
    {R_WRONG_FALCON_KEY, const_cast<char*>("key is not of this Falcon parameter set")},
    {R_BAD_FALCON_SIGNATURE_LENGTH, const_cast<char*>("wrong length for a Falcon signature")},
    {R_BAD_FALCON_SIGNATURE_HEADER, const_cast<char*>("wrong Falcon signature header byte")},
    {R_MALFORMED_FALCON_SIGNATURE, const_cast<char*>("malformed compressed Falcon signature")},
    {R_FALCON_SIGNATURE_TRAILING_BYTES, const_cast<char*>("bytes after the Falcon signature")},
    {0, nullptr},
};
// One string per reason, nothing else.
static_assert(sizeof(kReasons) / sizeof(kReasons[0]) == R_END - R_CONTEXT_TOO_LONG + 1);

}  // namespace

const OSSL_ITEM* reason_strings() { return kReasons; }

const char* reason_text(int reason) {
  for (const OSSL_ITEM& item : kReasons)
    if (item.ptr != nullptr && static_cast<int>(item.id) == reason) return static_cast<const char*>(item.ptr);
  return "internal error";
}

int reason_of(mldsa::Status s) {
  using mldsa::Status;
  switch (s) {
    case Status::ok: return 0;
    case Status::verify_failed: return R_VERIFY_FAILED;
    case Status::bad_pk_length: return R_BAD_PUBLIC_KEY_LENGTH;
    case Status::bad_sk_length: return R_BAD_PRIVATE_KEY_LENGTH;
    case Status::bad_sig_length: return R_BAD_SIGNATURE_LENGTH;
    case Status::bad_seed_length: return R_BAD_SEED_LENGTH;
    case Status::bad_mu_length: return R_BAD_MU_LENGTH;
    case Status::bad_digest_length: return R_BAD_DIGEST_LENGTH;
    case Status::context_too_long: return R_CONTEXT_TOO_LONG;
    case Status::sk_s1_out_of_range: return R_S1_OUT_OF_RANGE;
    case Status::sk_s2_out_of_range: return R_S2_OUT_OF_RANGE;
    case Status::sk_t0_mismatch: return R_T0_MISMATCH;
    case Status::sk_tr_mismatch: return R_TR_MISMATCH;
    case Status::sig_malformed_hint: return R_MALFORMED_HINT;
    case Status::unsupported_hash: return R_UNSUPPORTED_DIGEST;
    case Status::context_unsupported: return R_CONTEXT_UNSUPPORTED;
    case Status::prehash_unsupported: return R_PREHASH_UNSUPPORTED;
    case Status::rng_failure: return R_RNG_FAILURE;
    case Status::sign_attempts_exhausted: return R_SIGN_ATTEMPTS_EXHAUSTED;
    case Status::internal_error: return R_INTERNAL_ERROR;
  }
  return R_INTERNAL_ERROR;
}

}  // namespace mldsa::prov
