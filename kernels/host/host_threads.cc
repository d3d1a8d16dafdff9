// host_threads.cc - see host_threads.h.
#include "kernels/host/host_threads.h"

#include <algorithm>
#include <latch>

namespace mldsa::gpu {

HostThread::HostThread(const ThreadStarter& start) {
  std::function<void()> body = [this] { serve(); };
  thread_ = start ? start(std::move(body)) : std::thread(std::move(body));
}

HostThread::~HostThread() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void HostThread::post(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(m_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_all();
}

void HostThread::run(const std::function<void()>& job) {
  std::latch done(1);
  post([&] {
    job();
    done.count_down();
  });
  done.wait();
}

void HostThread::serve() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return !jobs_.empty() || stop_; });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

HostPool::HostPool(unsigned threads, const ThreadStarter& start) {
  for (unsigned i = 0; i < threads; ++i) helpers_.push_back(std::make_unique<HostThread>(start));
}

void HostPool::parallel_for(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn) {
  const size_t pieces = std::min<size_t>(helpers_.size() + 1, std::max<size_t>(1, n / std::max<size_t>(grain, 1)));
  if (pieces <= 1) {
    if (n) fn(0, n);
    return;
  }
  std::lock_guard<std::mutex> lock(busy_);
  const size_t per = (n + pieces - 1) / pieces;
  std::latch done(static_cast<std::ptrdiff_t>(pieces - 1));
  for (size_t k = 1; k < pieces; ++k)
    helpers_[k - 1]->post([&, k] {
      fn(k * per, std::min(n, (k + 1) * per));
      done.count_down();
    });
  fn(0, std::min(n, per));
  done.wait();
}

}  // namespace mldsa::gpu
