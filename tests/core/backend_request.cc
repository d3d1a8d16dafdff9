#include "tests/core/backend_request.h"

#include <cstdlib>
#include <string_view>

#include "cpu/backend.h"
#include "cpu/mldsa.h"

#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace mldsa::test {

// Whether this CPU has what the named backend needs; false for unknown names.
static bool cpu_can_run(std::string_view name) {
  if (name == "ref") return true;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (name == "avx2") return __builtin_cpu_supports("avx2");
  if (name == "avx512") return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#endif
#if defined(__aarch64__) && defined(__linux__)
  if (name == "neon") return getauxval(AT_HWCAP) & HWCAP_ASIMD;
#endif
  return false;
}

BackendCheck check_requested_backend() {
  const char* env = std::getenv("MLDSA_ACCEL_CPU");
  const std::string requested_spec = env ? env : "";
  const Backend& b = backend();
  const std::string active = table_spec(b);
  if (requested_spec.empty() || requested_spec == "auto") return {BackendCheck::run, "backend " + active};
  // "<backend>" or "<backend>@<tuning>" (cpu/mldsa.h, select_backend).
  const size_t at = requested_spec.find('@');
  const std::string requested = requested_spec.substr(0, at);
  const std::string tuning = at == std::string::npos ? "" : requested_spec.substr(at + 1);
  if (requested != "ref" && requested != "avx2" && requested != "avx512" && requested != "neon")
    return {BackendCheck::fail, "MLDSA_ACCEL_CPU=" + requested_spec + " is not a backend name"};
  if (!cpu_can_run(requested))
    return {BackendCheck::skip, "skipped: this CPU lacks " + requested + " (core runs " + active + ")"};
  if (requested == b.name && (tuning.empty() || tuning == b.tuning)) return {BackendCheck::run, "backend " + active};
  return {BackendCheck::fail, "MLDSA_ACCEL_CPU=" + requested_spec + " but the core runs " + active +
                                  " although this CPU supports " + requested};
}

std::string table_spec(const Backend& b) { return b.name + std::string("@") + b.tuning; }

void BackendTest::SetUp() {
  BackendCheck c = check_requested_backend();
  if (c.outcome == BackendCheck::skip) GTEST_SKIP() << c.message;
  if (c.outcome == BackendCheck::fail) FAIL() << c.message;
}

}  // namespace mldsa::test
