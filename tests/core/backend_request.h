// backend_request.h - honours MLDSA_ACCEL_CPU in the core tests.
//
// ctest runs each core test once per backend with MLDSA_ACCEL_CPU=<name>. A run
// must test the backend it names: if the core runs another one, the test fails,
// unless this CPU cannot run the requested backend, in which case it is skipped.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "cpu/backend.h"

namespace mldsa::test {

struct BackendCheck {
  enum Outcome { run, skip, fail } outcome;
  std::string message;
};

// Compares MLDSA_ACCEL_CPU (unset, empty or "auto": anything goes; else
// "<backend>" or "<backend>@<tuning>") with the table in use.
BackendCheck check_requested_backend();

// "<backend>@<tuning>": what select_backend takes to choose table b again.
std::string table_spec(const mldsa::Backend& b);

// Base fixture for every core test: skips or fails before the body runs.
class BackendTest : public ::testing::Test {
 protected:
  void SetUp() override;
};

}  // namespace mldsa::test
