// test_hooks.h - what the test build of the module adds to routing: the
// simulated device in place of CUDA, the test executor in place of the GPU,
// and batch faults. The test build links test_hooks.cc (with the simulated
// device and the test executors); the shipped module links test_hooks_off.cc,
// so it contains none of that machinery.
#pragma once

#include "kernels/device/device.h"
#include "route/request.h"
#include "route/router_config.h"

#include <memory>
#include <string>

namespace mldsa::route {

// Whether this build has the hooks (and reads the settings' test rows).
bool test_hooks_built();
// The executor standing in for the GPU (MLDSA_ACCEL_TEST_EXECUTOR), or nullptr.
std::shared_ptr<BatchExecutor> test_executor(const TestSettings& t);
// Whether the test settings parse (a bad one refuses the load); false with *why.
bool check_test_settings(const TestSettings& t, std::string* why);
// The platform to run the engine on in place of CUDA (MLDSA_ACCEL_SIM_DEVICES),
// or nullptr: with *why set when the simulated device's settings are bad,
// with *why empty when none is asked for.
std::shared_ptr<gpu::Platform> test_platform(const TestSettings& t, std::string* why);
// executor, failing every t.fail_every-th batch (unchanged when 0).
std::shared_ptr<BatchExecutor> with_test_faults(std::shared_ptr<BatchExecutor> executor, const TestSettings& t);

}  // namespace mldsa::route
