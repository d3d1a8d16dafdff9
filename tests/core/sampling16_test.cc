// sampling16_test.cc - the AVX-512 rejection samplers (cpu/avx512/sampling16.h)
// against the portable parsers (cpu/sampling.h) on any start count, buffer
// length and reject density, including what no real seed reaches: streams
// that run out before N coefficients, lengths that end inside a 16-candidate
// step or inside a candidate, and steps that straddle the end of the
// polynomial. Skipped where the CPU lacks AVX-512.
// GCC 12's AVX-512 intrinsics trip -Wmaybe-uninitialized (see avx512_backend.cc).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <gtest/gtest.h>
#include <immintrin.h>

#include <cstring>
#include <random>
#include <vector>

#include "cpu/mldsa.h"
#include "cpu/packing.h"
#include "cpu/sampling.h"

// Only the samplers and their callers get the AVX-512 flags; the rest of the
// file (GoogleTest's registration included) runs on any x86-64. (clang has
// no target pragma: it applies the attribute to each function instead.)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,bmi,bmi2"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2,bmi,bmi2")
#endif
#include "cpu/avx512/sampling16.h"
namespace {
unsigned rej_ntt16(int32_t* a, unsigned ctr, const uint8_t* buf, size_t len) {
  return sampling16::rej_ntt(a, ctr, buf, len);
}
unsigned rej_bounded16(int32_t* a, unsigned ctr, const uint8_t* buf, size_t len, unsigned eta) {
  return sampling16::rej_bounded(a, ctr, buf, len, eta);
}
}  // namespace
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace mldsa::test {
namespace {

bool have_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx2") &&
         __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
}

constexpr int32_t kSentinel = 0x5a5a5a5a;
constexpr unsigned kSlack = 32;  // coefficients past N that must stay untouched

// A start count: 0, anywhere, or close to N.
unsigned pick_ctr(std::mt19937_64& rng, int trial) {
  switch (trial % 4) {
    case 0: return 0;
    case 1: return N - static_cast<unsigned>(rng() % 20);
    default: return static_cast<unsigned>(rng() % (N + 1));
  }
}

size_t pick_len(std::mt19937_64& rng, int trial) {
  static const size_t kLens[] = {0, 1, 2, 3, 4, 7, 8, 9, 24, 47, 48, 49, 50, 95, 96, 136, 168, 272, 840};
  return trial % 3 == 0 ? kLens[rng() % (sizeof kLens / sizeof kLens[0])] : static_cast<size_t>(rng() % 900);
}

template <class F, class G>
void compare(F portable, G vectorised, unsigned ctr, const std::vector<uint8_t>& buf, size_t len, const char* what,
             int trial) {
  std::vector<int32_t> a(N + kSlack, kSentinel), b(N + kSlack, kSentinel);
  for (unsigned i = 0; i < ctr; ++i) a[i] = b[i] = static_cast<int32_t>(i);
  const unsigned ra = portable(a.data(), ctr, buf.data(), len);
  const unsigned rb = vectorised(b.data(), ctr, buf.data(), len);
  ASSERT_EQ(ra, rb) << what << " trial " << trial << " ctr " << ctr << " len " << len;
  for (unsigned i = 0; i < ra; ++i) ASSERT_EQ(a[i], b[i]) << what << " trial " << trial << " coefficient " << i;
  for (unsigned i = N; i < N + kSlack; ++i) ASSERT_EQ(kSentinel, b[i]) << what << " wrote past N, trial " << trial;
}

TEST(Sampling16, RejNttMatchesPortable) {
  if (!have_avx512()) GTEST_SKIP() << "skipped: no AVX-512 on this CPU";
  std::mt19937_64 rng(0x73616d706c653136ull);
  for (int trial = 0; trial < 20000; ++trial) {
    const size_t len = pick_len(rng, trial);
    std::vector<uint8_t> buf(len + 1);
    // Reject density from none to nearly all; q - 1 and q themselves too
    // (the top bit of the third byte is not part of the candidate).
    const unsigned reject_pct = (trial / 4) % 5 == 0 ? 0 : static_cast<unsigned>(rng() % 101);
    for (size_t i = 0; i + 3 <= len; i += 3) {
      uint32_t t = static_cast<uint32_t>(rng());
      const unsigned pick = static_cast<unsigned>(rng() % 100);
      if (pick < reject_pct) t = static_cast<uint32_t>(Q) + static_cast<uint32_t>(rng() % (0x800000 - Q));
      else if (pick < reject_pct + 3) t = static_cast<uint32_t>(Q) - 1;
      else if (pick < reject_pct + 6) t = static_cast<uint32_t>(Q);
      t = (t & 0x7FFFFF) | (static_cast<uint32_t>(rng() & 1) << 23);
      buf[i] = static_cast<uint8_t>(t);
      buf[i + 1] = static_cast<uint8_t>(t >> 8);
      buf[i + 2] = static_cast<uint8_t>(t >> 16);
    }
    for (size_t i = len / 3 * 3; i < len; ++i) buf[i] = static_cast<uint8_t>(rng());
    compare(rej_ntt_coeffs, rej_ntt16, pick_ctr(rng, trial), buf, len, "RejNTTPoly", trial);
    if (HasFatalFailure()) return;
  }
}

TEST(Sampling16, RejBoundedMatchesPortable) {
  if (!have_avx512()) GTEST_SKIP() << "skipped: no AVX-512 on this CPU";
  std::mt19937_64 rng(0x626f756e64656431ull);
  for (unsigned eta : {2u, 4u}) {
    for (int trial = 0; trial < 20000; ++trial) {
      const size_t len = pick_len(rng, trial) / 3;
      std::vector<uint8_t> buf(len + 1);
      // Half-bytes from the rejected range (>= 15 or >= 9) at any density.
      const unsigned reject_pct = (trial / 4) % 5 == 0 ? 0 : static_cast<unsigned>(rng() % 101);
      const unsigned first_rejected = eta == 2 ? 15 : 9;
      for (size_t i = 0; i < len; ++i) {
        uint8_t halves[2];
        for (uint8_t& h : halves)
          h = static_cast<unsigned>(rng() % 100) < reject_pct
                  ? static_cast<uint8_t>(first_rejected + rng() % (16 - first_rejected))
                  : static_cast<uint8_t>(rng() % 16);
        buf[i] = static_cast<uint8_t>(halves[0] | (halves[1] << 4));
      }
      const auto portable = [eta](int32_t* a, unsigned c, const uint8_t* p, size_t n) {
        return rej_bounded_coeffs(a, c, p, n, eta);
      };
      const auto vectorised = [eta](int32_t* a, unsigned c, const uint8_t* p, size_t n) {
        return rej_bounded16(a, c, p, n, eta);
      };
      compare(portable, vectorised, pick_ctr(rng, trial), buf, len, eta == 2 ? "RejBoundedPoly eta 2" : "RejBoundedPoly eta 4",
              trial);
      if (HasFatalFailure()) return;
    }
  }
}

}  // namespace
}  // namespace mldsa::test
