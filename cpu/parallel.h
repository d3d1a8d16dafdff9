// parallel.h - work spread over the CPU threads this process may use: the
// CPUs of its mask and the one count of them (affinity_cpus, usable_cpus),
// a thread confined to some of them (confine_thread), the one way to split
// a loop's items (Split) and the loop itself, on threads started for it
// (parallel_for: the checks of device results, the GPU tests) or on threads
// kept for many loops (WorkerPool: the bulk tool, a bulk API context's
// calls).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>
#if defined(__linux__)
#include <sched.h>
#endif

namespace mldsa {

// The CPUs the calling thread may run on, in order: its affinity mask
// (taskset, a container's cpuset); empty where there is no mask to read.
inline std::vector<int> affinity_cpus() {
  std::vector<int> cpus;
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
#endif
  return cpus;
}

// The calling thread confined to `cpus` (false where that is refused or
// there are none, and the thread stays as it was).
inline bool confine_thread(const std::vector<int>& cpus) {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  return CPU_COUNT(&set) > 0 && sched_setaffinity(0, sizeof set, &set) == 0;
#else
  (void)cpus;
  return false;
#endif
}

// How many CPUs this process may use: what thread pools size to (the
// affinity mask; the machine's count where there is no mask to read).
inline unsigned usable_cpus() {
  const size_t mask = affinity_cpus().size();
  return mask > 0 ? static_cast<unsigned>(mask) : std::max(1u, std::thread::hardware_concurrency());
}

// [0, n) in grains for `workers` threads: worker w starts on the w-th of
// equal contiguous ranges and takes `grain` items at a time from it; a
// worker whose range is done takes grains from the others'. So two loops
// over the same items with the same thread count give each worker mostly
// the same items (the data a first loop read is in that core's cache for the
// second), while a core that runs slower is still helped at the end. Every
// worker goes through every range, so a worker that never runs leaves its
// range to the others.
class Split {
 public:
  Split(size_t n, unsigned threads, size_t grain) : grain_(std::max<size_t>(grain, 1)) {
    const size_t grains = (n + grain_ - 1) / grain_;
    const unsigned workers = static_cast<unsigned>(std::clamp<size_t>(threads, 1, std::max<size_t>(grains, 1)));
    ranges_ = std::vector<Range>(workers);
    for (unsigned w = 0; w < workers; ++w) {
      ranges_[w].next.store(grains * w / workers * grain_, std::memory_order_relaxed);
      ranges_[w].end = std::min(n, grains * (w + 1) / workers * grain_);
    }
  }
  // Threads worth running: no more than there are grains.
  unsigned workers() const { return static_cast<unsigned>(ranges_.size()); }
  // f(i, worker) for the items this worker gets.
  template <typename F>
  void work(unsigned worker, F& f) {
    const size_t count = ranges_.size();
    for (size_t k = 0; k < count; ++k) {  // its own range first, then the others'
      Range& r = ranges_[(worker + k) % count];
      for (size_t i; (i = r.next.fetch_add(grain_, std::memory_order_relaxed)) < r.end;)
        for (const size_t end = std::min(r.end, i + grain_); i < end; ++i) f(i, worker);
    }
  }

 private:
  struct alignas(64) Range {  // one cache line each: the cursors are written by different threads
    std::atomic<size_t> next{0};
    size_t end = 0;
  };
  std::vector<Range> ranges_;
  size_t grain_;
};

// f(i, worker) for every i in [0, n) on up to `threads` threads: the
// caller's (worker 0) and helpers it starts (workers 1, 2, ...), no more
// than there are grains, the items split as Split says. A helper that cannot
// be started leaves its range to the others. f must not throw (a helper's
// exception would end the process).
template <typename F>
void parallel_for(size_t n, unsigned threads, size_t grain, F f) {
  Split split(n, threads, grain);
  auto work = [&](unsigned worker) { split.work(worker, f); };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < split.workers(); ++t) {
    try {
      pool.emplace_back(work, t);
    } catch (...) {
      break;
    }
  }
  work(0);
  for (std::thread& th : pool) th.join();
}

// Helper threads kept for many loops, for code that runs loop after loop
// (the bulk tool: three a chunk; a bulk API context: one a call): each loop
// wakes them rather than starting threads. On the project's VM, calls of
// 4096 verifies went from 92% to 98% of the sum of each core's rate alone
// (threads kept instead of started for each call), and loops of 4096
// small-file reads from 97% to 98% of twice one thread's rate
// (bench/RESULTS.md).
// `start(w)` runs first on helper w (1, 2, ...). One loop at a time (its
// owner keeps others out), never in the child of a fork (the helpers are
// not there: the owner must not use or destroy it; it may leak it), and f
// must not throw.
class WorkerPool {
 public:
  explicit WorkerPool(unsigned threads, std::function<void(unsigned)> start = {}) {
    for (unsigned w = 1; w < std::max(threads, 1u); ++w) {
      try {
        helpers_.emplace_back([this, w, start] { serve(w, start); });
      } catch (...) {  // fewer helpers: the loops split over those there are
        break;
      }
    }
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : helpers_) t.join();
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // The threads a loop runs on: the caller's and the helpers.
  unsigned size() const { return static_cast<unsigned>(helpers_.size()) + 1; }

  // As mldsa::parallel_for, on the caller's thread and the helpers.
  template <typename F>
  void parallel_for(size_t n, size_t grain, F f) {
    Split split(n, size(), grain);
    auto job = [&](unsigned worker) {
      if (worker < split.workers()) split.work(worker, f);
    };
    {
      std::lock_guard<std::mutex> lock(m_);
      job_ = job;
      busy_ = helpers_.size();
      ++round_;
    }
    wake_.notify_all();
    job(0);
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [&] { return busy_ == 0; });
    job_ = nullptr;
  }

 private:
  std::mutex m_;
  std::condition_variable wake_, done_;
  std::function<void(unsigned)> job_;
  size_t busy_ = 0;       // helpers still in the current loop
  uint64_t round_ = 0;    // loops begun
  bool stop_ = false;
  std::vector<std::thread> helpers_;

  void serve(unsigned w, const std::function<void(unsigned)>& start) {
    if (start) start(w);
    uint64_t seen = 0;
    for (;;) {
      std::function<void(unsigned)> job;
      {
        std::unique_lock<std::mutex> lock(m_);
        wake_.wait(lock, [&] { return stop_ || round_ != seen; });
        if (stop_) return;
        seen = round_;
        job = job_;
      }
      job(w);
      std::lock_guard<std::mutex> lock(m_);
      if (--busy_ == 0) done_.notify_one();
    }
  }
};

}  // namespace mldsa
