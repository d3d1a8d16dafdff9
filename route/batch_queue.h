// batch_queue.h - requests waiting to be computed in batches, and the one
// dispatcher thread that forms the batches and hands them to a BatchExecutor
// (the GPU engine, or a test executor).
//
// A request lives on its caller's stack: the caller queues it and waits (a
// blocked thread on a condition variable, an ASYNC_JOB paused until its wait
// ctx is signalled), so everything it points to stays valid until it
// completes. Nothing is ever lost: a full or stopped queue refuses the
// request (the caller computes it on the CPU), an executor error recomputes
// the whole batch on the CPU, and stopping completes what is left on the CPU.
#pragma once

#include "route/request.h"

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>

namespace mldsa::route {

struct QueueLimits {
  size_t max_batch = 1024;                    // flush when a batch has this many
  std::chrono::microseconds max_wait{1000};   // ... or its oldest request waited this long
  // ... or nothing new arrived for this long (0: off): once every caller is
  // waiting (all async jobs paused, all threads blocked) no more will come.
  std::chrono::microseconds idle_flush{50};
  size_t capacity = 8192;                     // queued + executing; beyond it push() refuses
};

struct QueueStats {
  uint64_t requests = 0;         // completed through the queue
  uint64_t batches = 0;          // handed to the executor
  uint64_t failed_batches = 0;   // executor errors (items recomputed on the CPU)
  uint64_t fallbacks = 0;        // items recomputed on the CPU after an executor error
  uint64_t drained = 0;          // items completed on the CPU by stop()
  uint64_t refused = 0;          // push() refused: full or stopped
};

class BatchQueue {
 public:
  // on_error runs on the dispatcher thread after an executor error (the router
  // uses it to send new work to the CPU for a while); on_batch after each
  // batch the executor completed, with its size and the call's wall time (the
  // router's measure of the device).
  using BatchObserver = std::function<void(const mldsa::Params&, BatchOp, size_t n, int64_t ns)>;
  BatchQueue(std::shared_ptr<BatchExecutor> executor, QueueLimits limits,
             std::function<void(const std::string&)> on_error = {}, BatchObserver on_batch = {});
  ~BatchQueue();
  BatchQueue(const BatchQueue&) = delete;
  BatchQueue& operator=(const BatchQueue&) = delete;

  // Queues r and waits for its completion (r.status is then set). False when
  // the request was not taken (queue full, stopping, wait ctx unusable):
  // nothing of r was touched and the caller computes it itself.
  bool submit(Request& r);
  // Queues the requests (threads' requests, not ASYNC jobs') under one lock,
  // so they form batches of up to max_batch, and waits for them all. Returns
  // how many of the first ones were taken; the caller computes the rest.
  size_t submit_many(std::span<Request* const> rs);

  // Completes every request still waiting on the CPU and joins the dispatcher;
  // submit() refuses from then on. Idempotent.
  void stop();

  // True in a child forked after the dispatcher started: submit() refuses,
  // stop() does nothing, and the queue must not be destroyed there (its
  // thread and the waiters of its condition variable live in the parent), so
  // the owner leaks it.
  bool forked() const;

  QueueStats stats() const;
  const QueueLimits& limits() const { return limits_; }
  BatchExecutor& executor() const { return *executor_; }

 private:
  struct Entry {
    Request* r;
    std::chrono::steady_clock::time_point queued;
  };
  static constexpr size_t kBuckets = mldsa::PARAM_SET_COUNT * kBatchOps;  // (parameter set, operation)

  bool push(Request& r);
  bool push_locked(Request& r);
  void run();
  void execute(std::span<Request* const> batch);

  const std::shared_ptr<BatchExecutor> executor_;
  const QueueLimits limits_;
  const std::function<void(const std::string&)> on_error_;
  const BatchObserver on_batch_;

  mutable std::mutex m_;
  std::condition_variable cv_;
  std::deque<Entry> buckets_[kBuckets];
  size_t pending_ = 0;  // queued + executing
  bool stopping_ = false;
  std::thread dispatcher_;  // started by the first push
  std::atomic<pid_t> owner_{0};  // the process that started it
  WaitFds wait_fds_;             // destroyed first: after the dispatcher (see ~BatchQueue)

  std::atomic<uint64_t> requests_{0}, batches_{0}, failed_batches_{0}, fallbacks_{0}, drained_{0}, refused_{0};
};

}  // namespace mldsa::route
