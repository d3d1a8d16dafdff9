// engine.cc - the engine's public side: one host thread per logical device
// (every device call runs on it, none on the caller's thread), the split of
// a batch among the live devices and the self-test. The pipeline itself is
// kernels/host/device_worker.cc.
#include "kernels/host/engine.h"

#include <algorithm>
#include <cstring>
#include <latch>
#include <mutex>
#include <atomic>
#include <vector>

#include "cpu/key_expanded.h"
#include "cpu/parallel.h"
#include "kernels/host/device_list.h"
#include "kernels/host/device_worker.h"
#include "kernels/host/host_threads.h"

namespace mldsa::gpu {

static_assert(kSignAttemptLimit == mldsa::kMaxSignAttempts, "the device's loop limit is the core's");

struct Engine::Impl {
  struct Lane {
    int ordinal = 0;
    std::unique_ptr<HostThread> thread;
    std::unique_ptr<DeviceWorker> worker;  // made, used and destroyed on thread
    // Items given to this device (Engine::items_by_device); read without mu.
    std::unique_ptr<std::atomic<uint64_t>> items = std::make_unique<std::atomic<uint64_t>>(0);
  };
  std::shared_ptr<Platform> platform;
  EngineConfig config;
  std::string description;
  std::unique_ptr<HostPool> staging;  // before the lanes: they use it until they end
  std::vector<Lane> lanes;
  std::mutex mu;  // one batch at a time

  ~Impl() {
    for (Lane& lane : lanes) {
      if (lane.thread) lane.thread->run([&] { lane.worker.reset(); });
      lane.thread.reset();
    }
  }

  // share(worker, first, count) for equal contiguous shares of [0, n), one
  // per live logical device, each on its device's thread.
  template <typename Share>
  EngineStatus split(size_t n, Share share) {
    std::vector<Lane*> live;
    for (Lane& lane : lanes)
      if (!lane.worker->lost()) live.push_back(&lane);
    if (live.empty())
      return {EngineError::device_lost, "no usable device (every device was lost; the first: " +
                                            lanes.front().worker->lost_reason() + ")"};
    const size_t per = (n + std::min(live.size(), n) - 1) / std::min(live.size(), n);
    const size_t parts = (n + per - 1) / per;
    std::vector<EngineStatus> results(parts);
    std::latch done(static_cast<std::ptrdiff_t>(parts));
    for (size_t d = 0; d < parts; ++d) {
      const size_t first = d * per, count = std::min(per, n - first);
      live[d]->items->fetch_add(count, std::memory_order_relaxed);
      live[d]->thread->post([&, d, first, count] {
        results[d] = share(*live[d]->worker, first, count);
        done.count_down();
      });
    }
    done.wait();
    for (const EngineStatus& st : results)
      if (!st.ok()) return st;
    return {};
  }
};

namespace {

// One key generation, signature and verification (and a rejected one) on a
// logical device, against the core: a device that answers wrongly is refused
// before it gets work. Runs every kernel once, so the device has loaded them
// and sized its local memory before the first batch.
EngineStatus self_test(DeviceWorker& w) {
  const Params& p = params(ParamSet::ML_DSA_44);
  const TaskParams tp = task_params(p);
  uint8_t seed[SEED_BYTES], mu[MU_BYTES];
  const uint8_t zero_rnd[RND_BYTES] = {};
  for (size_t i = 0; i < sizeof seed; ++i) seed[i] = static_cast<uint8_t>(7 * i + 3);
  for (size_t i = 0; i < sizeof mu; ++i) mu[i] = static_cast<uint8_t>(5 * i + 1);
  std::unique_ptr<PrivateKey> key;
  if (PrivateKey::from_seed(p, seed, key) != Status::ok) return {EngineError::device, "self-test: core keygen failed"};
  std::vector<uint8_t> want_sig(p.sig_bytes), pk(p.pk_bytes), sk(p.sk_bytes), sig(p.sig_bytes);
  if (sign_mu(*key, mu, zero_rnd, want_sig.data()) != Status::ok)
    return {EngineError::device, "self-test: core signing failed"};
  auto wrong = [](const char* what) { return EngineStatus{EngineError::device, std::string("self-test: ") + what}; };

  const KeygenItem kitem{seed, pk.data(), sk.data()};
  EngineStatus st = w.keygen(tp, &kitem, 1);
  const bool keys_equal = st.ok() && std::memcmp(pk.data(), key->public_key().encoded().data(), pk.size()) == 0 &&
                          std::memcmp(sk.data(), key->encoded().data(), sk.size()) == 0;
  secure_zero(sk.data(), sk.size());
  if (!st.ok()) return st;
  if (!keys_equal) return wrong("the device's key differs from the core's");

  const SignItem item{key->encoded().data(), mu, zero_rnd, sig.data()};
  Status sign_status = Status::internal_error;
  if (st = w.sign(tp, &item, 1, nullptr, &sign_status, SignScheduling::dynamic); !st.ok()) return st;
  if (sign_status != Status::ok || sig != want_sig) return wrong("the device's signature differs from the core's");

  std::vector<uint8_t> bad = want_sig;
  bad[p.sig_bytes / 2] ^= 1;
  const VerifyItem items[2] = {{pk.data(), want_sig.data(), want_sig.size(), mu, nullptr, 0, nullptr, 0},
                               {pk.data(), bad.data(), bad.size(), mu, nullptr, 0, nullptr, 0}};
  Status verdict[2] = {Status::internal_error, Status::internal_error};
  if (st = w.verify(tp, items, 2, verdict); !st.ok()) return st;
  if (verdict[0] != Status::ok || verdict[1] != verify_mu(key->public_key(), mu, bad))
    return wrong("the device's verdicts differ from the core's");
  return {};
}

}  // namespace

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

std::unique_ptr<Engine> Engine::create(std::shared_ptr<Platform> platform, const EngineConfig& config,
                                       std::string* why) {
  auto fail = [&](std::string reason) -> std::unique_ptr<Engine> {
    if (why) *why = std::move(reason);
    return nullptr;
  };
  if (!platform) return fail("no device platform");
  if (config.streams == 0 || config.streams > 64 || config.chunk_items == 0 || config.chunk_items > (size_t{1} << 20) ||
      config.timeout.count() <= 0 || config.sign_attempt_limit == 0 || config.key_cache_slots < 4 ||
      config.key_cache_slots > 65536)
    return fail("bad engine configuration (streams 1..64, chunk_items 1..1048576, key_cache_slots 4..65536, a "
                "positive timeout and loop limit)");
  const int count = platform->device_count();
  if (count <= 0) return fail("no " + platform->name() + " device");
  std::vector<int> logical = config.devices;
  if (logical.empty()) {
    std::string bad;
    if (!parse_device_list(config.gpus, config.split, count, logical, &bad)) return fail(bad);
  }
  for (int d : logical)
    if (d < 0 || d >= count) return fail("device " + std::to_string(d) + " does not exist (" + std::to_string(count) + ")");

  auto impl = std::make_unique<Impl>();
  impl->platform = platform;
  impl->config = config;
  const unsigned hw = mldsa::usable_cpus();
  const unsigned helpers = config.staging_threads >= 0 ? static_cast<unsigned>(config.staging_threads)
                                                        : std::min(8u, hw / 4);
  try {
    impl->staging = std::make_unique<HostPool>(helpers, config.start_thread);
  } catch (const std::exception& e) {
    return fail(std::string("cannot start the staging threads: ") + e.what());
  }
  // On a failure below, impl's destructor destroys the workers made so far on
  // their own threads and joins every thread started.
  for (int ordinal : logical) {
    Impl::Lane lane;
    lane.ordinal = ordinal;
    try {
      lane.thread = std::make_unique<HostThread>(config.start_thread);
    } catch (const std::exception& e) {
      return fail("cannot start the host thread of device " + std::to_string(ordinal) + ": " + e.what());
    }
    EngineStatus st;
    std::string open_why;
    lane.thread->run([&] {
      Device* dev = platform->device(ordinal, &open_why);
      st = dev ? DeviceWorker::create(*dev, config, *impl->staging, lane.worker)
               : EngineStatus{EngineError::device, open_why};
    });
    impl->lanes.push_back(std::move(lane));
    if (!st.ok()) return fail("device " + std::to_string(ordinal) + ": " + st.message);
  }
  if (config.self_test) {
    for (Impl::Lane& lane : impl->lanes) {
      EngineStatus st;
      if (!lane.worker->properties().computes) continue;
      lane.thread->run([&] { st = self_test(*lane.worker); });
      if (!st.ok()) return fail("device " + std::to_string(lane.ordinal) + ": " + st.message);
    }
  }
  const std::string& first = impl->lanes.front().worker->properties().name;
  bool same = true;
  for (const Impl::Lane& lane : impl->lanes) same = same && lane.worker->properties().name == first;
  if (same) {
    impl->description = (impl->lanes.size() > 1 ? std::to_string(impl->lanes.size()) + " x " : "") + first;
  } else {
    for (const Impl::Lane& lane : impl->lanes)
      impl->description += (impl->description.empty() ? "" : ", ") + lane.worker->properties().name;
  }
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

EngineStatus Engine::keygen(const Params& p, const KeygenItem* items, size_t n) {
  if (n == 0) return {};
  if (!items) return {EngineError::bad_argument, "keygen: null buffer"};
  const TaskParams tp = task_params(p);
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->split(n, [&](DeviceWorker& w, size_t first, size_t count) { return w.keygen(tp, items + first, count); });
}

EngineStatus Engine::keygen(const Params& p, const uint8_t* seeds, size_t n, uint8_t* pks, uint8_t* sks) {
  if (n == 0) return {};
  if (!seeds || !pks) return {EngineError::bad_argument, "keygen: null buffer"};
  std::vector<KeygenItem> items(n);
  for (size_t i = 0; i < n; ++i)
    items[i] = {seeds + i * SEED_BYTES, pks + i * p.pk_bytes, sks ? sks + i * p.sk_bytes : nullptr};
  return keygen(p, items.data(), n);
}

EngineStatus Engine::verify(const Params& p, const VerifyItem* items, size_t n, Status* results) {
  if (n == 0) return {};
  if (!items || !results) return {EngineError::bad_argument, "verify: null buffer"};
  const TaskParams tp = task_params(p);
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->split(n, [&](DeviceWorker& w, size_t first, size_t count) {
    return w.verify(tp, items + first, count, results + first);
  });
}

EngineStatus Engine::sign(const Params& p, const SignItem* items, size_t n, uint8_t* sigs, Status* results,
                          SignScheduling mode) {
  if (n == 0) return {};
  if (!items || !results) return {EngineError::bad_argument, "sign: null buffer"};
  const TaskParams tp = task_params(p);
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->split(n, [&](DeviceWorker& w, size_t first, size_t count) {
    return w.sign(tp, items + first, count, sigs ? sigs + first * p.sig_bytes : nullptr, results + first, mode);
  });
}

const std::string& Engine::device_description() const { return impl_->description; }
size_t Engine::logical_devices() const { return impl_->lanes.size(); }
std::vector<uint64_t> Engine::items_by_device() const {
  std::vector<uint64_t> out;
  for (const Impl::Lane& lane : impl_->lanes) out.push_back(lane.items->load(std::memory_order_relaxed));
  return out;
}
size_t Engine::live_devices() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  size_t live = 0;
  for (const Impl::Lane& lane : impl_->lanes) live += !lane.worker->lost();
  return live;
}

size_t Engine::resident_tasks() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  // Per physical device once: logical devices sharing a GPU share its SMs.
  std::vector<int> seen;
  size_t units = 0;
  for (const Impl::Lane& lane : impl_->lanes) {
    if (lane.worker->lost() || std::find(seen.begin(), seen.end(), lane.ordinal) != seen.end()) continue;
    seen.push_back(lane.ordinal);
    units += lane.worker->properties().units(impl_->config.kernels);
  }
  return units;
}

}  // namespace mldsa::gpu
