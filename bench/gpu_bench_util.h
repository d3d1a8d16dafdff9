// gpu_bench_util.h - what the GPU benchmarks share: batch-size lists from the
// environment, median throughput of a few runs, and the table rows.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/gpu/gpu_test_util.h"

namespace mldsa::gpu_bench {

using gpu_test::parallel_for;

// A comma-separated list of numbers from the environment, else fallback.
inline std::vector<size_t> env_list(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  std::string s = v && *v ? v : fallback;
  std::vector<size_t> out;
  for (size_t pos = 0; pos < s.size();) {
    size_t end = s.find(',', pos);
    if (end == std::string::npos) end = s.size();
    out.push_back(std::strtoull(s.substr(pos, end - pos).c_str(), nullptr, 10));
    pos = end + 1;
  }
  return out;
}

// Median ops/s of a few timed runs of run() (fewer runs for big batches);
// check() follows each run, outside the timing, and judges its results. -1 if
// a run fails or a check finds a wrong result.
template <typename Run, typename Check>
double ops_per_second(size_t batch, Run run, Check check) {
  const int runs = static_cast<int>(std::clamp<size_t>(300000 / batch, 1, 5));
  std::vector<double> rates;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    if (!run()) return -1;
    rates.push_back(static_cast<double>(batch) /
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (!check()) return -1;
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

inline void header() { std::printf("%-10s %-20s %9s %12s\n", "set", "operation", "batch", "throughput"); }

inline void row(const char* set, const char* op, size_t batch, double rate) {
  if (rate < 0)
    std::printf("%-10s %-20s %9zu   FAILED\n", set, op, batch);
  else
    std::printf("%-10s %-20s %9zu %12.0f ops/s\n", set, op, batch, rate);
  std::fflush(stdout);
}

}  // namespace mldsa::gpu_bench
