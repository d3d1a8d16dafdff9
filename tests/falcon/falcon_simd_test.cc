// falcon_simd_test.cc - each vector kernel of the Falcon core (cpu/falcon/simd.h)
// against the portable one on the same inputs: the outputs must be the same
// bits (doubles compared as bytes, -0.0 and +0.0 apart), at every logn.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "cpu/falcon/internal.h"
#include "cpu/falcon/simd.h"

namespace {

using falcon::Kernels;

std::vector<const Kernels*> vector_tables() {
  std::vector<const Kernels*> out;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) out.push_back(&falcon::kAvx2Kernels);
#endif
#if defined(__aarch64__)
  out.push_back(&falcon::kNeonKernels);  // Advanced SIMD: part of the AArch64 base
#endif
  if (out.empty()) std::printf("no vector kernels on this CPU or build: skipped\n");
  return out;
}

// Doubles of varied sign and size, some zeros of either sign.
std::vector<double> random_doubles(std::mt19937_64& rng, size_t n) {
  std::vector<double> v(n);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> e(-40, 40);
  for (size_t i = 0; i < n; ++i) {
    v[i] = std::ldexp(u(rng), e(rng));
    if (rng() % 61 == 0) v[i] = rng() & 1 ? 0.0 : -0.0;
  }
  return v;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(FalconSimd, FftKernelsBitIdentical) {
  const Kernels& ref = falcon::kPortableKernels;
  std::mt19937_64 rng(35);
  for (const Kernels* k : vector_tables()) {
    for (unsigned logn = 1; logn <= falcon::MAX_LOGN; ++logn) {
      const size_t n = size_t{1} << logn;
      for (int rep = 0; rep < 8; ++rep) {
        const auto f = random_doubles(rng, 2 * n), g = random_doubles(rng, n), h = random_doubles(rng, n);
        for (bool inverse : {false, true}) {
          auto a = f, b = f;
          ref.dft(a.data(), logn, inverse);
          k->dft(b.data(), logn, inverse);
          EXPECT_TRUE(same_bits(a, b)) << k->name << " dft logn " << logn << " inverse " << inverse;
        }
        std::vector<double> a0(n / 2), a1(n / 2), b0(n / 2), b1(n / 2);
        ref.split_fft(a0.data(), a1.data(), g.data(), logn);
        k->split_fft(b0.data(), b1.data(), g.data(), logn);
        EXPECT_TRUE(same_bits(a0, b0) && same_bits(a1, b1)) << k->name << " split logn " << logn;
        std::vector<double> m0(n), m1(n);
        ref.merge_fft(m0.data(), g.data(), h.data(), logn);
        k->merge_fft(m1.data(), g.data(), h.data(), logn);
        EXPECT_TRUE(same_bits(m0, m1)) << k->name << " merge logn " << logn;
        auto p0 = g, p1 = g;
        ref.poly_mul_fft(p0.data(), h.data(), logn);
        k->poly_mul_fft(p1.data(), h.data(), logn);
        EXPECT_TRUE(same_bits(p0, p1)) << k->name << " mul logn " << logn;
        auto l01 = g, l11 = h, r01 = g, r11 = h;
        ref.poly_ldl_fft(f.data(), l01.data(), l11.data(), logn);
        k->poly_ldl_fft(f.data(), r01.data(), r11.data(), logn);
        EXPECT_TRUE(same_bits(l01, r01) && same_bits(l11, r11)) << k->name << " ldl logn " << logn;
      }
    }
  }
}

TEST(FalconSimd, NttIdentical) {
  const Kernels& ref = falcon::kPortableKernels;
  std::mt19937_64 rng(7);
  for (const Kernels* k : vector_tables())
    for (unsigned logn = 1; logn <= falcon::MAX_LOGN; ++logn) {
      const size_t n = size_t{1} << logn;
      std::vector<uint32_t> x(n);
      for (auto& c : x) c = static_cast<uint32_t>(rng() % falcon::Q);
      x[0] = 0;
      x[n - 1] = falcon::Q - 1;
      auto a = x, b = x;
      ref.ntt_fwd(a.data(), logn);
      k->ntt_fwd(b.data(), logn);
      EXPECT_EQ(a, b) << k->name << " ntt logn " << logn;
      ref.ntt_inv(a.data(), logn);
      k->ntt_inv(b.data(), logn);
      EXPECT_EQ(a, b) << k->name << " inverse ntt logn " << logn;
      EXPECT_EQ(a, x) << "the inverse undoes the NTT, logn " << logn;
    }
}

TEST(FalconSimd, SamplerKernelsIdentical) {
  const Kernels& ref = falcon::kPortableKernels;
  std::mt19937_64 rng(12289);
  for (const Kernels* k : vector_tables()) {
    uint32_t key[12];
    for (auto& w : key) w = static_cast<uint32_t>(rng());
    // Counters that carry into the high word within the eight blocks.
    for (uint64_t counter : {uint64_t{0}, uint64_t{0xFFFFFFFC}, rng()}) {
      uint8_t a[512], b[512];
      ref.chacha8(a, key, counter);
      k->chacha8(b, key, counter);
      EXPECT_EQ(std::memcmp(a, b, sizeof a), 0) << k->name << " chacha8 counter " << counter;
    }
    // The table's own entries and their neighbours, then random values.
    for (unsigned e = 0; e < 18; ++e)
      for (int d = -1; d <= 1; ++d) {
        const uint32_t* w = falcon::RCDT[e];
        const uint32_t v0 = (w[2] + d) & 0xFFFFFF;
        EXPECT_EQ(ref.rcdt_count(v0, w[1], w[0]), k->rcdt_count(v0, w[1], w[0])) << k->name << " entry " << e;
      }
    for (int i = 0; i < 20000; ++i) {
      const uint32_t v0 = rng() & 0xFFFFFF, v1 = rng() & 0xFFFFFF, v2 = rng() & 0xFFFFFF >> (rng() % 24);
      ASSERT_EQ(ref.rcdt_count(v0, v1, v2), k->rcdt_count(v0, v1, v2)) << k->name;
    }
  }
}

}  // namespace
