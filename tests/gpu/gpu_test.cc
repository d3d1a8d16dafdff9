// gpu_test.cc - the GPU engine (kernels/) against the core (cpu/) on the same
// inputs: ACVP keyGen and sigVer vectors, then random keys and signatures with
// tampered ones mixed in. Keys must be byte-for-byte equal and verdicts
// identical. Without a CUDA device every test reports "skipped: no CUDA device".
//
// MLDSA_ACCEL_GPU_CASES: random cases per parameter set (default 2000;
// tests/gpu/device_check.sh runs 100000).

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cpu/mldsa.h"
#include "kernels/engine.h"
#include "tests/core/acvp_vectors.h"
#include "tests/core/test_keys.h"
#include "tests/gpu/gpu_test_util.h"
#include "tests/core/reference_hash.h"

namespace mldsa::test {
namespace {

using Bytes = std::vector<uint8_t>;
using gpu_test::parallel_for;
using gpu_test::random_case_count;
using gpu::Engine;
using gpu::EngineConfig;
using gpu::VerifyItem;

class Gpu : public ::testing::Test {
 protected:
  // One engine with the default configuration, and one with tiny chunks so
  // that small batches still rotate through every stream and chunk boundary.
  static void SetUpTestSuite() {
    engine_ = Engine::create(&why_).release();
    if (engine_) small_chunks_ = Engine::create(&why_, EngineConfig{3, 7}).release();
  }
  static void TearDownTestSuite() {
    delete engine_;
    delete small_chunks_;
    engine_ = small_chunks_ = nullptr;
  }
  void SetUp() override {
    if (!engine_) GTEST_SKIP() << "skipped: " << why_;  // "no CUDA device (...)"
  }
  static Engine* engine_;
  static Engine* small_chunks_;
  static std::string why_;
};
Engine* Gpu::engine_ = nullptr;
Engine* Gpu::small_chunks_ = nullptr;
std::string Gpu::why_;

TEST_F(Gpu, DeviceIsDescribed) {
  std::cout << "device: " << engine_->device_description() << "\n";
  EXPECT_FALSE(engine_->device_description().empty());
}

TEST_F(Gpu, AcvpKeyGen) {
  const AcvpFile& f = load_acvp("keyGen.txt");
  ASSERT_TRUE(f.error.empty()) << f.error;
  for (ParamSet set : {ParamSet::ML_DSA_44, ParamSet::ML_DSA_65, ParamSet::ML_DSA_87}) {
    const Params& p = params(set);
    std::vector<const AcvpRecord*> recs;
    Bytes seeds;
    for (const AcvpRecord& r : f.records)
      if (r.text("parameterSet") == p.name) {
        recs.push_back(&r);
        const Bytes s = r.bytes("seed");
        seeds.insert(seeds.end(), s.begin(), s.end());
      }
    ASSERT_EQ(recs.size(), 25u) << p.name;
    for (Engine* e : {engine_, small_chunks_}) {
      Bytes pks(recs.size() * p.pk_bytes), sks(recs.size() * p.sk_bytes);
      const gpu::EngineStatus st = e->keygen(p, seeds.data(), recs.size(), pks.data(), sks.data());
      ASSERT_TRUE(st.ok()) << st.message;
      for (size_t i = 0; i < recs.size(); ++i) {
        EXPECT_EQ(Bytes(pks.begin() + i * p.pk_bytes, pks.begin() + (i + 1) * p.pk_bytes), recs[i]->bytes("pk"))
            << recs[i]->id();
        EXPECT_EQ(Bytes(sks.begin() + i * p.sk_bytes, sks.begin() + (i + 1) * p.sk_bytes), recs[i]->bytes("sk"))
            << recs[i]->id();
      }
    }
  }
}

// Every sigVer case: pure ones as {pk, msg, ctx} (mu on the device), internal
// and HashML-DSA ones as {pk, mu} with mu from the core's MuBuilder.
TEST_F(Gpu, AcvpSigVer) {
  const AcvpFile& f = load_acvp("sigVer.txt");
  ASSERT_TRUE(f.error.empty()) << f.error;
  for (ParamSet set : {ParamSet::ML_DSA_44, ParamSet::ML_DSA_65, ParamSet::ML_DSA_87}) {
    const Params& p = params(set);
    struct Case {
      const AcvpRecord* r;
      Bytes pk, sig, msg, ctx, mu;
    };
    std::vector<Case> cases;
    for (const AcvpRecord& r : f.records) {
      if (r.text("parameterSet") != p.name) continue;
      Case c{&r, r.bytes("pk"), r.bytes("signature"), r.bytes("message"), r.bytes("context"), {}};
      std::unique_ptr<PublicKey> pub;
      ASSERT_EQ(PublicKey::decode(p, c.pk, pub), Status::ok) << r.id();
      if (r.text("signatureInterface") == "internal") {
        if (r.flag("externalMu")) {
          c.mu = r.bytes("mu");
        } else {
          MuBuilder b;
          b.init_internal(pub->tr());
          b.update(c.msg);
          c.mu.resize(MU_BYTES);
          b.final(c.mu.data());
        }
      } else if (r.text("preHash") != "pure") {
        HashAlg h;
        ASSERT_TRUE(hash_from_name(r.text("hashAlg"), h)) << r.id();
        const Bytes digest = openssl_digest(h, c.msg);
        ASSERT_FALSE(digest.empty()) << r.id();
        MuBuilder b;
        ASSERT_EQ(b.init_prehash(pub->tr(), c.ctx, h, digest), Status::ok) << r.id();
        c.mu.resize(MU_BYTES);
        b.final(c.mu.data());
      }
      cases.push_back(std::move(c));
    }
    ASSERT_EQ(cases.size(), 60u) << p.name;
    std::vector<VerifyItem> items(cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      items[i].pk = c.pk.data();
      items[i].sig = c.sig.data();
      items[i].sig_len = c.sig.size();
      if (!c.mu.empty()) {
        items[i].mu = c.mu.data();
      } else {
        items[i].msg = c.msg.data();
        items[i].msg_len = c.msg.size();
        items[i].ctx = c.ctx.data();
        items[i].ctx_len = c.ctx.size();
      }
    }
    for (Engine* e : {engine_, small_chunks_}) {
      std::vector<uint8_t> ok(cases.size(), 7);
      const gpu::EngineStatus st = e->verify(p, items.data(), items.size(), ok.data());
      ASSERT_TRUE(st.ok()) << st.message;
      for (size_t i = 0; i < cases.size(); ++i)
        EXPECT_EQ(ok[i], cases[i].r->flag("testPassed") ? 1 : 0)
            << cases[i].r->id() << " " << cases[i].r->text("reason");
    }
  }
}

TEST_F(Gpu, MalformedItemsAreRejectedAndTheEngineStaysUsable) {
  const Params& p = params(ParamSet::ML_DSA_44);
  std::unique_ptr<PrivateKey> key;
  const Bytes seed(SEED_BYTES, 0x42), msg = {1, 2, 3}, ctx(10, 0x55), long_ctx(256, 0x55);
  ASSERT_EQ(PrivateKey::from_seed(p, seed, key), Status::ok);
  Bytes sig(p.sig_bytes);
  ASSERT_EQ(sign(*key, msg, ctx, nullptr, sig.data()), Status::ok);
  const uint8_t* pk = key->public_key().encoded().data();

  std::vector<VerifyItem> items(5);
  for (auto& it : items) it = {pk, sig.data(), sig.size(), nullptr, msg.data(), msg.size(), ctx.data(), ctx.size()};
  items[1].sig_len = sig.size() - 1;        // wrong length
  items[2].ctx = long_ctx.data();           // context over 255 bytes
  items[2].ctx_len = long_ctx.size();
  items[3].pk = nullptr;                    // no key
  items[4].ctx_len = ctx.size() - 1;        // another context: a valid reject
  std::vector<uint8_t> ok(items.size(), 7);
  gpu::EngineStatus st = engine_->verify(p, items.data(), items.size(), ok.data());
  ASSERT_TRUE(st.ok()) << st.message;
  EXPECT_EQ(ok, (std::vector<uint8_t>{1, 0, 0, 0, 0}));

  st = engine_->verify(p, nullptr, 3, ok.data());
  EXPECT_EQ(st.error, gpu::EngineError::bad_argument);
  EXPECT_TRUE(engine_->verify(p, items.data(), 0, nullptr).ok());  // empty batch
  ok.assign(1, 7);
  st = engine_->verify(p, items.data(), 1, ok.data());  // still works
  ASSERT_TRUE(st.ok()) << st.message;
  EXPECT_EQ(ok[0], 1);
}

class GpuRandom : public Gpu, public ::testing::WithParamInterface<ParamSet> {};

// Random seeds through GPU KeyGen (byte-equal to PrivateKey::from_seed), then
// core signatures of random messages through GPU Verify, a quarter of them
// tampered (signature bit, message, context or key), half as {msg, ctx} and
// half as {mu}; every verdict must equal the core's.
TEST_P(GpuRandom, KeyGenAndVerifyMatchTheCore) {
  const Params& p = params(GetParam());
  const size_t total = random_case_count();
  constexpr size_t kBatch = 20000;  // bounds host memory: keys are dropped after each batch
  std::mt19937_64 master(0x475055 + static_cast<int>(GetParam()));
  size_t accepted = 0, rejected = 0;
  for (size_t done = 0; done < total; done += kBatch) {
    const size_t n = std::min(kBatch, total - done);
    const uint64_t batch_seed = master();
    Bytes seeds(n * SEED_BYTES);
    std::mt19937_64 rng(batch_seed);
    for (auto& b : seeds) b = static_cast<uint8_t>(rng());

    Bytes pks(n * p.pk_bytes), sks(n * p.sk_bytes);
    gpu::EngineStatus st = engine_->keygen(p, seeds.data(), n, pks.data(), sks.data());
    ASSERT_TRUE(st.ok()) << st.message;

    // CPU side, in parallel: keys, signatures, tampering, expected verdicts.
    struct Case {
      Bytes msg, ctx, mu, sig;
      size_t key;  // index of the verifying key's pk
      bool use_mu, expected;
      bool key_equal;
    };
    std::vector<Case> cases(n);
    std::vector<std::unique_ptr<PrivateKey>> keys(n);
    parallel_for(n, [&](size_t i) {
      std::unique_ptr<PrivateKey>& key = keys[i];
      const Status s = PrivateKey::from_seed(p, {seeds.data() + i * SEED_BYTES, SEED_BYTES}, key);
      Case& c = cases[i];
      c.key_equal = s == Status::ok &&
                    std::equal(key->public_key().encoded().begin(), key->public_key().encoded().end(),
                               pks.begin() + i * p.pk_bytes) &&
                    std::equal(key->encoded().begin(), key->encoded().end(), sks.begin() + i * p.sk_bytes);
    });
    for (size_t i = 0; i < n; ++i) ASSERT_TRUE(cases[i].key_equal) << p.name << " keygen case " << done + i;

    parallel_for(n, [&](size_t i) {
      std::mt19937_64 r(batch_seed ^ (i * 0x9E3779B97F4A7C15ull));
      Case& c = cases[i];
      c.msg.resize(r() % 300);
      for (auto& b : c.msg) b = static_cast<uint8_t>(r());
      c.ctx.resize(r() % 3 == 0 ? r() % 256 : 0);
      for (auto& b : c.ctx) b = static_cast<uint8_t>(r());
      c.sig.resize(p.sig_bytes);
      const PrivateKey& key = *keys[i];
      sign(key, c.msg, c.ctx, nullptr, c.sig.data());
      c.key = i;
      switch (r() % 8) {  // a quarter tampered
        case 0: c.sig[r() % c.sig.size()] ^= static_cast<uint8_t>(1u << (r() % 8)); break;
        case 1: c.msg.push_back(0); break;
        case 2: c.ctx.push_back(static_cast<uint8_t>(r())); break;
        case 3: c.key = (i + 1) % n; break;
        default: break;
      }
      c.use_mu = r() % 2 == 0;
      const PublicKey& vk = keys[c.key]->public_key();
      MuBuilder b;
      if (b.init_pure(vk.tr(), c.ctx) == Status::ok) {  // a ctx of 256 bytes is a reject either way
        b.update(c.msg);
        c.mu.resize(MU_BYTES);
        b.final(c.mu.data());
      }
      c.expected = verify(vk, c.msg, c.ctx, c.sig) == Status::ok;
    });
    keys.clear();

    std::vector<VerifyItem> items(n);
    for (size_t i = 0; i < n; ++i) {
      const Case& c = cases[i];
      VerifyItem& it = items[i];
      it.pk = pks.data() + c.key * p.pk_bytes;
      it.sig = c.sig.data();
      it.sig_len = c.sig.size();
      if (c.use_mu && !c.mu.empty()) {
        it.mu = c.mu.data();
      } else {
        it.msg = c.msg.data();
        it.msg_len = c.msg.size();
        it.ctx = c.ctx.data();
        it.ctx_len = c.ctx.size();
      }
    }
    std::vector<uint8_t> ok(n, 7);
    st = engine_->verify(p, items.data(), n, ok.data());
    ASSERT_TRUE(st.ok()) << st.message;
    size_t mismatches = 0;
    for (size_t i = 0; i < n; ++i) {
      if (ok[i] != (cases[i].expected ? 1 : 0) && ++mismatches <= 10)
        ADD_FAILURE() << p.name << " verify case " << done + i << ": gpu " << int(ok[i]) << ", core "
                      << cases[i].expected;
      (cases[i].expected ? accepted : rejected)++;
    }
    ASSERT_EQ(mismatches, 0u);
  }
  std::cout << p.name << ": " << total << " keys equal, " << accepted << " accepted and " << rejected
            << " rejected as the core does\n";
  EXPECT_GT(accepted, 0u);
  EXPECT_GT(rejected, 0u);
}

INSTANTIATE_TEST_SUITE_P(AllParamSets, GpuRandom,
                         ::testing::ValuesIn(kAllParamSets), param_name);

}  // namespace
}  // namespace mldsa::test
