// neon_variants_test.cc - the two NEON tables (cpu/neon/: plain Advanced
// SIMD, and with the SHA-3 extension's Keccak) differ only in their 4-way
// permutation and the samplers that squeeze through 2-way Keccak; the core
// suites run the one this CPU picks. Here both face the ref backend
// directly, whichever the CPU picks. AArch64 only; the SHA-3 table is skipped
// where HWCAP lacks SHA3.
#include <gtest/gtest.h>

#include <asm/hwcap.h>
#include <sys/auxv.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu/backend.h"
#include "cpu/mldsa.h"
#include "tests/core/test_keys.h"

namespace mldsa::test {
namespace {

struct Variant {
  const char* name;
  const Backend* table;
  bool runs;
};
std::vector<Variant> variants() {
  const unsigned long hwcap = getauxval(AT_HWCAP);
  return {{"plain", &kNeonBackend, (hwcap & HWCAP_ASIMD) != 0},
          {"sha3", &kNeonSha3Backend, (hwcap & HWCAP_ASIMD) && (hwcap & HWCAP_SHA3)}};
}

class NeonVariant : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    if (!GetParam().runs) GTEST_SKIP() << "skipped: this CPU lacks what the " << GetParam().name << " table needs";
    be_ = GetParam().table;
  }
  const Backend* be_ = nullptr;
  std::mt19937_64 rng_{0x6e656f6eull};
  void fill(uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(rng_());
  }
};

::testing::AssertionResult same(const std::vector<Poly>& a, const std::vector<Poly>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(a[i].c, b[i].c, sizeof a[i].c) != 0) return ::testing::AssertionFailure() << "poly " << i;
  return ::testing::AssertionSuccess();
}

TEST_P(NeonVariant, Keccakf1600x4) {
  for (int trial = 0; trial < 64; ++trial) {
    alignas(16) uint64_t a[4][25], b[4][25];
    for (auto& s : a)
      for (auto& v : s) v = trial == 0 ? 0 : trial == 1 ? ~uint64_t{0} : rng_();
    std::memcpy(b, a, sizeof a);
    kRefBackend.keccakf1600x4(a);
    be_->keccakf1600x4(b);
    ASSERT_EQ(0, std::memcmp(a, b, sizeof a)) << "trial " << trial;
  }
}

TEST_P(NeonVariant, Samplers) {
  for (ParamSet ps : kAllParamSets) {
    const Params& p = params(ps);
    for (int trial = 0; trial < 4; ++trial) {
      uint8_t seed[64];
      fill(seed, sizeof seed);
      std::vector<Poly> a(p.k * p.l), b(p.k * p.l);
      kRefBackend.expand_a(a.data(), seed, p.k, p.l);
      be_->expand_a(b.data(), seed, p.k, p.l);
      ASSERT_TRUE(same(a, b)) << "ExpandA " << p.name;
      const unsigned n = p.k + p.l;  // odd and even counts: both 2-way batch shapes
      const uint16_t nonce = trial == 0 ? 65534 : static_cast<uint16_t>(rng_());
      a.resize(n);
      b.resize(n);
      kRefBackend.expand_s(a.data(), n, seed, p.eta, nonce);
      be_->expand_s(b.data(), n, seed, p.eta, nonce);
      ASSERT_TRUE(same(a, b)) << "ExpandS " << p.name;
      a.resize(p.l);
      b.resize(p.l);
      kRefBackend.expand_mask(a.data(), p.l, seed, nonce, p.gamma1_bits);
      be_->expand_mask(b.data(), p.l, seed, nonce, p.gamma1_bits);
      ASSERT_TRUE(same(a, b)) << "ExpandMask " << p.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Neon, NeonVariant, ::testing::ValuesIn(variants()),
                         [](const ::testing::TestParamInfo<Variant>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace mldsa::test
