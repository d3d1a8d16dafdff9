// bench.h - helpers shared by the benchmark files.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "cpu/mldsa.h"

namespace mldsa::bench {

inline constexpr size_t MSG_BYTES = 32;  // a digest-sized message, as in the provider row

// Time-stamp counter ticks. On current x86 the TSC runs at a fixed reference
// rate, so with turbo or frequency scaling this is "reference cycles", not
// core clock cycles; still a steadier unit than ns on a shared machine.
// Elsewhere (AArch64's generic timer counts at a fixed rate unrelated to the
// core clock) there is no such counter: no "cycles" column, time only.
#if defined(__x86_64__) || defined(__i386__)
inline constexpr bool kHaveTicks = true;
inline uint64_t ticks() { return __builtin_ia32_rdtsc(); }
#else
inline constexpr bool kHaveTicks = false;
inline uint64_t ticks() { return 0; }
#endif

// Reports TSC ticks per iteration as the "cycles" counter.
inline void report_cycles(benchmark::State& state, uint64_t start, uint64_t end) {
  if (!kHaveTicks) return;
  state.counters["cycles"] =
      benchmark::Counter(static_cast<double>(end - start), benchmark::Counter::kAvgIterations);
}

// A distinct message per iteration: the counter in the first 8 bytes.
inline void next_message(uint8_t msg[MSG_BYTES], uint64_t n) {
  std::memset(msg, 0xa5, MSG_BYTES);
  std::memcpy(msg, &n, sizeof n);
}

// A fixed seed per parameter set, so every run benchmarks the same keys.
inline void fixed_seed(ParamSet set, uint8_t seed[SEED_BYTES]) {
  for (size_t i = 0; i < SEED_BYTES; i++) seed[i] = static_cast<uint8_t>(i * 7 + static_cast<int>(set));
}

// Registers one benchmark: REPETITIONS runs, of which the aggregates (the
// median is the figure we quote) are reported.
inline constexpr int REPETITIONS = 9;
template <typename Fn>
void add(const std::string& name, Fn fn) {
  benchmark::RegisterBenchmark(name.c_str(), fn)
      ->Repetitions(REPETITIONS)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMicrosecond);
}

void register_core_benchmarks(ParamSet set);
// Registers sign and verify of the 18 composite algorithms (composite_bench.cc).
void register_composite_benchmarks();
// Registers keygen, sign_fresh and verify_fresh of Falcon-512 / -1024 (falcon_bench.cc).
void register_falcon_benchmarks();
// Registers the EVP row for set; defined only when the provider is built.
void register_provider_benchmarks(ParamSet set);

}  // namespace mldsa::bench
