// completion.h - how a queued request's caller waits and is woken: a blocked
// thread on a condition variable, or an OpenSSL ASYNC_JOB paused until its
// wait ctx is signalled (the application's callback, or an eventfd).
#pragma once

#include <openssl/async.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <unordered_map>

namespace mldsa::route {

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

}  // namespace mldsa::route
