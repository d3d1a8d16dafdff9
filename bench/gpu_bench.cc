// gpu_bench.cc - GPU engine throughput, end to end: host buffers in, results
// back in host memory, every copy counted. Per parameter set and batch size:
// KeyGen, Verify with distinct keys, Verify with one shared key (pure ML-DSA,
// 32-byte messages, empty context: tr and mu are computed on the device too).
//
// MLDSA_ACCEL_GPU_BATCHES: comma-separated batch sizes (default
// 1000,10000,100000,1000000). MLDSA_ACCEL_GPU_SETS: e.g. "44,65" (default all).
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
#include "kernels/engine.h"

namespace {

using namespace mldsa::gpu_bench;

using mldsa::gpu::Engine;
using mldsa::gpu::VerifyItem;
using Bytes = std::vector<uint8_t>;

constexpr size_t kPool = 4096;  // distinct keys / signatures a batch cycles through
constexpr size_t kMsgBytes = 32;

}  // namespace

int main() {
  std::string why;
  std::unique_ptr<Engine> engine = Engine::create(&why);
  if (!engine) {
    std::printf("skipped: %s\n", why.c_str());
    return 0;
  }
  std::printf("device: %s\n", engine->device_description().c_str());
  header();
  const std::vector<size_t> batches = env_list("MLDSA_ACCEL_GPU_BATCHES", "1000,10000,100000,1000000");
  const std::vector<size_t> sets = env_list("MLDSA_ACCEL_GPU_SETS", "44,65,87");
  const size_t max_batch = *std::max_element(batches.begin(), batches.end());
  int failures = 0;

  for (size_t set_num : sets) {
    const mldsa::Params* pp = mldsa::params_by_name("ML-DSA-" + std::to_string(set_num));
    if (!pp) continue;
    const mldsa::Params& p = *pp;

    // The pool: keys from the GPU, signatures from the core (all threads).
    Bytes seeds(max_batch * mldsa::SEED_BYTES);
    std::mt19937_64 rng(set_num);
    for (auto& b : seeds) b = static_cast<uint8_t>(rng());
    Bytes pks(max_batch * p.pk_bytes), sks(max_batch * p.sk_bytes);
    const size_t pool = std::min(kPool, max_batch);
    if (!engine->keygen(p, seeds.data(), pool, pks.data(), sks.data()).ok()) return 1;
    Bytes msgs(pool * kMsgBytes), sigs(pool * p.sig_bytes), shared_sigs(pool * p.sig_bytes);
    for (auto& b : msgs) b = static_cast<uint8_t>(rng());
    std::unique_ptr<mldsa::PrivateKey> shared;
    if (mldsa::PrivateKey::from_seed(p, {seeds.data(), mldsa::SEED_BYTES}, shared) != mldsa::Status::ok) return 1;
    parallel_for(pool, [&](size_t i) {
      std::unique_ptr<mldsa::PrivateKey> key;
      mldsa::PrivateKey::from_seed(p, {seeds.data() + i * mldsa::SEED_BYTES, mldsa::SEED_BYTES}, key);
      mldsa::sign(*key, {msgs.data() + i * kMsgBytes, kMsgBytes}, {}, nullptr, sigs.data() + i * p.sig_bytes);
      mldsa::sign(*shared, {msgs.data() + i * kMsgBytes, kMsgBytes}, {}, nullptr,
                  shared_sigs.data() + i * p.sig_bytes);
    });
    std::vector<VerifyItem> distinct(max_batch), one_key(max_batch);
    for (size_t i = 0; i < max_batch; ++i) {
      const size_t j = i % pool;
      distinct[i] = {pks.data() + j * p.pk_bytes, sigs.data() + j * p.sig_bytes, p.sig_bytes, nullptr,
                     msgs.data() + j * kMsgBytes, kMsgBytes, nullptr, 0};
      one_key[i] = {pks.data(), shared_sigs.data() + j * p.sig_bytes, p.sig_bytes, nullptr,
                    msgs.data() + j * kMsgBytes, kMsgBytes, nullptr, 0};
    }
    std::vector<uint8_t> ok(max_batch);
    // Every signature in the pool is valid: a zero is a wrong answer.
    auto verify_all = [&](const std::vector<VerifyItem>& items, size_t n) {
      std::fill(ok.begin(), ok.begin() + n, 0);
      const mldsa::gpu::EngineStatus st = engine->verify(p, items.data(), n, ok.data());
      if (!st.ok()) std::fprintf(stderr, "verify: %s\n", st.message.c_str());
      return st.ok() && std::count(ok.begin(), ok.begin() + n, 1) == static_cast<long>(n);
    };

    for (size_t batch : batches) {
      const double kg = ops_per_second(batch, [&] {
        const mldsa::gpu::EngineStatus st = engine->keygen(p, seeds.data(), batch, pks.data(), sks.data());
        if (!st.ok()) std::fprintf(stderr, "keygen: %s\n", st.message.c_str());
        return st.ok();
      });
      row(p.name, "keygen", batch, kg);
      const double vd = ops_per_second(batch, [&] { return verify_all(distinct, batch); });
      row(p.name, "verify distinct", batch, vd);
      const double vs = ops_per_second(batch, [&] { return verify_all(one_key, batch); });
      row(p.name, "verify one key", batch, vs);
      failures += (kg < 0) + (vd < 0) + (vs < 0);
    }
    mldsa::secure_zero(sks.data(), sks.size());
  }
  return failures ? 1 : 0;
}
