// errors.cc - the provider's reason strings and error raising through the
// core's upcalls, so `openssl` and ERR_reason_error_string print our text.
#include "provider/errors.h"

#include <openssl/core_dispatch.h>
#include <openssl/err.h>

#include <algorithm>
#include <cstdarg>
#include <mutex>
#include <type_traits>

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
    {R_BAD_CONFIG, const_cast<char*>("bad mldsa-accel routing setting")},
    {R_GPU_UNAVAILABLE, const_cast<char*>("gpu = on, but no GPU can be used")},
    {0, nullptr},
};
// One string per reason, nothing else.
static_assert(sizeof(kReasons) / sizeof(kReasons[0]) == R_END - R_CONTEXT_TOO_LONG + 1);

struct Upcalls {
  const OSSL_CORE_HANDLE* handle;
  OSSL_FUNC_core_new_error_fn* new_error;
  OSSL_FUNC_core_set_error_debug_fn* set_error_debug;
  OSSL_FUNC_core_vset_error_fn* vset_error;
};

// The module may be loaded into several library contexts at once; each has
// its own handle (and error library number), any live one resolves our strings.
// Only trivially destructible statics here: OPENSSL_cleanup runs teardown
// (and so errors_detach) from an atexit handler registered before this module
// was loaded, i.e. after the module's static destructors have run. The list's
// nodes are freed by errors_detach, so an unloaded module leaks nothing.
struct LiveNode {
  Upcalls u;
  LiveNode* next;
};
static_assert(std::is_trivially_destructible_v<std::mutex>);
std::mutex g_mutex;
LiveNode* g_live = nullptr;  // most recently attached first

void set_error(const Upcalls& u, int reason, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  u.vset_error(u.handle, static_cast<uint32_t>(reason), fmt, args);
  va_end(args);
}

}  // namespace

const OSSL_ITEM* reason_strings() { return kReasons; }

void errors_attach(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in) {
  Upcalls u{handle, nullptr, nullptr, nullptr};
  for (; in != nullptr && in->function_id != 0; ++in) {
    switch (in->function_id) {
      case OSSL_FUNC_CORE_NEW_ERROR: u.new_error = OSSL_FUNC_core_new_error(in); break;
      case OSSL_FUNC_CORE_SET_ERROR_DEBUG: u.set_error_debug = OSSL_FUNC_core_set_error_debug(in); break;
      case OSSL_FUNC_CORE_VSET_ERROR: u.vset_error = OSSL_FUNC_core_vset_error(in); break;
      default: break;
    }
  }
  if (u.new_error == nullptr || u.set_error_debug == nullptr || u.vset_error == nullptr) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_live = new LiveNode{u, g_live};
}

void errors_detach(const OSSL_CORE_HANDLE* handle) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (LiveNode** link = &g_live; *link != nullptr;) {
    LiveNode* node = *link;
    if (node->u.handle == handle) {
      *link = node->next;
      delete node;
    } else {
      link = &node->next;
    }
  }
}

void raise_error(int reason, const char* file, int line, const char* func) {
  raise_error_detail(reason, file, line, func, nullptr);
}

void raise_error_detail(int reason, const char* file, int line, const char* func, const char* detail) {
  Upcalls u{};
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_live != nullptr) u = g_live->u;
  }
  if (u.handle == nullptr) {
    // No live instance (cannot happen while OpenSSL calls us); still record it.
    ERR_new();
    ERR_set_debug(file, line, func);
    if (detail != nullptr)
      ERR_set_error(ERR_LIB_PROV, reason, "%s", detail);
    else
      ERR_set_error(ERR_LIB_PROV, reason, nullptr);
    return;
  }
  u.new_error(u.handle);
  u.set_error_debug(u.handle, file, line, func);
  if (detail != nullptr)
    set_error(u, reason, "%s", detail);
  else
    set_error(u, reason, nullptr);
}

void raise_status(mldsa::Status s, const char* file, int line, const char* func) {
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
    case Status::rng_failure: reason = R_RNG_FAILURE; break;
    case Status::sign_attempts_exhausted: reason = R_SIGN_ATTEMPTS_EXHAUSTED; break;
    case Status::internal_error: reason = R_INTERNAL_ERROR; break;
  }
  raise_error(reason, file, line, func);
}

}  // namespace mldsa::prov
