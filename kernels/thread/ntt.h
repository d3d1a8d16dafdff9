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

// The twiddles and, for the Montgomery products by a twiddle, each one times
// q^-1 mod 2^32 (zq), so a product by a twiddle takes two multiplies instead
// of three (mont_mul_by). The inverse NTT's negated ones are stored too (nz,
// nzq) rather than negated per butterfly.
struct ZetaTable {
  int32_t z[kN], zq[kN], nz[kN], nzq[kN];
};
constexpr ZetaTable make_zeta_table() {
  ZetaTable t{};
  for (int i = 0; i < kN; ++i) {
    t.z[i] = mldsa::kZetas[i];
    t.zq[i] = static_cast<int32_t>(static_cast<uint32_t>(mldsa::kZetas[i]) * static_cast<uint32_t>(kQInv));
    t.nz[i] = -t.z[i];
    t.nzq[i] = static_cast<int32_t>(0u - static_cast<uint32_t>(t.zq[i]));
  }
  return t;
}
inline constexpr ZetaTable kZetaTable = make_zeta_table();

#if defined(__CUDACC__)
// The core's twiddles, copied into constant memory at compile time. All threads
// of a warp run the same butterfly step, so their reads broadcast.
static __constant__ ZetaTable g_zetas = kZetaTable;
#endif

MLDSA_HD inline const ZetaTable& zetas() {
#if defined(__CUDA_ARCH__)
  return g_zetas;
#else
  return kZetaTable;
#endif
}

MLDSA_HD inline int32_t zeta(unsigned i) { return zetas().z[i]; }

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

// mont_mul(a, z) for z with zq = z q^-1 mod 2^32 known: the same t, so the
// same value, one multiply fewer.
MLDSA_HD inline int32_t mont_mul_by(int32_t a, int32_t z, int32_t zq) {
  const int32_t t = static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(zq));
  return mul_hi(a, z) - mul_hi(t, kQ);
}

// reduce32, caddq and freeze: the core's (cpu/scalar.h).

// Forward NTT (Algorithm 41). In: |a_i| < q. Out: |a_i| < 9q.
// The core's butterflies (same twiddles, same arithmetic, so the same
// result: the butterflies of one level are independent, only the levels'
// order matters), run in two passes of four levels over 16 coefficients held
// in registers, instead of eight passes over the whole polynomial in local
// memory. Levels 0-3 (half-lengths 128..16) only mix coefficients 16 apart:
// column c is a[c], a[c + 16], ..., a[c + 240], and its twiddles are the
// same for every column. Levels 4-7 (8..1) only mix within 16 neighbours.
// bench/gpu_model.py, ML-DSA-44 sign_kernel per attempt: each NTT read and
// wrote the polynomial once a level (8 x 2 KiB a thread); now twice in all
// (2 x 2 KiB), and the unrolled blocks need no index arithmetic.
// ntt_with(a, load) transforms the polynomial whose coefficient c is load(c)
// into a (the first pass reads through load: sign.h makes y^ from y so).
template <typename Load>
MLDSA_HD inline void ntt_with(int32_t a[kN], Load load) {
  for (unsigned col = 0; col < 16; ++col) {
    int32_t r[16];
    MLDSA_UNROLL
    for (int m = 0; m < 16; ++m) r[m] = load(static_cast<int>(col) + 16 * m);
    MLDSA_UNROLL
    for (int level = 0; level < 4; ++level) {
      const int s = 3 - level, len = 1 << s;  // in steps of 16 coefficients
      MLDSA_UNROLL
      for (int b = 0; b < 8; ++b) {
        const int group = b >> s, j = (group << (s + 1)) + (b & (len - 1));
        const unsigned zi = (1u << level) + group;
        const int32_t t = mont_mul_by(r[j + len], zetas().z[zi], zetas().zq[zi]);
        r[j + len] = r[j] - t;
        r[j] = r[j] + t;
      }
    }
    MLDSA_UNROLL
    for (int m = 0; m < 16; ++m) a[col + 16 * m] = r[m];
  }
  for (unsigned row = 0; row < 16; ++row) {
    int32_t r[16];
    MLDSA_UNROLL
    for (int i = 0; i < 16; ++i) r[i] = a[16 * row + i];
    MLDSA_UNROLL
    for (int level = 4; level < 8; ++level) {
      const int s = 7 - level, len = 1 << s;
      MLDSA_UNROLL
      for (int b = 0; b < 8; ++b) {
        const int group = b >> s, j = (group << (s + 1)) + (b & (len - 1));
        const unsigned zi = (1u << level) + (row << (level - 4)) + group;
        const int32_t t = mont_mul_by(r[j + len], zetas().z[zi], zetas().zq[zi]);
        r[j + len] = r[j] - t;
        r[j] = r[j] + t;
      }
    }
    MLDSA_UNROLL
    for (int i = 0; i < 16; ++i) a[16 * row + i] = r[i];
  }
}

MLDSA_HD MLDSA_NOINLINE inline void ntt(int32_t a[kN]) {
  ntt_with(a, [&](int c) { return a[c]; });
}

// Inverse NTT and the factor 2^32 / 256 (FIPS 204 Algorithm 42 in the
// core's Montgomery form); the core walks the twiddles down from 255. As the
// forward one, in two register passes: levels s = 0-3 (half-lengths 1..8)
// within 16 neighbours, levels 4-7 (16..128) within columns, which also
// apply the factor. load_row(row, r) gives coefficients 16 row .. 16 row +
// 15 of the input (NTT domain) in r[0..15], and store(c, m, v) takes coefficient c = col + 16 m of the output (m a
// constant once the pass is unrolled, col the loop's), so a caller can fuse
// the product before and the rounding after into the two passes (sign.h);
// invntt_tomont(a) is the in-place transform.
template <typename LoadRow, typename Store>
MLDSA_HD inline void invntt_tomont_with(int32_t scratch[kN], LoadRow load_row, Store store) {
  for (unsigned row = 0; row < 16; ++row) {
    int32_t r[16];
    load_row(row, r);
    MLDSA_UNROLL
    for (int s = 0; s < 4; ++s) {
      const int len = 1 << s;
      MLDSA_UNROLL
      for (int b = 0; b < 8; ++b) {
        const int group = b >> s, j = (group << (s + 1)) + (b & (len - 1));
        const unsigned zi = (kN >> s) - 1 - (row << (3 - s)) - group;
        const int32_t t = r[j];
        r[j] = t + r[j + len];
        r[j + len] = mont_mul_by(t - r[j + len], zetas().nz[zi], zetas().nzq[zi]);
      }
    }
    MLDSA_UNROLL
    for (int i = 0; i < 16; ++i) scratch[16 * row + i] = r[i];
  }
  for (unsigned col = 0; col < 16; ++col) {
    int32_t r[16];
    MLDSA_UNROLL
    for (int m = 0; m < 16; ++m) r[m] = scratch[col + 16 * m];
    MLDSA_UNROLL
    for (int s = 4; s < 8; ++s) {
      const int len = 1 << (s - 4);  // in steps of 16 coefficients
      MLDSA_UNROLL
      for (int b = 0; b < 8; ++b) {
        const int group = b >> (s - 4), j = (group << (s - 3)) + (b & (len - 1));
        const unsigned zi = (kN >> s) - 1 - group;
        const int32_t t = r[j];
        r[j] = t + r[j + len];
        r[j + len] = mont_mul_by(t - r[j + len], zetas().nz[zi], zetas().nzq[zi]);
      }
    }
    MLDSA_UNROLL
    for (int m = 0; m < 16; ++m) store(static_cast<int>(col) + 16 * m, m, mont_mul(kInvNMont, r[m]));
  }
}

MLDSA_HD MLDSA_NOINLINE inline void invntt_tomont(int32_t a[kN]) {
  invntt_tomont_with(
      a,
      [&](unsigned row, int32_t r[16]) {
        MLDSA_UNROLL
        for (int i = 0; i < 16; ++i) r[i] = a[16 * row + i];
      },
      [&](int c, int, int32_t v) { a[c] = v; });
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
