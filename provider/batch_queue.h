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

#include "cpu/mldsa.h"

#include <openssl/async.h>

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
#include <unordered_map>

namespace mldsa::prov {

enum class BatchOp : uint8_t { sign = 0, verify = 1, keygen = 2 };
inline constexpr size_t kBatchOps = 3;
const char* batch_op_name(BatchOp op);

// The eventfds a queue registered in ASYNC wait contexts, one per wait ctx,
// reused by every request of its job. The wait ctx owns its fd (the cleanup
// closes it when the application frees the ctx), but that cleanup is our
// code: when the queue goes, every fd still registered is taken back out of
// its wait ctx and closed, so nothing in the application's objects points
// into the module once it is unloaded.
class WaitFds {
 public:
  WaitFds() = default;
  WaitFds(const WaitFds&) = delete;
  WaitFds& operator=(const WaitFds&) = delete;
  ~WaitFds() { close_all(); }

  // The fd of w, registering a new eventfd on first use; -1 on failure and
  // after close_all(). Called from inside the job that owns w.
  int get(ASYNC_WAIT_CTX* w);
  // Clears our fd from every wait ctx still holding one, and closes it.
  void close_all();

 private:
  static void cleanup(ASYNC_WAIT_CTX* w, const void* key, OSSL_ASYNC_FD fd, void* self);

  std::mutex m_;
  std::unordered_map<ASYNC_WAIT_CTX*, int> fds_;  // under m_
  bool closed_ = false;                           // under m_
};

// How the dispatcher wakes a waiting caller. arm() on the caller's side
// before queueing, signal() once from the dispatcher, wait() on the caller's
// side; after signal() the dispatcher never touches the Completion again.
class Completion {
 public:
  Completion() = default;
  Completion(const Completion&) = delete;
  Completion& operator=(const Completion&) = delete;

  // Inside an ASYNC_JOB: pause the job, woken through the job's wait ctx (the
  // application's callback when it set one, else an eventfd the wait ctx
  // owns, from fds). Otherwise: block the thread. False if the wait ctx
  // cannot be set up.
  bool arm(WaitFds& fds);
  void wait();
  void signal();
  bool paused_job() const { return job_ != nullptr; }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;                  // thread mode, under m_
  std::atomic<bool> job_done_{false};  // job mode
  ASYNC_JOB* job_ = nullptr;
  int fd_ = -1;                        // owned by the wait ctx (WaitFds)
  ASYNC_callback_fn callback_ = nullptr;
  void* callback_arg_ = nullptr;
};

// One operation. Inputs point into the caller's memory.
//   sign:   priv, mu, rnd (nullptr: fresh OS randomness) -> sig_out (sig_bytes)
//   verify: pub, mu, sig/sig_len                          -> status ok / verify_failed / ...
//   keygen: seed                                          -> pk_out, sk_out
struct Request {
  BatchOp op = BatchOp::sign;
  const mldsa::Params* params = nullptr;
  const mldsa::PrivateKey* priv = nullptr;
  const mldsa::PublicKey* pub = nullptr;
  const uint8_t* mu = nullptr;
  const uint8_t* rnd = nullptr;
  const uint8_t* sig = nullptr;
  size_t sig_len = 0;
  const uint8_t* seed = nullptr;
  uint8_t* sig_out = nullptr;
  uint8_t* pk_out = nullptr;
  uint8_t* sk_out = nullptr;

  mldsa::Status status = mldsa::Status::internal_error;
  Completion completion;
};

// The request computed right here by the core: the CPU path and every fallback.
void run_on_cpu(Request& r);

// What the dispatcher hands batches to; all items of a batch share one
// parameter set and operation, and are in request order. A call either fills
// every item's status (and outputs) and returns true, or returns false with
// *why set: a whole-batch error, after which no output of it is trusted.
class BatchExecutor {
 public:
  virtual ~BatchExecutor() = default;
  virtual std::string description() const = 0;
  virtual bool supports(BatchOp op) const = 0;
  virtual bool sign(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) = 0;
  virtual bool verify(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) = 0;
  virtual bool keygen(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) = 0;
  // The batch size that fills the devices (resident tasks); 0: no preference.
  virtual size_t preferred_batch() const { return 0; }
};

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

}  // namespace mldsa::prov
