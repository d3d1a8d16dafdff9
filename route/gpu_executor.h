// gpu_executor.h - the GPU engine (kernels/engine.h) as the BatchExecutor the
// router hands batches to.
#pragma once

#include "route/request.h"

#include <memory>
#include <string>

namespace mldsa::gpu {
class Platform;
struct EngineConfig;
}  // namespace mldsa::gpu

namespace mldsa::route {

// Sign (from mu), verify (from mu) and keygen batches of at most max_batch
// items, on CUDA or, with MLDSA_ACCEL_SIM_DEVICES=N, on N simulated devices.
// nullptr with *why set ("built without CUDA", "no CUDA device", the
// driver's error, a failed self-test) when there is none.
std::shared_ptr<BatchExecutor> make_gpu_executor(size_t max_batch, std::string* why);
// The same on a given platform and engine configuration (tests).
std::shared_ptr<BatchExecutor> make_gpu_executor(std::shared_ptr<gpu::Platform> platform,
                                                 const gpu::EngineConfig& config, std::string* why);

}  // namespace mldsa::route
