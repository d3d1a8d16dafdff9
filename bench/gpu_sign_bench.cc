// gpu_sign_bench.cc - GPU batch signing throughput, end to end: host buffers in
// (secret keys, mu; hedged rnd drawn on the host), signatures back in host
// memory, every copy counted. Per parameter set and batch size: distinct keys
// (every item its own key copy, so each is expanded) and one shared key, each
// with dynamic scheduling and with the plain per-task loop; the ratio of the
// two is the gain of dynamic scheduling.
//
// MLDSA_ACCEL_GPU_BATCHES: comma-separated batch sizes (default
// 1000,10000,100000,1000000). MLDSA_ACCEL_GPU_SETS: e.g. "44,65" (default
// all). MLDSA_ACCEL_GPUS / MLDSA_ACCEL_GPU_SPLIT as for the engine.
// Prints "skipped: no CUDA device" and exits 0 when there is none.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/gpu_bench_util.h"
#include "cpu/mldsa.h"
#include "kernels/sign_runner.h"

namespace {

using namespace mldsa::gpu_bench;

using mldsa::gpu::SignItem;
using mldsa::gpu::SignRunner;
using mldsa::gpu::SignScheduling;
using Bytes = std::vector<uint8_t>;

constexpr size_t kKeys = 1024;  // keys generated; "distinct" items use copies of them

}  // namespace

int main() {
  std::string why;
  const std::vector<int> devices = mldsa::gpu::sign_devices(&why);
  if (devices.empty()) {
    std::printf("skipped: %s\n", why.c_str());
    return 0;
  }
  std::unique_ptr<SignRunner> runner;
  if (const auto st = SignRunner::create(devices, {}, runner); !st.ok()) {
    std::printf("sign runner: %s\n", st.message.c_str());
    return 1;
  }
  std::printf("signing on %zu logical device(s)\n", runner->logical_devices());
  header();
  const std::vector<size_t> batches = env_list("MLDSA_ACCEL_GPU_BATCHES", "1000,10000,100000,1000000");
  const std::vector<size_t> sets = env_list("MLDSA_ACCEL_GPU_SETS", "44,65,87");
  const size_t max_batch = *std::max_element(batches.begin(), batches.end());
  int failures = 0;

  for (size_t set_num : sets) {
    const mldsa::Params* pp = mldsa::params_by_name("ML-DSA-" + std::to_string(set_num));
    if (!pp) continue;
    const mldsa::Params& p = *pp;
    std::mt19937_64 rng(set_num);
    std::vector<std::unique_ptr<mldsa::PrivateKey>> keys(kKeys);
    Bytes seeds(kKeys * mldsa::SEED_BYTES), mus(max_batch * mldsa::MU_BYTES);
    for (auto* v : {&seeds, &mus})
      for (auto& b : *v) b = static_cast<uint8_t>(rng());
    parallel_for(kKeys, [&](size_t k) {
      mldsa::PrivateKey::from_seed(p, {seeds.data() + k * mldsa::SEED_BYTES, mldsa::SEED_BYTES}, keys[k]);
    });
    // Every item its own copy of a key (distinct pointers: nothing is shared).
    Bytes sks(max_batch * p.sk_bytes);
    parallel_for(max_batch, [&](size_t i) {
      std::memcpy(sks.data() + i * p.sk_bytes, keys[i % kKeys]->encoded().data(), p.sk_bytes);
    });
    std::vector<SignItem> distinct(max_batch), one_key(max_batch);
    for (size_t i = 0; i < max_batch; ++i) {
      distinct[i] = {sks.data() + i * p.sk_bytes, mus.data() + i * mldsa::MU_BYTES, nullptr};
      one_key[i] = {keys[0]->encoded().data(), mus.data() + i * mldsa::MU_BYTES, nullptr};
    }
    Bytes sigs(max_batch * p.sig_bytes);
    // A run counts only if it succeeds and a sample of its signatures verifies.
    auto sign_all = [&](const std::vector<SignItem>& items, size_t n, SignScheduling mode) {
      const auto st = runner->sign(p, items.data(), n, sigs.data(), mode);
      if (!st.ok()) {
        std::fprintf(stderr, "sign: %s\n", st.message.c_str());
        return false;
      }
      for (size_t i = 0; i < n; i += std::max<size_t>(1, n / 16)) {
        const auto& pub = (&items == &one_key ? keys[0] : keys[i % kKeys])->public_key();
        if (mldsa::verify_mu(pub, {items[i].mu, mldsa::MU_BYTES}, {sigs.data() + i * p.sig_bytes, p.sig_bytes}) !=
            mldsa::Status::ok) {
          std::fprintf(stderr, "sign: signature %zu does not verify\n", i);
          return false;
        }
      }
      return true;
    };

    for (size_t batch : batches) {
      struct Row { const char* name; const std::vector<SignItem>* items; SignScheduling mode; };
      for (const Row& r : {Row{"sign distinct dyn", &distinct, SignScheduling::dynamic},
                           Row{"sign distinct loop", &distinct, SignScheduling::per_task},
                           Row{"sign one key dyn", &one_key, SignScheduling::dynamic},
                           Row{"sign one key loop", &one_key, SignScheduling::per_task}}) {
        const double rate = ops_per_second(batch, [&] { return sign_all(*r.items, batch, r.mode); });
        row(p.name, r.name, batch, rate);
        failures += rate < 0;
      }
    }
    mldsa::secure_zero(sks.data(), sks.size());
  }
  return failures ? 1 : 0;
}
