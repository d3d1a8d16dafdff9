// sim_test.cc - the simulated device (kernels/device/sim/sim_device.h) and, on it, how
// the engine handles what a real device does to it: every kind of injected
// fault at every kind of call, a hung kernel, lost devices, several devices,
// the loop limit, and what stays in device and pinned memory. The faults are
// the point: a CUDA device cannot be made to fail on demand.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cpu/key_expanded.h"
#include "cpu/mldsa.h"
#include "kernels/host/engine.h"
#include "kernels/device/sim/sim_device.h"
#include "kernels/thread/chunk.h"
#include "tests/core/test_keys.h"

namespace mldsa::test {
namespace {

using namespace std::chrono_literals;
using Bytes = std::vector<uint8_t>;
using gpu::DeviceErrc;
using gpu::Engine;
using gpu::EngineConfig;
using gpu::EngineError;
using gpu::SimConfig;
using gpu::SimFault;
using gpu::SimFaultKind;
using gpu::SimOp;

size_t op_index(SimOp op) { return static_cast<size_t>(op); }

// ---------------------------------------------------------------------------
// The simulated device itself.

struct Sim {
  std::shared_ptr<gpu::SimPlatform> platform;
  gpu::Device* dev = nullptr;
  explicit Sim(SimConfig c = {}) : platform(gpu::make_sim_platform(c)) {
    std::string why;
    dev = platform->device(0, &why);
    EXPECT_NE(dev, nullptr) << why;
  }
  void* device_block(size_t n) {
    void* p = nullptr;
    EXPECT_TRUE(dev->alloc_device(n, &p).ok());
    return p;
  }
  void* pinned_block(size_t n) {
    void* p = nullptr;
    EXPECT_TRUE(dev->alloc_pinned(n, &p).ok());
    return p;
  }
  gpu::Stream stream() {
    gpu::Stream s = nullptr;
    EXPECT_TRUE(dev->create_stream(&s).ok());
    return s;
  }
};

TEST(SimDevice, CopiesRunInOrderAndStayInsideTheirBlocks) {
  Sim sim;
  auto* d = static_cast<uint8_t*>(sim.device_block(256));
  auto* h = static_cast<uint8_t*>(sim.pinned_block(256));
  EXPECT_EQ(h[0], 0xA5) << "new blocks are poisoned, not zero";
  gpu::Stream s = sim.stream();
  for (int i = 0; i < 256; ++i) h[i] = static_cast<uint8_t>(i);
  ASSERT_TRUE(sim.dev->copy_to_device(s, d, h, 256).ok());
  ASSERT_TRUE(sim.dev->zero(s, d + 10, 6).ok());
  ASSERT_TRUE(sim.dev->copy_to_host(s, h + 128, d, 128).ok());
  ASSERT_TRUE(sim.dev->synchronize(s, 5s).ok());
  for (int i = 0; i < 128; ++i) EXPECT_EQ(h[128 + i], i >= 10 && i < 16 ? 0 : i) << i;

  Bytes pageable(16);
  const gpu::DeviceStatus not_pinned = sim.dev->copy_to_device(s, d, pageable.data(), 16);
  EXPECT_EQ(not_pinned.code, DeviceErrc::failed);
  EXPECT_NE(not_pinned.what.find("pinned"), std::string::npos) << not_pinned.what;
  EXPECT_EQ(sim.dev->copy_to_device(s, d + 200, h, 57).code, DeviceErrc::failed);  // past the block's end
  EXPECT_EQ(sim.dev->copy_to_host(s, h, h, 8).code, DeviceErrc::failed);           // not device memory
  EXPECT_EQ(sim.dev->zero(s, h, 8).code, DeviceErrc::failed);
}

TEST(SimDevice, MemoryIsBounded) {
  SimConfig c;
  c.memory_bytes = 1000;
  Sim sim(c);
  void* a = sim.device_block(600);
  void* b = nullptr;
  const gpu::DeviceStatus st = sim.dev->alloc_device(600, &b);
  EXPECT_EQ(st.code, DeviceErrc::out_of_memory) << st.what;
  sim.dev->free_device(a);
  EXPECT_TRUE(sim.dev->alloc_device(600, &b).ok());
  EXPECT_EQ(sim.platform->stats(0).live_device_bytes, 600u);
}

// Stream B waits for an event stream A records after slow work (a modelled
// 100 ms launch): B's copy must see A's results, not the poison beneath.
TEST(SimDevice, EventsOrderWorkAcrossStreams) {
  SimConfig c;
  c.speed.launch_latency = 100ms;
  Sim sim(c);
  const gpu::TaskParams tp = gpu::task_params(params(ParamSet::ML_DSA_44));
  auto* seeds = static_cast<uint8_t*>(sim.device_block(32));
  auto* out = static_cast<uint8_t*>(sim.device_block(tp.pk_bytes + tp.sk_bytes));
  auto* host = static_cast<uint8_t*>(sim.pinned_block(tp.pk_bytes + tp.sk_bytes));
  const Bytes seed = fixed_seed(3);
  std::memcpy(host, seed.data(), 32);
  gpu::Stream a = sim.stream(), b = sim.stream();
  gpu::Event e = nullptr;
  ASSERT_TRUE(sim.dev->create_event(&e).ok());
  ASSERT_TRUE(sim.dev->copy_to_device(a, seeds, host, 32).ok());
  ASSERT_TRUE(sim.dev->launch_keygen(a, gpu::KernelSet::thread, tp, gpu::KeygenChunk{seeds, out, out + tp.pk_bytes}, 1).ok());
  ASSERT_TRUE(sim.dev->record(e, a).ok());
  ASSERT_TRUE(sim.dev->wait(b, e).ok());
  ASSERT_TRUE(sim.dev->copy_to_host(b, host, out, tp.pk_bytes).ok());
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(sim.dev->synchronize(b, 5s).ok());
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 90ms) << "the modelled launch time";
  std::unique_ptr<PrivateKey> key = key_from_tag(params(ParamSet::ML_DSA_44), 3);
  EXPECT_TRUE(std::equal(host, host + tp.pk_bytes, key->public_key().encoded().begin()));
  ASSERT_TRUE(sim.dev->synchronize(a, 5s).ok());
}

// A hung operation: synchronize times out (the device reports it, the work
// is still there), and destroying the platform releases it.
TEST(SimDevice, HungOperationTimesOutAndIsReleasedAtDestruction) {
  SimConfig c;
  c.faults = {SimFault{-1, SimOp::zero, 2, false, SimFaultKind::hang}};
  Sim sim(c);
  void* d = sim.device_block(64);
  gpu::Stream s = sim.stream();
  ASSERT_TRUE(sim.dev->zero(s, d, 64).ok());
  ASSERT_TRUE(sim.dev->synchronize(s, 5s).ok());
  ASSERT_TRUE(sim.dev->zero(s, d, 64).ok());  // the second: hangs
  const auto t0 = std::chrono::steady_clock::now();
  const gpu::DeviceStatus st = sim.dev->synchronize(s, 200ms);
  EXPECT_EQ(st.code, DeviceErrc::timeout) << st.what;
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 190ms);
  EXPECT_EQ(sim.dev->synchronize(s, 50ms).code, DeviceErrc::timeout);
  sim.platform.reset();  // must return
}

TEST(SimDevice, FaultsHitTheCallsTheyName) {
  SimConfig c;
  c.faults = {SimFault{-1, SimOp::copy_to_device, 2, false, SimFaultKind::error},
              SimFault{-1, SimOp::zero, 2, true, SimFaultKind::async_error},
              SimFault{-1, SimOp::record, 3, false, SimFaultKind::lost}};
  Sim sim(c);
  auto* d = static_cast<uint8_t*>(sim.device_block(64));
  auto* h = static_cast<uint8_t*>(sim.pinned_block(64));
  gpu::Stream s = sim.stream();
  gpu::Event e = nullptr;
  ASSERT_TRUE(sim.dev->create_event(&e).ok());
  EXPECT_TRUE(sim.dev->copy_to_device(s, d, h, 64).ok());
  const gpu::DeviceStatus second = sim.dev->copy_to_device(s, d, h, 64);
  EXPECT_EQ(second.code, DeviceErrc::failed);
  EXPECT_NE(second.what.find("copy_to_device call 2"), std::string::npos) << second.what;
  EXPECT_TRUE(sim.dev->copy_to_device(s, d, h, 64).ok());
  EXPECT_TRUE(sim.dev->zero(s, d, 64).ok());
  EXPECT_TRUE(sim.dev->synchronize(s, 5s).ok());
  std::memset(h, 7, 64);
  ASSERT_TRUE(sim.dev->copy_to_device(s, d, h, 64).ok());
  EXPECT_TRUE(sim.dev->zero(s, d, 64).ok());  // every 2nd zero fails when it runs: the memory keeps its bytes
  ASSERT_TRUE(sim.dev->copy_to_host(s, h, d, 64).ok());
  EXPECT_EQ(sim.dev->synchronize(s, 5s).code, DeviceErrc::failed);
  EXPECT_EQ(h[0], 7);
  EXPECT_TRUE(sim.dev->synchronize(s, 5s).ok()) << "a failure is reported once";
  EXPECT_TRUE(sim.dev->record(e, s).ok());
  EXPECT_TRUE(sim.dev->record(e, s).ok());
  EXPECT_EQ(sim.dev->record(e, s).code, DeviceErrc::lost);
  EXPECT_EQ(sim.dev->zero(s, d, 64).code, DeviceErrc::lost) << "lost for good";
  EXPECT_EQ(sim.dev->synchronize(s, 5s).code, DeviceErrc::lost);
  const gpu::SimStats st = sim.platform->stats(0);
  EXPECT_EQ(st.calls[op_index(SimOp::copy_to_device)], 4u);
  EXPECT_EQ(st.calls[op_index(SimOp::record)], 3u);
}

TEST(SimDevice, WatchedSecretsAreFoundAndFreesHoldingThemAreNamed) {
  Sim sim;
  const Bytes secret = {0xde, 0xad, 0xbe, 0xef, 0x01, 0x23, 0x45, 0x67};
  sim.platform->watch_secret(secret.data(), secret.size());
  auto* d = static_cast<uint8_t*>(sim.device_block(100));
  auto* h = static_cast<uint8_t*>(sim.pinned_block(100));
  EXPECT_TRUE(sim.platform->find_secrets().empty());
  std::memcpy(h + 40, secret.data(), secret.size());
  gpu::Stream s = sim.stream();
  ASSERT_TRUE(sim.dev->copy_to_device(s, d, h, 100).ok());
  ASSERT_TRUE(sim.dev->synchronize(s, 5s).ok());
  EXPECT_EQ(sim.platform->find_secrets().size(), 2u);  // pinned and device
  secure_zero(h, 100);
  sim.dev->free_device(d);
  ASSERT_EQ(sim.platform->freed_with_secrets().size(), 1u);
  EXPECT_NE(sim.platform->freed_with_secrets()[0].find("device block of 100 bytes"), std::string::npos);
  EXPECT_TRUE(sim.platform->find_secrets().empty());
}

TEST(SimDevice, SettingsFromText) {
  gpu::SimSpeed speed;
  std::string why;
  ASSERT_TRUE(gpu::parse_sim_speed("latency_us=20,verify_ns=80,sign_ns=300,copy_gbps=25", speed, &why)) << why;
  EXPECT_EQ(speed.launch_latency, 20us);
  EXPECT_EQ(speed.per_task[1], 80ns);
  EXPECT_EQ(speed.per_task[4], 300ns);
  EXPECT_EQ(speed.copy_bytes_per_second, 25e9);
  for (const char* bad : {"latency_us", "latency_us=x", "warp=3", "latency_us=-1"})
    EXPECT_FALSE(gpu::parse_sim_speed(bad, speed, &why)) << bad;

  std::vector<SimFault> f;
  ASSERT_TRUE(gpu::parse_sim_faults("launch_sign_loop:1:hang,d1/copy_to_host:every3,zero:2:async_error", f, &why))
      << why;
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].op, SimOp::launch_sign_loop);
  EXPECT_EQ(f[0].kind, SimFaultKind::hang);
  EXPECT_EQ(f[1].device, 1);
  EXPECT_TRUE(f[1].every);
  EXPECT_EQ(f[1].nth, 3u);
  EXPECT_EQ(f[1].kind, SimFaultKind::error);
  EXPECT_EQ(f[2].kind, SimFaultKind::async_error);
  for (const char* bad : {"launch:1", "zero", "zero:0", "zero:1:melt", "zero:every", "dx/zero:1", "zero:1:hang:2"}) {
    EXPECT_FALSE(gpu::parse_sim_faults(bad, f, &why)) << bad;
    EXPECT_NE(why.find("MLDSA_ACCEL_SIM_FAULTS"), std::string::npos) << why;
  }

}

// ---------------------------------------------------------------------------
// The engine on it.

// A batch of each kind with its expected results from the core.
struct Work {
  const Params& p;
  std::vector<std::unique_ptr<PrivateKey>> keys;
  Bytes seeds, pks_want, sks_want, mus, rnds;
  std::vector<Bytes> sigs_want;
  std::vector<gpu::SignItem> sign_items;
  std::vector<gpu::VerifyItem> verify_items;
  std::vector<Status> verify_want;

  // n items; item i signs with key i % nkeys (few keys: chunks share them,
  // through the key cache, across streams).
  Work(ParamSet set, size_t n, size_t nkeys) : p(params(set)) {
    for (size_t k = 0; k < n; ++k) {
      const Bytes s = fixed_seed(static_cast<uint8_t>(k + 100 * static_cast<int>(set)));
      seeds.insert(seeds.end(), s.begin(), s.end());
      keys.push_back(key_from_tag(p, static_cast<uint8_t>(k + 100 * static_cast<int>(set))));
      pks_want.insert(pks_want.end(), keys[k]->public_key().encoded().begin(), keys[k]->public_key().encoded().end());
      sks_want.insert(sks_want.end(), keys[k]->encoded().begin(), keys[k]->encoded().end());
    }
    mus.resize(n * MU_BYTES);
    rnds.resize(n * RND_BYTES);
    std::mt19937_64 rng(n + static_cast<int>(set));
    for (auto* v : {&mus, &rnds})
      for (auto& b : *v) b = static_cast<uint8_t>(rng());
    for (size_t i = 0; i < n; ++i) {
      const PrivateKey& key = *keys[i % nkeys];
      sign_items.push_back({key.encoded().data(), mus.data() + i * MU_BYTES, rnds.data() + i * RND_BYTES});
      sigs_want.emplace_back(p.sig_bytes);
      EXPECT_EQ(sign_mu(key, {mus.data() + i * MU_BYTES, MU_BYTES}, rnds.data() + i * RND_BYTES, sigs_want[i].data()),
                Status::ok);
    }
    for (size_t i = 0; i < n; ++i) {
      const PrivateKey& key = *keys[i % nkeys];
      verify_items.push_back({key.public_key().encoded().data(), sigs_want[(i + (i % 3 == 0)) % n].data(), p.sig_bytes,
                              mus.data() + i * MU_BYTES, nullptr, 0, nullptr, 0});
      verify_want.push_back(verify_mu(key.public_key(), {mus.data() + i * MU_BYTES, MU_BYTES},
                                      {verify_items.back().sig, p.sig_bytes}));
    }
  }
  size_t n() const { return sign_items.size(); }

  // Each operation once; an ok batch must be exact, a failed one says why.
  // after(op) runs after each. Returns the failures' messages.
  std::vector<std::string> run(Engine& e, const std::function<void(const char*)>& after = {}) const {
    std::vector<std::string> failures;
    Bytes pks(n() * p.pk_bytes), sks(n() * p.sk_bytes), sigs(n() * p.sig_bytes);
    std::vector<Status> st(n());
    auto note = [&](const gpu::EngineStatus& es) {
      if (es.ok()) return true;
      EXPECT_FALSE(es.message.empty());
      failures.push_back(es.message);
      return false;
    };
    if (note(e.keygen(p, seeds.data(), n(), pks.data(), sks.data()))) {
      EXPECT_EQ(pks, pks_want);
      EXPECT_EQ(sks, sks_want);
    }
    if (after) after("keygen");
    if (note(e.sign(p, sign_items.data(), n(), sigs.data(), st.data()))) {
      for (size_t i = 0; i < n(); ++i) {
        EXPECT_EQ(st[i], Status::ok) << i;
        EXPECT_TRUE(std::equal(sigs_want[i].begin(), sigs_want[i].end(), sigs.begin() + static_cast<long>(i * p.sig_bytes)))
            << "signature " << i;
      }
    }
    if (after) after("sign");
    if (note(e.verify(p, verify_items.data(), n(), st.data()))) {
      EXPECT_EQ(st, verify_want);
    }
    if (after) after("verify");
    return failures;
  }

  // The secrets a batch stages: seeds, the keys' K and s1 bytes, rnds, and
  // for each signing item its rho'' and a piece of its expanded key.
  void watch(gpu::SimPlatform& sim) const {
    for (size_t i = 0; i < n(); ++i) {
      sim.watch_secret(seeds.data() + i * SEED_BYTES, SEED_BYTES);
      sim.watch_secret(sks_want.data() + i * p.sk_bytes + 32, 32);   // K
      sim.watch_secret(sks_want.data() + i * p.sk_bytes + 128, 32);  // s1
      sim.watch_secret(rnds.data() + i * RND_BYTES, RND_BYTES);
    }
    const gpu::TaskParams tp = gpu::task_params(p);
    std::vector<int32_t> xkey(gpu::sign_key_words(tp));
    for (size_t i = 0; i < n(); ++i) {
      gpu::sign_expand_key(tp, sign_items[i].sk, xkey.data());
      sim.watch_secret(reinterpret_cast<const uint8_t*>(xkey.data() + gpu::sign_key_s1(tp)), 64);
      uint8_t rhopp[64];
      gpu::sign_rhopp(tp, xkey.data(), sign_items[i].rnd, sign_items[i].mu, rhopp);
      sim.watch_secret(rhopp, sizeof rhopp);
    }
    secure_zero(xkey.data(), xkey.size() * sizeof(int32_t));
  }
};

EngineConfig small_config() {
  EngineConfig c;
  c.streams = 2;
  c.chunk_items = 5;
  c.self_test = false;  // the faults count calls from the first batch on
  c.timeout = 120s;     // no chunk is that slow, even under ThreadSanitizer; the hang tests set their own
  c.key_cache_slots = 16;  // small caches: the tests scan all device memory for secrets
  return c;
}

// Every kind of queued call failing, now or while it runs, on its 1st, 2nd
// or 3rd use: the batch it hits reports an error (never wrong results), the
// ones it does not hit are exact, the engine stays usable, and no secret is
// left in device or pinned memory, or freed with a secret in it.
TEST(EngineFaults, EveryFaultFailsItsBatchCleanly) {
  const Work work(ParamSet::ML_DSA_44, 12, 1);
  const SimOp ops[] = {SimOp::copy_to_device, SimOp::copy_to_host, SimOp::zero, SimOp::record, SimOp::wait,
                       SimOp::launch_keygen, SimOp::launch_verify, SimOp::launch_verify_expand, SimOp::launch_sign_expand,
                       SimOp::launch_sign_prepare, SimOp::launch_sign_loop, SimOp::synchronize};
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer runs this some 20 times slower: one position per fault,
  // failing while it runs (the release and ASan stages run them all).
  const std::vector<uint64_t> positions = {2};
  const std::vector<SimFaultKind> kinds = {SimFaultKind::async_error};
#else
  const std::vector<uint64_t> positions = {1, 2, 3};
  const std::vector<SimFaultKind> kinds = {SimFaultKind::error, SimFaultKind::async_error};
#endif
  for (SimOp op : ops) {
    for (SimFaultKind kind : kinds) {
      if (op == SimOp::synchronize && kind == SimFaultKind::async_error) continue;  // not a queued operation
      for (uint64_t nth : positions) {
        const std::string what = std::string(gpu::sim_op_name(op)) + ":" + std::to_string(nth) +
                                 (kind == SimFaultKind::error ? ":error" : ":async_error");
        SimConfig sc;
        sc.faults = {SimFault{-1, op, nth, false, kind}};
        auto sim = gpu::make_sim_platform(sc);
        work.watch(*sim);
        for (bool cache : {false, true}) {
          EngineConfig ec = small_config();
          ec.sign_key_cache = ec.verify_key_cache = cache;
          std::string why;
          std::unique_ptr<Engine> e = Engine::create(sim, ec, &why);
          ASSERT_NE(e, nullptr) << what << ": " << why;
          // After every batch, failed or not, no secret in device or pinned
          // memory (with the cache on, expanded keys stay there by design).
          auto no_secrets_left = [&](const char* batch) {
            if (cache) return;
            const std::vector<std::string> left = sim->find_secrets();
            EXPECT_TRUE(left.empty()) << what << ", after " << batch << ": " << left.size()
                                      << " secret(s) left, first: " << left[0];
          };
          const std::vector<std::string> failed = work.run(*e, no_secrets_left);
          // The fault's call comes up in the first pass (caches off) or, for
          // wait and the public-key expansion, only with the caches on.
          if (!cache && op != SimOp::wait && op != SimOp::launch_verify_expand) {
            EXPECT_FALSE(failed.empty()) << what << ": the fault was never hit";
          }
          for (const std::string& m : failed)
            EXPECT_NE(m.find("injected fault"), std::string::npos) << what << ": " << m;
          EXPECT_TRUE(work.run(*e, no_secrets_left).empty()) << what << ": the engine stays usable";
          e.reset();
          EXPECT_TRUE(sim->find_secrets().empty()) << what;
        }
        EXPECT_TRUE(sim->freed_with_secrets().empty()) << what << ": " << sim->freed_with_secrets()[0];
      }
    }
  }
}

// With the key cache, expanded keys stay in device memory between batches,
// in the cache's blocks only; the end of the engine zeroes them.
TEST(EngineFaults, CachedKeysLiveOnlyInTheCacheAndAreWipedAtTheEnd) {
  const Work work(ParamSet::ML_DSA_65, 10, 2);
  auto sim = gpu::make_sim_platform({});
  work.watch(*sim);
  std::string why;
  EngineConfig ec = small_config();
  std::unique_ptr<Engine> e = Engine::create(sim, ec, &why);
  ASSERT_NE(e, nullptr) << why;
  EXPECT_TRUE(work.run(*e).empty());
  const size_t cache_block = ec.key_cache_slots * gpu::sign_key_words(gpu::task_params(work.p)) * sizeof(int32_t);
  const std::vector<std::string> found = sim->find_secrets();
  EXPECT_FALSE(found.empty()) << "the two keys are cached";
  for (const std::string& f : found)
    EXPECT_NE(f.find("device block of " + std::to_string(cache_block) + " bytes"), std::string::npos) << f;
  e.reset();
  EXPECT_TRUE(sim->find_secrets().empty());
  EXPECT_TRUE(sim->freed_with_secrets().empty());
}

// A device that loses itself, or runs out of memory while the engine is
// being made: the engine reports it by name, joins what it started.
TEST(EngineFaults, LostDevicesAndFailedCreation) {
  const Work work(ParamSet::ML_DSA_44, 6, 6);
  {
    SimConfig sc;
    sc.faults = {SimFault{-1, SimOp::launch_verify, 1, false, SimFaultKind::lost}};
    auto sim = gpu::make_sim_platform(sc);
    std::string why;
    std::unique_ptr<Engine> e = Engine::create(sim, small_config(), &why);
    ASSERT_NE(e, nullptr) << why;
    const std::vector<std::string> failed = work.run(*e);
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_NE(failed[0].find("device lost"), std::string::npos) << failed[0];
    EXPECT_EQ(e->live_devices(), 0u);
    Bytes pks(work.p.pk_bytes), sks(work.p.sk_bytes);
    const gpu::EngineStatus st = e->keygen(work.p, work.seeds.data(), 1, pks.data(), sks.data());
    EXPECT_EQ(st.error, EngineError::device_lost);
    EXPECT_NE(st.message.find("no usable device"), std::string::npos) << st.message;
  }
  for (SimOp op : {SimOp::alloc_device, SimOp::alloc_pinned, SimOp::create_stream, SimOp::create_event}) {
    SimConfig sc;
    sc.devices = 3;
    sc.faults = {SimFault{2, op, 2, false, SimFaultKind::out_of_memory}};
    auto sim = gpu::make_sim_platform(sc);
    std::string why;
    EXPECT_EQ(Engine::create(sim, small_config(), &why), nullptr) << gpu::sim_op_name(op);
    EXPECT_NE(why.find("device 2"), std::string::npos) << why;
    EXPECT_EQ(sim->stats(0).live_device_bytes, 0u) << "devices 0 and 1 were given back";
  }
}

// Review finding 4: a host thread that cannot be started part way through
// leaves nothing running (no std::terminate from a joinable thread).
TEST(EngineFaults, AThreadThatCannotStartFailsCreationCleanly) {
  SimConfig sc;
  sc.devices = 3;
  auto sim = gpu::make_sim_platform(sc);
  EngineConfig ec = small_config();
  int started = 0;
  ec.start_thread = [&](std::function<void()> body) {
    if (++started == 3) throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
    return std::thread(std::move(body));
  };
  std::string why;
  EXPECT_EQ(Engine::create(sim, ec, &why), nullptr);
  EXPECT_NE(why.find("cannot start the host thread of device 2"), std::string::npos) << why;
  EXPECT_EQ(started, 3);
  EXPECT_EQ(sim->stats(0).live_device_bytes, 0u);
  EXPECT_EQ(sim->stats(1).live_device_bytes, 0u);
}

// Review finding 3: a hung kernel ends in a timeout, not a hang; the device
// is then lost (not used again), work goes to the other devices, and the
// engine and the platform can still be destroyed.
TEST(EngineFaults, HungKernelTimesOutAndTheOtherDevicesCarryOn) {
  const Work work(ParamSet::ML_DSA_44, 8, 8);
  SimConfig sc;
  sc.devices = 2;
  sc.faults = {SimFault{0, SimOp::launch_sign_loop, 1, false, SimFaultKind::hang}};
  auto sim = gpu::make_sim_platform(sc);
  EngineConfig ec = small_config();
  ec.timeout = 300ms;
  std::string why;
  std::unique_ptr<Engine> e = Engine::create(sim, ec, &why);
  ASSERT_NE(e, nullptr) << why;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> failed = work.run(*e);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 20s);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[0].find("did not finish within 300 ms"), std::string::npos) << failed[0];
  EXPECT_EQ(e->live_devices(), 1u);
  EXPECT_TRUE(work.run(*e).empty()) << "device 1 does the work now";
  e.reset();
  sim.reset();  // releases the hung kernel
}

// Review findings 2 and 12: a batch is split among every device, for every
// operation, and all calls come from the engine's threads, never the caller's.
TEST(EngineFaults, EveryOperationUsesEveryDeviceFromTheEnginesThreads) {
  const Work work(ParamSet::ML_DSA_87, 12, 12);
  SimConfig sc;
  sc.devices = 4;
  auto sim = gpu::make_sim_platform(sc);
  std::string why;
  EngineConfig ec = small_config();
  ec.self_test = true;
  std::unique_ptr<Engine> e = Engine::create(sim, ec, &why);
  ASSERT_NE(e, nullptr) << why;
  EXPECT_TRUE(work.run(*e).empty());
  for (int d = 0; d < 4; ++d) {
    const gpu::SimStats st = sim->stats(d);
    EXPECT_EQ(st.tasks[0], 3u + 1) << "device " << d << " keygen (its share and the self-test's)";
    EXPECT_EQ(st.tasks[1], 3u + 2) << "device " << d << " verify";
    EXPECT_EQ(st.tasks[3], 3u + 1) << "device " << d << " sign";
    for (std::thread::id t : st.callers) EXPECT_NE(t, std::this_thread::get_id()) << "device " << d;
  }
}

// Two logical devices on one simulated device (MLDSA_ACCEL_GPU_SPLIT's case):
// two engine threads share its streams' worker pool, memory and counters.
TEST(EngineFaults, TwoLogicalDevicesShareOneDevice) {
  const Work work(ParamSet::ML_DSA_65, 10, 2);
  auto sim = gpu::make_sim_platform({});
  EngineConfig ec = small_config();
  ec.devices = {0, 0};
  std::string why;
  std::unique_ptr<Engine> e = Engine::create(sim, ec, &why);
  ASSERT_NE(e, nullptr) << why;
  EXPECT_EQ(e->logical_devices(), 2u);
  for (int round = 0; round < 2; ++round) EXPECT_TRUE(work.run(*e).empty());
  EXPECT_EQ(sim->stats(0).tasks[0], 2u * 10) << "both logical devices made keys";
  EXPECT_EQ(sim->stats(0).callers.size(), 2u) << "one engine thread per logical device";
}

// The batch that fills the devices: their resident signing units, once per
// physical device however many logical devices share it.
TEST(EngineFaults, ResidentTasksCountEachDeviceOnce) {
  SimConfig sc;
  sc.devices = 2;
  sc.sign_units = 96;
  sc.coop_sign_units = 6;
  auto sim = gpu::make_sim_platform(sc);
  std::string why;
  EngineConfig ec = small_config();
  ec.devices = {0, 1, 1};
  std::unique_ptr<Engine> e = Engine::create(sim, ec, &why);
  ASSERT_NE(e, nullptr) << why;
  EXPECT_EQ(e->resident_tasks(), 2u * 96);
  ec.kernels = gpu::KernelSet::coop;
  e = Engine::create(sim, ec, &why);
  ASSERT_NE(e, nullptr) << why;
  EXPECT_EQ(e->resident_tasks(), 2u * 6);
}

// A device that computes nothing is not self-tested (no test could pass)
// and says so in its name.
TEST(EngineFaults, ADeviceDoingNoWorkIsNamedAndNotSelfTested) {
  SimConfig sc;
  sc.device_work = false;
  auto sim = gpu::make_sim_platform(sc);
  std::string why;
  EngineConfig ec = small_config();
  ec.self_test = true;
  std::unique_ptr<Engine> e = Engine::create(sim, ec, &why);
  ASSERT_NE(e, nullptr) << why;
  EXPECT_NE(e->device_description().find("no device work: results unchecked"), std::string::npos)
      << e->device_description();
  EXPECT_EQ(sim->stats(0).calls[static_cast<size_t>(gpu::SimOp::launch_keygen)], 0u) << "no self-test keygen ran";
}

// Staging on helper threads (big chunks are cut in pieces of 64 items):
// the same bytes as the core, each result where its item says.
TEST(EngineFaults, ParallelStagingGivesTheSameBytes) {
  const Work work(ParamSet::ML_DSA_44, 300, 2);
  auto sim = gpu::make_sim_platform({});
  EngineConfig ec = small_config();
  ec.chunk_items = 256;
  ec.staging_threads = 3;
  std::string why;
  std::unique_ptr<Engine> e = Engine::create(sim, ec, &why);
  ASSERT_NE(e, nullptr) << why;
  EXPECT_TRUE(work.run(*e).empty());
  // Each signature to its own buffer (SignItem::sig), in reverse order.
  std::vector<Bytes> sigs(work.n(), Bytes(work.p.sig_bytes));
  std::vector<gpu::SignItem> items = work.sign_items;
  for (size_t i = 0; i < items.size(); ++i) items[i].sig = sigs[items.size() - 1 - i].data();
  std::vector<Status> st(work.n());
  ASSERT_TRUE(e->sign(work.p, items.data(), items.size(), nullptr, st.data()).ok());
  for (size_t i = 0; i < items.size(); ++i) EXPECT_EQ(sigs[items.size() - 1 - i], work.sigs_want[i]) << i;
}

// Review finding 9: once the buffers have grown to the batches, batches of
// every operation and parameter set allocate and free nothing.
TEST(EngineFaults, BatchesAllocateNothing) {
  auto sim = gpu::make_sim_platform({});
  std::string why;
  std::unique_ptr<Engine> e = Engine::create(sim, small_config(), &why);
  ASSERT_NE(e, nullptr) << why;
  // Full chunks, and each parameter set's key caches, made on first use.
  for (ParamSet set : kAllParamSets) EXPECT_TRUE(Work(set, 11, 3).run(*e).empty());
  const gpu::SimStats before = sim->stats(0);
  for (ParamSet set : kAllParamSets) EXPECT_TRUE(Work(set, 11, 3).run(*e).empty());
  const gpu::SimStats after = sim->stats(0);
  EXPECT_EQ(after.calls[op_index(SimOp::alloc_device)], before.calls[op_index(SimOp::alloc_device)]);
  EXPECT_EQ(after.calls[op_index(SimOp::alloc_pinned)], before.calls[op_index(SimOp::alloc_pinned)]);
  EXPECT_EQ(after.live_device_bytes, before.live_device_bytes);
}

// Issue 33: an engine starts with small buffers and grows them (doubling)
// only when a batch needs bigger chunks, up to chunk_items; gpu_memory_mb's
// limit caps the chunks instead; a device out of memory keeps the chunks it
// has. Every result stays exact throughout.
TEST(EngineMemory, BuffersGrowWithTheBatchesUpToTheLimits) {
  auto sim = gpu::make_sim_platform({});
  EngineConfig ec = small_config();
  ec.first_chunk_items = 1;
  ec.chunk_items = 8;
  ec.sign_key_cache = ec.verify_key_cache = false;  // the buffers alone (the caches: below)
  std::string why;
  std::unique_ptr<Engine> e = Engine::create(sim, ec, &why);
  ASSERT_NE(e, nullptr) << why;
  const uint64_t start = sim->stats(0).live_device_bytes;
  EXPECT_TRUE(Work(ParamSet::ML_DSA_65, 1, 1).run(*e).empty());
  EXPECT_EQ(sim->stats(0).live_device_bytes, start) << "a one-item batch fits the first buffers";
  EXPECT_TRUE(Work(ParamSet::ML_DSA_65, 3, 2).run(*e).empty());
  const uint64_t grown = sim->stats(0).live_device_bytes;
  EXPECT_GT(grown, start);
  EXPECT_TRUE(Work(ParamSet::ML_DSA_87, 20, 3).run(*e).empty());
  const uint64_t full = sim->stats(0).live_device_bytes;
  EXPECT_GT(full, grown);
  EXPECT_TRUE(Work(ParamSet::ML_DSA_44, 40, 5).run(*e).empty());
  EXPECT_EQ(sim->stats(0).live_device_bytes, full) << "chunk_items (8) caps the growth";
  EXPECT_TRUE(sim->freed_with_secrets().empty());

  // A memory limit of what 3 more tasks per chunk take (the buffers grow
  // about linearly in the chunk): chunks of 2, from the start.
  auto sim2 = gpu::make_sim_platform({});
  EngineConfig capped = ec;
  capped.first_chunk_items = 8;
  capped.buffer_bytes_limit = grown - start;
  std::unique_ptr<Engine> e2 = Engine::create(sim2, capped, &why);
  ASSERT_NE(e2, nullptr) << why;
  const uint64_t capped_start = sim2->stats(0).live_device_bytes;
  EXPECT_GT(capped_start, start);
  EXPECT_LT(capped_start, grown);
  EXPECT_TRUE(Work(ParamSet::ML_DSA_87, 20, 3).run(*e2).empty());
  EXPECT_EQ(sim2->stats(0).live_device_bytes, capped_start);

  // Too small a limit for one task per stream: a named refusal.
  EngineConfig tiny = ec;
  tiny.buffer_bytes_limit = 1000;
  EXPECT_EQ(Engine::create(gpu::make_sim_platform({}), tiny, &why), nullptr);
  EXPECT_NE(why.find("gpu_memory_mb"), std::string::npos) << why;

  // A device without room to grow: the batch runs in the chunks there are.
  SimConfig small;
  small.memory_bytes = start + (grown - start) / 2;
  auto sim3 = gpu::make_sim_platform(small);
  std::unique_ptr<Engine> e3 = Engine::create(sim3, ec, &why);
  ASSERT_NE(e3, nullptr) << why;
  EXPECT_TRUE(Work(ParamSet::ML_DSA_65, 7, 3).run(*e3).empty());
  EXPECT_EQ(sim3->stats(0).live_device_bytes, start);
  EXPECT_EQ(e3->live_devices(), 1u);
}

// Issue 32: a caller that keeps the seed asks for the public key alone (sk
// null); the chunk then copies back only the public keys, and they are the
// core's. A chunk with one item that wants its secret key copies them all.
TEST(EngineKeygen, PublicKeysAloneCrossBackAlone) {
  const Params& p = params(ParamSet::ML_DSA_65);
  constexpr size_t n = 5;
  uint8_t seeds[n][SEED_BYTES];
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < SEED_BYTES; ++j) seeds[i][j] = static_cast<uint8_t>(7 * i + j);
  auto sim = gpu::make_sim_platform({});
  std::string why;
  std::unique_ptr<Engine> e = Engine::create(sim, small_config(), &why);
  ASSERT_NE(e, nullptr) << why;
  for (size_t i = 0; i < n; ++i) sim->watch_secret(seeds[i], SEED_BYTES);
  std::vector<uint8_t> pks(n * p.pk_bytes), sks(n * p.sk_bytes);
  uint64_t before = sim->stats(0).bytes_to_host;
  ASSERT_TRUE(e->keygen(p, &seeds[0][0], n, pks.data(), nullptr).ok());
  EXPECT_EQ(sim->stats(0).bytes_to_host - before, n * p.pk_bytes);
  for (size_t i = 0; i < n; ++i) {
    std::unique_ptr<PrivateKey> key;
    ASSERT_EQ(PrivateKey::from_seed(p, seeds[i], key), Status::ok);
    EXPECT_EQ(0, std::memcmp(pks.data() + i * p.pk_bytes, key->public_key().encoded().data(), p.pk_bytes)) << i;
  }
  std::vector<gpu::KeygenItem> items(n);
  for (size_t i = 0; i < n; ++i) items[i] = {seeds[i], pks.data() + i * p.pk_bytes, i == 2 ? sks.data() : nullptr};
  before = sim->stats(0).bytes_to_host;
  ASSERT_TRUE(e->keygen(p, items.data(), n).ok());
  EXPECT_EQ(sim->stats(0).bytes_to_host - before, n * (p.pk_bytes + p.sk_bytes));
  std::unique_ptr<PrivateKey> key2;
  ASSERT_EQ(PrivateKey::from_seed(p, seeds[2], key2), Status::ok);
  EXPECT_EQ(0, std::memcmp(sks.data(), key2->encoded().data(), p.sk_bytes));
  EXPECT_TRUE(sim->find_secrets().empty()) << "no seed left in device or pinned memory";
}

// A parameter set's key caches are made by its first chunk that uses them:
// a process that signs with one set holds no other set's.
TEST(EngineMemory, KeyCachesAreMadeOnFirstUse) {
  auto sim = gpu::make_sim_platform({});
  EngineConfig ec = small_config();
  ec.first_chunk_items = ec.chunk_items;
  std::string why;
  std::unique_ptr<Engine> e = Engine::create(sim, ec, &why);
  ASSERT_NE(e, nullptr) << why;
  const uint64_t start = sim->stats(0).live_device_bytes;
  EXPECT_TRUE(Work(ParamSet::ML_DSA_44, 4, 2).run(*e).empty());
  const uint64_t with44 = sim->stats(0).live_device_bytes;
  EXPECT_GT(with44, start);
  EXPECT_TRUE(Work(ParamSet::ML_DSA_44, 5, 3).run(*e).empty());
  EXPECT_EQ(sim->stats(0).live_device_bytes, with44);
  EXPECT_TRUE(Work(ParamSet::ML_DSA_65, 4, 2).run(*e).empty());
  EXPECT_GT(sim->stats(0).live_device_bytes, with44);

  // No room for a cache: the chunks expand their own keys, exactly.
  SimConfig tight;
  tight.memory_bytes = start + 1;
  auto sim2 = gpu::make_sim_platform(tight);
  std::unique_ptr<Engine> e2 = Engine::create(sim2, ec, &why);
  ASSERT_NE(e2, nullptr) << why;
  EXPECT_TRUE(Work(ParamSet::ML_DSA_87, 5, 2).run(*e2).empty());
  EXPECT_EQ(sim2->stats(0).live_device_bytes, start);
  EXPECT_EQ(e2->live_devices(), 1u);
}

// Review finding 6: chunks on other streams that use a key another chunk is
// still expanding wait for it on the device (an event), not on the host: all
// four chunks are launched before the engine first synchronizes, and the
// slow expansion (a modelled 30 ms per key) is waited for, so every
// signature is exact.
// An engine of 4 streams of 4-item chunks on a simulated device whose kernel
// `kernel` (an index of SimSpeed::per_task) takes a modelled 30 ms per task.
std::unique_ptr<Engine> slow_kernel_engine(std::shared_ptr<gpu::SimPlatform>& sim, int kernel) {
  SimConfig sc;
  sc.speed.per_task[kernel] = 30ms;
  sim = gpu::make_sim_platform(sc);
  EngineConfig ec = small_config();
  ec.streams = 4;
  ec.chunk_items = 4;
  std::string why;
  std::unique_ptr<Engine> e = Engine::create(sim, ec, &why);
  EXPECT_NE(e, nullptr) << why;
  return e;
}

TEST(EngineFaults, ChunksSharingAKeyWaitOnTheDevice) {
  const Work work(ParamSet::ML_DSA_44, 16, 1);
  std::shared_ptr<gpu::SimPlatform> sim;
  std::unique_ptr<Engine> e = slow_kernel_engine(sim, 2);  // sign_expand
  ASSERT_NE(e, nullptr);
  Bytes sigs(work.n() * work.p.sig_bytes);
  std::vector<Status> st(work.n());
  ASSERT_TRUE(e->sign(work.p, work.sign_items.data(), work.n(), sigs.data(), st.data()).ok());
  for (size_t i = 0; i < work.n(); ++i)
    EXPECT_TRUE(std::equal(work.sigs_want[i].begin(), work.sigs_want[i].end(),
                           sigs.begin() + static_cast<long>(i * work.p.sig_bytes)))
        << "signature " << i;
  const gpu::SimStats s = sim->stats(0);
  ASSERT_EQ(s.sign_loop_calls.size(), 4u);
  ASSERT_FALSE(s.synchronize_calls.empty());
  EXPECT_LT(s.sign_loop_calls.back(), s.synchronize_calls.front());
  EXPECT_EQ(s.calls[op_index(SimOp::wait)], 3u) << "chunks 2-4 wait for chunk 1's expansion";
  EXPECT_EQ(s.tasks[2], 1u) << "the one key is expanded once";
}

// Issue 13's public-key cache: chunks with few distinct public keys take
// A^, NTT(t1) and tr from the device (expanded once, then hit), more keys than
// slots evict, each parameter set has its own cache, message items take tr
// from it, and two logical devices use theirs at once; every verdict the core's.
TEST(EngineFaults, PublicKeyCacheHitsEvictsAndStaysExact) {
  auto sim = gpu::make_sim_platform({});
  EngineConfig ec = small_config();  // 16 slots: chunks of at most 4 keys use the cache
  ec.chunk_items = 6;
  ec.streams = 3;
  ec.devices = {0, 0};
  std::string why;
  std::unique_ptr<Engine> e = Engine::create(sim, ec, &why);
  ASSERT_NE(e, nullptr) << why;
  constexpr size_t kKeys = 40, kItems = 240;
  uint64_t items_verified = 0;
  for (int round = 0; round < 2; ++round) {
    for (ParamSet set : kAllParamSets) {
      const Params& p = params(set);
      std::vector<std::unique_ptr<PrivateKey>> keys;
      for (size_t k = 0; k < kKeys; ++k) keys.push_back(key_from_tag(p, static_cast<uint8_t>(k)));
      std::vector<Bytes> msgs(kItems), sigs(kItems);
      std::vector<gpu::VerifyItem> items(kItems);
      std::vector<Status> want(kItems);
      for (size_t i = 0; i < kItems; ++i) {
        const PrivateKey& key = *keys[(i / 3) % kKeys];  // two keys per chunk of six
        msgs[i].assign(20 + i % 7, static_cast<uint8_t>(i));
        sigs[i].resize(p.sig_bytes);
        ASSERT_EQ(sign(key, msgs[i], {}, nullptr, sigs[i].data()), Status::ok);
        if (i % 5 == 0) sigs[i][i % p.sig_bytes] ^= 1;
        items[i] = {key.public_key().encoded().data(), sigs[i].data(), p.sig_bytes, nullptr, msgs[i].data(),
                    msgs[i].size(), nullptr, 0};
        want[i] = verify(key.public_key(), msgs[i], {}, sigs[i]);
      }
      std::vector<Status> got(kItems, Status::internal_error);
      ASSERT_TRUE(e->verify(p, items.data(), kItems, got.data()).ok());
      EXPECT_EQ(got, want) << p.name << " round " << round;
      items_verified += kItems;
    }
  }
  const gpu::SimStats st = sim->stats(0);
  EXPECT_EQ(st.tasks[1], items_verified);
  EXPECT_LT(st.tasks[5], items_verified / 2) << "keys were hit, not expanded for every item";
  EXPECT_GT(st.tasks[5], 2u * 3 * 16) << "40 keys per set through 16 slots: evicted and expanded again";
  e.reset();
  EXPECT_TRUE(sim->freed_with_secrets().empty());
}

// The same waits as for signing keys: chunks that find a public key another
// stream is still expanding (a modelled 30 ms per key) wait for it on the device.
TEST(EngineFaults, ChunksSharingAPublicKeyWaitOnTheDevice) {
  const Work work(ParamSet::ML_DSA_87, 16, 1);
  std::shared_ptr<gpu::SimPlatform> sim;
  std::unique_ptr<Engine> e = slow_kernel_engine(sim, 5);  // verify_expand
  ASSERT_NE(e, nullptr);
  std::vector<Status> st(work.n(), Status::internal_error);
  ASSERT_TRUE(e->verify(work.p, work.verify_items.data(), work.n(), st.data()).ok());
  EXPECT_EQ(st, work.verify_want);
  const gpu::SimStats s = sim->stats(0);
  EXPECT_EQ(s.calls[op_index(SimOp::wait)], 3u) << "chunks 2-4 wait for chunk 1's expansion";
  EXPECT_EQ(s.tasks[5], 1u) << "the one public key is expanded once";
}

// Review finding 3: the device's rejection loop stops at the loop limit as
// the core does: with the limit at L, a task is sign_attempts_exhausted
// exactly when the core's is, and otherwise byte-equal.
TEST(EngineFaults, TheLoopLimitIsTheCores) {
  const Params& p = params(ParamSet::ML_DSA_87);
  std::unique_ptr<PrivateKey> key = key_from_tag(p, 9);
  constexpr size_t kItems = 40;
  Bytes mus(kItems * MU_BYTES);
  std::mt19937_64 rng(5);
  for (auto& b : mus) b = static_cast<uint8_t>(rng());
  const Bytes zero(RND_BYTES, 0);
  std::vector<gpu::SignItem> items;
  for (size_t i = 0; i < kItems; ++i) items.push_back({key->encoded().data(), mus.data() + i * MU_BYTES, zero.data()});
  auto sim = gpu::make_sim_platform({});
  for (uint32_t limit : {1u, 2u, 3u}) {
    EngineConfig ec = small_config();
    ec.sign_attempt_limit = limit;
    std::string why;
    std::unique_ptr<Engine> e = Engine::create(sim, ec, &why);
    ASSERT_NE(e, nullptr) << why;
    for (gpu::SignScheduling mode : {gpu::SignScheduling::dynamic, gpu::SignScheduling::per_task}) {
      Bytes sigs(kItems * p.sig_bytes);
      std::vector<Status> st(kItems);
      ASSERT_TRUE(e->sign(p, items.data(), kItems, sigs.data(), st.data(), mode).ok());
      size_t exhausted = 0;
      for (size_t i = 0; i < kItems; ++i) {
        Bytes want(p.sig_bytes);
        const Status core = sign_mu_expanded(signing_form(key->expanded()), key->public_key().expanded().A,
                                             {mus.data() + i * MU_BYTES, MU_BYTES}, zero.data(), want.data(), limit);
        EXPECT_EQ(st[i], core) << "limit " << limit << " item " << i;
        if (core == Status::ok) {
          EXPECT_TRUE(std::equal(want.begin(), want.end(), sigs.begin() + static_cast<long>(i * p.sig_bytes)));
        }
        exhausted += core == Status::sign_attempts_exhausted;
      }
      if (limit == 1) {
        EXPECT_GT(exhausted, 0u) << "most first attempts are rejected";
      }
    }
  }
}

// The self-test refuses a device whose kernels compute a wrong answer and
// report nothing (a corrupted output), naming the device.
TEST(EngineFaults, SelfTestRefusesAWrongDevice) {
  for (SimOp op : {SimOp::launch_keygen, SimOp::launch_sign_loop, SimOp::launch_verify, SimOp::copy_to_host}) {
    SimConfig sc;
    sc.devices = 2;
    sc.faults = {SimFault{1, op, 1, false, SimFaultKind::corrupt}};
    auto sim = gpu::make_sim_platform(sc);
    EngineConfig ec = small_config();
    ec.self_test = true;
    std::string why;
    EXPECT_EQ(Engine::create(sim, ec, &why), nullptr) << gpu::sim_op_name(op);
    EXPECT_NE(why.find("device 1: self-test"), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace mldsa::test
