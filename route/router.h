// router.h - per request: compute on the CPU now, or queue for a GPU batch.
//
//   GPU off, none, or recently failed             -> CPU
//   not bulk: at most gpu_min_inflight in flight
//     and not inside an OpenSSL ASYNC_JOB         -> CPU (a lone call keeps its latency)
//   bulk, gpu_policy = always                     -> queue
//   bulk, gpu_policy = measured (the default)     -> queue while the device is
//     predicted to finish the requests at hand sooner than the CPU cores
//     (route/route_policy.h), else CPU
// The GPU engine is built on a background thread, started by the first bulk
// request (or at load with gpu = on, which must refuse to load without one);
// until it is ready every request runs on the CPU, so no caller waits for it.
// A process forked from one that started the engine never uses or builds
// one: its requests run on the CPU (the engine's threads, and CUDA's state,
// stayed in the parent). Every device result is checked on the CPU before it
// is released (route/checked_executor.h).
// Queued, a thread blocks or an ASYNC job pauses until its batch is done. The
// queue refusing (full: back-pressure) or the executor failing sends the
// request to the CPU as well; no request is lost or failed by the GPU.
#pragma once

#include "route/batch_queue.h"
#include "route/checked_executor.h"
#include "route/route_policy.h"
#include "route/router_config.h"

#include <openssl/core_dispatch.h>

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>

namespace mldsa::route {

// What the router did and what it knows, for the provider's parameters.
struct RouterCounters {
  uint64_t cpu = 0, queued = 0, queue_full = 0, batches = 0, failed_batches = 0, fallbacks = 0;
  double mean_batch = 0;
  CheckStats checks;  // the CPU's checks of the device's results
  std::vector<uint64_t> device_items;  // items each GPU device was given, by index (empty: none, or not known)
};

class Router {
 public:
  // Applies cpu_backend; chooses the executor (the test hooks, else the GPU:
  // probed here with gpu = on, which fails without one, at first need with
  // gpu = auto). nullptr with *error when this CPU cannot run cpu_backend or
  // the test settings are bad, and *no_gpu = true when the reason is gpu = on
  // without a usable GPU.
  static std::unique_ptr<Router> create(const RouterConfig& cfg, std::string* error, bool* no_gpu = nullptr);
  // With this executor (nullptr: none), installed now; for tests.
  Router(const RouterConfig& cfg, std::shared_ptr<BatchExecutor> executor, std::string devices);
  // With the executor that make returns (nullptr: none; *devices describes
  // it), made on the background thread at the first bulk request; for tests.
  using MakeExecutor = std::function<std::shared_ptr<BatchExecutor>(std::string* devices)>;
  Router(const RouterConfig& cfg, MakeExecutor make);
  ~Router();
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  mldsa::Status sign(const mldsa::PrivateKey& key, const uint8_t mu[mldsa::MU_BYTES], const uint8_t* rnd,
                     uint8_t* sig);
  mldsa::Status verify(const mldsa::PublicKey& key, const uint8_t mu[mldsa::MU_BYTES],
                       std::span<const uint8_t> sig);

  // Bulk work (the C API, include/mldsa_accel/batch.h): computes every
  // request in rs (sign requests with rnd set) on `threads` CPU threads
  // (this one among them), which take small grains from the front of the
  // list, while two feeder threads hand the GPU batches of up to the batch
  // limit from the same list, once the engine is ready: whichever side is
  // faster takes more. No policy question: the shared list balances them.
  void run_many(std::span<Request* const> rs, unsigned threads);
  // Whether run_many could hand a request like r to a device now (asking
  // starts the engine in the background, as a routed request does). When
  // it could not, the C API computes each item on the thread that prepared
  // it (run_on_cpu, then count_cpu): one parallel pass instead of two.
  bool device_usable(const Request& r) { return queue_for(r) != nullptr; }
  // n requests the caller computed on the CPU itself (run_on_cpu), counted as
  // run_many's CPU items are: once per call, not per item from every thread.
  void count_cpu(size_t n) { cpu_.fetch_add(n, std::memory_order_relaxed); }

  RouterCounters counters() const;
  // What the measured policy knows (nullptr before a GPU is installed).
  const RoutePolicy* policy() const { return probed() ? policy_.get() : nullptr; }
  // The GPU devices, or "none: <reason>". Starts the engine with gpu = auto
  // and waits until it is ready (not in a forked child: see above).
  const std::string& gpu_devices();
  // Whether the engine's start has ended (with or without a device); for tests.
  bool engine_ready() const { return probed(); }
  GpuPolicy gpu_policy() const { return cfg_.policy; }
  // The batch limit in use (0: no GPU in use, or not probed yet).
  size_t max_batch() const { return probed() && queue_ != nullptr ? queue_->limits().max_batch : 0; }
  // Completes queued requests on the CPU and stops the dispatcher; later
  // requests run on the CPU.
  void stop();

 private:
  Router(const RouterConfig& cfg);
  enum StartState : int { kIdle, kStarting, kDone };
  // Moves idle -> starting; true for the one caller that did.
  bool claim_start();
  void start_in_background();
  void start_and_wait();
  // True in a process forked from the one that started the engine.
  bool forked() const;
  void probe();
  void install(std::shared_ptr<BatchExecutor> executor, std::string devices);
  BatchQueue* queue_for(const Request& r);
  mldsa::Status route(Request& r);
  bool worth_the_device(const Request& r, size_t inflight, bool async);
  // executor_, checked_, queue_, devices_ and policy_ are set once, by
  // install(); other threads read them only once this says so.
  bool probed() const { return probed_done_.load(std::memory_order_acquire); }

  const RouterConfig cfg_;
  MakeExecutor make_;                     // tests: in place of the GPU engine
  std::atomic<int> start_{kIdle};
  std::atomic<pid_t> start_pid_{0};       // the process that started the engine
  std::mutex start_m_;
  std::condition_variable start_cv_;      // install() done
  std::unique_ptr<std::thread> starter_;  // the background start (a forked child leaks it)
  std::atomic<bool> probed_done_{false};
  std::shared_ptr<BatchExecutor> executor_;
  std::shared_ptr<CheckedExecutor> checked_;  // executor_, checked
  std::unique_ptr<BatchQueue> queue_;
  std::string devices_;
  std::unique_ptr<RoutePolicy> policy_;  // with a GPU installed
  std::atomic<size_t> inflight_{0};
  std::atomic<size_t> cpu_busy_{0};       // requests running on the CPU now
  std::atomic<size_t> cpu_parallel_{1};   // the most seen at once (ASYNC callers' CPU estimate)
  // The most requests in flight an ASYNC caller saw lately (refreshed when
  // reached again, else forgotten after a second): the batch its jobs make
  // once queued, though on the CPU they run one at a time.
  std::atomic<size_t> async_peak_{0};
  std::atomic<int64_t> async_peak_at_{0};
  std::atomic<int64_t> cpu_only_until_{0};  // steady_clock ns; set after an executor error
  std::atomic<uint64_t> cpu_{0}, queued_{0}, queue_full_{0};
};

}  // namespace mldsa::route
