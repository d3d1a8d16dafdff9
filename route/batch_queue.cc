// batch_queue.cc - the bounded request queue and its dispatcher thread.
#include "route/batch_queue.h"

#include <unistd.h>

#include <algorithm>
#include <vector>

namespace mldsa::route {

namespace {

size_t bucket_of(const Request& r) {
  return static_cast<size_t>(r.params->id) * kBatchOps + static_cast<size_t>(r.op);
}

}  // namespace

// ---------------------------------------------------------------------------
// BatchQueue

BatchQueue::BatchQueue(std::shared_ptr<BatchExecutor> executor, QueueLimits limits,
                       std::function<void(const std::string&)> on_error, BatchObserver on_batch)
    : executor_(std::move(executor)), limits_(limits), on_error_(std::move(on_error)), on_batch_(std::move(on_batch)) {}

// Every request is complete once stop() returns; wait_fds_ (declared last)
// then takes its fds back from the application's wait contexts.
BatchQueue::~BatchQueue() { stop(); }

bool BatchQueue::submit(Request& r) {
  // A forked child queues nothing (push refuses): nor does it register fds.
  if (forked() || !r.completion.arm(wait_fds_) || !push(r)) {
    refused_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  r.completion.wait();
  return true;
}

bool BatchQueue::forked() const {
  const pid_t owner = owner_.load(std::memory_order_acquire);
  return owner != 0 && owner != getpid();
}

size_t BatchQueue::submit_many(std::span<Request* const> rs) {
  if (forked()) return 0;
  size_t taken = 0;
  {
    std::lock_guard<std::mutex> lock(m_);
    while (taken < rs.size() && rs[taken]->completion.arm(wait_fds_) && push_locked(*rs[taken])) ++taken;
    cv_.notify_one();
  }
  refused_.fetch_add(rs.size() - taken, std::memory_order_relaxed);
  for (size_t i = 0; i < taken; ++i) rs[i]->completion.wait();
  return taken;
}

bool BatchQueue::push(Request& r) {
  // A forked child: the dispatcher stayed in the parent, and m_ may have been
  // held by it at the fork, so not even the lock is touched. CPU from now on.
  if (forked()) return false;
  std::lock_guard<std::mutex> lock(m_);
  return push_locked(r);
}

bool BatchQueue::push_locked(Request& r) {
  if (stopping_ || pending_ >= limits_.capacity) return false;
  if (!dispatcher_.joinable()) {
    try {
      dispatcher_ = std::thread(&BatchQueue::run, this);
      owner_.store(getpid(), std::memory_order_release);
    } catch (...) {
      return false;  // no thread: this request, and the next ones, run on the CPU
    }
  }
  std::deque<Entry>& b = buckets_[bucket_of(r)];
  b.push_back({&r, std::chrono::steady_clock::now()});
  ++pending_;
  // The dispatcher needs to know of a new deadline (first entry) or a full batch.
  if (b.size() == 1 || b.size() == limits_.max_batch) cv_.notify_one();
  return true;
}

void BatchQueue::stop() {
  if (forked()) return;  // nothing of ours runs in this process
  {
    std::lock_guard<std::mutex> lock(m_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (dispatcher_.joinable()) dispatcher_.join();
}

void BatchQueue::run() {
  std::vector<Request*> batch;
  batch.reserve(limits_.max_batch);
  size_t next_bucket = 0;  // round robin, so a busy bucket cannot starve the others
  std::unique_lock<std::mutex> lock(m_);
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    auto earliest = std::chrono::steady_clock::time_point::max();
    bool any = false;
    std::deque<Entry>* ready = nullptr;
    for (size_t i = 0; i < kBuckets && ready == nullptr; ++i) {
      const size_t k = (next_bucket + i) % kBuckets;
      std::deque<Entry>& b = buckets_[k];
      if (b.empty()) continue;
      any = true;
      auto due = b.front().queued + limits_.max_wait;
      if (limits_.idle_flush.count() > 0) due = std::min(due, b.back().queued + limits_.idle_flush);
      if (stopping_ || b.size() >= limits_.max_batch || due <= now) {
        ready = &b;
        next_bucket = k + 1;
      } else {
        earliest = std::min(earliest, due);
      }
    }
    if (ready == nullptr) {
      if (stopping_) return;  // nothing left waiting
      if (any)
        cv_.wait_until(lock, earliest);
      else
        cv_.wait(lock);
      continue;
    }
    const size_t n = std::min(ready->size(), limits_.max_batch);
    for (size_t i = 0; i < n; ++i) batch.push_back((*ready)[i].r);
    ready->erase(ready->begin(), ready->begin() + static_cast<std::ptrdiff_t>(n));
    const bool draining = stopping_;
    lock.unlock();

    if (draining) {
      for (Request* r : batch) run_on_cpu(*r);
      drained_.fetch_add(n, std::memory_order_relaxed);
    } else {
      execute(batch);
    }
    requests_.fetch_add(n, std::memory_order_relaxed);
    for (Request* r : batch) r->completion.signal();  // in request order
    batch.clear();

    lock.lock();
    pending_ -= n;
  }
}

void BatchQueue::execute(std::span<Request* const> batch) {
  const mldsa::Params& p = *batch.front()->params;
  std::string why;
  bool ok = false;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    switch (batch.front()->op) {
      case BatchOp::sign: ok = executor_->sign(p, batch, &why); break;
      case BatchOp::verify: ok = executor_->verify(p, batch, &why); break;
      case BatchOp::keygen: ok = executor_->keygen(p, batch, &why); break;
    }
  } catch (...) {
    ok = false;
    why = "executor threw an exception";
  }
  batches_.fetch_add(1, std::memory_order_relaxed);
  if (ok) {
    if (on_batch_)
      on_batch_(p, batch.front()->op, batch.size(),
                std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
    return;
  }
  // Whatever the executor wrote is not trusted: every item again, on the CPU.
  failed_batches_.fetch_add(1, std::memory_order_relaxed);
  fallbacks_.fetch_add(batch.size(), std::memory_order_relaxed);
  for (Request* r : batch) run_on_cpu(*r);
  if (on_error_) on_error_(why.empty() ? "executor error" : why);
}

QueueStats BatchQueue::stats() const {
  QueueStats s;
  s.requests = requests_.load(std::memory_order_relaxed);
  s.batches = batches_.load(std::memory_order_relaxed);
  s.failed_batches = failed_batches_.load(std::memory_order_relaxed);
  s.fallbacks = fallbacks_.load(std::memory_order_relaxed);
  s.drained = drained_.load(std::memory_order_relaxed);
  s.refused = refused_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace mldsa::route
