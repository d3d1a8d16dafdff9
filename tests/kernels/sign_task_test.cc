// sign_task_test.cc - the GPU's thread-level signing (kernels/thread/sign.h) and
// the rejection-loop scheduler (kernels/thread/sign_scheduler.h), compiled for the
// CPU: ACVP sigGen vectors byte for byte, random tasks against the core's
// sign_mu, and the scheduler driven by simulated and by real host threads.
// The kernels run this same source on the device.
//
// MLDSA_ACCEL_TASK_CASES sets the number of random tasks per parameter set
// (default 1000).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cpu/mldsa.h"
#include "kernels/host/device_list.h"
#include "kernels/host/key_cache.h"
#include "kernels/thread/sign_scheduler.h"
#include "kernels/thread/sign.h"
#include "tests/core/acvp_mu.h"
#include "tests/core/acvp_vectors.h"
#include "tests/core/test_keys.h"

namespace mldsa::test {
namespace {

using Bytes = std::vector<uint8_t>;

size_t random_case_count() {
  const char* env = std::getenv("MLDSA_ACCEL_TASK_CASES");
  return env && *env ? std::strtoul(env, nullptr, 10) : 1000;
}

// An expanded key as the device holds it.
std::vector<int32_t> expand(const Params& p, std::span<const uint8_t> sk) {
  const gpu::TaskParams tp = gpu::task_params(p);
  std::vector<int32_t> key(gpu::sign_key_words(tp));
  gpu::sign_expand_key(tp, sk.data(), key.data());
  return key;
}

// The whole loop through the task code; scratch on the heap (it is ~24 KiB).
Bytes task_sign(const Params& p, const std::vector<int32_t>& key, const uint8_t* mu, const uint8_t* rnd,
                uint32_t* attempts = nullptr) {
  auto scratch = std::make_unique<gpu::SignScratch>();
  Bytes sig(p.sig_bytes);
  const uint32_t r =
      gpu::sign_task(gpu::task_params(p), key.data(), mu, rnd, *scratch, sig.data(), gpu::kSignAttemptLimit);
  if (attempts) *attempts = r + 1;
  return sig;
}

void run_siggen_file(const std::string& file, size_t want_records) {
  const AcvpFile& f = load_acvp(file);
  ASSERT_TRUE(f.error.empty()) << f.error;
  size_t checked = 0, hedged = 0;
  for (const AcvpRecord& r : f.records) {
    const Params* p = params_by_name(r.text("parameterSet"));
    ASSERT_NE(p, nullptr) << r.id();
    std::unique_ptr<PrivateKey> key;
    if (r.text("keyFormat") == "seed") {
      ASSERT_EQ(PrivateKey::from_seed(*p, r.bytes("seed"), key), Status::ok) << r.id();
    } else {
      ASSERT_EQ(PrivateKey::from_sk(*p, r.bytes("sk"), key), Status::ok) << r.id();
    }
    std::string why;
    const Bytes mu = acvp_record_mu(key->public_key().tr(), r, &why);
    ASSERT_EQ(mu.size(), MU_BYTES) << r.id() << ": " << why;
    Bytes rnd(RND_BYTES, 0);  // deterministic signing
    if (!r.flag("deterministic")) {
      rnd = r.bytes("rnd");
      ASSERT_EQ(rnd.size(), RND_BYTES) << r.id();
      ++hedged;
    }
    EXPECT_EQ(task_sign(*p, expand(*p, key->encoded()), mu.data(), rnd.data()), r.bytes("signature")) << file << " "
                                                                                                      << r.id();
    ++checked;
  }
  EXPECT_EQ(checked, want_records);
  EXPECT_GT(hedged, 0u);
  EXPECT_LT(hedged, checked);
}

TEST(TaskSign, AcvpSigGen) { run_siggen_file("sigGen.txt", 72); }
TEST(TaskSign, AcvpSigGenTr1) { run_siggen_file("sigGen-tr1.txt", 192); }

class TaskSignRandom : public ::testing::TestWithParam<ParamSet> {};

// Random keys, mu and rnd (every fourth deterministic): the task's signature is
// the core's sign_mu's, byte for byte; attempts counted to see the loop's spread.
TEST_P(TaskSignRandom, EqualsCoreSignMu) {
  const Params& p = params(GetParam());
  std::mt19937_64 rng(0x7369676e + static_cast<int>(GetParam()));  // fixed: a failure reproduces
  auto random_bytes = [&](size_t n) {
    Bytes b(n);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    return b;
  };
  const size_t n = random_case_count();
  uint32_t max_attempts = 0;
  uint64_t total_attempts = 0;
  std::unique_ptr<PrivateKey> key;
  std::vector<int32_t> xkey;
  for (size_t i = 0; i < n; ++i) {
    if (i % 4 == 0) {  // a new key every few tasks: one key signs several messages too
      ASSERT_EQ(PrivateKey::from_seed(p, random_bytes(SEED_BYTES), key), Status::ok);
      xkey = expand(p, key->encoded());
    }
    const Bytes mu = random_bytes(MU_BYTES);
    const Bytes rnd = i % 4 == 3 ? Bytes(RND_BYTES, 0) : random_bytes(RND_BYTES);
    Bytes want(p.sig_bytes);
    ASSERT_EQ(sign_mu(*key, mu, rnd.data(), want.data()), Status::ok);
    uint32_t attempts = 0;
    const Bytes got = task_sign(p, xkey, mu.data(), rnd.data(), &attempts);
    ASSERT_EQ(got, want) << p.name << " case " << i;
    max_attempts = std::max(max_attempts, attempts);
    total_attempts += attempts;
  }
  std::cout << "[ attempts ] " << p.name << ": mean " << static_cast<double>(total_attempts) / static_cast<double>(n)
            << ", max " << max_attempts << " over " << n << " tasks\n";
}

INSTANTIATE_TEST_SUITE_P(AllParamSets, TaskSignRandom,
                         ::testing::ValuesIn(kAllParamSets), param_name);

// ---------------------------------------------------------------------------
// The scheduler.

// The shared state of a batch, in host memory.
struct ScheduleState {
  uint32_t next_task = 0, spec_cursor = 0, done = 0;
  std::vector<uint32_t> next_attempt, best, lock;
  gpu::SignSchedule s;
  ScheduleState(uint32_t n, bool speculate) : next_attempt(n, 0), best(n, gpu::kNoAttempt), lock(n, 0) {
    s.n = n;
    s.speculate = speculate ? 1 : 0;
    s.next_task = &next_task;
    s.spec_cursor = &spec_cursor;
    s.done = &done;
    s.next_attempt = next_attempt.data();
    s.best = best.data();
    s.lock = lock.data();
  }
};

// Whether attempt r of task t is accepted: a fixed pseudo-random oracle with
// acceptance probability 1/(1 + t % 7) (task 0 always on its first attempt, some
// tasks need dozens), so the smallest accepted attempt of each task is known.
bool oracle(uint32_t t, uint32_t r, uint64_t seed) {
  uint64_t x = seed ^ (uint64_t{t} << 32) ^ r;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x % (1 + t % 7) == 0;
}
uint32_t first_accepted(uint32_t t, uint64_t seed) {
  uint32_t r = 0;
  while (!oracle(t, r, seed)) ++r;
  return r;
}

struct SimResult {
  std::vector<uint32_t> written;  // per task: the attempt whose "signature" was written last
  std::vector<uint32_t> writes;
  uint64_t attempts = 0;
  uint64_t rounds = 0;  // time steps until every unit stopped
};

// Simulated units, interleaved at random: each step one unit acquires, or
// advances the attempt it runs (attempts take 1-8 steps), or completes it.
SimResult simulate(uint32_t n, uint32_t units, bool speculate, uint64_t seed) {
  ScheduleState st(n, speculate);
  struct Sim {
    gpu::SignUnit u;
    uint32_t left = 0;  // steps until the running attempt completes; 0: acquire next
    bool running = false, stopped = false;
  };
  std::vector<Sim> sims(units);
  SimResult res;
  res.written.assign(n, gpu::kNoAttempt);
  res.writes.assign(n, 0);
  std::mt19937_64 rng(seed);
  uint32_t active = units;
  while (active > 0) {
    ++res.rounds;
    Sim& m = sims[rng() % units];
    if (m.stopped) continue;
    if (!m.running) {
      const gpu::SchedStep step = gpu::sched_acquire(st.s, m.u);
      if (step == gpu::SchedStep::stop) {
        m.stopped = true;
        --active;
      } else if (step == gpu::SchedStep::work) {
        m.running = true;
        m.left = 1 + static_cast<uint32_t>(rng() % 8);
        ++res.attempts;
      }
    } else if (--m.left == 0) {
      m.running = false;
      const uint32_t t = m.u.task, r = m.u.attempt;
      gpu::sched_complete(st.s, m.u, oracle(t, r, seed), [&] {
        res.written[t] = r;
        ++res.writes[t];
      });
    }
  }
  EXPECT_EQ(st.done, n);
  return res;
}

TEST(SignScheduler, SimulatedUnitsGiveTheSmallestAcceptedAttempt) {
  struct Case { uint32_t n, units; };
  for (Case c : {Case{1, 1}, Case{1, 50}, Case{7, 3}, Case{100, 1}, Case{100, 16}, Case{100, 400}, Case{1000, 64},
                 Case{1000, 1000}}) {
    for (int speculate = 0; speculate < 2; ++speculate) {
      for (uint64_t seed : {1u, 2u, 3u}) {
        const SimResult res = simulate(c.n, c.units, speculate != 0, seed);
        uint64_t needed = 0;
        for (uint32_t t = 0; t < c.n; ++t) {
          const uint32_t want = first_accepted(t, seed);
          needed += want + 1;
          ASSERT_EQ(res.written[t], want) << "n " << c.n << " units " << c.units << " spec " << speculate
                                          << " seed " << seed << " task " << t;
          EXPECT_GE(res.writes[t], 1u);
        }
        // Without speculation no attempt is wasted; with it, some are.
        if (speculate) {
          EXPECT_GE(res.attempts, needed);
        } else {
          EXPECT_EQ(res.attempts, needed);
        }
      }
    }
  }
}

// The tail: with speculation, many units finish a batch with a few slow tasks
// in fewer steps than owners alone (the point of dynamic scheduling).
TEST(SignScheduler, SpeculationShortensTheTail) {
  const SimResult plain = simulate(64, 64, false, 7);
  const SimResult spec = simulate(64, 64, true, 7);
  std::cout << "[ schedule ] 64 tasks, 64 units: " << plain.rounds << " steps plain, " << spec.rounds
            << " speculative (" << plain.attempts << " vs " << spec.attempts << " attempts)\n";
  EXPECT_LT(spec.rounds, plain.rounds);
}

// Real host threads run real sign attempts through the scheduler: the
// signatures equal sign_mu's whatever the interleaving and speculation.
TEST(SignScheduler, HostThreadsSignLikeTheCore) {
  for (ParamSet ps : {ParamSet::ML_DSA_44, ParamSet::ML_DSA_87}) {
    const Params& p = params(ps);
    const gpu::TaskParams tp = gpu::task_params(p);
    std::mt19937_64 rng(0x5c4ed + static_cast<int>(ps));
    auto random_bytes = [&](size_t n) {
      Bytes b(n);
      for (auto& x : b) x = static_cast<uint8_t>(rng());
      return b;
    };
    constexpr uint32_t kTasks = 24;
    std::unique_ptr<PrivateKey> key;
    ASSERT_EQ(PrivateKey::from_seed(p, random_bytes(SEED_BYTES), key), Status::ok);
    const std::vector<int32_t> xkey = expand(p, key->encoded());
    std::vector<Bytes> mus, rhopps, sigs(kTasks, Bytes(p.sig_bytes, 0)), want(kTasks, Bytes(p.sig_bytes));
    for (uint32_t t = 0; t < kTasks; ++t) {
      mus.push_back(random_bytes(MU_BYTES));
      // 64 bytes: sign_rhopp has a round-3 branch that reads that many (g++
      // warned of it); these ML-DSA sets read the first RND_BYTES.
      const Bytes rnd = random_bytes(64);
      ASSERT_EQ(sign_mu(*key, mus[t], rnd.data(), want[t].data()), Status::ok);
      Bytes rhopp(64);
      gpu::sign_rhopp(gpu::task_params(p), xkey.data(), rnd.data(), mus[t].data(), rhopp.data());
      rhopps.push_back(rhopp);
    }
    for (int speculate = 0; speculate < 2; ++speculate) {
      ScheduleState st(kTasks, speculate != 0);
      for (Bytes& s : sigs) std::fill(s.begin(), s.end(), 0);
      auto unit = [&] {
        auto scratch = std::make_unique<gpu::SignScratch>();
        gpu::SignUnit u;
        for (;;) {
          const gpu::SchedStep step = gpu::sched_acquire(st.s, u);
          if (step == gpu::SchedStep::stop) break;
          if (step == gpu::SchedStep::retry) {
            std::this_thread::yield();
            continue;
          }
          const uint32_t t = u.task;
          const bool ok = gpu::sign_attempt(tp, xkey.data(), mus[t].data(), rhopps[t].data(), u.attempt, *scratch);
          gpu::sched_complete(st.s, u, ok, [&] { gpu::sign_encode(tp, *scratch, sigs[t].data()); });
        }
        gpu::sign_wipe(*scratch);
      };
      std::vector<std::thread> threads;
      for (int i = 0; i < 6; ++i) threads.emplace_back(unit);
      for (auto& th : threads) th.join();
      for (uint32_t t = 0; t < kTasks; ++t)
        EXPECT_EQ(sigs[t], want[t]) << p.name << " task " << t << (speculate ? " speculative" : " owners only");
    }
  }
}

// The expanded-key cache's bookkeeping: hits, LRU eviction, keys pinned by
// their chunk, and the streams to wait for before a slot is reused or read.
TEST(KeyCache, LruPinningAndStreams) {
  const Bytes a(64, 1), b(64, 2), c(64, 3), d(64, 4), e(64, 5);
  gpu::KeyCache cache(3);
  cache.begin_chunk();
  auto la = cache.lookup(a.data(), a.size(), 0);
  auto lb = cache.lookup(b.data(), b.size(), 0);
  auto lc = cache.lookup(c.data(), c.size(), 0);
  ASSERT_TRUE(la.ok && lb.ok && lc.ok);
  EXPECT_TRUE(la.fresh && lb.fresh && lc.fresh);
  EXPECT_EQ(la.streams | lb.streams | lc.streams, 0u);  // empty slots: nothing to wait for
  EXPECT_NE(la.slot, lb.slot);
  EXPECT_NE(lb.slot, lc.slot);
  EXPECT_NE(la.slot, lc.slot);
  // All three pinned by this chunk: a fourth key has no slot.
  EXPECT_FALSE(cache.lookup(d.data(), d.size(), 0).ok);

  cache.begin_chunk();  // stream 1: a hits, but stream 0 is still expanding it
  auto ha = cache.lookup(a.data(), a.size(), 1);
  EXPECT_TRUE(ha.ok);
  EXPECT_FALSE(ha.fresh);
  EXPECT_EQ(ha.slot, la.slot);
  EXPECT_EQ(ha.streams, 1u << 0);
  cache.release_stream(0);
  EXPECT_EQ(cache.lookup(a.data(), a.size(), 1).streams, 0u);  // expanded now

  // d evicts the least recently used key (b), whose reader stream 0 is done;
  // e then evicts c. a, used last, stays.
  cache.begin_chunk();
  auto ld = cache.lookup(d.data(), d.size(), 2);
  EXPECT_TRUE(ld.ok && ld.fresh);
  EXPECT_EQ(ld.slot, lb.slot);
  EXPECT_EQ(ld.streams, 0u);
  auto le = cache.lookup(e.data(), e.size(), 2);
  EXPECT_EQ(le.slot, lc.slot);
  EXPECT_FALSE(cache.lookup(a.data(), a.size(), 2).fresh);
  // b was evicted, and a, d, e are pinned by this chunk: no slot for b now.
  EXPECT_FALSE(cache.lookup(b.data(), b.size(), 2).ok);
  // Next chunk: b evicts d (least recently used), which stream 2 expanded and read.
  cache.begin_chunk();
  auto lb2 = cache.lookup(b.data(), b.size(), 3);
  EXPECT_TRUE(lb2.ok && lb2.fresh);
  EXPECT_EQ(lb2.streams, 1u << 2);  // stream 2 may still read the evicted key's slot

  cache.clear();
  EXPECT_TRUE(cache.lookup(a.data(), a.size(), 0).fresh);
}

// MLDSA_ACCEL_GPUS / MLDSA_ACCEL_GPU_SPLIT as the engine reads them.
TEST(DeviceList, ParsesOrdinalsAndSplit) {
  using V = std::vector<int>;
  V out;
  std::string why;
  EXPECT_TRUE(gpu::parse_device_list("", "", 3, out, &why));
  EXPECT_EQ(out, (V{0, 1, 2}));
  EXPECT_TRUE(gpu::parse_device_list("2,0", "", 3, out, &why));
  EXPECT_EQ(out, (V{2, 0}));
  EXPECT_TRUE(gpu::parse_device_list("0", "2", 1, out, &why));  // one GPU as two logical devices
  EXPECT_EQ(out, (V{0, 0}));
  EXPECT_TRUE(gpu::parse_device_list("", "3", 2, out, &why));
  EXPECT_EQ(out, (V{0, 1, 0, 1, 0, 1}));
  for (const char* bad : {"3", "-1", "0,", ",0", "0,,1", "a", "0 1", "1x"}) {
    why.clear();
    EXPECT_FALSE(gpu::parse_device_list(bad, "", 3, out, &why)) << bad;
    EXPECT_NE(why.find("MLDSA_ACCEL_GPUS"), std::string::npos) << bad;
    EXPECT_TRUE(out.empty()) << bad;
  }
  for (const char* bad : {"0", "17", "x", "-2"}) {
    EXPECT_FALSE(gpu::parse_device_list("0", bad, 1, out, &why)) << bad;
    EXPECT_NE(why.find("MLDSA_ACCEL_GPU_SPLIT"), std::string::npos) << bad;
  }
  EXPECT_FALSE(gpu::parse_device_list("", "", 0, out, &why));  // no device at all
}

}  // namespace
}  // namespace mldsa::test
