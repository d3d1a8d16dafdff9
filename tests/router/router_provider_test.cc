// router_provider_test.cc - routing through the loaded module and plain EVP
// calls: signatures equal the core's byte for byte, from many threads and from
// many ASYNC jobs on one thread, and the provider's routing parameters.
//
// ctest runs this binary in several modes, set by the environment the module
// reads at load: MLDSA_ACCEL_TEST_EXECUTOR=cpu + MLDSA_ACCEL_GPU_MIN_INFLIGHT=0
// (everything through the batch queue), the same with
// MLDSA_ACCEL_TEST_FAIL_EVERY=k (executor faults), MLDSA_ACCEL_SIM_DEVICES=2
// (the whole GPU path: executor, engine, simulated devices), the same with
// MLDSA_ACCEL_SIM_FAULTS (device faults; a hung kernel), and MLDSA_ACCEL_GPU=off.
#include "cpu/mldsa.h"
#include "tests/provider/provider_fixture.h"

#include <openssl/async.h>

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

namespace mldsa::test {
namespace {

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == value;
}
bool sim_mode() { return std::getenv("MLDSA_ACCEL_SIM_DEVICES") != nullptr && !env_is("MLDSA_ACCEL_GPU", "off"); }
// Every bulk request queued: a queue (test executor or simulated devices) and
// gpu_policy = always (the measured policy decides for itself).
bool queue_mode() {
  return (env_is("MLDSA_ACCEL_TEST_EXECUTOR", "cpu") || sim_mode()) && !env_is("MLDSA_ACCEL_GPU", "off") &&
         env_is("MLDSA_ACCEL_GPU_POLICY", "always");
}
bool fault_mode() {
  return queue_mode() &&
         (std::getenv("MLDSA_ACCEL_TEST_FAIL_EVERY") != nullptr || std::getenv("MLDSA_ACCEL_SIM_FAULTS") != nullptr);
}
// No CPU-only spell after an executor error: every request keeps going to the queue.
bool no_cooldown() { return env_is("MLDSA_ACCEL_GPU_ERROR_COOLDOWN_MS", "0"); }

struct Counters {
  uint64_t cpu = 0, queued = 0, full = 0, batches = 0, fallbacks = 0, max_batch = 0, wrong = 0;
  double mean = 0;
  std::string backend, tuning, devices, policy, model;
};

Counters counters(OSSL_PROVIDER* prov) {
  Counters c;
  const char* backend = nullptr;
  const char* tuning = nullptr;
  const char* devices = nullptr;
  const char* policy = nullptr;
  char model[4096] = {};
  OSSL_PARAM p[] = {
      OSSL_PARAM_utf8_ptr("gpu-policy", &policy, 0),
      OSSL_PARAM_uint64("gpu-max-batch", &c.max_batch),
      OSSL_PARAM_utf8_string("gpu-model", model, sizeof model),
      OSSL_PARAM_utf8_ptr("cpu-backend", &backend, 0),
      OSSL_PARAM_utf8_ptr("cpu-tuning", &tuning, 0),
      OSSL_PARAM_utf8_ptr("gpu-devices", &devices, 0),
      OSSL_PARAM_uint64("requests-cpu", &c.cpu),
      OSSL_PARAM_uint64("requests-queued", &c.queued),
      OSSL_PARAM_uint64("requests-queue-full", &c.full),
      OSSL_PARAM_uint64("batches", &c.batches),
      OSSL_PARAM_uint64("fallbacks", &c.fallbacks),
      OSSL_PARAM_uint64("device-wrong-results", &c.wrong),
      OSSL_PARAM_double("mean-batch-size", &c.mean),
      OSSL_PARAM_END,
  };
  EXPECT_EQ(OSSL_PROVIDER_get_params(prov, p), 1);
  c.backend = backend ? backend : "";
  c.tuning = tuning ? tuning : "";
  c.devices = devices ? devices : "";
  c.policy = policy ? policy : "";
  c.model = model;
  return c;
}

// One message per index, its key, and the core's deterministic signature.
struct Work {
  EVP_PKEY* pkey;
  std::vector<uint8_t> msg;
  std::vector<uint8_t> expected;
};

std::vector<uint8_t> evp_sign(OSSL_LIB_CTX* libctx, EVP_PKEY* pkey, const std::vector<uint8_t>& msg) {
  int det = 1;
  OSSL_PARAM p[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_END};
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  std::vector<uint8_t> sig;
  size_t len = 0;
  if (md != nullptr && EVP_DigestSignInit_ex(md, nullptr, nullptr, libctx, nullptr, pkey, p) == 1 &&
      EVP_DigestSign(md, nullptr, &len, msg.data(), msg.size()) == 1) {
    sig.resize(len);
    if (EVP_DigestSign(md, sig.data(), &len, msg.data(), msg.size()) != 1) sig.clear();
  }
  EVP_MD_CTX_free(md);
  return sig;
}

bool evp_verify(OSSL_LIB_CTX* libctx, EVP_PKEY* pkey, const std::vector<uint8_t>& msg,
                const std::vector<uint8_t>& sig) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  const bool ok = md != nullptr && EVP_DigestVerifyInit_ex(md, nullptr, nullptr, libctx, nullptr, pkey, nullptr) == 1 &&
                  EVP_DigestVerify(md, sig.data(), sig.size(), msg.data(), msg.size()) == 1;
  EVP_MD_CTX_free(md);
  ERR_clear_error();
  return ok;
}

// ML-DSA and round-3 Dilithium requests mixed: the batch queue, the executors
// and the engine keep each parameter set's items apart.
constexpr ParamSet kRoutedSets[] = {ParamSet::ML_DSA_44,  ParamSet::ML_DSA_65,  ParamSet::ML_DSA_87,
                                    ParamSet::DILITHIUM2, ParamSet::DILITHIUM3, ParamSet::DILITHIUM5};

class RoutedEvp : public ProviderTest {
 protected:
  void SetUp() override {
    ProviderTest::SetUp();
    if (HasFatalFailure()) return;
    for (ParamSet set : kRoutedSets) {
      const auto seed = seed_of(static_cast<uint8_t>(set) + 40);
      pkeys_.push_back(keygen(set, seed));
      ASSERT_NE(pkeys_.back(), nullptr);
      std::unique_ptr<PrivateKey> k;
      ASSERT_EQ(PrivateKey::from_seed(params(set), seed, k), Status::ok);
      core_.push_back(std::move(k));
    }
  }
  void TearDown() override {
    for (EVP_PKEY* k : pkeys_) EVP_PKEY_free(k);
    ProviderTest::TearDown();
  }

  std::vector<Work> work(size_t n) {
    std::vector<Work> out(n);
    for (size_t i = 0; i < n; ++i) {
      out[i].pkey = pkeys_[i % pkeys_.size()];
      out[i].msg.assign(17 + i % 50, static_cast<uint8_t>(i));
      const PrivateKey& k = *core_[i % core_.size()];
      out[i].expected.resize(k.params().sig_bytes);
      const uint8_t zero[MAX_RND_BYTES] = {};  // deterministic, either scheme
      EXPECT_EQ(sign(k, out[i].msg, {}, zero, out[i].expected.data()), Status::ok);
    }
    return out;
  }

  std::vector<EVP_PKEY*> pkeys_;
  std::vector<std::unique_ptr<PrivateKey>> core_;
};

TEST_F(RoutedEvp, ThreadsGetTheCoresSignatures) {
  const Counters before = counters(prov_);
  auto w = work(96);
  std::atomic<size_t> wrong{0};
  std::vector<std::thread> pool;
  constexpr unsigned kThreads = 16;
  for (unsigned t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      for (size_t i = t; i < w.size(); i += kThreads) {
        if (evp_sign(libctx_, w[i].pkey, w[i].msg) != w[i].expected) ++wrong;
        if (!evp_verify(libctx_, w[i].pkey, w[i].msg, w[i].expected)) ++wrong;
        std::vector<uint8_t> bad = w[i].expected;
        bad[i % bad.size()] ^= 1;
        if (evp_verify(libctx_, w[i].pkey, w[i].msg, bad)) ++wrong;
      }
    });
  }
  for (std::thread& th : pool) th.join();
  EXPECT_EQ(wrong.load(), 0u);
  const Counters after = counters(prov_);
  const uint64_t routed = (after.cpu - before.cpu) + (after.queued - before.queued);
  EXPECT_EQ(routed, w.size() * 3);
  if (queue_mode() && (!fault_mode() || no_cooldown())) {
    EXPECT_EQ(after.queued - before.queued, w.size() * 3);
    EXPECT_GT(after.batches, before.batches);
  } else if (!queue_mode() && after.devices.rfind("none", 0) == 0) {
    EXPECT_EQ(after.queued, before.queued);  // no executor: nothing can be queued
  }
  if (fault_mode() && no_cooldown()) {
    EXPECT_GT(after.fallbacks, before.fallbacks);
  }
  // Corrupt device outputs: the CPU's checks caught some (and the results
  // above are all right).
  const char* faults = std::getenv("MLDSA_ACCEL_SIM_FAULTS");
  if (sim_mode() && queue_mode() && faults != nullptr && std::string(faults).find("corrupt") != std::string::npos) {
    EXPECT_GT(after.wrong, before.wrong);
  }
}

// ASYNC jobs, all on this thread, each signing through EVP; a job pauses in
// the provider until its batch is done and its wait fd tells us to resume it.
struct JobArgs {
  OSSL_LIB_CTX* libctx;
  const Work* w;
  std::vector<uint8_t>* out;
};

int sign_job(void* a) {
  const JobArgs* args = static_cast<const JobArgs*>(a);
  *args->out = evp_sign(args->libctx, args->w->pkey, args->w->msg);
  return args->out->empty() ? 0 : 1;
}

TEST_F(RoutedEvp, AsyncJobsFromOneThread) {
  ASSERT_EQ(ASYNC_init_thread(128, 0), 1);
  const Counters before = counters(prov_);
  auto w = work(64);
  struct Job {
    ASYNC_JOB* job = nullptr;
    ASYNC_WAIT_CTX* wait = nullptr;
    int ret = 0;
    bool finished = false;
    std::vector<uint8_t> sig;
    JobArgs args;
  };
  std::vector<Job> jobs(w.size());
  size_t done = 0, pauses = 0;
  auto step = [&](Job& j) {
    const int rc = ASYNC_start_job(&j.job, j.wait, &j.ret, sign_job, &j.args, sizeof j.args);
    if (rc == ASYNC_PAUSE) {
      ++pauses;
      return;
    }
    EXPECT_EQ(rc, ASYNC_FINISH);
    j.finished = true;
    ++done;
  };
  for (size_t i = 0; i < w.size(); ++i) {
    jobs[i].wait = ASYNC_WAIT_CTX_new();
    jobs[i].args = {libctx_, &w[i], &jobs[i].sig};
    step(jobs[i]);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (done < jobs.size() && std::chrono::steady_clock::now() < deadline) {
    std::vector<pollfd> fds;
    std::vector<Job*> owner;
    for (Job& j : jobs) {
      if (j.finished) continue;
      OSSL_ASYNC_FD fd[4];
      size_t n = 0;
      ASYNC_WAIT_CTX_get_all_fds(j.wait, nullptr, &n);
      ASSERT_LE(n, 4u);
      ASYNC_WAIT_CTX_get_all_fds(j.wait, fd, &n);
      if (n == 0) {  // paused with nothing to wait for: resume it (CPU mode never pauses)
        step(j);
        continue;
      }
      fds.push_back({fd[0], POLLIN, 0});
      owner.push_back(&j);
    }
    if (!fds.empty() && poll(fds.data(), fds.size(), 100) > 0)
      for (size_t k = 0; k < fds.size(); ++k)
        if (fds[k].revents & POLLIN) step(*owner[k]);
  }
  ASSERT_EQ(done, jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].ret, 1) << i;
    EXPECT_EQ(jobs[i].sig, w[i].expected) << i;
    ASYNC_WAIT_CTX_free(jobs[i].wait);
  }
  ASYNC_cleanup_thread();
  const Counters after = counters(prov_);
  if (queue_mode() && (!fault_mode() || no_cooldown())) {
    EXPECT_EQ(after.queued - before.queued, w.size());
    // Jobs paused (a request whose batch completes before it starts to wait
    // needs no pause, so not necessarily every one).
    EXPECT_GT(pauses, 0u);
  } else if (!queue_mode() && after.devices.rfind("none", 0) == 0) {
    EXPECT_EQ(pauses, 0u);  // no executor: a job never pauses
  }
  if (fault_mode() && no_cooldown()) {
    EXPECT_GT(after.fallbacks, before.fallbacks);
  }
}

TEST_F(RoutedEvp, ProviderReportsRouting) {
  const Counters c = counters(prov_);
  // One of the core's tables (the provider is a separate copy of the core;
  // both are built from cpu/backend.cc).
  const std::vector<std::string> known = mldsa::backend_specs();
  EXPECT_NE(std::find(known.begin(), known.end(), c.backend + "@" + c.tuning), known.end())
      << c.backend << "@" << c.tuning;
  if (c.backend == "ref" || c.backend == "neon") {
    EXPECT_EQ(c.tuning, "generic");
  }
  ASSERT_FALSE(c.devices.empty());
  if (env_is("MLDSA_ACCEL_GPU", "off")) {
    EXPECT_EQ(c.devices, "none: gpu = off");
  }
  if (queue_mode()) {
    EXPECT_NE(c.devices.find(sim_mode() ? "simulated device" : "test executor"), std::string::npos) << c.devices;
  }
  if (c.batches > 0) {
    EXPECT_GE(c.mean, 1.0);
  }
  EXPECT_EQ(c.policy, env_is("MLDSA_ACCEL_GPU_POLICY", "always") ? "always" : "measured");
  if (c.devices.rfind("none", 0) == 0 && !env_is("MLDSA_ACCEL_TEST_EXECUTOR", "cpu")) {
    EXPECT_EQ(c.max_batch, 0u);
    EXPECT_EQ(c.model, "none: no GPU in use");
  } else {
    // gpu-devices probed the GPU: the queue is there with its batch limit.
    EXPECT_GE(c.max_batch, 1u);
    EXPECT_FALSE(c.model.empty());
    if (sim_mode() && std::getenv("MLDSA_ACCEL_GPU_MAX_BATCH") == nullptr) {
      EXPECT_GE(c.max_batch, 1024u) << "the default batch limit is at least 1024";
    }
  }
}

// Executor faults under load: threads signing and verifying (good and
// damaged signatures) while every k-th batch fails after writing wrong
// results. Every result is checked; with no cooldown every request went
// through the queue, so the faults hit many batches, not a few.
TEST_F(RoutedEvp, FaultStressChecksEveryResult) {
  if (!fault_mode()) GTEST_SKIP() << "skipped: needs MLDSA_ACCEL_TEST_FAIL_EVERY (the router.provider.faults* runs)";
  const Counters before = counters(prov_);
  auto w = work(240);
  std::atomic<size_t> wrong{0};
  std::vector<std::thread> pool;
  constexpr unsigned kThreads = 16;
  for (unsigned t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      for (unsigned round = 0; round < 2; ++round) {
        for (size_t i = t; i < w.size(); i += kThreads) {
          if (evp_sign(libctx_, w[i].pkey, w[i].msg) != w[i].expected) ++wrong;
          if (!evp_verify(libctx_, w[i].pkey, w[i].msg, w[i].expected)) ++wrong;
          std::vector<uint8_t> bad = w[i].expected;
          bad[(i * 7 + round) % bad.size()] ^= 0x40;
          if (evp_verify(libctx_, w[i].pkey, w[i].msg, bad)) ++wrong;
        }
      }
    });
  }
  for (std::thread& th : pool) th.join();
  EXPECT_EQ(wrong.load(), 0u);
  const Counters after = counters(prov_);
  const uint64_t total = w.size() * 3 * 2;
  EXPECT_EQ((after.cpu - before.cpu) + (after.queued - before.queued), total);
  if (no_cooldown()) {
    EXPECT_GT(after.fallbacks, before.fallbacks);
    EXPECT_EQ(after.queued - before.queued, total);
    EXPECT_GE(after.batches - before.batches, 30u) << "the faults hit too few batches to stress the queue";
  }
}

}  // namespace
}  // namespace mldsa::test
