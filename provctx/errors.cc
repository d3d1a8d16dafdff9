// errors.cc - error raising through the core's upcalls of the instance doing
// the work, so `openssl` and ERR_reason_error_string print our text (from
// provctx/reasons.cc) under that instance's name.
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
constexpr size_t kReasonCount = R_END - R_CONTEXT_TOO_LONG;
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
      table[i + 1] = {static_cast<unsigned long>(reason_strings()[i].id), static_cast<const char*>(reason_strings()[i].ptr)};
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
  if (s != mldsa::Status::ok) raise_error(ctx, reason_of(s), file, line, func, nullptr);
}

}  // namespace mldsa::prov
