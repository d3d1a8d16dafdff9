// cpu_from_environment.cc - for programs of the core alone (tests,
// benchmarks): at start-up, MLDSA_ACCEL_CPU chooses the CPU backend as the
// module's cpu_backend setting does (provctx/settings.h). A bad value or one
// this CPU cannot run leaves the core's own choice; the tests check which
// backend runs (tests/core/backend_request.h) and say why they skip.
#include "provctx/settings.h"

namespace {

const bool chosen = [] {
  std::string why;
  return mldsa::prov::use_cpu_backend_from_environment(&why);
}();

}  // namespace
