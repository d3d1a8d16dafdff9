// small_ntt_test.cc - the NTT' over q' = 7681 (cpu/small_ntt.h) of the backend
// under test: small_mul(small_ntt(c), small_ntt(s)) is the schoolbook
// negacyclic product c*s for every parameter set's tau and eta (random and
// extreme c and s), and small_ntt / small_mul agree bit for bit with ref over
// the whole input ranges of the contract.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "cpu/backend.h"
#include "cpu/mldsa.h"
#include "cpu/small_ntt.h"
#include "tests/core/backend_request.h"
#include "tests/core/test_keys.h"

namespace mldsa::test {
namespace {

class SmallNtt : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    be_ = &backend();
  }
  const Backend* be_ = nullptr;
  std::mt19937_64 rng_{0x736d616c6cull};
  int32_t uniform(int32_t lo, int32_t hi) { return std::uniform_int_distribution<int32_t>(lo, hi)(rng_); }

  // c with tau nonzero coefficients: random signs and places, or all +1 /
  // all -1 (optionally packed at the top, where the wrap-around sign flips).
  void fill_c(Poly* c, unsigned tau, int trial) {
    *c = Poly{};
    for (unsigned i = 0; i < tau; ++i) {
      int pos;
      if (trial % 4 == 3) {
        pos = N - 1 - static_cast<int>(i);
      } else {
        do pos = uniform(0, N - 1);
        while (c->c[pos] != 0);
      }
      c->c[pos] = trial % 4 == 1 ? 1 : trial % 4 == 2 ? -1 : (uniform(0, 1) ? 1 : -1);
    }
  }
  void fill_s(Poly* s, int32_t eta, int trial) {
    for (int j = 0; j < N; ++j) {
      switch (trial % 5) {
        case 1: s->c[j] = eta; break;
        case 2: s->c[j] = -eta; break;
        case 3: s->c[j] = (j & 1) ? eta : -eta; break;
        default: s->c[j] = uniform(-eta, eta);
      }
    }
  }
};

Poly schoolbook(const Poly& a, const Poly& b) {
  int64_t r[N] = {};
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      const int64_t p = int64_t{a.c[i]} * b.c[j];
      if (i + j < N)
        r[i + j] += p;
      else
        r[i + j - N] -= p;  // X^256 = -1
    }
  Poly out;
  for (int i = 0; i < N; ++i) out.c[i] = static_cast<int32_t>(r[i]);
  return out;
}

::testing::AssertionResult same(const Poly& want, const Poly& got) {
  for (int j = 0; j < N; ++j)
    if (want.c[j] != got.c[j])
      return ::testing::AssertionFailure() << "coefficient " << j << ": want " << want.c[j] << ", got " << got.c[j];
  return ::testing::AssertionSuccess();
}
::testing::AssertionResult same(const SmallPoly& want, const SmallPoly& got) {
  for (int j = 0; j < N; ++j)
    if (want.c[j] != got.c[j])
      return ::testing::AssertionFailure() << "position " << j << ": ref " << want.c[j] << ", backend " << got.c[j];
  return ::testing::AssertionSuccess();
}

TEST_F(SmallNtt, ProductIsSchoolbook) {
  for (ParamSet ps : kAllParamSets) {
    const Params& p = params(ps);
    for (int trial = 0; trial < 40; ++trial) {
      Poly c, s;
      fill_c(&c, p.tau, trial);
      fill_s(&s, static_cast<int32_t>(p.eta), trial / 4);
      SmallPoly c_hat, s_hat;
      be_->small_ntt(&c_hat, &c);
      be_->small_ntt(&s_hat, &s);
      Poly got;
      be_->small_mul(&got, &c_hat, &s_hat);
      ASSERT_TRUE(same(schoolbook(c, s), got)) << p.name << " trial " << trial;
    }
  }
}

// The largest products signing can meet: c = tau ones packed together,
// s = all eta, so some coefficients reach +-tau*eta.
TEST_F(SmallNtt, ExtremeProducts) {
  for (ParamSet ps : kAllParamSets) {
    const Params& p = params(ps);
    const int32_t eta = static_cast<int32_t>(p.eta);
    for (int sign = -1; sign <= 1; sign += 2) {
      Poly c{}, s;
      for (unsigned i = 0; i < p.tau; ++i) c.c[i] = 1;
      for (int j = 0; j < N; ++j) s.c[j] = sign * eta;
      SmallPoly c_hat, s_hat;
      be_->small_ntt(&c_hat, &c);
      be_->small_ntt(&s_hat, &s);
      Poly got;
      be_->small_mul(&got, &c_hat, &s_hat);
      const Poly want = schoolbook(c, s);
      int32_t peak = 0;
      for (int j = 0; j < N; ++j) peak = std::max(peak, std::abs(want.c[j]));
      EXPECT_EQ(peak, static_cast<int32_t>(p.tau) * eta) << p.name;
      ASSERT_TRUE(same(want, got)) << p.name << " sign " << sign;
    }
  }
}

// Bit-identical NTT' domain (keys expanded by one backend are used by any
// other), over the whole input range the contract allows.
TEST_F(SmallNtt, ForwardMatchesRef) {
  for (int trial = 0; trial < 200; ++trial) {
    Poly a;
    for (int j = 0; j < N; ++j) {
      switch (trial % 4) {
        case 1: a.c[j] = QS_HALF; break;
        case 2: a.c[j] = -QS_HALF; break;
        case 3: a.c[j] = (j & 1) ? QS_HALF : -QS_HALF; break;
        default: a.c[j] = uniform(-QS_HALF, QS_HALF);
      }
    }
    SmallPoly want, got;
    small_ntt_ref(&want, &a);
    be_->small_ntt(&got, &a);
    ASSERT_TRUE(same(want, got)) << "trial " << trial;
    for (int j = 0; j < N; ++j) ASSERT_LE(std::abs(int{got.c[j]}), QS_HALF) << "trial " << trial;
  }
}

TEST_F(SmallNtt, MulMatchesRef) {
  for (int trial = 0; trial < 200; ++trial) {
    SmallPoly a, b;
    for (int j = 0; j < N; ++j) {
      switch (trial % 4) {
        case 1: a.c[j] = b.c[j] = QS_HALF; break;
        case 2: a.c[j] = -QS_HALF, b.c[j] = QS_HALF; break;
        case 3: a.c[j] = b.c[j] = static_cast<int16_t>((j & 1) ? QS_HALF : -QS_HALF); break;
        default:
          a.c[j] = static_cast<int16_t>(uniform(-QS_HALF, QS_HALF));
          b.c[j] = static_cast<int16_t>(uniform(-QS_HALF, QS_HALF));
      }
    }
    Poly want, got;
    small_mul_ref(&want, &a, &b);
    be_->small_mul(&got, &a, &b);
    ASSERT_TRUE(same(want, got)) << "trial " << trial;
  }
}

// Expanded keys keep s1, s2 in the NTT' domain: a key expanded under one
// backend must sign exactly as under the other.
TEST_F(SmallNtt, KeysExpandedByOneBackendSignUnderAnother) {
  if (be_ == &kRefBackend) GTEST_SKIP() << "skipped: backend ref is the reference";
  const std::string name = table_spec(*be_);
  for (ParamSet ps : kAllParamSets) {
    const Params& p = params(ps);
    uint8_t seed[32], rnd[32] = {}, msg[3] = {1, 2, 3};
    for (int i = 0; i < 32; ++i) seed[i] = static_cast<uint8_t>(rng_());
    std::unique_ptr<PrivateKey> by_ref, by_be;
    ASSERT_TRUE(select_backend("ref"));
    ASSERT_EQ(Status::ok, PrivateKey::from_seed(p, seed, by_ref));
    ASSERT_TRUE(select_backend(name));
    ASSERT_EQ(Status::ok, PrivateKey::from_seed(p, seed, by_be));
    std::vector<uint8_t> want(p.sig_bytes), got(p.sig_bytes);
    for (int attempt = 0; attempt < 8; ++attempt) {
      rnd[0] = static_cast<uint8_t>(attempt);
      ASSERT_TRUE(select_backend("ref"));
      ASSERT_EQ(Status::ok, sign(*by_ref, msg, {}, rnd, want.data()));
      ASSERT_EQ(Status::ok, sign(*by_be, msg, {}, rnd, got.data()));  // be's key, ref's kernels
      EXPECT_EQ(want, got) << p.name << " key by " << name << ", signed by ref";
      ASSERT_TRUE(select_backend(name));
      ASSERT_EQ(Status::ok, sign(*by_ref, msg, {}, rnd, got.data()));  // ref's key, be's kernels
      EXPECT_EQ(want, got) << p.name << " key by ref, signed by " << name;
    }
  }
}

}  // namespace
}  // namespace mldsa::test
