// host_threads.h - the engine's own host threads: a HostThread runs the jobs
// posted to it in order (one per logical device makes every call to that
// device); a HostPool spreads a loop over a few of them (the staging of big
// chunks: copying requests into pinned memory and results back out).
// Internal to kernels/.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace mldsa::gpu {

// How the engine starts a thread (EngineConfig::start_thread; default std::thread).
using ThreadStarter = std::function<std::thread(std::function<void()>)>;

class HostThread {
 public:
  // Throws what start (or std::thread) throws; then no thread exists.
  explicit HostThread(const ThreadStarter& start);
  ~HostThread();  // runs what is queued, then joins
  HostThread(const HostThread&) = delete;
  HostThread& operator=(const HostThread&) = delete;

  void post(std::function<void()> job);
  // Runs job on the thread and waits for it.
  void run(const std::function<void()>& job);

 private:
  void serve();
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stop_ = false;
  std::thread thread_;  // last: the others exist before it runs
};

class HostPool {
 public:
  // threads helpers (0: every loop runs on the caller). Throws as HostThread.
  HostPool(unsigned threads, const ThreadStarter& start);
  // fn(first, last) over [0, n) in pieces of at least grain, on the helpers
  // and the calling thread; returns when all are done. Loops from several
  // callers at once take turns.
  void parallel_for(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn);
  unsigned threads() const { return static_cast<unsigned>(helpers_.size()); }

 private:
  std::mutex busy_;
  std::vector<std::unique_ptr<HostThread>> helpers_;
};

}  // namespace mldsa::gpu
