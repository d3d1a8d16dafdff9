// gpu_executor.h - the GPU engine (kernels/host/engine.h) as the BatchExecutor the
// router hands batches to.
#pragma once

#include "route/request.h"
#include "route/router_config.h"

#include <memory>
#include <string>

namespace mldsa::gpu {
class Platform;
struct EngineConfig;
}  // namespace mldsa::gpu

namespace mldsa::route {

// Sign (from mu), verify (from mu) and keygen batches on the platform's
// devices (CUDA, or the test build's simulated device). nullptr with *why set
// (no device, the driver's error, a failed self-test) when there is none.
// What the engine runs on: the test build's simulated device when the test
// settings ask for it (MLDSA_ACCEL_SIM_DEVICES), else the CUDA devices.
// nullptr with *why set when there is none.
std::shared_ptr<gpu::Platform> engine_platform(const TestSettings& t, std::string* why);

std::shared_ptr<BatchExecutor> make_gpu_executor(std::shared_ptr<gpu::Platform> platform,
                                                 const gpu::EngineConfig& config, std::string* why);

}  // namespace mldsa::route
