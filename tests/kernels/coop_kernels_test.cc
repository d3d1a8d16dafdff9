// coop_kernels_test.cc - the cooperative kernels (kernels/block/chunk.h) on the
// host SIMT implementation, byte for byte against the core (cpu/): KeyGen on
// the ACVP keyGen vectors and random seeds, Verify on the ACVP sigVer
// vectors (mu and message modes) and random, tampered and malformed
// signatures, the key expansion against the thread code's (word for word),
// and signing through the whole loop kernel under the dynamic schedule
// (several units, speculation) and the per-task loop, on the ACVP sigGen
// vectors and random keys, every parameter set (the random cases also for
// round-3 Dilithium2/3/5). Every launch also runs the
// host SIMT's checks (races, barriers, bounds): any finding fails the test.
//
// MLDSA_ACCEL_COOP_CASES: random cases per parameter set (default 6, 2 in
// the sanitizer builds).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu/mldsa.h"
#include "kernels/block/chunk.h"
#include "tests/core/acvp_mu.h"
#include "tests/core/acvp_vectors.h"
#include "tests/core/test_keys.h"

namespace mldsa::test {
namespace {

using Bytes = std::vector<uint8_t>;
using gpu::TaskParams;
namespace coop = gpu::coop;
namespace simt = gpu::simt;

// The sanitizer builds run less (5-10x the host time; their stages look for
// memory and thread errors, which a few of each case show): 2 random cases
// per parameter set and every fourth sigGen record.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr size_t kDefaultCases = 2, kSigGenEvery = 4;
#else
constexpr size_t kDefaultCases = 6, kSigGenEvery = 1;
#endif

size_t random_case_count() {
  const char* env = std::getenv("MLDSA_ACCEL_COOP_CASES");
  return env && *env ? std::strtoul(env, nullptr, 10) : kDefaultCases;
}

void expect_clean(const simt::HostResult& r, const std::string& what) { EXPECT_TRUE(r.ok) << what << ": " << r.error; }

// The shared-memory plans: within the 48 KiB a block gets without an opt-in
// launch attribute, every parameter set (printed for bench/RESULTS.md).
TEST(CoopShared, PlansFitTheBudget) {
  for (ParamSet set : kAllParamSets) {
    const TaskParams tp = gpu::task_params(params(set));
    const uint32_t kg = coop::keygen_shared_bytes(tp), vf = coop::verify_shared_bytes(tp),
                   ex = coop::expand_shared_bytes(tp), sg = coop::sign_shared_bytes(tp);
    std::cout << params(set).name << " dynamic shared memory per block: keygen " << kg << " (A^ rows per pass "
              << coop::KeygenShared(tp).rows_per_pass << "), verify " << vf << " (rows per pass "
              << coop::VerifyShared(tp).rows_per_pass << "), expand " << ex << ", sign loop " << sg << " bytes\n";
    for (uint32_t b : {kg, vf, ex, sg}) EXPECT_LE(b, coop::kSharedBudget) << params(set).name;
    EXPECT_GE(coop::KeygenShared(tp).rows_per_pass, 1u);
    EXPECT_GE(coop::VerifyShared(tp).rows_per_pass, 1u);
  }
}

// --- KeyGen --------------------------------------------------------------------

void coop_keygen(const Params& p, const Bytes& seeds, Bytes& pks, Bytes& sks, bool reverse = false) {
  const TaskParams tp = gpu::task_params(p);
  const uint32_t n = static_cast<uint32_t>(seeds.size() / SEED_BYTES);
  pks.assign(size_t{n} * p.pk_bytes, 0);
  sks.assign(size_t{n} * p.sk_bytes, 0);
  const gpu::KeygenChunk c{seeds.data(), pks.data(), sks.data()};
  expect_clean(simt::host_launch({n, coop::kBlockThreads, coop::keygen_shared_bytes(tp)},
                                 {.reverse = reverse, .resident_blocks = 2},
                                 [&] { coop::keygen_block(tp, c, simt::block_index()); }),
               std::string("keygen ") + p.name);
}

TEST(CoopKeyGen, AcvpVectors) {
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
    ASSERT_EQ(recs.size(), 25u);
    Bytes pks, sks;
    coop_keygen(p, seeds, pks, sks);
    for (size_t i = 0; i < recs.size(); ++i) {
      EXPECT_EQ(Bytes(pks.begin() + i * p.pk_bytes, pks.begin() + (i + 1) * p.pk_bytes), recs[i]->bytes("pk")) << recs[i]->id();
      EXPECT_EQ(Bytes(sks.begin() + i * p.sk_bytes, sks.begin() + (i + 1) * p.sk_bytes), recs[i]->bytes("sk")) << recs[i]->id();
    }
  }
}

class CoopRandom : public ::testing::TestWithParam<ParamSet> {};

TEST_P(CoopRandom, KeyGenEqualsTheCore) {
  const Params& p = params(GetParam());
  std::mt19937_64 rng(0x636f6f70 + static_cast<int>(GetParam()));
  const size_t n = random_case_count();
  Bytes seeds(n * SEED_BYTES);
  for (auto& b : seeds) b = static_cast<uint8_t>(rng());
  for (bool reverse : {false, true}) {
    Bytes pks, sks;
    coop_keygen(p, seeds, pks, sks, reverse);
    for (size_t i = 0; i < n; ++i) {
      std::unique_ptr<PrivateKey> key;
      ASSERT_EQ(PrivateKey::from_seed(p, {seeds.data() + i * SEED_BYTES, SEED_BYTES}, key), Status::ok);
      EXPECT_TRUE(std::equal(key->public_key().encoded().begin(), key->public_key().encoded().end(),
                             pks.begin() + static_cast<long>(i * p.pk_bytes)))
          << "pk " << i;
      EXPECT_TRUE(std::equal(key->encoded().begin(), key->encoded().end(), sks.begin() + static_cast<long>(i * p.sk_bytes)))
          << "sk " << i;
    }
  }
}

// --- Verify --------------------------------------------------------------------

struct VerifyCase {
  Bytes pk, sig, mu, mprime;  // mu empty: message mode (mu from pk and M' on the device)
  std::string id;
};

std::vector<Status> coop_verify(const Params& p, const std::vector<VerifyCase>& cases) {
  const TaskParams tp = gpu::task_params(p);
  const uint32_t n = static_cast<uint32_t>(cases.size());
  Bytes pks, sigs, mus(size_t{n} * 64), modes(n), arena, results(n, 0xEE);
  std::vector<uint32_t> offsets{0};
  for (uint32_t i = 0; i < n; ++i) {
    const VerifyCase& c = cases[i];
    pks.insert(pks.end(), c.pk.begin(), c.pk.end());
    sigs.insert(sigs.end(), c.sig.begin(), c.sig.end());
    modes[i] = c.mu.empty() ? gpu::kVerifyMessage : gpu::kVerifyMu;
    if (!c.mu.empty()) std::copy(c.mu.begin(), c.mu.end(), mus.begin() + i * 64);
    arena.insert(arena.end(), c.mprime.begin(), c.mprime.end());
    offsets.push_back(static_cast<uint32_t>(arena.size()));
  }
  arena.push_back(0);  // a valid pointer when every M' is empty
  const gpu::VerifyChunk chunk{pks.data(),  sigs.data(),   mus.data(), modes.data(), offsets.data(),
                               arena.data(), results.data(), nullptr,    nullptr};  // no expanded keys
  expect_clean(simt::host_launch({n, coop::kBlockThreads, coop::verify_shared_bytes(tp)}, {.resident_blocks = 2},
                                 [&] { coop::verify_block(tp, chunk, simt::block_index()); }),
               std::string("verify ") + p.name);
  std::vector<Status> out(n);
  for (uint32_t i = 0; i < n; ++i) out[i] = results[i] == 0xEE ? Status::internal_error : gpu::verify_result_status(results[i]);
  return out;
}

Bytes pure_mprime(const Bytes& ctx, const Bytes& msg) {
  Bytes m(2 + ctx.size() + msg.size(), 0);
  m[1] = static_cast<uint8_t>(ctx.size());
  std::copy(ctx.begin(), ctx.end(), m.begin() + 2);
  std::copy(msg.begin(), msg.end(), m.begin() + 2 + static_cast<long>(ctx.size()));
  return m;
}

TEST(CoopVerify, AcvpVectors) {
  const AcvpFile& f = load_acvp("sigVer.txt");
  ASSERT_TRUE(f.error.empty()) << f.error;
  for (ParamSet set : kAllParamSets) {
    const Params& p = params(set);
    std::vector<VerifyCase> cases;
    std::vector<Status> want;
    for (const AcvpRecord& r : f.records) {
      if (r.text("parameterSet") != p.name) continue;
      VerifyCase c{r.bytes("pk"), r.bytes("signature"), {}, {}, r.id()};
      std::unique_ptr<PublicKey> pub;
      ASSERT_EQ(PublicKey::decode(p, c.pk, pub), Status::ok) << r.id();
      if (r.text("signatureInterface") != "internal" && r.text("preHash") == "pure") {
        c.mprime = pure_mprime(r.bytes("context"), r.bytes("message"));  // mu on the device
        want.push_back(verify(*pub, r.bytes("message"), r.bytes("context"), c.sig));
      } else {
        std::string why;
        c.mu = acvp_record_mu(pub->tr(), r, &why);
        ASSERT_EQ(c.mu.size(), MU_BYTES) << r.id() << ": " << why;
        want.push_back(verify_mu(*pub, c.mu, c.sig));
      }
      EXPECT_EQ(want.back() == Status::ok, r.flag("testPassed")) << r.id();
      cases.push_back(std::move(c));
    }
    ASSERT_EQ(cases.size(), 60u);
    const std::vector<Status> got = coop_verify(p, cases);
    for (size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(got[i], want[i]) << p.name << " " << cases[i].id;
  }
}

// Valid signatures, one flipped bit anywhere, another mu, another key, a
// malformed hint count, half as mu and half as M'.
TEST_P(CoopRandom, VerifyJudgesAsTheCore) {
  const Params& p = params(GetParam());
  std::mt19937_64 rng(0x76657269 + static_cast<int>(GetParam()));
  const size_t n = random_case_count();
  std::vector<std::unique_ptr<PrivateKey>> keys(n);
  std::vector<VerifyCase> cases;
  std::vector<Status> want;
  for (size_t i = 0; i < n; ++i) {
    Bytes seed(SEED_BYTES);
    for (auto& b : seed) b = static_cast<uint8_t>(rng());
    ASSERT_EQ(PrivateKey::from_seed(p, seed, keys[i]), Status::ok);
  }
  for (size_t i = 0; i < n; ++i) {
    const PublicKey& pub = keys[i]->public_key();
    Bytes msg(rng() % 200), ctx(rng() % 3 == 0 ? rng() % 40 : 0);
    for (auto& b : msg) b = static_cast<uint8_t>(rng());
    for (auto& b : ctx) b = static_cast<uint8_t>(rng());
    const bool round3 = p.scheme == Scheme::dilithium_r3;  // no context; M' = msg
    if (round3) ctx.clear();
    Bytes sig(p.sig_bytes);
    ASSERT_EQ(sign(*keys[i], msg, ctx, nullptr, sig.data()), Status::ok);
    const Bytes mprime = round3 ? msg : pure_mprime(ctx, msg);
    MuBuilder b;
    b.init_internal(pub.tr());
    b.update(mprime);
    Bytes mu(MU_BYTES);
    b.final(mu.data());
    const Bytes pk(pub.encoded().begin(), pub.encoded().end());
    auto add = [&](Bytes s, const Bytes& key_pk, bool as_mu, Bytes m, const char* what) {
      std::unique_ptr<PublicKey> vk;
      ASSERT_EQ(PublicKey::decode(p, key_pk, vk), Status::ok);
      MuBuilder mb;
      mb.init_internal(vk->tr());
      mb.update(m);
      Bytes vmu(MU_BYTES);
      mb.final(vmu.data());
      want.push_back(verify_mu(*vk, vmu, s));
      cases.push_back({key_pk, std::move(s), as_mu ? vmu : Bytes{}, as_mu ? Bytes{} : m, std::string(what) + " " + std::to_string(i)});
    };
    add(sig, pk, i % 2 == 0, mprime, "valid");
    Bytes flipped = sig;
    flipped[rng() % flipped.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    add(flipped, pk, i % 2 == 1, mprime, "flipped");
    Bytes other = mprime;
    other.push_back(1);
    add(sig, pk, i % 2 == 0, other, "other message");
    const PublicKey& next = keys[(i + 1) % n]->public_key();
    add(sig, Bytes(next.encoded().begin(), next.encoded().end()), true, mprime, "other key");
    Bytes bad_hint = sig;
    bad_hint[p.sig_bytes - 1] = 0xFF;  // the last row's count past omega
    add(bad_hint, pk, false, mprime, "malformed hint");
  }
  const std::vector<Status> got = coop_verify(p, cases);
  size_t accepted = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(got[i], want[i]) << cases[i].id;
    accepted += want[i] == Status::ok;
  }
  EXPECT_EQ(accepted, n);  // only the untouched ones
}

// --- Signing -------------------------------------------------------------------

struct SignBatch {
  Bytes sks, mus, rnds, sigs, rhopps;
  std::vector<uint32_t> key_index, schedule;
  std::vector<int32_t> xkeys;
  uint32_t nkeys = 0, n = 0;
};

// Expands the batch's keys with the cooperative kernel, then runs prepare
// (thread code) and the loop kernel with `units` blocks.
void coop_sign(const Params& p, SignBatch& b, uint32_t units, bool speculate, uint32_t max_attempts = gpu::kSignAttemptLimit) {
  const TaskParams tp = gpu::task_params(p);
  b.xkeys.assign(size_t{b.nkeys} * gpu::sign_key_words(tp), 0x5A5A5A5A);
  b.rhopps.assign(size_t{b.n} * 64, 0);
  b.sigs.assign(size_t{b.n} * p.sig_bytes, 0);
  b.schedule.assign(gpu::sign_schedule_words(b.n), 0xAAAAAAAA);
  const gpu::SignChunk c{b.sks.data(), b.key_index.data(), b.mus.data(), b.rnds.data(), b.xkeys.data(), b.rhopps.data(),
                         b.sigs.data(), b.nkeys, nullptr};
  expect_clean(simt::host_launch({b.nkeys, coop::kBlockThreads, coop::expand_shared_bytes(tp)}, {},
                                 [&] { coop::expand_block(tp, c, simt::block_index()); }),
               "expand");
  const gpu::SignSchedule s = gpu::sign_schedule_at(b.schedule.data(), b.n, speculate, max_attempts);
  for (uint32_t i = 0; i < b.n; ++i) gpu::sign_prepare_thread(tp, c, s, i);
  expect_clean(simt::host_launch({units, coop::kBlockThreads, coop::sign_shared_bytes(tp)}, {.resident_blocks = units},
                                 [&] { coop::sign_loop_block(tp, c, s); }),
               "sign loop");
}

uint32_t best_of(const SignBatch& b, uint32_t i) { return b.schedule[gpu::sign_schedule_best_offset(b.n) + i]; }

TEST_P(CoopRandom, ExpandedKeysEqualTheThreadCode) {
  const Params& p = params(GetParam());
  const TaskParams tp = gpu::task_params(p);
  SignBatch b;
  b.nkeys = b.n = 3;
  for (uint8_t k = 0; k < 3; ++k) {
    std::unique_ptr<PrivateKey> key = key_from_tag(p, static_cast<uint8_t>(40 + k));
    b.sks.insert(b.sks.end(), key->encoded().begin(), key->encoded().end());
    b.key_index.push_back(k);
  }
  b.mus.assign(3 * 64, 1);
  b.rnds.assign(3 * p.rnd_bytes, 0);
  coop_sign(p, b, 1, false);
  for (uint32_t k = 0; k < 3; ++k) {
    std::vector<int32_t> want(gpu::sign_key_words(tp));
    gpu::sign_expand_key(tp, b.sks.data() + k * p.sk_bytes, want.data());
    EXPECT_TRUE(std::equal(want.begin(), want.end(), b.xkeys.begin() + static_cast<long>(k * want.size()))) << "key " << k;
  }
}

void run_siggen(const std::string& file) {
  const AcvpFile& f = load_acvp(file);
  ASSERT_TRUE(f.error.empty()) << f.error;
  for (ParamSet set : kAllParamSets) {
    const Params& p = params(set);
    SignBatch b;
    std::vector<Bytes> want;
    size_t seen = 0;
    for (const AcvpRecord& r : f.records) {
      if (r.text("parameterSet") != p.name || seen++ % kSigGenEvery != 0) continue;
      std::unique_ptr<PrivateKey> key;
      if (r.text("keyFormat") == "seed") {
        ASSERT_EQ(PrivateKey::from_seed(p, r.bytes("seed"), key), Status::ok) << r.id();
      } else {
        ASSERT_EQ(PrivateKey::from_sk(p, r.bytes("sk"), key), Status::ok) << r.id();
      }
      std::string why;
      const Bytes mu = acvp_record_mu(key->public_key().tr(), r, &why);
      ASSERT_EQ(mu.size(), MU_BYTES) << r.id() << ": " << why;
      const Bytes rnd = r.flag("deterministic") ? Bytes(RND_BYTES, 0) : r.bytes("rnd");
      b.sks.insert(b.sks.end(), key->encoded().begin(), key->encoded().end());
      b.mus.insert(b.mus.end(), mu.begin(), mu.end());
      b.rnds.insert(b.rnds.end(), rnd.begin(), rnd.end());
      b.key_index.push_back(b.nkeys++);
      want.push_back(r.bytes("signature"));
    }
    ASSERT_FALSE(want.empty());
    b.n = b.nkeys;
    for (bool speculate : {true, false}) {  // 3 units speculating, or a unit per task
      coop_sign(p, b, speculate ? 3 : b.n, speculate);
      for (uint32_t i = 0; i < b.n; ++i) {
        EXPECT_NE(best_of(b, i), gpu::kNoAttempt);
        EXPECT_TRUE(std::equal(want[i].begin(), want[i].end(), b.sigs.begin() + static_cast<long>(i * p.sig_bytes)))
            << file << " " << p.name << " case " << i << (speculate ? " (dynamic)" : " (per task)");
      }
    }
  }
}

TEST(CoopSign, AcvpSigGen) { run_siggen("sigGen.txt"); }

// Random keys (two tasks per key), mu and rnd, through 4 units with
// speculation: byte-equal to sign_mu. Then a loop limit of one attempt:
// tasks whose first attempt is rejected end with no attempt, the rest sign.
TEST_P(CoopRandom, SignEqualsTheCore) {
  const Params& p = params(GetParam());
  std::mt19937_64 rng(0x7369676e + static_cast<int>(GetParam()));
  const size_t n = 2 * random_case_count();
  SignBatch b;
  std::vector<std::unique_ptr<PrivateKey>> keys;
  for (size_t i = 0; i < n; i += 2) {
    Bytes seed(SEED_BYTES);
    for (auto& x : seed) x = static_cast<uint8_t>(rng());
    keys.emplace_back();
    ASSERT_EQ(PrivateKey::from_seed(p, seed, keys.back()), Status::ok);
    b.sks.insert(b.sks.end(), keys.back()->encoded().begin(), keys.back()->encoded().end());
  }
  b.nkeys = static_cast<uint32_t>(keys.size());
  b.n = static_cast<uint32_t>(n);
  b.mus.resize(n * 64);
  b.rnds.resize(n * p.rnd_bytes);
  for (auto& x : b.mus) x = static_cast<uint8_t>(rng());
  for (auto& x : b.rnds) x = static_cast<uint8_t>(rng());
  for (size_t i = 0; i < n; ++i) b.key_index.push_back(static_cast<uint32_t>(i / 2));
  coop_sign(p, b, 4, true);
  std::vector<uint32_t> first(n);
  for (size_t i = 0; i < n; ++i) {
    Bytes want(p.sig_bytes);
    ASSERT_EQ(sign_mu(*keys[i / 2], {b.mus.data() + i * 64, 64}, b.rnds.data() + i * p.rnd_bytes, want.data()), Status::ok);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), b.sigs.begin() + static_cast<long>(i * p.sig_bytes))) << "task " << i;
    first[i] = best_of(b, static_cast<uint32_t>(i));
  }
  coop_sign(p, b, 2, true, 1);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(best_of(b, static_cast<uint32_t>(i)), first[i] == 0 ? 0 : gpu::kNoAttempt) << i;
}

INSTANTIATE_TEST_SUITE_P(AllParamSets, CoopRandom, ::testing::ValuesIn(kAllParamSets), param_name);
INSTANTIATE_TEST_SUITE_P(RoundThree, CoopRandom,
                         ::testing::Values(ParamSet::DILITHIUM2, ParamSet::DILITHIUM3, ParamSet::DILITHIUM5), param_name);

}  // namespace
}  // namespace mldsa::test
