// parallel.h - work spread over the CPU threads this process may use: the
// one count of them (usable_cpus) and the one loop (parallel_for) that the
// bulk API, the checks of device results, the bulk tool and the GPU tests
// share.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>
#if defined(__linux__)
#include <sched.h>
#endif

namespace mldsa {

// The CPUs this process may run on: its affinity mask (taskset, a
// container's cpuset), which is what thread pools size to; the machine's
// count where there is no mask to read.
inline unsigned usable_cpus() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return static_cast<unsigned>(CPU_COUNT(&set));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

// f(i, worker) for every i in [0, n) on up to `threads` threads: the
// caller's (worker 0) and helpers it starts (workers 1, 2, ...), no more
// than there are grains. Worker w starts on the w-th of equal contiguous
// ranges and takes `grain` items at a time from it; a worker whose range is
// done takes grains from the others'. So two loops over the same items with
// the same thread count give each worker mostly the same items (the data a
// first loop read is in that core's cache for the second), while a core that
// runs slower is still helped at the end. A helper that cannot be started
// leaves its range to the others. f must not throw (a helper's exception
// would end the process).
template <typename F>
void parallel_for(size_t n, unsigned threads, size_t grain, F f) {
  grain = std::max<size_t>(grain, 1);
  const size_t grains = (n + grain - 1) / grain;
  const unsigned workers = static_cast<unsigned>(std::clamp<size_t>(threads, 1, std::max<size_t>(grains, 1)));
  struct alignas(64) Range {  // one cache line each: the cursors are written by different threads
    std::atomic<size_t> next;
    size_t end;
  };
  std::vector<Range> ranges(workers);
  for (unsigned w = 0; w < workers; ++w) {
    ranges[w].next.store(grains * w / workers * grain, std::memory_order_relaxed);
    ranges[w].end = std::min(n, grains * (w + 1) / workers * grain);
  }
  auto work = [&](unsigned worker) {
    for (unsigned k = 0; k < workers; ++k) {  // its own range first, then the others'
      Range& r = ranges[(worker + k) % workers];
      for (size_t i; (i = r.next.fetch_add(grain, std::memory_order_relaxed)) < r.end;)
        for (const size_t end = std::min(r.end, i + grain); i < end; ++i) f(i, worker);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < workers; ++t) {
    try {
      pool.emplace_back(work, t);
    } catch (...) {
      break;
    }
  }
  work(0);
  for (std::thread& th : pool) th.join();
}

}  // namespace mldsa
