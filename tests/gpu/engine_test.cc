// engine_test.cc - the GPU engine (kernels/host/engine.h) against the core (cpu/)
// on the same inputs, through the device seam: ACVP keyGen, sigVer and sigGen
// vectors, random keys, signatures and tampered ones, malformed items, hedged
// signing, the expanded-key cache, several logical devices, parameter sets one
// after another through the same buffers. Keys and signatures must be
// byte-for-byte equal and verdicts identical, reasons included.
//
// Built three times: engine_sim_test runs it on 1 and on 4 simulated devices
// (kernels/device/sim/sim_device.h, the same task code on host threads; in CI),
// engine_sim_coop_test on 1 simulated device with the cooperative kernels
// (kernels/block/, on the host SIMT implementation; in CI), engine_cuda_test
// on the CUDA devices, each test reporting "skipped: no CUDA device" where
// there is none.
//
// MLDSA_ACCEL_GPU_CASES: random cases per parameter set (default 2000 on CUDA,
// 24 on the simulated device, 6 for its cooperative kernels;
// tests/gpu/device_check.sh runs 100000). MLDSA_ACCEL_GPU_KERNELS=thread|coop
// picks the kernel set of engine_cuda_test (default thread).

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu/mldsa.h"
#include "kernels/host/engine.h"
#include "kernels/device/sim/sim_device.h"
#include "tests/core/acvp_mu.h"
#include "tests/core/acvp_vectors.h"
#include "tests/core/nist_kat.h"
#include "tests/core/test_keys.h"
#include "tests/gpu/gpu_test_util.h"

namespace mldsa::test {
namespace {

using Bytes = std::vector<uint8_t>;
using gpu::Engine;
using gpu::EngineConfig;
using gpu::SignItem;
using gpu::SignScheduling;
using gpu::VerifyItem;
using gpu_test::parallel_for;

enum class Target { sim1, sim4, cuda };

#if defined(MLDSA_ENGINE_TEST_CUDA)
constexpr Target kTargets[] = {Target::cuda};
constexpr size_t kDefaultCases = 2000;
constexpr gpu::KernelSet kBuiltKernels = gpu::KernelSet::thread;
#elif defined(MLDSA_ENGINE_TEST_COOP)
// The host SIMT runs a block's 128 threads as fibers: one device, fewer cases.
constexpr Target kTargets[] = {Target::sim1};
constexpr size_t kDefaultCases = 6;
constexpr gpu::KernelSet kBuiltKernels = gpu::KernelSet::coop;
#else
constexpr Target kTargets[] = {Target::sim1, Target::sim4};
constexpr size_t kDefaultCases = 24;
constexpr gpu::KernelSet kBuiltKernels = gpu::KernelSet::thread;
#endif

// The kernel set under test: the binary's, or MLDSA_ACCEL_GPU_KERNELS.
gpu::KernelSet kernels_under_test() {
  const char* v = std::getenv("MLDSA_ACCEL_GPU_KERNELS");
  if (v && std::string(v) == "coop") return gpu::KernelSet::coop;
  if (v && std::string(v) == "thread") return gpu::KernelSet::thread;
  return kBuiltKernels;
}
bool coop_on_host(Target t) { return t != Target::cuda && kernels_under_test() == gpu::KernelSet::coop; }

std::string target_name(const ::testing::TestParamInfo<Target>& info) {
  switch (info.param) {
    case Target::sim1: return "Sim1";
    case Target::sim4: return "Sim4";
    case Target::cuda: return "Cuda";
  }
  return "?";
}

class EngineTest : public ::testing::TestWithParam<Target> {
 protected:
  void SetUp() override {
    std::string why;
    if (GetParam() == Target::cuda) {
      platform_ = gpu::cuda_platform(&why);
      if (!platform_) GTEST_SKIP() << "skipped: " << why;  // "no CUDA device (...)"
    } else {
      gpu::SimConfig c;
      c.devices = GetParam() == Target::sim4 ? 4 : 1;
      c.sign_units = 16;
      platform_ = gpu::make_sim_platform(c);
    }
    engine_ = make(base_config());
    ASSERT_NE(engine_, nullptr) << why_;
    // Tiny chunks: small batches still rotate through every stream and chunk
    // boundary; and no key caches, so every test runs both ways (a chunk with
    // few keys takes them from the caches on engine_).
    EngineConfig small = base_config();
    small.streams = 3;
    small.chunk_items = 7;
    small.sign_key_cache = false;
    small.verify_key_cache = false;
    small_ = make(small);
    ASSERT_NE(small_, nullptr) << why_;
  }

  EngineConfig base_config() const {
    EngineConfig c;
    if (GetParam() != Target::cuda) c.chunk_items = 64;  // the simulation's memory is host memory
    c.kernels = kernels_under_test();
    return c;
  }
  std::unique_ptr<Engine> make(const EngineConfig& c) { return Engine::create(platform_, c, &why_); }
  // The cooperative kernels on the simulated device cost ~30 ms of host
  // time per signature (a block's 128 fibers, 5-10x that under the
  // sanitizers), so there the tests use the small-chunk engine alone (the
  // other still runs RandomCases, Hedged and sigGen-tr1) and the
  // signing-heavy ones fewer items; kernels/block's own tests
  // (coop_kernels_test) take the ACVP vectors in full.
  std::vector<Engine*> engines() const {
    if (coop_sim()) return {small_.get()};
    return {engine_.get(), small_.get()};
  }
  bool simulated() const { return GetParam() != Target::cuda; }
  bool coop_sim() const { return coop_on_host(GetParam()); }

  std::shared_ptr<gpu::Platform> platform_;
  std::unique_ptr<Engine> engine_, small_;
  std::string why_;
};

const char* mode_name(SignScheduling m) { return m == SignScheduling::dynamic ? "dynamic" : "per-task loop"; }

// Every engine and each scheduling must sign items as want says.
void expect_signs(const std::vector<Engine*>& engines, const Params& p, const std::vector<SignItem>& items,
                  const std::vector<Bytes>& want, const std::string& what,
                  const std::vector<SignScheduling>& modes = {SignScheduling::dynamic, SignScheduling::per_task}) {
  for (Engine* e : engines) {
    for (SignScheduling mode : modes) {
      Bytes sigs(items.size() * p.sig_bytes, 0);
      std::vector<Status> st(items.size(), Status::internal_error);
      const gpu::EngineStatus es = e->sign(p, items.data(), items.size(), sigs.data(), st.data(), mode);
      ASSERT_TRUE(es.ok()) << what << ": " << es.message;
      size_t wrong = 0;
      for (size_t i = 0; i < items.size(); ++i) {
        const bool same = st[i] == Status::ok &&
                          std::equal(want[i].begin(), want[i].end(), sigs.begin() + static_cast<long>(i * p.sig_bytes));
        if (!same && ++wrong <= 5) ADD_FAILURE() << what << " item " << i << " differs (" << status_string(st[i]) << ")";
      }
      EXPECT_EQ(wrong, 0u) << what << ", " << mode_name(mode) << ", " << e->logical_devices() << " logical device(s)";
    }
  }
}

TEST_P(EngineTest, DescribesItsDevices) {
  std::cout << "devices: " << engine_->device_description() << ", " << gpu::kernel_set_name(kernels_under_test())
            << " kernels\n";
  EXPECT_FALSE(engine_->device_description().empty());
  EXPECT_EQ(engine_->live_devices(), engine_->logical_devices());
  if (GetParam() == Target::sim4) {
    EXPECT_EQ(engine_->logical_devices(), 4u);
  }
}

TEST_P(EngineTest, AcvpKeyGen) {
  const AcvpFile& f = load_acvp("keyGen.txt");
  ASSERT_TRUE(f.error.empty()) << f.error;
  for (ParamSet set : kAllParamSets) {
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
    for (Engine* e : engines()) {
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
// and HashML-DSA ones as {pk, mu}; each status is the core's, reason included.
TEST_P(EngineTest, AcvpSigVer) {
  const AcvpFile& f = load_acvp("sigVer.txt");
  ASSERT_TRUE(f.error.empty()) << f.error;
  for (ParamSet set : kAllParamSets) {
    const Params& p = params(set);
    struct Case {
      const AcvpRecord* r;
      Bytes pk, sig, msg, ctx, mu;
      Status want;
    };
    std::vector<Case> cases;
    for (const AcvpRecord& r : f.records) {
      if (r.text("parameterSet") != p.name) continue;
      Case c{&r, r.bytes("pk"), r.bytes("signature"), r.bytes("message"), r.bytes("context"), {}, Status::ok};
      std::unique_ptr<PublicKey> pub;
      ASSERT_EQ(PublicKey::decode(p, c.pk, pub), Status::ok) << r.id();
      const bool pure = r.text("signatureInterface") != "internal" && r.text("preHash") == "pure";
      if (pure) {
        c.want = verify(*pub, c.msg, c.ctx, c.sig);
      } else {
        std::string why;
        c.mu = acvp_record_mu(pub->tr(), r, &why);
        ASSERT_EQ(c.mu.size(), MU_BYTES) << r.id() << ": " << why;
        c.want = verify_mu(*pub, c.mu, c.sig);
      }
      EXPECT_EQ(c.want == Status::ok, r.flag("testPassed")) << r.id();
      cases.push_back(std::move(c));
    }
    ASSERT_EQ(cases.size(), 60u) << p.name;
    std::vector<VerifyItem> items(cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      items[i] = {c.pk.data(), c.sig.data(), c.sig.size(), c.mu.empty() ? nullptr : c.mu.data(),
                  c.msg.data(),  c.msg.size(), c.ctx.data(), c.ctx.size()};
    }
    for (Engine* e : engines()) {
      std::vector<Status> got(cases.size(), Status::internal_error);
      const gpu::EngineStatus st = e->verify(p, items.data(), items.size(), got.data());
      ASSERT_TRUE(st.ok()) << st.message;
      for (size_t i = 0; i < cases.size(); ++i)
        EXPECT_EQ(got[i], cases[i].want) << cases[i].r->id() << " " << cases[i].r->text("reason");
    }
  }
}

// every: each every-th record of a parameter set.
void acvp_siggen(const std::vector<Engine*>& engines, const std::string& file,
                 const std::vector<SignScheduling>& modes = {SignScheduling::dynamic, SignScheduling::per_task},
                 size_t every = 1) {
  const AcvpFile& f = load_acvp(file);
  ASSERT_TRUE(f.error.empty()) << f.error;
  for (ParamSet set : kAllParamSets) {
    const Params& p = params(set);
    std::vector<std::unique_ptr<PrivateKey>> keys;
    std::vector<Bytes> mus, rnds, want;
    size_t seen = 0;
    for (const AcvpRecord& r : f.records) {
      if (r.text("parameterSet") != p.name || seen++ % every != 0) continue;
      std::unique_ptr<PrivateKey> key;
      if (r.text("keyFormat") == "seed") {
        ASSERT_EQ(PrivateKey::from_seed(p, r.bytes("seed"), key), Status::ok) << r.id();
      } else {
        ASSERT_EQ(PrivateKey::from_sk(p, r.bytes("sk"), key), Status::ok) << r.id();
      }
      std::string why;
      mus.push_back(acvp_record_mu(key->public_key().tr(), r, &why));
      ASSERT_EQ(mus.back().size(), MU_BYTES) << r.id() << ": " << why;
      rnds.push_back(r.flag("deterministic") ? Bytes(RND_BYTES, 0) : r.bytes("rnd"));
      ASSERT_EQ(rnds.back().size(), RND_BYTES) << r.id();
      want.push_back(r.bytes("signature"));
      keys.push_back(std::move(key));
    }
    ASSERT_FALSE(want.empty()) << p.name;
    std::vector<SignItem> items(want.size());
    for (size_t i = 0; i < items.size(); ++i) items[i] = {keys[i]->encoded().data(), mus[i].data(), rnds[i].data()};
    expect_signs(engines, p, items, want, file + " " + p.name, modes);
  }
}

// With the cooperative kernels on the host: every third sigGen record through
// the small-chunk engine, every eighth sigGen-tr1 record through the other,
// dynamically scheduled (coop_kernels_test signs all of sigGen both ways).
TEST_P(EngineTest, AcvpSigGen) {
  if (coop_sim()) {
    acvp_siggen({small_.get()}, "sigGen.txt", {SignScheduling::dynamic}, 3);
  } else {
    acvp_siggen(engines(), "sigGen.txt");
  }
}
TEST_P(EngineTest, AcvpSigGenTr1) {
  if (coop_sim()) {
    acvp_siggen({engine_.get()}, "sigGen-tr1.txt", {SignScheduling::dynamic}, 8);
  } else {
    acvp_siggen(engines(), "sigGen-tr1.txt");
  }
}

// Random seeds through KeyGen (byte-equal to PrivateKey::from_seed), signing
// with those keys (byte-equal to sign_mu, several items per key and keys of
// their own), then core signatures through Verify, half of them tampered
// (signature bit, message, context or key), some with a context over 255
// bytes, half as {msg, ctx} and half as {mu}: every status equal to the core's.
TEST_P(EngineTest, RandomCasesMatchTheCore) {
  const size_t total = gpu_test::random_case_count(kDefaultCases);
  for (ParamSet set : kAllParamSets) {
    const Params& p = params(set);
    constexpr size_t kBatch = 20000;  // bounds host memory
    std::mt19937_64 master(0x475055 + static_cast<int>(set));
    size_t accepted = 0, rejected = 0;
    for (size_t done = 0; done < total; done += kBatch) {
      const size_t n = std::min(kBatch, total - done);
      const uint64_t batch_seed = master();
      std::mt19937_64 rng(batch_seed);
      Bytes seeds(n * SEED_BYTES), mus(n * MU_BYTES), rnds(n * RND_BYTES);
      for (auto* v : {&seeds, &mus, &rnds})
        for (auto& b : *v) b = static_cast<uint8_t>(rng());
      for (size_t i = 3; i < n; i += 4) std::fill_n(rnds.begin() + static_cast<long>(i * RND_BYTES), RND_BYTES, 0);

      Bytes pks(n * p.pk_bytes), sks(n * p.sk_bytes);
      gpu::EngineStatus st = engine_->keygen(p, seeds.data(), n, pks.data(), sks.data());
      ASSERT_TRUE(st.ok()) << st.message;
      std::vector<std::unique_ptr<PrivateKey>> keys(n);
      std::atomic<size_t> keys_differ{0};
      parallel_for(n, [&](size_t i) {
        if (PrivateKey::from_seed(p, {seeds.data() + i * SEED_BYTES, SEED_BYTES}, keys[i]) != Status::ok ||
            !std::equal(keys[i]->public_key().encoded().begin(), keys[i]->public_key().encoded().end(),
                        pks.begin() + static_cast<long>(i * p.pk_bytes)) ||
            !std::equal(keys[i]->encoded().begin(), keys[i]->encoded().end(), sks.begin() + static_cast<long>(i * p.sk_bytes)))
          ++keys_differ;
      });
      ASSERT_EQ(keys_differ.load(), 0u) << p.name;

      // Signing: item i uses key i / 4 for the first half (keys shared within
      // chunks), its own key for the second half.
      std::vector<SignItem> sign_items(n);
      for (size_t i = 0; i < n; ++i)
        sign_items[i] = {keys[i < n / 2 ? i / 4 : i]->encoded().data(), mus.data() + i * MU_BYTES,
                         rnds.data() + i * RND_BYTES};
      for (SignScheduling mode : {SignScheduling::dynamic, SignScheduling::per_task}) {
        Bytes sigs(n * p.sig_bytes);
        std::vector<Status> sst(n, Status::internal_error);
        st = engine_->sign(p, sign_items.data(), n, sigs.data(), sst.data(), mode);
        ASSERT_TRUE(st.ok()) << st.message;
        std::atomic<size_t> differ{0};
        parallel_for(n, [&](size_t i) {
          Bytes want(p.sig_bytes);
          sign_mu(*keys[i < n / 2 ? i / 4 : i], {mus.data() + i * MU_BYTES, MU_BYTES}, rnds.data() + i * RND_BYTES,
                  want.data());
          if (sst[i] != Status::ok || !std::equal(want.begin(), want.end(), sigs.begin() + static_cast<long>(i * p.sig_bytes)))
            ++differ;
        });
        EXPECT_EQ(differ.load(), 0u) << p.name << " " << mode_name(mode);
      }

      struct Case {
        Bytes msg, ctx, mu, sig;
        size_t key;
        bool use_mu;
        Status want;
      };
      std::vector<Case> cases(n);
      parallel_for(n, [&](size_t i) {
        std::mt19937_64 r(batch_seed ^ (i * 0x9E3779B97F4A7C15ull));
        Case& c = cases[i];
        c.msg.resize(r() % 300);
        for (auto& b : c.msg) b = static_cast<uint8_t>(r());
        c.ctx.resize(r() % 3 == 0 ? r() % 257 : 0);  // 256: too long, a reject with its own reason
        for (auto& b : c.ctx) b = static_cast<uint8_t>(r());
        c.sig.resize(p.sig_bytes);
        sign(*keys[i], c.msg, {c.ctx.data(), std::min<size_t>(c.ctx.size(), MAX_CONTEXT_BYTES)}, nullptr, c.sig.data());
        c.key = i;
        switch (r() % 8) {  // half tampered
          case 0: c.sig[r() % c.sig.size()] ^= static_cast<uint8_t>(1u << (r() % 8)); break;
          case 1: c.msg.push_back(0); break;
          case 2: c.ctx.push_back(static_cast<uint8_t>(r())); break;
          case 3: c.key = (i + 1) % n; break;
          default: break;
        }
        const PublicKey& vk = keys[c.key]->public_key();
        c.use_mu = r() % 2 == 0;
        MuBuilder b;
        if (c.use_mu && b.init_pure(vk.tr(), c.ctx) == Status::ok) {
          b.update(c.msg);
          c.mu.resize(MU_BYTES);
          b.final(c.mu.data());
          c.want = verify_mu(vk, c.mu, c.sig);
        } else {
          c.want = verify(vk, c.msg, c.ctx, c.sig);
        }
      });
      std::vector<VerifyItem> items(n);
      for (size_t i = 0; i < n; ++i) {
        const Case& c = cases[i];
        items[i] = {pks.data() + c.key * p.pk_bytes, c.sig.data(), c.sig.size(), c.mu.empty() ? nullptr : c.mu.data(),
                    c.msg.data(), c.msg.size(), c.ctx.data(), c.ctx.size()};
      }
      std::vector<Status> got(n, Status::internal_error);
      st = engine_->verify(p, items.data(), n, got.data());
      ASSERT_TRUE(st.ok()) << st.message;
      size_t mismatches = 0;
      for (size_t i = 0; i < n; ++i) {
        if (got[i] != cases[i].want && ++mismatches <= 10)
          ADD_FAILURE() << p.name << " verify case " << done + i << ": engine " << status_string(got[i]) << ", core "
                        << status_string(cases[i].want);
        (cases[i].want == Status::ok ? accepted : rejected)++;
      }
      ASSERT_EQ(mismatches, 0u);
    }
    std::cout << p.name << ": " << total << " keys and signatures equal, " << accepted << " accepted and " << rejected
              << " rejected as the core does\n";
    EXPECT_GT(accepted, 0u);
    EXPECT_GT(rejected, 0u);
  }
}

// The host-side checks, in the core's order and with its reasons, and the
// engine still usable after bad calls.
TEST_P(EngineTest, MalformedItemsGetTheCoresReasons) {
  const Params& p = params(ParamSet::ML_DSA_44);
  std::unique_ptr<PrivateKey> key = key_from_tag(p, 0x42);
  const Bytes msg = {1, 2, 3}, ctx(10, 0x55), long_ctx(256, 0x55);
  Bytes sig(p.sig_bytes);
  ASSERT_EQ(sign(*key, msg, ctx, nullptr, sig.data()), Status::ok);
  Bytes bad_hint = sig;
  bad_hint[p.sig_bytes - 1] = 0xFF;  // the last row's hint count past omega
  const uint8_t* pk = key->public_key().encoded().data();

  std::vector<VerifyItem> items(7);
  for (auto& it : items) it = {pk, sig.data(), sig.size(), nullptr, msg.data(), msg.size(), ctx.data(), ctx.size()};
  items[1].sig_len = sig.size() - 1;  // wrong length
  items[2].ctx = long_ctx.data();     // context over 255 bytes (checked before the length, as the core does)
  items[2].ctx_len = long_ctx.size();
  items[2].sig_len = 3;
  items[3].pk = nullptr;              // no key
  items[4].ctx_len = ctx.size() - 1;  // another context: a plain reject
  items[5].sig = bad_hint.data();     // malformed hints
  items[6].sig = nullptr;             // no signature
  const std::vector<Status> want = {Status::ok,           Status::bad_sig_length, Status::context_too_long,
                                    Status::bad_pk_length, Status::verify_failed, Status::sig_malformed_hint,
                                    Status::bad_sig_length};
  EXPECT_EQ(verify(key->public_key(), msg, ctx, bad_hint), Status::sig_malformed_hint);
  for (Engine* e : engines()) {
    std::vector<Status> got(items.size(), Status::internal_error);
    gpu::EngineStatus st = e->verify(p, items.data(), items.size(), got.data());
    ASSERT_TRUE(st.ok()) << st.message;
    EXPECT_EQ(got, want);

    EXPECT_EQ(e->verify(p, nullptr, 3, got.data()).error, gpu::EngineError::bad_argument);
    VerifyItem null_msg = items[0];
    null_msg.msg = nullptr;
    EXPECT_EQ(e->verify(p, &null_msg, 1, got.data()).error, gpu::EngineError::bad_argument);
    EXPECT_TRUE(e->verify(p, items.data(), 0, nullptr).ok());  // empty batch
    const SignItem no_key{nullptr, sig.data(), nullptr};
    EXPECT_EQ(e->sign(p, &no_key, 1, sig.data(), got.data()).error, gpu::EngineError::bad_argument);
    EXPECT_EQ(e->sign(p, nullptr, 1, sig.data(), got.data()).error, gpu::EngineError::bad_argument);
    EXPECT_EQ(e->keygen(p, nullptr, 1, sig.data(), sig.data()).error, gpu::EngineError::bad_argument);
    got.assign(1, Status::internal_error);
    st = e->verify(p, items.data(), 1, got.data());  // still works
    ASSERT_TRUE(st.ok()) << st.message;
    EXPECT_EQ(got[0], Status::ok);
  }
}

// A message too long to stage has its mu made on the host: same verdicts.
TEST_P(EngineTest, LongMessagesVerify) {
  const Params& p = params(ParamSet::ML_DSA_65);
  std::unique_ptr<PrivateKey> key = key_from_tag(p, 7);
  std::vector<Bytes> msgs = {Bytes(5, 1), Bytes(100000, 2), Bytes(3000, 3), Bytes(70, 4)};
  std::vector<Bytes> sigs;
  for (const Bytes& m : msgs) {
    sigs.emplace_back(p.sig_bytes);
    ASSERT_EQ(sign(*key, m, {}, nullptr, sigs.back().data()), Status::ok);
  }
  sigs[2][0] ^= 1;
  std::vector<VerifyItem> items;
  for (size_t i = 0; i < msgs.size(); ++i)
    items.push_back({key->public_key().encoded().data(), sigs[i].data(), p.sig_bytes, nullptr, msgs[i].data(),
                     msgs[i].size(), nullptr, 0});
  for (Engine* e : engines()) {
    std::vector<Status> got(items.size(), Status::internal_error);
    ASSERT_TRUE(e->verify(p, items.data(), items.size(), got.data()).ok());
    EXPECT_EQ(got, (std::vector<Status>{Status::ok, Status::ok, Status::verify_failed, Status::ok}));
  }
}

// Parameter sets one after another through the same buffers and streams
// (sized for the largest), each call byte-equal to the core.
TEST_P(EngineTest, ParameterSetsAlternate) {
  for (int round = 0; round < (coop_sim() ? 1 : 2); ++round) {
    for (ParamSet set : {ParamSet::ML_DSA_87, ParamSet::ML_DSA_44, ParamSet::ML_DSA_65}) {
      const Params& p = params(set);
      const size_t kItems = coop_sim() ? 4 : 9;
      std::vector<std::unique_ptr<PrivateKey>> keys;
      Bytes seeds, mus(kItems * MU_BYTES, static_cast<uint8_t>(round + 1)), rnd(RND_BYTES, 0);
      for (size_t i = 0; i < kItems; ++i) {
        const Bytes s = fixed_seed(static_cast<uint8_t>(10 * round + i));
        seeds.insert(seeds.end(), s.begin(), s.end());
        keys.push_back(key_from_tag(p, static_cast<uint8_t>(10 * round + i)));
        mus[i * MU_BYTES] = static_cast<uint8_t>(i);
      }
      for (Engine* e : engines()) {
        Bytes pks(kItems * p.pk_bytes), sks(kItems * p.sk_bytes), sigs(kItems * p.sig_bytes);
        ASSERT_TRUE(e->keygen(p, seeds.data(), kItems, pks.data(), sks.data()).ok());
        std::vector<SignItem> items;
        for (size_t i = 0; i < kItems; ++i) items.push_back({keys[i]->encoded().data(), mus.data() + i * MU_BYTES, rnd.data()});
        std::vector<Status> st(kItems);
        ASSERT_TRUE(e->sign(p, items.data(), kItems, sigs.data(), st.data()).ok());
        for (size_t i = 0; i < kItems; ++i) {
          EXPECT_TRUE(std::equal(keys[i]->encoded().begin(), keys[i]->encoded().end(), sks.begin() + static_cast<long>(i * p.sk_bytes)))
              << p.name << " key " << i;
          Bytes want(p.sig_bytes);
          sign_mu(*keys[i], {mus.data() + i * MU_BYTES, MU_BYTES}, rnd.data(), want.data());
          EXPECT_EQ(st[i], Status::ok);
          EXPECT_TRUE(std::equal(want.begin(), want.end(), sigs.begin() + static_cast<long>(i * p.sig_bytes)))
              << p.name << " signature " << i;
        }
      }
    }
  }
}

// rnd == nullptr: hedged, drawn on the host. Signatures verify, and two
// runs over the same inputs differ (fresh randomness each time).
TEST_P(EngineTest, HedgedSigningVerifiesAndIsFresh) {
  const Params& p = params(ParamSet::ML_DSA_65);
  std::unique_ptr<PrivateKey> key = key_from_tag(p, 0x11);
  const Bytes mu(MU_BYTES, 0x22);
  const std::vector<SignItem> items(coop_sim() ? 8 : 64, SignItem{key->encoded().data(), mu.data(), nullptr});
  Bytes a(items.size() * p.sig_bytes), b(items.size() * p.sig_bytes);
  std::vector<Status> st(items.size());
  ASSERT_TRUE(engine_->sign(p, items.data(), items.size(), a.data(), st.data()).ok());
  ASSERT_TRUE(small_->sign(p, items.data(), items.size(), b.data(), st.data()).ok());
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_EQ(verify_mu(key->public_key(), mu, {a.data() + i * p.sig_bytes, p.sig_bytes}), Status::ok) << i;
    EXPECT_EQ(verify_mu(key->public_key(), mu, {b.data() + i * p.sig_bytes, p.sig_bytes}), Status::ok) << i;
  }
  EXPECT_NE(a, b);
  // Items 0 and 1 of one batch: same key and mu, different rnd.
  EXPECT_FALSE(std::equal(a.begin(), a.begin() + static_cast<long>(p.sig_bytes), a.begin() + static_cast<long>(p.sig_bytes)));
}

// Small chunks with few keys each go through the device's expanded-key
// cache: 600 keys (more than its 256 slots per set) signed twice over, so
// keys are cached, hit, evicted and expanded again, with chunks in flight on
// several streams; then a logical split of the first device. Deterministic
// signing: byte-equal to sign_mu every time.
TEST_P(EngineTest, KeyCacheHitsAndEvictionsStayExact) {
  const Params& p = params(ParamSet::ML_DSA_44);
  // The cooperative kernels on the host sign 6 keys four times over: cache
  // hits, each key expanded once per engine, no eviction (the cache's
  // bookkeeping is the engine's, the same for both kernel sets: the thread
  // runs evict).
  const size_t kKeys = coop_sim() ? 6 : simulated() ? 300 : 600;
  std::vector<std::unique_ptr<PrivateKey>> keys(kKeys);
  parallel_for(kKeys, [&](size_t k) { PrivateKey::from_seed(p, fixed_seed(static_cast<uint8_t>(k)), keys[k]); });
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
  EngineConfig split = base_config();
  split.devices = {0, 0};
  split.streams = 2;
  split.chunk_items = 50;
  std::unique_ptr<Engine> two_logical = make(split);
  ASSERT_NE(two_logical, nullptr) << why_;
  EngineConfig cached_small = base_config();
  cached_small.streams = 3;
  cached_small.chunk_items = 7;
  std::unique_ptr<Engine> cached = make(cached_small);
  ASSERT_NE(cached, nullptr) << why_;
  for (Engine* e : {cached.get(), two_logical.get()}) {
    Bytes sigs(n * p.sig_bytes);
    std::vector<Status> st(n);
    ASSERT_TRUE(e->sign(p, items.data(), n, sigs.data(), st.data()).ok());
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i)
      wrong += st[i] != Status::ok || !std::equal(want[i].begin(), want[i].end(), sigs.begin() + static_cast<long>(i * p.sig_bytes));
    EXPECT_EQ(wrong, 0u) << e->logical_devices() << " logical device(s)";
  }
}

// Round-3 Dilithium batches: keys from the KAT seeds equal the KAT's, and
// random seeds the core's; signatures from mu (deterministic, the caller's
// rho'', hedged) equal the core's (the deterministic KAT ones its bytes);
// verification of {msg} items (M' = msg on the device, or on the host for a
// long one), {mu} items, tampered ones and a context (refused as the core
// refuses it) gives the core's verdicts. The same public key bytes then go
// through the cached path as an ML-DSA key: the shared cache slot (the tr
// there is H(pk, 64), round 3's its first 32 bytes) serves both, and neither
// scheme accepts the other's signature.
TEST_P(EngineTest, RoundThreeMatchesTheCore) {
  for (ParamSet set : {ParamSet::DILITHIUM2, ParamSet::DILITHIUM3, ParamSet::DILITHIUM5}) {
    const Params& p = params(set);
    const Params& twin = params(static_cast<ParamSet>(static_cast<int>(set) - 3));
    SCOPED_TRACE(p.name);
    const KatFile file = load_round3_kat(p.name);
    ASSERT_TRUE(file.error.empty()) << file.error;
    const std::vector<KatRecord>& kat = file.records;
    ASSERT_EQ(kat.size(), 2u);
    // KeyGen: the KAT seeds (zeta from the KAT's DRBG) and random ones (a
    // few with the cooperative kernels on the host SIMT, which are slow).
    const size_t kRandom = coop_sim() ? 2 : 10;
    const size_t n = kat.size() + kRandom;
    std::mt19937_64 rng(0xD1 + static_cast<int>(set));
    Bytes seeds;
    for (const KatRecord& r : kat) {
      const Bytes zeta = kat_keygen_seed(from_hex(r.at("seed")));
      seeds.insert(seeds.end(), zeta.begin(), zeta.end());
    }
    for (size_t i = 0; i < kRandom * SEED_BYTES; ++i) seeds.push_back(static_cast<uint8_t>(rng()));
    std::vector<std::unique_ptr<PrivateKey>> keys(n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(PrivateKey::from_seed(p, {seeds.data() + i * SEED_BYTES, SEED_BYTES}, keys[i]), Status::ok);
    for (Engine* e : engines()) {
      Bytes pks(n * p.pk_bytes), sks(n * p.sk_bytes);
      ASSERT_TRUE(e->keygen(p, seeds.data(), n, pks.data(), sks.data()).ok());
      for (size_t i = 0; i < n; ++i) {
        EXPECT_TRUE(std::ranges::equal(keys[i]->public_key().encoded(), std::span(pks).subspan(i * p.pk_bytes, p.pk_bytes))) << i;
        EXPECT_TRUE(std::ranges::equal(keys[i]->encoded(), std::span(sks).subspan(i * p.sk_bytes, p.sk_bytes))) << i;
      }
      for (size_t i = 0; i < kat.size(); ++i)
        EXPECT_EQ(Bytes(pks.begin() + i * p.pk_bytes, pks.begin() + (i + 1) * p.pk_bytes), from_hex(kat[i].at("pk")));
    }
    // Messages: the KAT's, then random ones; mu = H(tr || msg).
    std::vector<Bytes> msgs, mus;
    for (size_t i = 0; i < n; ++i) {
      Bytes m = i < kat.size() ? from_hex(kat[i].at("msg")) : Bytes(rng() % 200);
      if (i >= kat.size())
        for (auto& b : m) b = static_cast<uint8_t>(rng());
      MuBuilder b;
      ASSERT_EQ(b.init_message(p, keys[i]->public_key().tr(), {}), Status::ok);
      b.update(m);
      mus.emplace_back(MU_BYTES);
      b.final(mus.back().data());
      msgs.push_back(std::move(m));
    }
    // Signing: zero rnd (deterministic) for the KATs and every third, the
    // caller's 64-byte rho'' for the rest.
    Bytes rnds(n * p.rnd_bytes);
    for (auto& b : rnds) b = static_cast<uint8_t>(rng());
    for (size_t i = 0; i < n; ++i)
      if (i < kat.size() || i % 3 == 0) std::fill_n(rnds.begin() + static_cast<long>(i * p.rnd_bytes), p.rnd_bytes, 0);
    std::vector<SignItem> items(n);
    std::vector<Bytes> want(n, Bytes(p.sig_bytes));
    for (size_t i = 0; i < n; ++i) {
      items[i] = {keys[i]->encoded().data(), mus[i].data(), rnds.data() + i * p.rnd_bytes};
      ASSERT_EQ(sign_mu(*keys[i], mus[i], rnds.data() + i * p.rnd_bytes, want[i].data()), Status::ok);
    }
    for (size_t i = 0; i < kat.size(); ++i) {
      const Bytes sm = from_hex(kat[i].at("sm"));
      EXPECT_EQ(want[i], Bytes(sm.begin(), sm.begin() + static_cast<long>(p.sig_bytes)));
    }
    expect_signs(engines(), p, items, want, std::string(p.name) + " signing");
    // Hedged: fresh 64-byte rho'' drawn by the engine; the signatures verify.
    std::vector<SignItem> hedged(items);
    for (auto& it : hedged) it.rnd = nullptr;
    Bytes hsigs(n * p.sig_bytes);
    std::vector<Status> hst(n);
    ASSERT_TRUE(engine_->sign(p, hedged.data(), n, hsigs.data(), hst.data()).ok());
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(hst[i], Status::ok);
      EXPECT_EQ(verify_mu(keys[i]->public_key(), mus[i], {hsigs.data() + i * p.sig_bytes, p.sig_bytes}), Status::ok);
    }
    // Verification: {msg} and {mu} items, a tampered signature, a changed
    // message, a context, a message too long to stage.
    const Bytes ctx = {'c'};
    const Bytes long_msg(50000, 0x5A);
    Bytes long_sig(p.sig_bytes);
    ASSERT_EQ(sign(*keys[0], long_msg, {}, nullptr, long_sig.data()), Status::ok);
    std::vector<Bytes> sigs = want;
    sigs[1][5] ^= 1;
    std::vector<VerifyItem> v;
    std::vector<Status> vwant;
    for (size_t i = 0; i < n; ++i) {
      const uint8_t* pk = keys[i]->public_key().encoded().data();
      v.push_back({pk, sigs[i].data(), p.sig_bytes, nullptr, msgs[i].data(), msgs[i].size(), nullptr, 0});
      v.push_back({pk, sigs[i].data(), p.sig_bytes, mus[i].data(), nullptr, 0, nullptr, 0});
      vwant.push_back(verify(keys[i]->public_key(), msgs[i], {}, sigs[i]));
      vwant.push_back(verify_mu(keys[i]->public_key(), mus[i], sigs[i]));
    }
    v.push_back({keys[2]->public_key().encoded().data(), sigs[2].data(), p.sig_bytes, nullptr, msgs[3].data(),
                 msgs[3].size(), nullptr, 0});
    vwant.push_back(Status::verify_failed);
    v.push_back({keys[2]->public_key().encoded().data(), sigs[2].data(), p.sig_bytes, nullptr, msgs[2].data(),
                 msgs[2].size(), ctx.data(), ctx.size()});
    vwant.push_back(Status::context_unsupported);
    v.push_back({keys[0]->public_key().encoded().data(), long_sig.data(), p.sig_bytes, nullptr, long_msg.data(),
                 long_msg.size(), nullptr, 0});
    vwant.push_back(Status::ok);
    EXPECT_EQ(vwant[2], Status::verify_failed);  // the tampered one
    EXPECT_EQ(verify(keys[2]->public_key(), msgs[2], ctx, sigs[2]), Status::context_unsupported);
    for (Engine* e : engines()) {
      std::vector<Status> got(v.size(), Status::internal_error);
      ASSERT_TRUE(e->verify(p, v.data(), v.size(), got.data()).ok());
      EXPECT_EQ(got, vwant) << e->logical_devices();
    }
    // The same pk bytes as the ML-DSA set of the same shape, through the cache
    // (engine_ keeps it across calls): the core's verdicts there too, which
    // for a message are never "ok" (its mu is another); then the round-3 key
    // still verifies as before.
    std::vector<VerifyItem> as_twin(v.begin(), v.begin() + 2 * static_cast<long>(n));
    std::vector<Status> twin_want;
    for (size_t i = 0; i < n; ++i) {
      std::unique_ptr<PublicKey> tp;
      ASSERT_EQ(PublicKey::decode(twin, keys[i]->public_key().encoded(), tp), Status::ok);
      twin_want.push_back(verify(*tp, msgs[i], {}, sigs[i]));
      twin_want.push_back(verify_mu(*tp, mus[i], sigs[i]));
      EXPECT_NE(twin_want[2 * i], Status::ok) << i;
    }
    std::vector<Status> got(as_twin.size(), Status::internal_error);
    ASSERT_TRUE(engine_->verify(twin, as_twin.data(), as_twin.size(), got.data()).ok());
    EXPECT_EQ(got, twin_want);
    got.assign(v.size(), Status::internal_error);
    ASSERT_TRUE(engine_->verify(p, v.data(), v.size(), got.data()).ok());
    EXPECT_EQ(got, vwant);
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, EngineTest, ::testing::ValuesIn(kTargets), target_name);

}  // namespace
}  // namespace mldsa::test
