// task_host_test.cc - the GPU's thread-level code (kernels/thread/), compiled
// for the CPU, against the core (cpu/): ACVP keyGen and sigVer vectors, and
// random keys, signatures and tampered signatures. The kernels run this same
// source on the device, so this is what proves their logic without a GPU.
//
// MLDSA_ACCEL_TASK_CASES sets the number of random cases per parameter set
// (default 1000).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu/mldsa.h"
#include "kernels/thread/keygen.h"
#include "kernels/thread/verify.h"
#include "tests/core/acvp_vectors.h"
#include "tests/core/test_keys.h"

namespace mldsa::test {
namespace {

using Bytes = std::vector<uint8_t>;

size_t random_case_count() {
  const char* env = std::getenv("MLDSA_ACCEL_TASK_CASES");
  return env && *env ? std::strtoul(env, nullptr, 10) : 1000;
}

// M' of pure ML-DSA: 0 || len(ctx) || ctx || M (FIPS 204 Algorithm 2 line 10).
Bytes pure_mprime(const Bytes& ctx, const Bytes& msg) {
  Bytes m(2 + ctx.size() + msg.size());
  m[0] = 0;
  m[1] = static_cast<uint8_t>(ctx.size());
  std::copy(ctx.begin(), ctx.end(), m.begin() + 2);
  std::copy(msg.begin(), msg.end(), m.begin() + 2 + static_cast<long>(ctx.size()));
  return m;
}

Bytes mu_of(const PublicKey& pub, const Bytes& mprime) {
  MuBuilder b;
  b.init_internal(pub.tr());
  b.update(mprime);
  Bytes mu(MU_BYTES);
  b.final(mu.data());
  return mu;
}

// The task's verdict and the core's must agree, reason included, from the
// encoded key and from its expanded form (the device's public-key cache);
// returns whether the task accepted.
bool check_verify(const PublicKey& pub, const Bytes& mu, const Bytes& sig, const std::string& what) {
  const gpu::TaskParams tp = gpu::task_params(pub.params());
  const Status core = verify_mu(pub, mu, sig);
  const Status task = gpu::verify_result_status(gpu::verify_task(tp, pub.encoded().data(), nullptr, mu.data(), sig.data()));
  EXPECT_EQ(task, core) << what;
  std::vector<int32_t> xpk(gpu::verify_key_words(tp));
  gpu::verify_expand_key(tp, pub.encoded().data(), xpk.data());
  EXPECT_TRUE(std::ranges::equal(pub.tr(), std::span(reinterpret_cast<const uint8_t*>(xpk.data()), pub.tr().size()))) << what;
  const Status expanded = gpu::verify_result_status(gpu::verify_task(tp, nullptr, xpk.data(), mu.data(), sig.data()));
  EXPECT_EQ(expanded, core) << what << " (expanded key)";
  return task == Status::ok;
}

TEST(TaskKeyGen, AcvpVectors) {
  const AcvpFile& f = load_acvp("keyGen.txt");
  ASSERT_TRUE(f.error.empty()) << f.error;
  int checked[3] = {};
  for (const AcvpRecord& r : f.records) {
    const Params* p = params_by_name(r.text("parameterSet"));
    ASSERT_NE(p, nullptr) << r.id();
    const Bytes seed = r.bytes("seed");
    Bytes pk(p->pk_bytes), sk(p->sk_bytes);
    gpu::keygen_task(gpu::task_params(*p), seed.data(), pk.data(), sk.data());
    EXPECT_EQ(pk, r.bytes("pk")) << r.id();
    EXPECT_EQ(sk, r.bytes("sk")) << r.id();
    ++checked[static_cast<int>(p->id)];
  }
  for (int c : checked) EXPECT_EQ(c, 25);  // 25 cases per parameter set
}

TEST(TaskVerify, AcvpVectorsPureAndInternal) {
  const AcvpFile& f = load_acvp("sigVer.txt");
  ASSERT_TRUE(f.error.empty()) << f.error;
  int checked[3] = {}, accepted = 0, rejected = 0;
  for (const AcvpRecord& r : f.records) {
    const bool internal = r.text("signatureInterface") == "internal";
    if (!internal && r.text("preHash") != "pure") continue;  // HashML-DSA: mu is the host's business
    const Params* p = params_by_name(r.text("parameterSet"));
    ASSERT_NE(p, nullptr) << r.id();
    std::unique_ptr<PublicKey> pub;
    ASSERT_EQ(PublicKey::decode(*p, r.bytes("pk"), pub), Status::ok) << r.id();
    const Bytes sig = r.bytes("signature");
    ASSERT_EQ(sig.size(), p->sig_bytes) << r.id();

    Bytes mu;
    if (internal && r.flag("externalMu")) {
      mu = r.bytes("mu");
    } else {
      const Bytes mprime = internal ? r.bytes("message") : pure_mprime(r.bytes("context"), r.bytes("message"));
      mu = mu_of(*pub, mprime);
      // The device-side mu (tr from pk, then mu) must be the host's.
      Bytes dev_mu(MU_BYTES);
      gpu::message_mu_task(gpu::task_params(*p), pub->encoded().data(), mprime.data(), mprime.size(), dev_mu.data());
      EXPECT_EQ(dev_mu, mu) << r.id();
    }
    const bool ok = check_verify(*pub, mu, sig, r.id());
    EXPECT_EQ(ok, r.flag("testPassed")) << r.id() << " " << r.text("reason");
    (ok ? accepted : rejected)++;
    ++checked[static_cast<int>(p->id)];
  }
  for (int c : checked) EXPECT_GT(c, 0);
  EXPECT_GT(accepted, 0);
  EXPECT_GT(rejected, 0);
}

class TaskRandom : public ::testing::TestWithParam<ParamSet> {};

// Random seeds: keygen_task byte-equal to the core; core signatures accepted by
// verify_task; tampered signatures, messages and keys judged as the core does.
TEST_P(TaskRandom, KeyGenSignVerifyTamper) {
  const Params& p = params(GetParam());
  const gpu::TaskParams tp = gpu::task_params(p);
  std::mt19937_64 rng(0x6d6c6473 + static_cast<int>(GetParam()));  // fixed: a failure reproduces
  auto random_bytes = [&](size_t n) {
    Bytes b(n);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    return b;
  };
  const size_t n = random_case_count();
  std::unique_ptr<PrivateKey> prev;
  size_t tampered_accepted = 0;
  for (size_t i = 0; i < n; ++i) {
    const std::string what = std::string(p.name) + " case " + std::to_string(i);
    const Bytes seed = random_bytes(SEED_BYTES);
    std::unique_ptr<PrivateKey> key;
    ASSERT_EQ(PrivateKey::from_seed(p, seed, key), Status::ok);
    Bytes pk(p.pk_bytes), sk(p.sk_bytes);
    gpu::keygen_task(tp, seed.data(), pk.data(), sk.data());
    ASSERT_TRUE(std::equal(pk.begin(), pk.end(), key->public_key().encoded().begin())) << what;
    ASSERT_TRUE(std::equal(sk.begin(), sk.end(), key->encoded().begin())) << what;

    const Bytes mu = random_bytes(MU_BYTES), rnd = random_bytes(RND_BYTES);
    Bytes sig(p.sig_bytes);
    ASSERT_EQ(sign_mu(*key, mu, rnd.data(), sig.data()), Status::ok);
    const PublicKey& pub = key->public_key();
    EXPECT_TRUE(check_verify(pub, mu, sig, what + " valid"));

    // One flipped bit anywhere in the signature (c~, z or the hints).
    Bytes bad = sig;
    bad[rng() % bad.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    tampered_accepted += check_verify(pub, mu, bad, what + " tampered sig");
    // A flipped bit in mu, and the previous case's key.
    Bytes bad_mu = mu;
    bad_mu[rng() % MU_BYTES] ^= static_cast<uint8_t>(1u << (rng() % 8));
    EXPECT_FALSE(check_verify(pub, bad_mu, sig, what + " tampered mu"));
    if (prev) {
      EXPECT_FALSE(check_verify(prev->public_key(), mu, sig, what + " wrong key"));
    }
    prev = std::move(key);
  }
  // Every bit of a signature matters (unused hint bytes must be zero), so no
  // flipped signature verifies.
  EXPECT_EQ(tampered_accepted, 0u);
}

INSTANTIATE_TEST_SUITE_P(AllParamSets, TaskRandom,
                         ::testing::ValuesIn(kAllParamSets), param_name);

}  // namespace
}  // namespace mldsa::test
