// ntt.h - arithmetic in Z_q and the NTT over R_q (FIPS 204 Section 7.5,
// Algorithms 41-42), one thread per polynomial.
//
// Same conventions as the core (cpu/poly.h, cpu/ntt.h): Montgomery form with
// R = 2^32, bit-reversed NTT order, the same twiddles (cpu/ntt.h's kZetas), so
// every intermediate value matches the ref backend's.
// Thread-per-task version: a polynomial sits in the thread's local memory.
// The cooperative kernels hold a polynomial in a warp's registers instead
// (kernels/warp/poly.h), built on the Z_q arithmetic here.
#pragma once

#include "cpu/ntt.h"
#include "kernels/thread/params.h"

namespace mldsa::gpu {

inline constexpr int32_t kQInv = mldsa::QINV;  // q^-1 mod 2^32
inline constexpr int32_t kInvNMont = 41978;   // 2^64 / 256 mod q

struct ZetaTable {
  int32_t z[kN];
};
constexpr ZetaTable make_zeta_table() {
  ZetaTable t{};
  for (int i = 0; i < kN; ++i) t.z[i] = mldsa::kZetas[i];
  return t;
}

#if defined(__CUDACC__)
// The core's twiddles, copied into constant memory at compile time. All threads
// of a warp run the same butterfly step, so their reads broadcast.
static __constant__ ZetaTable g_zetas = make_zeta_table();
#endif

MLDSA_HD inline int32_t zeta(unsigned i) {
#if defined(__CUDA_ARCH__)
  return g_zetas.z[i];
#else
  return mldsa::kZetas[i];
#endif
}

// The high 32 bits of a * b (one IMAD.HI on the GPU instead of a 64-bit
// product and shift).
MLDSA_HD inline int32_t mul_hi(int32_t a, int32_t b) {
#if defined(__CUDA_ARCH__)
  return __mulhi(a, b);
#else
  return static_cast<int32_t>((static_cast<int64_t>(a) * b) >> 32);
#endif
}

// a * b * 2^-32 mod q in (-q, q), for |a b| < 2^31 q: Montgomery's
// (a b - t q) / 2^32 with t = a b q^-1 mod 2^32, in 32-bit multiplies. The
// low words of a b and t q are equal, so the difference of the high words
// is the exact quotient (the core's 64-bit formula, value for value).
MLDSA_HD inline int32_t mont_mul(int32_t a, int32_t b) {
  const int32_t t = static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b) *
                                         static_cast<uint32_t>(kQInv));
  return mul_hi(a, b) - mul_hi(t, kQ);
}

// reduce32, caddq and freeze: the core's (cpu/scalar.h).

// Forward NTT (Algorithm 41). In: |a_i| < q. Out: |a_i| < 9q.
// Every level is 128 independent butterflies, run in a fixed count (8 x
// 128) so the loops compile to counted loops (bench/sass_count.py solves
// their trips); butterfly b of the level with half-length len = 2^s works on
// group b >> s, whose twiddle is the core's (same values, same order of
// levels, so the same result).
MLDSA_HD MLDSA_NOINLINE inline void ntt(int32_t a[kN]) {
  for (unsigned level = 0; level < 8; ++level) {
    const unsigned s = 7 - level, len = 1u << s;
    for (unsigned b = 0; b < kN / 2; ++b) {
      const unsigned group = b >> s, j = (group << (s + 1)) + (b & (len - 1));
      const int32_t t = mont_mul(zeta((1u << level) + group), a[j + len]);
      a[j + len] = a[j] - t;
      a[j] = a[j] + t;
    }
  }
}

// Inverse NTT and the factor 2^32 / 256 (FIPS 204 Algorithm 42 in the
// core's Montgomery form); the core walks the twiddles down from 255.
MLDSA_HD MLDSA_NOINLINE inline void invntt_tomont(int32_t a[kN]) {
  for (unsigned s = 0; s < 8; ++s) {
    const unsigned len = 1u << s;
    for (unsigned b = 0; b < kN / 2; ++b) {
      const unsigned group = b >> s, j = (group << (s + 1)) + (b & (len - 1));
      const int32_t z = -zeta((kN >> s) - 1 - group);
      const int32_t t = a[j];
      a[j] = t + a[j + len];
      a[j + len] = mont_mul(z, t - a[j + len]);
    }
  }
  for (int j = 0; j < kN; ++j) a[j] = mont_mul(kInvNMont, a[j]);
}

inline constexpr int32_t kMontOne = static_cast<int32_t>((uint64_t{1} << 32) % kQ);

// out = reduce32(sum_j a[j] o b[j] * 2^-32), as the core's pointwise_acc.
MLDSA_HD inline void pointwise_acc(int32_t out[kN], const int32_t* a, const int32_t* b, uint32_t terms) {
  for (int c = 0; c < kN; ++c) {
    int32_t s = 0;
    for (uint32_t j = 0; j < terms; ++j) s += mont_mul(a[j * kN + c], b[j * kN + c]);
    out[c] = reduce32(s);
  }
}

}  // namespace mldsa::gpu
