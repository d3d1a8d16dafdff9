// router.cc - routing decisions, the routing settings, and the counters the
// provider reports.
#include "route/router.h"

#include "cpu/parallel.h"
#include "route/gpu_executor.h"
#include "route/test_hooks.h"

#include <openssl/params.h>

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace mldsa::route {

namespace {

// This thread's CPU time: what a CPU request cost, whatever else the cores ran.
int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

// ---------------------------------------------------------------------------
// Router

Router::Router(const RouterConfig& cfg) : cfg_(cfg) {}

Router::Router(const RouterConfig& cfg, std::shared_ptr<BatchExecutor> executor, std::string devices)
    : cfg_(cfg) {
  claim_start();
  install(std::move(executor), std::move(devices));
}

Router::Router(const RouterConfig& cfg, MakeExecutor make) : cfg_(cfg), make_(std::move(make)) {}

Router::~Router() {
  if (forked()) {
    // Nothing of the engine is ours: its threads (and the starter) live in
    // the parent, and destroying it here would wait for them forever.
    (void)starter_.release();
    (void)queue_.release();
    new std::shared_ptr<BatchExecutor>(std::move(executor_));
    new std::shared_ptr<CheckedExecutor>(std::move(checked_));
    return;
  }
  // An engine being built is finished first: its start cannot be cancelled.
  if (starter_ != nullptr && starter_->joinable()) starter_->join();
  stop();
  // report = yes: where the work went, for programs that cannot ask
  // (openssl speed, servers).
  if (cfg_.report) {
    const RouterCounters c = counters();
    std::fprintf(stderr,
                 "mldsa-accel: %llu requests on the CPU, %llu through the batch queue (%llu batches, mean %.1f; "
                 "%llu failed, %llu requests recomputed on the CPU); device results checked on the CPU: %llu, "
                 "wrong: %llu%s; GPU: %s; measured: %s\n",
                 static_cast<unsigned long long>(c.cpu), static_cast<unsigned long long>(c.queued),
                 static_cast<unsigned long long>(c.batches), c.mean_batch,
                 static_cast<unsigned long long>(c.failed_batches), static_cast<unsigned long long>(c.fallbacks),
                 static_cast<unsigned long long>(c.checks.signatures_checked + c.checks.verdicts_checked +
                                                 c.checks.keys_checked),
                 static_cast<unsigned long long>(c.checks.wrong),
                 c.checks.out_of_service ? " (device taken out of service)" : "",
                 probed() ? devices_.c_str() : "not probed",
                 policy() != nullptr ? policy()->describe().c_str() : "nothing");
  }
}

std::unique_ptr<Router> Router::create(const RouterConfig& cfg, std::string* error, bool* no_gpu) {
  if (no_gpu != nullptr) *no_gpu = false;
  if (!cfg.cpu_backend.empty() && !mldsa::select_backend(cfg.cpu_backend)) {
    *error = "cpu_backend: no such backend or tuning, or this CPU cannot run it: '" + cfg.cpu_backend + "'";
    return nullptr;
  }
  // Bad simulated-device settings refuse the load, not the first bulk request.
  if (!check_test_settings(cfg.test, error)) return nullptr;
  std::unique_ptr<Router> r(new Router(cfg));
  if (cfg.gpu == GpuMode::off) r->install(nullptr, "none: gpu = off");  // nothing to start
  if (cfg.gpu == GpuMode::on) {
    r->start_and_wait();
    if (r->executor_ == nullptr) {
      *error = "gpu = on, but " + r->devices_;
      if (no_gpu != nullptr) *no_gpu = true;
      return nullptr;
    }
  }
  return r;
}

bool Router::claim_start() {
  int idle = kIdle;
  if (!start_.compare_exchange_strong(idle, kStarting, std::memory_order_acq_rel)) return false;
  start_pid_.store(getpid(), std::memory_order_release);
  return true;
}

bool Router::forked() const {
  const pid_t pid = start_pid_.load(std::memory_order_acquire);
  return pid != 0 && pid != getpid();
}

void Router::start_in_background() {
  if (start_.load(std::memory_order_acquire) != kIdle || !claim_start()) return;
  try {
    starter_ = std::make_unique<std::thread>([this] { probe(); });
  } catch (...) {
    install(nullptr, "none: cannot start a thread to build the GPU engine");
  }
}

void Router::start_and_wait() {
  if (forked()) return;
  if (claim_start()) {
    probe();
    return;
  }
  std::unique_lock<std::mutex> lock(start_m_);
  start_cv_.wait(lock, [this] { return probed(); });
}

// Chooses the executor: the test hook, else the GPU engine (CUDA initialises
// here). Runs once, on the background thread or in start_and_wait().
void Router::probe() {
  if (make_) {
    std::string devices;
    std::shared_ptr<BatchExecutor> e = make_(&devices);
    install(std::move(e), std::move(devices));
    return;
  }
  if (cfg_.gpu == GpuMode::off) {
    install(nullptr, "none: gpu = off");
    return;
  }
  if (std::shared_ptr<BatchExecutor> test = test_executor(cfg_.test)) {
    install(std::move(test), "none: test executor in use (MLDSA_ACCEL_TEST_EXECUTOR=cpu)");
    return;
  }
  std::string why;
  std::shared_ptr<gpu::Platform> platform = engine_platform(cfg_.test, &why);
  // Chunks (and the buffers made for each stream) of at most the configured
  // batch limit (1024 unless set): a bigger batch is split into chunks across
  // the streams, and buffers for 8192-item chunks would take gigabytes.
  gpu::EngineConfig engine = cfg_.engine;
  engine.chunk_items = std::clamp<size_t>(cfg_.limits.max_batch, 1, engine.chunk_items);
  std::shared_ptr<BatchExecutor> gpu =
      platform != nullptr ? make_gpu_executor(std::move(platform), engine, &why) : nullptr;
  if (gpu == nullptr) {
    install(nullptr, "none: " + why);
    return;
  }
  const std::string description = gpu->description();
  install(std::move(gpu), description);
}

void Router::install(std::shared_ptr<BatchExecutor> executor, std::string devices) {
  devices_ = std::move(devices);
  if (executor != nullptr) {
    executor = with_test_faults(std::move(executor), cfg_.test);
    if (cfg_.check_device_results) {
      checked_ = std::make_shared<CheckedExecutor>(std::move(executor), cfg_.verify_audit, cfg_.fault_limit);
      executor = checked_;
    }
    executor_ = std::move(executor);
    // Batches that fill every device (its resident tasks) where that is more
    // than the default, unless gpu_max_batch says; room for two of them.
    QueueLimits limits = cfg_.limits;
    const size_t fill = std::min<size_t>(executor_->preferred_batch(), size_t{1} << 20);
    if (!cfg_.max_batch_set && fill > limits.max_batch) {
      limits.max_batch = fill;
      if (!cfg_.queue_depth_set) limits.capacity = std::max(limits.capacity, 2 * fill);
    }
    policy_ = std::make_unique<RoutePolicy>(mldsa::usable_cpus(), limits.max_batch);
    queue_ = std::make_unique<BatchQueue>(
        executor_, limits,
        [this](const std::string&) {
          if (cfg_.error_cooldown.count() > 0)
            cpu_only_until_.store(now_ns() + std::chrono::nanoseconds(cfg_.error_cooldown).count(),
                                  std::memory_order_relaxed);
        },
        [this](const mldsa::Params& p, BatchOp op, size_t n, int64_t ns) { policy_->device_sample(p, op, n, ns); });
  }
  {
    std::lock_guard<std::mutex> lock(start_m_);
    start_.store(kDone, std::memory_order_release);
    probed_done_.store(true, std::memory_order_release);
  }
  start_cv_.notify_all();
}

BatchQueue* Router::queue_for(const Request& r) {
  if (cfg_.gpu == GpuMode::off) return nullptr;
  // Hedged signing without a DRBG draws from the OS inside the core: CPU only.
  if (r.op == BatchOp::sign && r.rnd == nullptr) return nullptr;
  if (forked()) return nullptr;
  if (!probed()) {  // never wait for the engine: the CPU until it is ready
    start_in_background();
    return nullptr;
  }
  if (queue_ == nullptr || !executor_->supports(r.op) || (checked_ != nullptr && checked_->out_of_service()))
    return nullptr;
  const int64_t until = cpu_only_until_.load(std::memory_order_relaxed);
  if (until != 0 && now_ns() < until) return nullptr;
  return queue_.get();
}

mldsa::Status Router::route(Request& r) {
  const size_t inflight = inflight_.fetch_add(1, std::memory_order_relaxed) + 1;
  struct Leave {
    std::atomic<size_t>& n;
    ~Leave() { n.fetch_sub(1, std::memory_order_relaxed); }
  } leave{inflight_};
  // The cheap tests first: a lone synchronous call never touches the GPU.
  const bool async = ASYNC_get_current_job() != nullptr;
  const bool bulk = inflight > cfg_.min_inflight || async;
  BatchQueue* q = bulk ? queue_for(r) : nullptr;
  if (q != nullptr && (cfg_.policy == GpuPolicy::always || worth_the_device(r, inflight, async))) {
    if (q->submit(r)) {
      queued_.fetch_add(1, std::memory_order_relaxed);
      return r.status;
    }
    queue_full_.fetch_add(1, std::memory_order_relaxed);
  }
  cpu_.fetch_add(1, std::memory_order_relaxed);
  // With a GPU to compare against, one CPU request in kCpuSampleEvery (per
  // thread) is timed for the policy.
  thread_local unsigned calls = 0;
  RoutePolicy* policy = bulk && probed() ? policy_.get() : nullptr;
  const bool sample = policy != nullptr && calls++ % RoutePolicy::kCpuSampleEvery == 0;
  const size_t busy = cpu_busy_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (busy > cpu_parallel_.load(std::memory_order_relaxed)) cpu_parallel_.store(busy, std::memory_order_relaxed);
  const int64_t t0 = sample ? thread_cpu_ns() : 0;
  run_on_cpu(r);
  if (sample) policy->cpu_sample(*r.params, r.op, thread_cpu_ns() - t0);
  if (policy != nullptr) policy->cpu_done(*r.params, r.op);
  cpu_busy_.fetch_sub(1, std::memory_order_relaxed);
  return r.status;
}

// The measured policy's question for one bulk request. Threads in a call are
// the batch they would make and the CPU work they would do; an ASYNC job's
// thread runs one request at a time, so its jobs make a batch only once
// queued (as many as were lately in flight at once: a probe shows them)
// while the CPU runs as many as threads have run at once.
bool Router::worth_the_device(const Request& r, size_t inflight, bool async) {
  const int64_t now = now_ns();
  RoutePolicy::Demand d;
  if (async) {
    size_t peak = async_peak_.load(std::memory_order_relaxed);
    if (inflight >= peak || now - async_peak_at_.load(std::memory_order_relaxed) > 1'000'000'000) {
      async_peak_.store(peak = inflight, std::memory_order_relaxed);
      async_peak_at_.store(now, std::memory_order_relaxed);
    }
    d.batch = std::max(inflight, peak);
    d.cpu_parallel = cpu_parallel_.load(std::memory_order_relaxed);
    d.async = true;
  } else {
    d.batch = inflight;
    d.cpu_parallel = inflight;
  }
  return policy_->use_device(*r.params, r.op, d, now);
}

void Router::run_many(std::span<Request* const> rs, unsigned threads) {
  const size_t n = rs.size();
  if (n == 0) return;
  constexpr size_t kGrain = 8;  // items a CPU thread takes at a time
  std::atomic<size_t> next{0};
  auto cpu_grain = [&]() -> bool {
    const size_t first = next.fetch_add(kGrain, std::memory_order_relaxed);
    if (first >= n) return false;
    const size_t end = std::min(n, first + kGrain);
    for (size_t i = first; i < end; ++i) run_on_cpu(*rs[i]);
    cpu_.fetch_add(end - first, std::memory_order_relaxed);
    return true;
  };
  // A feeder: batches to the queue while the device is usable, else CPU grains.
  auto feed = [&] {
    std::vector<Request*> batch;
    for (;;) {
      BatchQueue* q = queue_for(*rs[0]);
      if (q == nullptr) {
        if (!cpu_grain()) return;
        continue;
      }
      // Half of what is left, at most a batch: the device is not handed a
      // tail the CPU threads would finish sooner.
      const size_t seen = next.load(std::memory_order_relaxed);
      if (seen >= n) return;
      const size_t want = std::clamp<size_t>((n - seen + 1) / 2, 1, q->limits().max_batch);
      const size_t first = next.fetch_add(want, std::memory_order_relaxed);
      if (first >= n) return;
      const size_t end = std::min(n, first + want);
      batch.assign(rs.begin() + first, rs.begin() + end);
      const size_t taken = q->submit_many(batch);
      queued_.fetch_add(taken, std::memory_order_relaxed);
      for (size_t i = taken; i < batch.size(); ++i) run_on_cpu(*batch[i]);
      cpu_.fetch_add(batch.size() - taken, std::memory_order_relaxed);
      queue_full_.fetch_add(batch.size() - taken, std::memory_order_relaxed);
    }
  };
  const bool device = cfg_.gpu != GpuMode::off && !(rs[0]->op == BatchOp::sign && rs[0]->rnd == nullptr);
  std::vector<std::thread> pool;
  auto start = [&](auto f) {
    try {
      pool.emplace_back(f);
    } catch (...) {  // fewer threads: the others (and this one) do the work
    }
  };
  if (device && n > kGrain)
    for (int i = 0; i < 2; ++i) start(feed);
  for (unsigned t = 1; t < threads && (t + 1) * kGrain <= n; ++t) start([&] { while (cpu_grain()) {} });
  while (cpu_grain()) {
  }
  for (std::thread& th : pool) th.join();
}

mldsa::Status Router::sign(const mldsa::PrivateKey& key, const uint8_t mu[mldsa::MU_BYTES], const uint8_t* rnd,
                           uint8_t* sig) {
  Request r;
  r.op = BatchOp::sign;
  r.params = &key.params();
  r.priv = &key;
  r.mu = mu;
  r.rnd = rnd;
  r.sig_out = sig;
  return route(r);
}

mldsa::Status Router::verify(const mldsa::PublicKey& key, const uint8_t mu[mldsa::MU_BYTES],
                             std::span<const uint8_t> sig) {
  Request r;
  r.op = BatchOp::verify;
  r.params = &key.params();
  r.pub = &key;
  r.mu = mu;
  r.sig = sig.data();
  r.sig_len = sig.size();
  return route(r);
}

RouterCounters Router::counters() const {
  RouterCounters c;
  c.cpu = cpu_.load(std::memory_order_relaxed);
  c.queued = queued_.load(std::memory_order_relaxed);
  c.queue_full = queue_full_.load(std::memory_order_relaxed);
  if (probed() && queue_ != nullptr) {
    const QueueStats s = queue_->stats();
    c.batches = s.batches;
    c.failed_batches = s.failed_batches;
    c.fallbacks = s.fallbacks;
    c.mean_batch = s.batches ? static_cast<double>(s.requests - s.drained) / static_cast<double>(s.batches) : 0.0;
  }
  if (probed() && checked_ != nullptr) c.checks = checked_->stats();
  if (probed() && executor_ != nullptr) c.device_items = executor_->device_items();
  return c;
}

const std::string& Router::gpu_devices() {
  static const std::string kForked = "none: a process forked from the one that started the GPU engine";
  if (forked()) return kForked;
  start_and_wait();
  return devices_;
}

void Router::stop() {
  // After a probe only: stopping must not initialise the GPU.
  if (probed() && !forked() && queue_ != nullptr) queue_->stop();
}

}  // namespace mldsa::route
