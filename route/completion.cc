// completion.cc - waking blocked threads and paused ASYNC jobs.
#include "route/completion.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <thread>

namespace mldsa::route {

// ---------------------------------------------------------------------------
// WaitFds

int WaitFds::get(ASYNC_WAIT_CTX* w) {
  // The registry's address names our fd in the wait ctx; the job owning w is
  // the only one touching it now, so the lookup needs no lock.
  OSSL_ASYNC_FD fd = -1;
  void* custom = nullptr;
  if (ASYNC_WAIT_CTX_get_fd(w, this, &fd, &custom) == 1) return fd;
  std::lock_guard<std::mutex> lock(m_);
  if (closed_) return -1;
  fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) return -1;
  try {
    fds_.emplace(w, fd);
  } catch (...) {
    close(fd);
    return -1;
  }
  if (ASYNC_WAIT_CTX_set_wait_fd(w, this, fd, this, &WaitFds::cleanup) != 1) {
    fds_.erase(w);
    close(fd);
    return -1;
  }
  return fd;
}

// The application freed w while the queue lives.
void WaitFds::cleanup(ASYNC_WAIT_CTX* w, const void*, OSSL_ASYNC_FD fd, void* self) {
  WaitFds* fds = static_cast<WaitFds*>(self);
  std::lock_guard<std::mutex> lock(fds->m_);
  auto it = fds->fds_.find(w);
  if (it == fds->fds_.end() || it->second != fd) return;  // already taken back
  fds->fds_.erase(it);
  close(fd);
}

void WaitFds::close_all() {
  std::lock_guard<std::mutex> lock(m_);
  closed_ = true;
  for (const auto& [w, fd] : fds_) {
    // Marked deleted (or dropped) in w: ASYNC_WAIT_CTX_free no longer calls
    // our cleanup for it.
    ASYNC_WAIT_CTX_clear_fd(w, this);
    close(fd);
  }
  fds_.clear();
}

// ---------------------------------------------------------------------------
// Completion

bool Completion::arm(WaitFds& fds) {
  job_ = ASYNC_get_current_job();
  if (job_ == nullptr) return true;
  ASYNC_WAIT_CTX* w = ASYNC_get_wait_ctx(job_);
  if (w == nullptr) {
    // A job nobody can be told about: block its thread instead.
    job_ = nullptr;
    return true;
  }
  if (ASYNC_WAIT_CTX_get_callback(w, &callback_, &callback_arg_) == 1 && callback_ != nullptr) return true;
  callback_ = nullptr;
  fd_ = fds.get(w);
  return fd_ >= 0;
}

void Completion::wait() {
  if (job_ != nullptr) {
    // The application may resume the job before the result is in (another
    // event, or the eventfd written just before done is set): pause again.
    while (!job_done_.load(std::memory_order_acquire)) {
      if (ASYNC_pause_job() != 1) std::this_thread::yield();
    }
    if (fd_ >= 0) {
      uint64_t count;
      // Drain, so the fd is quiet until the job's next request.
      [[maybe_unused]] ssize_t n = read(fd_, &count, sizeof count);
    }
    return;
  }
  std::unique_lock<std::mutex> lock(m_);
  cv_.wait(lock, [this] { return done_; });
}

void Completion::signal() {
  if (job_ != nullptr) {
    if (callback_ != nullptr) {
      // Done first: the callback may resume the job at once, which must then
      // find its result. The callback and its argument are the application's.
      ASYNC_callback_fn cb = callback_;
      void* arg = callback_arg_;
      job_done_.store(true, std::memory_order_release);
      cb(arg);
      return;
    }
    // The fd before done: once done is seen, the job may return and its
    // application free the wait ctx (and the fd with it).
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(fd_, &one, sizeof one);
    job_done_.store(true, std::memory_order_release);
    return;
  }
  // Notified under the lock: the waiter cannot return (and free this) before.
  std::lock_guard<std::mutex> lock(m_);
  done_ = true;
  cv_.notify_one();
}

}  // namespace mldsa::route
