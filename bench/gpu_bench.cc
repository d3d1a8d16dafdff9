// gpu_bench.cc - the GPU engine's throughput, end to end: host buffers in,
// results back in host memory, every copy counted. Per parameter set and batch
// size: KeyGen; Verify with distinct keys and with one shared key (pure
// ML-DSA, 32-byte messages, empty context: tr and mu on the device); Sign from
// mu with distinct keys (each item its own key copy, so each is expanded) and
// with one shared key, each with dynamic scheduling and with the plain
// per-task loop (their ratio is the gain of dynamic scheduling).
//
// It checks what it measures: after each timed run, outside the timing, every
// key is compared with the core's, every verdict must be "valid", and every
// signature is verified by the core; one wrong result fails the run (exit 1).
//
// Runs on CUDA, or N simulated devices with
// MLDSA_ACCEL_SIM_DEVICES=N (its figures are the host's, not a GPU's).
// MLDSA_ACCEL_GPU_BATCHES: comma-separated batch sizes (default
// 1000,10000,100000,1000000). MLDSA_ACCEL_GPU_SETS: e.g. "44,65" (default
// all). MLDSA_ACCEL_GPU_OPS: any of keygen,verify,sign (default all).
// MLDSA_ACCEL_GPUS / MLDSA_ACCEL_GPU_SPLIT / MLDSA_ACCEL_GPU_KERNELS as for
// the engine. Prints
// "skipped: ..." and exits 0 when there is no device.
// MLDSA_ACCEL_GPU_BENCH_MODE=staging measures the host side alone, and
// MLDSA_ACCEL_GPU_BENCH_MODE=memory one engine's memory as batches grow (below).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/gpu_bench_util.h"
#include "cpu/mldsa.h"
#include "kernels/host/engine.h"
#include "kernels/device/sim/sim_device.h"
#include "provctx/settings.h"
#include "route/gpu_executor.h"

namespace {

using namespace mldsa::gpu_bench;

using mldsa::gpu::Engine;
using mldsa::gpu::SignItem;
using mldsa::gpu::SignScheduling;
using mldsa::gpu::VerifyItem;
using Bytes = std::vector<uint8_t>;

constexpr size_t kPool = 4096;  // distinct keys / signatures a batch cycles through
constexpr size_t kMsgBytes = 32;

bool wanted(const char* op) {
  const char* v = std::getenv("MLDSA_ACCEL_GPU_OPS");
  if (v == nullptr || *v == '\0') return true;
  const std::string list = std::string(",").append(v).append(",");
  const std::string item = std::string(",").append(op).append(",");
  return list.find(item) != std::string::npos;
}

// MLDSA_ACCEL_GPU_BENCH_MODE=staging: the host side alone, on simulated
// devices that do no work (SimConfig::device_work = false: no kernels, copies
// or memsets; devices from MLDSA_ACCEL_SIM_DEVICES, default 1): the items/s
// that staging into pinned memory, the pipeline and the delivery to the
// callers' buffers keep up with, for keygen, verify and sign with distinct
// keys. Nothing is computed, so nothing is checked: these rows measure the
// host side only.
int staging_main(const mldsa::prov::Settings& settings, const std::vector<size_t>& batches,
                 const std::vector<size_t>& sets, size_t max_batch) {
  mldsa::gpu::SimConfig sc;
  sc.device_work = false;
  if (const char* d = std::getenv("MLDSA_ACCEL_SIM_DEVICES"); d && *d) sc.devices = std::atoi(d);
  mldsa::gpu::EngineConfig config;
  config.self_test = false;  // nothing is computed
  config.sign_key_cache = config.verify_key_cache = false;
  config.chunk_items = std::min(config.chunk_items, max_batch);
  std::string why;
  const mldsa::gpu::EngineConfig from_settings = mldsa::route::engine_config(settings);
  config.gpus = from_settings.gpus;
  config.split = from_settings.split;
  config.kernels = from_settings.kernels;
  config.staging_threads = from_settings.staging_threads;
  std::unique_ptr<Engine> engine = Engine::create(mldsa::gpu::make_sim_platform(sc), config, &why);
  if (!engine) {
    std::printf("engine: %s\n", why.c_str());
    return 1;
  }
  std::printf("staging only, on %s doing no device work (results not checked)\n",
              engine->device_description().c_str());
  header();
  for (size_t set_num : sets) {
    const mldsa::Params* pp = mldsa::params_by_name("ML-DSA-" + std::to_string(set_num));
    if (!pp) continue;
    const mldsa::Params& p = *pp;
    Bytes seeds(max_batch * mldsa::SEED_BYTES, 1), pks(max_batch * p.pk_bytes, 2), sks(max_batch * p.sk_bytes, 3),
        sigs(max_batch * p.sig_bytes, 4), mus(max_batch * mldsa::MU_BYTES, 5);
    std::vector<mldsa::gpu::KeygenItem> keygen_items(max_batch);
    std::vector<VerifyItem> verify_items(max_batch);
    std::vector<SignItem> sign_items(max_batch);
    for (size_t i = 0; i < max_batch; ++i) {
      keygen_items[i] = {seeds.data() + i * mldsa::SEED_BYTES, pks.data() + i * p.pk_bytes, sks.data() + i * p.sk_bytes};
      verify_items[i] = {pks.data() + i * p.pk_bytes, sigs.data() + i * p.sig_bytes, p.sig_bytes,
                         mus.data() + i * mldsa::MU_BYTES, nullptr, 0, nullptr, 0};
      sign_items[i] = {sks.data() + i * p.sk_bytes, mus.data() + i * mldsa::MU_BYTES, mus.data(),
                       sigs.data() + i * p.sig_bytes};
    }
    std::vector<mldsa::Status> st(max_batch);
    const auto unchecked = [] { return true; };
    for (size_t batch : batches) {
      row(p.name, "staging keygen", batch, ops_per_second(batch, [&] {
            return engine->keygen(p, keygen_items.data(), batch).ok();
          }, unchecked));
      row(p.name, "staging verify", batch, ops_per_second(batch, [&] {
            return engine->verify(p, verify_items.data(), batch, st.data()).ok();
          }, unchecked));
      row(p.name, "staging sign", batch, ops_per_second(batch, [&] {
            return engine->sign(p, sign_items.data(), batch, nullptr, st.data()).ok();
          }, unchecked));
    }
  }
  return 0;
}

// MLDSA_ACCEL_GPU_BENCH_MODE=memory: what one process's engine holds, as
// the provider makes it (the router's chunk limit, gpu_memory_mb and the key
// caches from the environment), on one simulated device doing no work: after
// creation, then after ML-DSA-87 signing batches of each size (distinct keys,
// the biggest staging there is). Device and pinned bytes are the simulated
// device's own count of what is allocated.
int memory_main(const mldsa::prov::Settings& settings, std::vector<size_t> batches) {
  std::string why;
  const mldsa::route::RouterConfig rc = mldsa::route::router_config(settings);
  mldsa::gpu::EngineConfig config = rc.engine;
  config.chunk_items = std::clamp<size_t>(rc.limits.max_batch, 1, config.chunk_items);  // as route/router.cc
  config.self_test = false;  // nothing is computed
  mldsa::gpu::SimConfig sc;
  sc.device_work = false;
  auto sim = mldsa::gpu::make_sim_platform(sc);
  std::unique_ptr<Engine> engine = Engine::create(sim, config, &why);
  if (!engine) {
    std::printf("engine: %s\n", why.c_str());
    return 1;
  }
  std::printf("one engine (%u streams, chunks of at most %zu, gpu_memory_mb %llu, key caches %s), simulated device\n",
              config.streams, config.chunk_items, static_cast<unsigned long long>(settings.gpu_memory_mb),
              config.sign_key_cache || config.verify_key_cache ? "on" : "off");
  std::printf("%-22s %12s %12s\n", "after", "device MiB", "pinned MiB");
  auto show = [&](const std::string& what) {
    const mldsa::gpu::SimStats st = sim->stats(0);
    std::printf("%-22s %12.1f %12.1f\n", what.c_str(), st.live_device_bytes / 1048576.0,
                st.live_pinned_bytes / 1048576.0);
  };
  show("creation");
  const mldsa::Params& p = *mldsa::params_by_name("ML-DSA-87");
  std::sort(batches.begin(), batches.end());
  const size_t most = batches.back();
  Bytes sks(most * p.sk_bytes, 3), sigs(most * p.sig_bytes), mus(most * mldsa::MU_BYTES, 5);
  for (size_t i = 0; i < most; ++i) sks[i * p.sk_bytes] = static_cast<uint8_t>(i);  // distinct keys
  std::vector<SignItem> items(most);
  for (size_t i = 0; i < most; ++i)
    items[i] = {sks.data() + i * p.sk_bytes, mus.data() + i * mldsa::MU_BYTES, mus.data(), sigs.data() + i * p.sig_bytes};
  std::vector<mldsa::Status> st(most);
  for (size_t batch : batches) {
    if (!engine->sign(p, items.data(), batch, nullptr, st.data()).ok()) {
      std::printf("sign batch of %zu failed\n", batch);
      return 1;
    }
    show("a batch of " + std::to_string(batch));
  }
  return 0;
}

}  // namespace

int main() {
  const std::vector<size_t> batches = env_list("MLDSA_ACCEL_GPU_BATCHES", "1000,10000,100000,1000000");
  const std::vector<size_t> sets = env_list("MLDSA_ACCEL_GPU_SETS", "44,65,87");
  const size_t max_batch = *std::max_element(batches.begin(), batches.end());
  // The module's settings (MLDSA_ACCEL_GPU_KERNELS, MLDSA_ACCEL_SIM_DEVICES, ...)
  // from the environment, as the test build of the module reads them.
  std::string why;
  mldsa::prov::Settings settings;
  if (!mldsa::prov::apply_environment(settings, true, &why)) {
    std::printf("%s\n", why.c_str());
    return 1;
  }
  const char* mode = std::getenv("MLDSA_ACCEL_GPU_BENCH_MODE");
  if (mode && std::string(mode) == "staging") return staging_main(settings, batches, sets, max_batch);
  if (mode && std::string(mode) == "memory") return memory_main(settings, batches);
  const mldsa::route::RouterConfig rc = mldsa::route::router_config(settings);
  mldsa::gpu::EngineConfig config = rc.engine;
  config.chunk_items = std::min(config.chunk_items, max_batch);  // no buffers bigger than a batch needs
  std::shared_ptr<mldsa::gpu::Platform> platform = mldsa::route::engine_platform(rc.test, &why);
  std::unique_ptr<Engine> engine = platform ? Engine::create(std::move(platform), config, &why) : nullptr;
  if (!engine) {
    std::printf("skipped: %s\n", why.c_str());
    return 0;
  }
  std::printf("devices: %s, %s kernels\n", engine->device_description().c_str(), settings.gpu_kernels.c_str());
  header();
  int failures = 0;

  for (size_t set_num : sets) {
    const mldsa::Params* pp = mldsa::params_by_name("ML-DSA-" + std::to_string(set_num));
    if (!pp) continue;
    const mldsa::Params& p = *pp;
    const size_t pool = std::min(kPool, max_batch);
    std::mt19937_64 rng(set_num);

    // The pool: keys and signatures from the core (all threads).
    Bytes seeds(max_batch * mldsa::SEED_BYTES), msgs(pool * kMsgBytes), mus(max_batch * mldsa::MU_BYTES);
    for (auto* v : {&seeds, &msgs, &mus})
      for (auto& b : *v) b = static_cast<uint8_t>(rng());
    std::vector<std::unique_ptr<mldsa::PrivateKey>> keys(pool);
    Bytes sigs(pool * p.sig_bytes), shared_sigs(pool * p.sig_bytes);
    parallel_for(pool, [&](size_t i) {
      mldsa::PrivateKey::from_seed(p, {seeds.data() + i * mldsa::SEED_BYTES, mldsa::SEED_BYTES}, keys[i]);
    });
    parallel_for(pool, [&](size_t i) {
      mldsa::sign(*keys[i], {msgs.data() + i * kMsgBytes, kMsgBytes}, {}, nullptr, sigs.data() + i * p.sig_bytes);
      mldsa::sign(*keys[0], {msgs.data() + i * kMsgBytes, kMsgBytes}, {}, nullptr, shared_sigs.data() + i * p.sig_bytes);
    });

    // KeyGen: every key equal to the core's.
    Bytes pks(max_batch * p.pk_bytes), sks(max_batch * p.sk_bytes);
    auto keygen_all = [&](size_t n) {
      const auto st = engine->keygen(p, seeds.data(), n, pks.data(), sks.data());
      if (!st.ok()) std::fprintf(stderr, "keygen: %s\n", st.message.c_str());
      return st.ok();
    };
    auto keygen_check = [&](size_t n) {
      std::atomic<size_t> wrong{0};
      parallel_for(n, [&](size_t i) {
        std::unique_ptr<mldsa::PrivateKey> k;
        if (mldsa::PrivateKey::from_seed(p, {seeds.data() + i * mldsa::SEED_BYTES, mldsa::SEED_BYTES}, k) !=
                mldsa::Status::ok ||
            std::memcmp(k->public_key().encoded().data(), pks.data() + i * p.pk_bytes, p.pk_bytes) != 0 ||
            std::memcmp(k->encoded().data(), sks.data() + i * p.sk_bytes, p.sk_bytes) != 0)
          ++wrong;
      });
      if (wrong) std::fprintf(stderr, "keygen: %zu keys differ from the core's\n", wrong.load());
      return wrong == 0;
    };

    // Verify: every signature in the pool is valid, so every verdict must be ok.
    std::vector<VerifyItem> distinct(max_batch), one_key(max_batch);
    for (size_t i = 0; i < max_batch; ++i) {
      const size_t j = i % pool;
      distinct[i] = {keys[j]->public_key().encoded().data(), sigs.data() + j * p.sig_bytes, p.sig_bytes, nullptr,
                     msgs.data() + j * kMsgBytes, kMsgBytes, nullptr, 0};
      one_key[i] = {keys[0]->public_key().encoded().data(), shared_sigs.data() + j * p.sig_bytes, p.sig_bytes, nullptr,
                    msgs.data() + j * kMsgBytes, kMsgBytes, nullptr, 0};
    }
    std::vector<mldsa::Status> verdicts(max_batch);
    const std::vector<VerifyItem>* verify_items = nullptr;
    auto verify_all = [&](size_t n) {
      const auto st = engine->verify(p, verify_items->data(), n, verdicts.data());
      if (!st.ok()) std::fprintf(stderr, "verify: %s\n", st.message.c_str());
      return st.ok();
    };
    auto verify_check = [&](size_t n) {
      const size_t bad = n - static_cast<size_t>(std::count(verdicts.begin(), verdicts.begin() + static_cast<long>(n),
                                                            mldsa::Status::ok));
      if (bad) std::fprintf(stderr, "verify: %zu valid signatures rejected\n", bad);
      return bad == 0;
    };

    // Sign: every signature verified by the core.
    Bytes key_copies(max_batch * p.sk_bytes);
    parallel_for(max_batch, [&](size_t i) {
      std::memcpy(key_copies.data() + i * p.sk_bytes, keys[i % pool]->encoded().data(), p.sk_bytes);
    });
    std::vector<SignItem> sign_distinct(max_batch), sign_one(max_batch);
    for (size_t i = 0; i < max_batch; ++i) {
      sign_distinct[i] = {key_copies.data() + i * p.sk_bytes, mus.data() + i * mldsa::MU_BYTES, nullptr};
      sign_one[i] = {keys[0]->encoded().data(), mus.data() + i * mldsa::MU_BYTES, nullptr};
    }
    Bytes out_sigs(max_batch * p.sig_bytes);
    std::vector<mldsa::Status> sign_status(max_batch);
    const std::vector<SignItem>* sign_items = nullptr;
    SignScheduling mode = SignScheduling::dynamic;
    auto sign_all = [&](size_t n) {
      const auto st = engine->sign(p, sign_items->data(), n, out_sigs.data(), sign_status.data(), mode);
      if (!st.ok()) std::fprintf(stderr, "sign: %s\n", st.message.c_str());
      return st.ok();
    };
    auto sign_check = [&](size_t n) {
      std::atomic<size_t> wrong{0};
      parallel_for(n, [&](size_t i) {
        const mldsa::PublicKey& pub = keys[sign_items == &sign_one ? 0 : i % pool]->public_key();
        if (sign_status[i] != mldsa::Status::ok ||
            mldsa::verify_mu(pub, {mus.data() + i * mldsa::MU_BYTES, mldsa::MU_BYTES},
                             {out_sigs.data() + i * p.sig_bytes, p.sig_bytes}) != mldsa::Status::ok)
          ++wrong;
      });
      if (wrong) std::fprintf(stderr, "sign: %zu signatures do not verify\n", wrong.load());
      return wrong == 0;
    };

    for (size_t batch : batches) {
      auto measure = [&](const char* name, auto run, auto check) {
        const double rate = ops_per_second(batch, [&] { return run(batch); }, [&] { return check(batch); });
        row(p.name, name, batch, rate);
        failures += rate < 0;
      };
      if (wanted("keygen")) measure("keygen", keygen_all, keygen_check);
      if (wanted("verify")) {
        verify_items = &distinct;
        measure("verify distinct", verify_all, verify_check);
        verify_items = &one_key;
        measure("verify one key", verify_all, verify_check);
      }
      if (wanted("sign")) {
        struct Row {
          const char* name;
          const std::vector<SignItem>* items;
          SignScheduling mode;
        };
        for (const Row& r : {Row{"sign distinct dyn", &sign_distinct, SignScheduling::dynamic},
                             Row{"sign distinct loop", &sign_distinct, SignScheduling::per_task},
                             Row{"sign one key dyn", &sign_one, SignScheduling::dynamic},
                             Row{"sign one key loop", &sign_one, SignScheduling::per_task}}) {
          sign_items = r.items;
          mode = r.mode;
          measure(r.name, sign_all, sign_check);
        }
      }
    }
    mldsa::secure_zero(sks.data(), sks.size());
    mldsa::secure_zero(key_copies.data(), key_copies.size());
  }
  if (failures) std::printf("FAILED: %d row(s) had an engine error or a wrong result\n", failures);
  return failures ? 1 : 0;
}
