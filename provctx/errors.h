// errors.h - raising the provider's reason codes (provctx/reasons.h) through
// the core handle of the provider instance doing the work.
#pragma once

#include "cpu/mldsa.h"
#include "provctx/core_functions.h"
#include "provctx/reasons.h"

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/macros.h>

namespace mldsa::prov {

struct ProvCtx;  // provctx/provctx.h


// The core's error upcalls of one provider instance. Errors are raised
// through the handle of the instance whose object does the work, so they
// carry that instance's library number (each load of the module has its own)
// and never touch another, possibly freed, instance.
struct ErrorSink {
  const OSSL_CORE_HANDLE* handle = nullptr;
  OSSL_FUNC_core_new_error_fn* new_error = nullptr;
  OSSL_FUNC_core_set_error_debug_fn* set_error_debug = nullptr;
  OSSL_FUNC_core_vset_error_fn* vset_error = nullptr;
};
// The error upcalls among the core's functions (all three, or none).
ErrorSink error_sink(const OSSL_CORE_HANDLE* handle, const CoreFunctions& core);

// Raises reason (with an optional detail text after it) through ctx's
// instance. ctx may be nullptr (an object made outside any instance, in a
// test): the error is then raised through libcrypto under ERR_LIB_PROV.
void raise_error(const ProvCtx* ctx, int reason, const char* file, int line, const char* func, const char* detail);
// Maps a core Status to a reason and raises it.
void raise_status(const ProvCtx* ctx, mldsa::Status s, const char* file, int line, const char* func);

#define MLDSA_RAISE(ctx, reason) \
  ::mldsa::prov::raise_error((ctx), (reason), OPENSSL_FILE, OPENSSL_LINE, __func__, nullptr)
// The same with a detail text after the reason ("gpu_max_batch: '0' is ...").
#define MLDSA_RAISE_DETAIL(ctx, reason, detail) \
  ::mldsa::prov::raise_error((ctx), (reason), OPENSSL_FILE, OPENSSL_LINE, __func__, (detail))
#define MLDSA_RAISE_STATUS(ctx, st) ::mldsa::prov::raise_status((ctx), (st), OPENSSL_FILE, OPENSSL_LINE, __func__)

// A refused load (OSSL_provider_init returning 0, after raising reason):
// OpenSSL unloads the module without registering its strings, so the errors
// raised so far would print as "lib(128):...:reason(131)". This registers
// the strings for the instance's library number itself, keeping the module
// mapped (the string table must outlive the unload), and, when the load came
// from a configuration file, where OpenSSL stays silent, says on stderr why
// the provider refused.
void report_refused_load(const ProvCtx& ctx, int reason, const char* detail);

}  // namespace mldsa::prov
