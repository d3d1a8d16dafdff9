// sign_gpu_test.cc - GPU batch signing (kernels/sign_runner.h, the engine's
// Engine::sign) against the core: ACVP sigGen vectors byte for byte
// (deterministic and with the vectors' rnd), random tasks byte-equal to
// sign_mu and verified by the core, both schedulings, small chunks, one GPU as
// two logical devices, and hedged signing. Without a CUDA device every test
// reports "skipped: no CUDA device".
//
// MLDSA_ACCEL_GPU_CASES: random tasks per parameter set (default 2000;
// tests/gpu/device_check.sh runs 100000).

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cpu/mldsa.h"
#include "kernels/engine.h"
#include "kernels/sign_runner.h"
#include "tests/core/acvp_vectors.h"
#include "tests/core/test_keys.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/core/reference_hash.h"

namespace mldsa::test {
namespace {

using Bytes = std::vector<uint8_t>;
using gpu_test::parallel_for;
using gpu_test::random_case_count;
using gpu::EngineConfig;
using gpu::SignItem;
using gpu::SignRunner;
using gpu::SignScheduling;

class GpuSign : public ::testing::Test {
 protected:
  // The devices batch signing would use, a runner on them, one with tiny
  // chunks (every stream and chunk boundary in small batches) and one that
  // treats the first GPU as two logical devices.
  static void SetUpTestSuite() {
    const std::vector<int> devices = gpu::sign_devices(&why_);
    if (devices.empty()) return;
    std::unique_ptr<SignRunner> r;
    gpu::EngineStatus st = SignRunner::create(devices, EngineConfig{}, r);
    if (!st.ok()) {
      why_ = st.message;
      return;
    }
    runner_ = r.release();
    if (SignRunner::create(devices, EngineConfig{3, 7}, r).ok()) small_chunks_ = r.release();
    if (SignRunner::create({devices[0], devices[0]}, EngineConfig{2, 1000}, r).ok()) two_logical_ = r.release();
    engine_ = gpu::Engine::create(&why_).release();
  }
  static void TearDownTestSuite() {
    delete runner_;
    delete small_chunks_;
    delete two_logical_;
    delete engine_;
    runner_ = small_chunks_ = two_logical_ = nullptr;
    engine_ = nullptr;
  }
  void SetUp() override {
    if (!runner_) GTEST_SKIP() << "skipped: " << why_;  // "no CUDA device (...)"
    ASSERT_NE(small_chunks_, nullptr);
    ASSERT_NE(two_logical_, nullptr);
    ASSERT_NE(engine_, nullptr) << why_;
  }
  // Every runner, the engine's entry point, and both schedulings must give
  // want (per item).
  static void expect_all_sign(const Params& p, const std::vector<SignItem>& items, const std::vector<Bytes>& want,
                              const std::string& what) {
    for (SignRunner* r : {runner_, small_chunks_, two_logical_, static_cast<SignRunner*>(nullptr)}) {
      for (SignScheduling mode : {SignScheduling::dynamic, SignScheduling::per_task}) {
        Bytes sigs(items.size() * p.sig_bytes, 0);
        const gpu::EngineStatus st = r ? r->sign(p, items.data(), items.size(), sigs.data(), mode)
                                       : engine_->sign(p, items.data(), items.size(), sigs.data(), mode);
        ASSERT_TRUE(st.ok()) << what << ": " << st.message;
        size_t wrong = 0;
        for (size_t i = 0; i < items.size(); ++i)
          if (!std::equal(want[i].begin(), want[i].end(), sigs.begin() + static_cast<long>(i * p.sig_bytes))) {
            if (++wrong <= 5) ADD_FAILURE() << what << " item " << i << " differs";
          }
        EXPECT_EQ(wrong, 0u) << what << (mode == SignScheduling::dynamic ? " dynamic" : " per-task loop") << ", "
                             << (r ? std::to_string(r->logical_devices()) + " logical device(s)" : "Engine::sign");
      }
    }
  }
  static SignRunner* runner_;
  static SignRunner* small_chunks_;
  static SignRunner* two_logical_;
  static gpu::Engine* engine_;
  static std::string why_;
};
SignRunner* GpuSign::runner_ = nullptr;
SignRunner* GpuSign::small_chunks_ = nullptr;
SignRunner* GpuSign::two_logical_ = nullptr;
gpu::Engine* GpuSign::engine_ = nullptr;
std::string GpuSign::why_;

// mu of a sigGen record through its interface, computed on the host.
Bytes record_mu(const PrivateKey& key, const AcvpRecord& r) {
  const uint8_t* tr = key.public_key().tr();
  MuBuilder b;
  if (r.text("signatureInterface") == "internal") {
    if (r.flag("externalMu")) return r.bytes("mu");
    b.init_internal(tr);
    b.update(r.bytes("message"));
  } else if (r.text("preHash") == "pure") {
    if (b.init_pure(tr, r.bytes("context")) != Status::ok) return {};
    b.update(r.bytes("message"));
  } else {
    HashAlg h;
    if (!hash_from_name(r.text("hashAlg"), h)) return {};
    const Bytes digest = openssl_digest(h, r.bytes("message"));
    if (digest.empty() || b.init_prehash(tr, r.bytes("context"), h, digest) != Status::ok) return {};
  }
  Bytes mu(MU_BYTES);
  b.final(mu.data());
  return mu;
}

void acvp_file(const std::string& file, void (*check)(const Params&, const std::vector<SignItem>&,
                                                      const std::vector<Bytes>&, const std::string&)) {
  const AcvpFile& f = load_acvp(file);
  ASSERT_TRUE(f.error.empty()) << f.error;
  for (ParamSet set : {ParamSet::ML_DSA_44, ParamSet::ML_DSA_65, ParamSet::ML_DSA_87}) {
    const Params& p = params(set);
    std::vector<Bytes> sks, mus, rnds, want;
    for (const AcvpRecord& r : f.records) {
      if (r.text("parameterSet") != p.name) continue;
      std::unique_ptr<PrivateKey> key;
      if (r.text("keyFormat") == "seed") {
        ASSERT_EQ(PrivateKey::from_seed(p, r.bytes("seed"), key), Status::ok) << r.id();
      } else {
        ASSERT_EQ(PrivateKey::from_sk(p, r.bytes("sk"), key), Status::ok) << r.id();
      }
      sks.emplace_back(key->encoded().begin(), key->encoded().end());
      mus.push_back(record_mu(*key, r));
      ASSERT_EQ(mus.back().size(), MU_BYTES) << r.id();
      rnds.push_back(r.flag("deterministic") ? Bytes(RND_BYTES, 0) : r.bytes("rnd"));
      ASSERT_EQ(rnds.back().size(), RND_BYTES) << r.id();
      want.push_back(r.bytes("signature"));
    }
    ASSERT_FALSE(want.empty()) << p.name;
    std::vector<SignItem> items(want.size());
    for (size_t i = 0; i < items.size(); ++i) items[i] = {sks[i].data(), mus[i].data(), rnds[i].data()};
    check(p, items, want, file + " " + p.name);
  }
}

TEST_F(GpuSign, AcvpSigGen) { acvp_file("sigGen.txt", expect_all_sign); }
TEST_F(GpuSign, AcvpSigGenTr1) { acvp_file("sigGen-tr1.txt", expect_all_sign); }

class GpuSignRandom : public GpuSign, public ::testing::WithParamInterface<ParamSet> {};

// Random keys (one per 8 tasks, so keys are shared within chunks too), mu and
// rnd (every fourth deterministic): byte-equal to sign_mu, and every GPU
// signature verified by the core.
TEST_P(GpuSignRandom, EqualsCoreAndVerifies) {
  const Params& p = params(GetParam());
  const size_t n = random_case_count();
  const size_t nkeys = (n + 7) / 8;
  std::mt19937_64 rng(0x67707573 + static_cast<int>(GetParam()));
  Bytes seeds(nkeys * SEED_BYTES), mus(n * MU_BYTES), rnds(n * RND_BYTES);
  for (auto* v : {&seeds, &mus, &rnds})
    for (auto& b : *v) b = static_cast<uint8_t>(rng());
  for (size_t i = 3; i < n; i += 4) std::fill_n(rnds.begin() + static_cast<long>(i * RND_BYTES), RND_BYTES, 0);
  std::vector<std::unique_ptr<PrivateKey>> keys(nkeys);
  Bytes sks(nkeys * p.sk_bytes);
  parallel_for(nkeys, [&](size_t k) {
    PrivateKey::from_seed(p, {seeds.data() + k * SEED_BYTES, SEED_BYTES}, keys[k]);
    std::copy(keys[k]->encoded().begin(), keys[k]->encoded().end(), sks.begin() + static_cast<long>(k * p.sk_bytes));
  });
  std::vector<SignItem> items(n);
  for (size_t i = 0; i < n; ++i)
    items[i] = {sks.data() + (i / 8) * p.sk_bytes, mus.data() + i * MU_BYTES, rnds.data() + i * RND_BYTES};

  for (SignScheduling mode : {SignScheduling::dynamic, SignScheduling::per_task}) {
    Bytes sigs(n * p.sig_bytes);
    const gpu::EngineStatus st = runner_->sign(p, items.data(), n, sigs.data(), mode);
    ASSERT_TRUE(st.ok()) << st.message;
    std::atomic<size_t> differ{0}, rejected{0};
    parallel_for(n, [&](size_t i) {
      const PrivateKey& key = *keys[i / 8];
      const std::span<const uint8_t> mu(mus.data() + i * MU_BYTES, MU_BYTES);
      const std::span<const uint8_t> sig(sigs.data() + i * p.sig_bytes, p.sig_bytes);
      Bytes want(p.sig_bytes);
      sign_mu(key, mu, rnds.data() + i * RND_BYTES, want.data());
      if (!std::equal(want.begin(), want.end(), sig.begin())) ++differ;
      if (verify_mu(key.public_key(), mu, sig) != Status::ok) ++rejected;
    });
    EXPECT_EQ(differ.load(), 0u) << p.name << (mode == SignScheduling::dynamic ? " dynamic" : " per-task loop");
    EXPECT_EQ(rejected.load(), 0u) << p.name;
  }
}

INSTANTIATE_TEST_SUITE_P(AllParamSets, GpuSignRandom,
                         ::testing::ValuesIn(kAllParamSets), param_name);

// rnd == nullptr: hedged, drawn on the host. Signatures verify, and two runs
// over the same inputs differ (fresh randomness each time).
TEST_F(GpuSign, HedgedSigningVerifiesAndIsFresh) {
  const Params& p = params(ParamSet::ML_DSA_65);
  std::unique_ptr<PrivateKey> key;
  ASSERT_EQ(PrivateKey::from_seed(p, Bytes(SEED_BYTES, 0x11), key), Status::ok);
  const Bytes mu(MU_BYTES, 0x22);
  const std::vector<SignItem> items(64, SignItem{key->encoded().data(), mu.data(), nullptr});
  Bytes a(items.size() * p.sig_bytes), b(items.size() * p.sig_bytes);
  ASSERT_TRUE(runner_->sign(p, items.data(), items.size(), a.data(), SignScheduling::dynamic).ok());
  ASSERT_TRUE(two_logical_->sign(p, items.data(), items.size(), b.data(), SignScheduling::dynamic).ok());
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_EQ(verify_mu(key->public_key(), mu, {a.data() + i * p.sig_bytes, p.sig_bytes}), Status::ok) << i;
    EXPECT_EQ(verify_mu(key->public_key(), mu, {b.data() + i * p.sig_bytes, p.sig_bytes}), Status::ok) << i;
  }
  EXPECT_NE(a, b);
  // Items 0 and 1 of one batch: same key and mu, different rnd.
  EXPECT_FALSE(std::equal(a.begin(), a.begin() + static_cast<long>(p.sig_bytes), a.begin() + static_cast<long>(p.sig_bytes)));
}

// Small chunks with few keys each go through the device's expanded-key cache:
// 600 keys (more than its 256 slots per set) signed twice over, so keys are
// cached, hit, evicted and expanded again, with chunks in flight on several
// streams. Deterministic signing: byte-equal to sign_mu every time.
TEST_F(GpuSign, KeyCacheHitsAndEvictionsStayExact) {
  const Params& p = params(ParamSet::ML_DSA_44);
  constexpr size_t kKeys = 600;
  std::vector<std::unique_ptr<PrivateKey>> keys(kKeys);
  parallel_for(kKeys, [&](size_t k) { PrivateKey::from_seed(p, Bytes(SEED_BYTES, static_cast<uint8_t>(k)), keys[k]); });
  // Item i: key (i / 2) % kKeys for the first pass, the same keys again after.
  const size_t n = 4 * kKeys;
  Bytes mus(n * MU_BYTES);
  std::mt19937_64 rng(99);
  for (auto& b : mus) b = static_cast<uint8_t>(rng());
  const Bytes zero(RND_BYTES, 0);
  std::vector<SignItem> items(n);
  std::vector<Bytes> want(n, Bytes(p.sig_bytes));
  for (size_t i = 0; i < n; ++i) items[i] = {keys[(i / 2) % kKeys]->encoded().data(), mus.data() + i * MU_BYTES, zero.data()};
  parallel_for(n, [&](size_t i) {
    sign_mu(*keys[(i / 2) % kKeys], {mus.data() + i * MU_BYTES, MU_BYTES}, zero.data(), want[i].data());
  });
  for (SignRunner* r : {small_chunks_, two_logical_}) {
    Bytes sigs(n * p.sig_bytes);
    ASSERT_TRUE(r->sign(p, items.data(), n, sigs.data(), SignScheduling::dynamic).ok());
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i)
      wrong += !std::equal(want[i].begin(), want[i].end(), sigs.begin() + static_cast<long>(i * p.sig_bytes));
    EXPECT_EQ(wrong, 0u) << r->logical_devices() << " logical device(s)";
  }
}

TEST_F(GpuSign, BadArgumentsAndEmptyBatch) {
  const Params& p = params(ParamSet::ML_DSA_44);
  Bytes sig(p.sig_bytes);
  EXPECT_TRUE(runner_->sign(p, nullptr, 0, nullptr, SignScheduling::dynamic).ok());
  EXPECT_EQ(runner_->sign(p, nullptr, 1, sig.data(), SignScheduling::dynamic).error, gpu::EngineError::bad_argument);
  const SignItem no_key{nullptr, sig.data(), nullptr};
  EXPECT_EQ(runner_->sign(p, &no_key, 1, sig.data(), SignScheduling::dynamic).error, gpu::EngineError::bad_argument);
}

}  // namespace
}  // namespace mldsa::test
