#include "tests/core/backend_request.h"

#include <cstdlib>
#include <string_view>

#include "cpu/mldsa.h"

namespace mldsa::test {

// Whether this CPU has what the named backend needs; false for unknown names.
static bool cpu_can_run(std::string_view name) {
  if (name == "ref") return true;
  __builtin_cpu_init();
  if (name == "avx2") return __builtin_cpu_supports("avx2");
  if (name == "avx512") return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return false;
}

BackendCheck check_requested_backend() {
  const char* env = std::getenv("MLDSA_ACCEL_CPU");
  std::string active = mldsa::backend_name();
  std::string requested = env ? env : "";
  if (requested.empty() || requested == "auto") return {BackendCheck::run, "backend " + active};
  if (requested == active) return {BackendCheck::run, "backend " + active};
  if (requested != "ref" && requested != "avx2" && requested != "avx512")
    return {BackendCheck::fail, "MLDSA_ACCEL_CPU=" + requested + " is not a backend name"};
  if (!cpu_can_run(requested))
    return {BackendCheck::skip, "skipped: this CPU lacks " + requested + " (core runs " + active + ")"};
  return {BackendCheck::fail, "MLDSA_ACCEL_CPU=" + requested + " but the core runs " + active +
                                  " although this CPU supports " + requested};
}

void BackendTest::SetUp() {
  BackendCheck c = check_requested_backend();
  if (c.outcome == BackendCheck::skip) GTEST_SKIP() << c.message;
  if (c.outcome == BackendCheck::fail) FAIL() << c.message;
}

}  // namespace mldsa::test
