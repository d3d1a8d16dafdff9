// router.cc - routing decisions, the routing settings, and the counters the
// provider reports.
#include "route/router.h"

#include "route/gpu_executor.h"
#include "route/test_executors.h"

#include <openssl/params.h>

#include <time.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace mldsa::route {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool parse_number(std::string_view text, uint64_t lo, uint64_t hi, uint64_t& out) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end || text.empty() || v < lo || v > hi) return false;
  out = v;
  return true;
}

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

struct Key {
  const char* name;
  const char* env;
};
const Key kKeys[] = {
    {CONFIG_GPU, "MLDSA_ACCEL_GPU"},
    {CONFIG_GPU_POLICY, "MLDSA_ACCEL_GPU_POLICY"},
    {CONFIG_GPU_MIN_INFLIGHT, "MLDSA_ACCEL_GPU_MIN_INFLIGHT"},
    {CONFIG_GPU_MAX_BATCH, "MLDSA_ACCEL_GPU_MAX_BATCH"},
    {CONFIG_GPU_MAX_WAIT_US, "MLDSA_ACCEL_GPU_MAX_WAIT_US"},
    {CONFIG_GPU_IDLE_FLUSH_US, "MLDSA_ACCEL_GPU_IDLE_FLUSH_US"},
    {CONFIG_GPU_QUEUE_DEPTH, "MLDSA_ACCEL_GPU_QUEUE_DEPTH"},
    {CONFIG_GPU_ERROR_COOLDOWN_MS, "MLDSA_ACCEL_GPU_ERROR_COOLDOWN_MS"},
    {CONFIG_CPU_BACKEND, "MLDSA_ACCEL_CPU_BACKEND"},
};
constexpr size_t kKeyCount = sizeof(kKeys) / sizeof(kKeys[0]);

}  // namespace

bool apply_router_key(RouterConfig& cfg, std::string_view key, std::string_view value, std::string* error) {
  const std::string v = lower(value);
  auto number = [&](uint64_t lo, uint64_t hi, uint64_t& out) {
    if (parse_number(v, lo, hi, out)) return true;
    *error = std::string(key) + ": '" + std::string(value) + "' is not a whole number in " + std::to_string(lo) +
             ".." + std::to_string(hi);
    return false;
  };
  uint64_t n = 0;
  if (key == CONFIG_GPU) {
    if (v == "auto") cfg.gpu = GpuMode::automatic;
    else if (v == "on") cfg.gpu = GpuMode::on;
    else if (v == "off") cfg.gpu = GpuMode::off;
    else {
      *error = std::string(key) + ": '" + std::string(value) + "' is not auto, on or off";
      return false;
    }
    return true;
  }
  if (key == CONFIG_GPU_POLICY) {
    if (v == "measured") cfg.policy = GpuPolicy::measured;
    else if (v == "always") cfg.policy = GpuPolicy::always;
    else {
      *error = std::string(key) + ": '" + std::string(value) + "' is not measured or always";
      return false;
    }
    return true;
  }
  if (key == CONFIG_GPU_MIN_INFLIGHT) {
    if (!number(0, 1000000, n)) return false;
    cfg.min_inflight = n;
    return true;
  }
  if (key == CONFIG_GPU_MAX_BATCH) {
    if (!number(1, 1u << 20, n)) return false;
    cfg.limits.max_batch = n;
    cfg.max_batch_set = true;
    return true;
  }
  if (key == CONFIG_GPU_MAX_WAIT_US) {
    if (!number(0, 10000000, n)) return false;
    cfg.limits.max_wait = std::chrono::microseconds(n);
    return true;
  }
  if (key == CONFIG_GPU_IDLE_FLUSH_US) {
    if (!number(0, 10000000, n)) return false;
    cfg.limits.idle_flush = std::chrono::microseconds(n);
    return true;
  }
  if (key == CONFIG_GPU_QUEUE_DEPTH) {
    if (!number(1, 1u << 24, n)) return false;
    cfg.limits.capacity = n;
    cfg.queue_depth_set = true;
    return true;
  }
  if (key == CONFIG_GPU_ERROR_COOLDOWN_MS) {
    if (!number(0, 3600000, n)) return false;
    cfg.error_cooldown = std::chrono::milliseconds(n);
    return true;
  }
  if (key == CONFIG_CPU_BACKEND) {
    // A backend, optionally "@<tuning>" for one of its tables: the core's
    // own list of what this build has (cpu/backend.cc).
    const std::vector<std::string> known = mldsa::backend_specs();
    if (std::find(known.begin(), known.end(), v) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      *error = std::string(key) + ": '" + std::string(value) + "' is none of this build's " + list;
      return false;
    }
    cfg.cpu_backend = v;
    return true;
  }
  *error = "unknown routing key '" + std::string(key) + "'";
  return false;
}

bool read_router_config(const OSSL_CORE_HANDLE* handle, OSSL_FUNC_core_get_params_fn* core_get_params,
                        RouterConfig& cfg, std::string* error) {
  // The core answers with pointers to its own copies of the strings.
  char* values[kKeyCount] = {};
  OSSL_PARAM params[kKeyCount + 1];
  for (size_t i = 0; i < kKeyCount; ++i)
    params[i] = OSSL_PARAM_construct_utf8_ptr(kKeys[i].name, &values[i], 0);
  params[kKeyCount] = OSSL_PARAM_construct_end();
  if (core_get_params == nullptr || !core_get_params(handle, params)) std::fill(values, values + kKeyCount, nullptr);
  for (size_t i = 0; i < kKeyCount; ++i) {
    const char* env = std::getenv(kKeys[i].env);
    const char* v = env != nullptr ? env : values[i];
    if (v == nullptr) continue;
    if (!apply_router_key(cfg, kKeys[i].name, v, error)) {
      if (env != nullptr) *error += std::string(" (from ") + kKeys[i].env + ")";
      return false;
    }
  }
  if (const char* e = std::getenv("MLDSA_ACCEL_TEST_EXECUTOR")) cfg.test_executor = e;
  if (const char* e = std::getenv("MLDSA_ACCEL_TEST_FAIL_EVERY")) {
    uint64_t k = 0;
    if (!parse_number(e, 1, 1000000, k)) {
      *error = std::string("MLDSA_ACCEL_TEST_FAIL_EVERY: '") + e + "' is not a whole number in 1..1000000";
      return false;
    }
    cfg.fail_every = static_cast<unsigned>(k);
  }
  if (!cfg.test_executor.empty() && cfg.test_executor != "cpu") {
    *error = "MLDSA_ACCEL_TEST_EXECUTOR: '" + cfg.test_executor + "' is not cpu";
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Router

Router::Router(const RouterConfig& cfg) : cfg_(cfg) {}

Router::Router(const RouterConfig& cfg, std::shared_ptr<BatchExecutor> executor, std::string devices)
    : cfg_(cfg) {
  std::call_once(probed_, [&] { install(std::move(executor), std::move(devices)); });
}

Router::~Router() {
  stop();
  // MLDSA_ACCEL_REPORT=1: where the work went, for programs that cannot ask
  // (openssl speed, servers).
  if (const char* r = std::getenv("MLDSA_ACCEL_REPORT"); r != nullptr && std::string_view(r) == "1") {
    const RouterCounters c = counters();
    std::fprintf(stderr,
                 "mldsa-accel: %llu requests on the CPU, %llu through the batch queue (%llu batches, mean %.1f; "
                 "%llu failed, %llu requests recomputed on the CPU); GPU: %s; measured: %s\n",
                 static_cast<unsigned long long>(c.cpu), static_cast<unsigned long long>(c.queued),
                 static_cast<unsigned long long>(c.batches), c.mean_batch,
                 static_cast<unsigned long long>(c.failed_batches), static_cast<unsigned long long>(c.fallbacks),
                 probed() ? devices_.c_str() : "not probed",
                 policy() != nullptr ? policy()->describe().c_str() : "nothing");
  }
  // A forked child cannot destroy the parent's queue (see BatchQueue::forked).
  if (probed() && queue_ != nullptr && queue_->forked()) (void)queue_.release();
}

std::unique_ptr<Router> Router::create(const RouterConfig& cfg, std::string* error, bool* no_gpu) {
  if (no_gpu != nullptr) *no_gpu = false;
  if (!cfg.cpu_backend.empty() && !mldsa::select_backend(cfg.cpu_backend)) {
    *error = "cpu_backend: no such backend or tuning, or this CPU cannot run it: '" + cfg.cpu_backend + "'";
    return nullptr;
  }
  std::unique_ptr<Router> r(new Router(cfg));
  if (cfg.gpu == GpuMode::on) {
    std::call_once(r->probed_, [&] { r->probe(); });
    if (r->executor_ == nullptr) {
      *error = "gpu = on, but " + r->devices_;
      if (no_gpu != nullptr) *no_gpu = true;
      return nullptr;
    }
  }
  return r;
}

// Chooses the executor: the test hook, else the GPU engine (CUDA initialises here).
void Router::probe() {
  if (cfg_.gpu == GpuMode::off) {
    install(nullptr, "none: gpu = off");
    return;
  }
  if (cfg_.test_executor == "cpu") {
    install(make_cpu_executor(), "none: test executor in use (MLDSA_ACCEL_TEST_EXECUTOR=cpu)");
    return;
  }
  std::string why;
  // Chunks (and the buffers made for each stream) of at most the configured
  // batch limit (1024 unless set): a bigger batch is split into chunks across
  // the streams, and buffers for 8192-item chunks would take gigabytes.
  std::shared_ptr<BatchExecutor> gpu = make_gpu_executor(cfg_.limits.max_batch, &why);
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
    if (cfg_.fail_every > 0) executor = with_faults(std::move(executor), cfg_.fail_every);
    executor_ = std::move(executor);
    // Batches that fill every device (its resident tasks) where that is more
    // than the default, unless gpu_max_batch says; room for two of them.
    QueueLimits limits = cfg_.limits;
    const size_t fill = std::min<size_t>(executor_->preferred_batch(), size_t{1} << 20);
    if (!cfg_.max_batch_set && fill > limits.max_batch) {
      limits.max_batch = fill;
      if (!cfg_.queue_depth_set) limits.capacity = std::max(limits.capacity, 2 * fill);
    }
    policy_ = std::make_unique<RoutePolicy>(std::max(1u, std::thread::hardware_concurrency()), limits.max_batch);
    queue_ = std::make_unique<BatchQueue>(
        executor_, limits,
        [this](const std::string&) {
          if (cfg_.error_cooldown.count() > 0)
            cpu_only_until_.store(now_ns() + std::chrono::nanoseconds(cfg_.error_cooldown).count(),
                                  std::memory_order_relaxed);
        },
        [this](const mldsa::Params& p, BatchOp op, size_t n, int64_t ns) { policy_->device_sample(p, op, n, ns); });
  }
  probed_done_.store(true, std::memory_order_release);
}

BatchQueue* Router::queue_for(const Request& r) {
  if (cfg_.gpu == GpuMode::off) return nullptr;
  // Hedged signing without a DRBG draws from the OS inside the core: CPU only.
  if (r.op == BatchOp::sign && r.rnd == nullptr) return nullptr;
  std::call_once(probed_, [this] { probe(); });
  if (queue_ == nullptr || !executor_->supports(r.op)) return nullptr;
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
  return c;
}

const std::string& Router::gpu_devices() {
  std::call_once(probed_, [this] { probe(); });
  return devices_;
}

void Router::stop() {
  // After a probe only: stopping must not initialise the GPU.
  if (probed() && queue_ != nullptr) queue_->stop();
}

}  // namespace mldsa::route
