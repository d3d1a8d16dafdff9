// executors.h - the BatchExecutors the router can hand batches to.
#pragma once

#include "provider/batch_queue.h"

#include <memory>
#include <string>

namespace mldsa::gpu {
class Platform;
struct EngineConfig;
}  // namespace mldsa::gpu

namespace mldsa::prov {

// The GPU engine (kernels/engine.h) behind the BatchExecutor interface:
// sign (from mu), verify (from mu) and keygen batches of at most max_batch
// items, on CUDA or, with MLDSA_ACCEL_SIM_DEVICES=N, on N simulated devices.
// nullptr with *why set ("built without CUDA", "no CUDA device", the
// driver's error, a failed self-test) when there is none.
std::shared_ptr<BatchExecutor> make_gpu_executor(size_t max_batch, std::string* why);
// The same on a given platform and engine configuration (tests).
std::shared_ptr<BatchExecutor> make_gpu_executor(std::shared_ptr<gpu::Platform> platform,
                                                 const gpu::EngineConfig& config, std::string* why);

// Test executor: computes each item with the core on the dispatcher thread,
// so the queue, the router and their fallbacks are exercised without a GPU.
// Selected with MLDSA_ACCEL_TEST_EXECUTOR=cpu.
std::shared_ptr<BatchExecutor> make_cpu_executor();

// Fault injection: every k-th batch (k >= 1) runs inner, then corrupts every
// output and status of the batch and reports a whole-batch error, so a
// fallback that trusted any of it would be caught. Selected with
// MLDSA_ACCEL_TEST_FAIL_EVERY=k; wraps whichever executor is in use.
std::shared_ptr<BatchExecutor> with_faults(std::shared_ptr<BatchExecutor> inner, unsigned every_k);

}  // namespace mldsa::prov
