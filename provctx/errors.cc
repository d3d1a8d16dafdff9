// errors.cc - the provider's reason strings and error raising through the
// core's upcalls of the instance doing the work, so `openssl` and
// ERR_reason_error_string print our text under that instance's name.
#include "provctx/errors.h"

#include "provctx/provctx.h"

#include <openssl/core_dispatch.h>
#include <openssl/err.h>

#include <dlfcn.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>

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

void vset_error(const ErrorSink& s, int reason, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  s.vset_error(s.handle, static_cast<uint32_t>(reason), fmt, args);
  va_end(args);
}

// A refused load's strings (report_refused_load): one table per refusal, as
// ERR_load_strings stamps the library number into it. Static storage in a
// module that stays mapped; past the last table the errors keep their data
// text but print unnamed.
constexpr size_t kReasonCount = sizeof(kReasons) / sizeof(kReasons[0]) - 1;
constexpr size_t kRefusedTables = 8;
ERR_STRING_DATA g_refused[kRefusedTables][kReasonCount + 2];
std::atomic<size_t> g_refused_used{0};

bool pin_module() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&pin_module), &info) == 0 || info.dli_fname == nullptr) return false;
  // RTLD_NODELETE on an object already loaded: it is never unmapped from now on.
  return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != nullptr;
}

// The library number OpenSSL gave this instance: that of the newest error
// raised through its handle, if it is one of ours.
int instance_library(int reason) {
  const unsigned long e = ERR_peek_last_error();
  const int lib = ERR_GET_LIB(e);
  return e != 0 && lib >= ERR_LIB_USER && ERR_GET_REASON(e) == reason ? lib : 0;
}

}  // namespace

const OSSL_ITEM* reason_strings() { return kReasons; }

const char* reason_text(int reason) {
  for (const OSSL_ITEM& item : kReasons)
    if (item.ptr != nullptr && static_cast<int>(item.id) == reason) return static_cast<const char*>(item.ptr);
  return "internal error";
}

ErrorSink error_sink(const OSSL_CORE_HANDLE* handle, const CoreFunctions& core) {
  ErrorSink s;
  s.new_error = core.new_error;
  s.set_error_debug = core.set_error_debug;
  s.vset_error = core.vset_error;
  if (s.new_error != nullptr && s.set_error_debug != nullptr && s.vset_error != nullptr) s.handle = handle;
  return s;
}

void raise_error(const ProvCtx* ctx, int reason, const char* file, int line, const char* func, const char* detail) {
  const ErrorSink* s = ctx != nullptr && ctx->errors.handle != nullptr ? &ctx->errors : nullptr;
  if (s == nullptr) {
    // Not raised by an instance (a key object made outside one, in a test).
    ERR_new();
    ERR_set_debug(file, line, func);
    if (detail != nullptr)
      ERR_set_error(ERR_LIB_PROV, reason, "%s", detail);
    else
      ERR_set_error(ERR_LIB_PROV, reason, nullptr);
    return;
  }
  s->new_error(s->handle);
  s->set_error_debug(s->handle, file, line, func);
  if (detail != nullptr)
    vset_error(*s, reason, "%s", detail);
  else
    vset_error(*s, reason, nullptr);
}

void report_refused_load(const ProvCtx& ctx, int reason, const char* detail) {
  const int lib = instance_library(reason);
  const size_t slot = g_refused_used.fetch_add(1);
  if (lib != 0 && slot < kRefusedTables && pin_module()) {
    ERR_STRING_DATA* table = g_refused[slot];
    table[0] = {ERR_PACK(lib, 0, 0), "mldsa-accel"};
    for (size_t i = 0; i < kReasonCount; ++i)
      table[i + 1] = {static_cast<unsigned long>(kReasons[i].id), static_cast<const char*>(kReasons[i].ptr)};
    table[kReasonCount + 1] = {0, nullptr};
    ERR_load_strings(lib, table);
  }
  if (ctx.from_config) {
    // OpenSSL drops a provider that a configuration file failed to activate
    // without a word (config_diagnostics aside): say it here.
    std::fprintf(stderr, "mldsa-accel: %s%s%s (provider not loaded)\n", reason_text(reason),
                 detail != nullptr ? ": " : "", detail != nullptr ? detail : "");
  }
}

void raise_status(const ProvCtx* ctx, mldsa::Status s, const char* file, int line, const char* func) {
  using mldsa::Status;
  int reason = R_INTERNAL_ERROR;
  switch (s) {
    case Status::ok: return;
    case Status::verify_failed: reason = R_VERIFY_FAILED; break;
    case Status::bad_pk_length: reason = R_BAD_PUBLIC_KEY_LENGTH; break;
    case Status::bad_sk_length: reason = R_BAD_PRIVATE_KEY_LENGTH; break;
    case Status::bad_sig_length: reason = R_BAD_SIGNATURE_LENGTH; break;
    case Status::bad_seed_length: reason = R_BAD_SEED_LENGTH; break;
    case Status::bad_mu_length: reason = R_BAD_MU_LENGTH; break;
    case Status::bad_digest_length: reason = R_BAD_DIGEST_LENGTH; break;
    case Status::context_too_long: reason = R_CONTEXT_TOO_LONG; break;
    case Status::sk_s1_out_of_range: reason = R_S1_OUT_OF_RANGE; break;
    case Status::sk_s2_out_of_range: reason = R_S2_OUT_OF_RANGE; break;
    case Status::sk_t0_mismatch: reason = R_T0_MISMATCH; break;
    case Status::sk_tr_mismatch: reason = R_TR_MISMATCH; break;
    case Status::sig_malformed_hint: reason = R_MALFORMED_HINT; break;
    case Status::unsupported_hash: reason = R_UNSUPPORTED_DIGEST; break;
    case Status::context_unsupported: reason = R_CONTEXT_UNSUPPORTED; break;
    case Status::prehash_unsupported: reason = R_PREHASH_UNSUPPORTED; break;
    case Status::rng_failure: reason = R_RNG_FAILURE; break;
    case Status::sign_attempts_exhausted: reason = R_SIGN_ATTEMPTS_EXHAUSTED; break;
    case Status::internal_error: reason = R_INTERNAL_ERROR; break;
  }
  raise_error(ctx, reason, file, line, func, nullptr);
}

}  // namespace mldsa::prov
