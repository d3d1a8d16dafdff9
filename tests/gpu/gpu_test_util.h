// gpu_test_util.h - host-side helpers shared by the GPU tests and benchmarks.
#pragma once

#include "cpu/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <thread>
#include <vector>

namespace mldsa::gpu_test {

// Random cases per parameter set: MLDSA_ACCEL_GPU_CASES, else fallback (the
// CUDA tests take 2000, the simulated device, which runs the task code on the
// host, fewer; device_check.sh asks for the 100,000).
inline size_t random_case_count(size_t fallback = 2000) {
  const char* env = std::getenv("MLDSA_ACCEL_GPU_CASES");
  return env && *env ? std::strtoul(env, nullptr, 10) : fallback;
}

// fn(i) for i in [0, n) on every core: the CPU side of 100,000 cases is the slow part.
template <typename Fn>
void parallel_for(size_t n, Fn fn) {
  mldsa::parallel_for(n, mldsa::usable_cpus(), 1, [&](size_t i, unsigned) { fn(i); });
}

}  // namespace mldsa::gpu_test
