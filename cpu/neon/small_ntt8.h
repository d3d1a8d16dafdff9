// small_ntt8.h - the NTT' over q' = 7681 (cpu/small_ntt.h) on 8 x int16 lanes
// (AArch64 Advanced SIMD). The polynomial is a 16x16 block: row r holds
// coefficients 16r .. 16r + 15 in two vectors. Layers 128..16 run between
// whole rows with twiddles taken by lane from registers, one half of the
// columns at a time (the halves do not mix there). 8x8 transposes then put
// each 16-coefficient block in one lane, and layers 8..1 run between whole
// columns with per-lane twiddles, one half of the rows at a time. The
// columns are the contract's NTT' order, so the forward transform ends there
// and the inverse starts there.
//
// Montgomery arithmetic with R = 2^16 as in ntt4.h (sqdmulh, mul, halving
// subtract: exactly mldsa::small_montmul) and the Barrett reduction
// mldsa::small_barrett as (sqdmulh(a, 8737) + 2^10) >> 11, which is
// (hi16(a * 8737) + 2^9) >> 10 for every int16 a. The reductions sit where
// cpu/avx2/small_ntt16.h has them, so every intermediate stays below 2^15 in
// magnitude (bounds there); the ends are centred exactly, so the results are
// the contract's whatever the order of the lazy steps.
// Anonymous namespace on purpose (see keccak2.h).
#pragma once

#include <arm_neon.h>

#include <cstdint>

#include "cpu/neon/ntt4.h"
#include "cpu/poly.h"
#include "cpu/small_ntt.h"

namespace {
namespace small_ntt8 {

using mldsa::N;
using mldsa::QS;
using ntt4::each;

using Twiddle = mldsa::SmallTwiddle;
constexpr Twiddle fwd(int k) { return mldsa::small_twiddle(mldsa::kZetasS[k]); }
constexpr Twiddle inv(int k) { return mldsa::small_twiddle(mldsa::kZetasSInv[k]); }

// The row layers' twiddles k = 1..15 (two registers of 8 each).
struct RowTwiddles {
  int16_t z[16], zq[16];
};
constexpr RowTwiddles make_row_twiddles(bool inverse) {
  RowTwiddles t{};
  for (int k = 1; k < 16; ++k) {
    const Twiddle w = inverse ? inv(k) : fwd(k);
    t.z[k] = w.z;
    t.zq[k] = w.zq;
  }
  return t;
}
alignas(16) constexpr RowTwiddles kFwdRows = make_row_twiddles(false);
alignas(16) constexpr RowTwiddles kInvRows = make_row_twiddles(true);

// Per-lane twiddles of the column layers for row half h (lane i: block
// 8h + i): row 0 layer 8; rows 1-2 layer 4; rows 3-6 layer 2; rows 7-14 layer 1.
struct LaneTwiddles {
  int16_t z[2][15][8], zq[2][15][8];
};
constexpr LaneTwiddles make_lane_twiddles(bool inverse) {
  LaneTwiddles t{};
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 8; ++i) {
      const int r = 8 * h + i;
      int idx[15];
      idx[0] = 16 + r;
      for (int e = 0; e < 2; ++e) idx[1 + e] = 32 + 2 * r + e;
      for (int e = 0; e < 4; ++e) idx[3 + e] = 64 + 4 * r + e;
      for (int e = 0; e < 8; ++e) idx[7 + e] = 128 + 8 * r + e;
      for (int e = 0; e < 15; ++e) {
        const Twiddle w = inverse ? inv(idx[e]) : fwd(idx[e]);
        t.z[h][e][i] = w.z;
        t.zq[h][e][i] = w.zq;
      }
    }
  return t;
}
alignas(16) constexpr LaneTwiddles kFwdLanes = make_lane_twiddles(false);
alignas(16) constexpr LaneTwiddles kInvLanes = make_lane_twiddles(true);

// mldsa::small_montmul and small_barrett on 8 lanes.
[[gnu::always_inline]] inline int16x8_t montmul(int16x8_t a, int16x8_t z, int16x8_t zq) {
  return vhsubq_s16(vqdmulhq_s16(a, z), vqdmulhq_n_s16(vmulq_s16(a, zq), QS));
}
template <int L>
[[gnu::always_inline]] inline int16x8_t montmul_lane(int16x8_t a, int16x8_t z, int16x8_t zq) {
  return vhsubq_s16(vqdmulhq_laneq_s16(a, z, L), vqdmulhq_n_s16(vmulq_laneq_s16(a, zq, L), QS));
}
[[gnu::always_inline]] inline int16x8_t montmul(int16x8_t a, Twiddle w) {
  return montmul(a, vdupq_n_s16(w.z), vdupq_n_s16(w.zq));
}
[[gnu::always_inline]] inline int16x8_t montmul_lanes(int16x8_t a, const LaneTwiddles& t, int h, int row) {
  return montmul(a, vld1q_s16(t.z[h][row]), vld1q_s16(t.zq[h][row]));
}
[[gnu::always_inline]] inline int16x8_t barrett(int16x8_t a) {
  return vmlsq_n_s16(a, vrshrq_n_s16(vqdmulhq_n_s16(a, mldsa::kSmallBarrettV), 11), QS);
}

[[gnu::always_inline]] inline void fwd_bf(int16x8_t& a, int16x8_t& b, int16x8_t t) {
  b = vsubq_s16(a, t);
  a = vaddq_s16(a, t);
}
[[gnu::always_inline]] inline int16x8_t inv_diff(int16x8_t& a, int16x8_t b) {
  const int16x8_t d = vsubq_s16(a, b);
  a = vaddq_s16(a, b);
  return d;
}

// 8x8 transpose of 16-bit elements: x[i] lane j <-> x[j] lane i.
[[gnu::always_inline]] inline void transpose8(int16x8_t x[8]) {
  int16x8_t a[8];
  for (int i = 0; i < 8; i += 2) {
    a[i] = vtrn1q_s16(x[i], x[i + 1]);
    a[i + 1] = vtrn2q_s16(x[i], x[i + 1]);
  }
  const auto w = [](int16x8_t v) { return vreinterpretq_s32_s16(v); };
  int32x4_t b[8];
  for (int i = 0; i < 8; i += 4)
    for (int j = 0; j < 2; ++j) {
      b[i + j] = vtrn1q_s32(w(a[i + j]), w(a[i + j + 2]));      // columns j, j + 4 of rows i..i+3
      b[i + j + 2] = vtrn2q_s32(w(a[i + j]), w(a[i + j + 2]));  // columns j + 2, j + 6
    }
  const auto d = [](int32x4_t v) { return vreinterpretq_s64_s32(v); };
  for (int c = 0; c < 4; ++c) {
    x[c] = vreinterpretq_s16_s64(vtrn1q_s64(d(b[c]), d(b[c + 4])));
    x[c + 4] = vreinterpretq_s16_s64(vtrn2q_s64(d(b[c]), d(b[c + 4])));
  }
}

// The row layers 128..16 on one column half (v[r]: row r), twiddle k in
// lane k % 8 of register k / 8. Butterfly u of distance D pairs rows t,
// t + D with k = 8/D + t/(2D) (forward), as in ntt4.h.
template <int D>
[[gnu::always_inline]] inline void fwd_rows(int16x8_t v[16], const int16x8_t z[2], const int16x8_t zq[2]) {
  each<8>([&](auto u) {
    constexpr int i = decltype(u)::value, t = (i / D) * 2 * D + i % D, k = 8 / D + t / (2 * D);
    fwd_bf(v[t], v[t + D], montmul_lane<k % 8>(v[t + D], z[k / 8], zq[k / 8]));
  });
}
template <int D>
[[gnu::always_inline]] inline void inv_rows(int16x8_t v[16], const int16x8_t z[2], const int16x8_t zq[2]) {
  each<8>([&](auto u) {
    constexpr int i = decltype(u)::value, t = (i / D) * 2 * D + i % D, k = 8 / D + t / (2 * D);
    v[t + D] = montmul_lane<k % 8>(inv_diff(v[t], v[t + D]), z[k / 8], zq[k / 8]);
  });
}

// Row half h's two 8x8 blocks of rows (row-major, 16 per row) into columns:
// c[8C + j] lane i = rows[16 (8h + i) + 8C + j].
[[gnu::always_inline]] inline void load_columns(int16x8_t c[16], const int16_t* rows, int h) {
  for (int C = 0; C < 2; ++C) {
    int16x8_t x[8];
    for (int i = 0; i < 8; ++i) x[i] = vld1q_s16(rows + 16 * (8 * h + i) + 8 * C);
    transpose8(x);
    for (int j = 0; j < 8; ++j) c[8 * C + j] = x[j];
  }
}
[[gnu::always_inline]] inline void store_columns(int16_t* rows, const int16x8_t c[16], int h) {
  for (int C = 0; C < 2; ++C) {
    int16x8_t x[8];
    for (int j = 0; j < 8; ++j) x[j] = c[8 * C + j];
    transpose8(x);
    for (int i = 0; i < 8; ++i) vst1q_s16(rows + 16 * (8 * h + i) + 8 * C, x[i]);
  }
}

// In |a_i| <= (q'-1)/2.
inline void ntt(mldsa::SmallPoly* out, const mldsa::Poly* in) {
  alignas(16) int16_t rows[N];
  const int16x8_t z[2] = {vld1q_s16(kFwdRows.z), vld1q_s16(kFwdRows.z + 8)};
  const int16x8_t zq[2] = {vld1q_s16(kFwdRows.zq), vld1q_s16(kFwdRows.zq + 8)};
  for (int C = 0; C < 2; ++C) {
    int16x8_t v[16];
    for (int r = 0; r < 16; ++r) {
      const int32_t* p = in->c + 16 * r + 8 * C;
      v[r] = vuzp1q_s16(vreinterpretq_s16_s32(vld1q_s32(p)), vreinterpretq_s16_s32(vld1q_s32(p + 4)));
    }
    fwd_rows<8>(v, z, zq);
    fwd_rows<4>(v, z, zq);
    fwd_rows<2>(v, z, zq);
    fwd_rows<1>(v, z, zq);
    for (int r = 0; r < 16; ++r) vst1q_s16(rows + 16 * r + 8 * C, barrett(v[r]));  // |x| <= 3840
  }
  for (int h = 0; h < 2; ++h) {
    int16x8_t c[16];
    load_columns(c, rows, h);
    for (int j = 0; j < 8; ++j) fwd_bf(c[j], c[j + 8], montmul_lanes(c[j + 8], kFwdLanes, h, 0));
    for (int j = 0; j < 16; ++j)
      if (!(j & 4)) fwd_bf(c[j], c[j + 4], montmul_lanes(c[j + 4], kFwdLanes, h, 1 + j / 8));
    for (int j = 0; j < 16; ++j)
      if (!(j & 2)) fwd_bf(c[j], c[j + 2], montmul_lanes(c[j + 2], kFwdLanes, h, 3 + j / 4));
    for (int j = 0; j < 16; j += 2) fwd_bf(c[j], c[j + 1], montmul_lanes(c[j + 1], kFwdLanes, h, 7 + j / 2));
    for (int j = 0; j < 16; ++j) vst1q_s16(out->c + 16 * j + 8 * h, barrett(c[j]));  // centred
  }
}

constexpr Twiddle kScale = mldsa::kSmallScale;
constexpr Twiddle kScaleZ1 = mldsa::kSmallScaleZ1;

inline void mul(mldsa::Poly* out, const mldsa::SmallPoly* a, const mldsa::SmallPoly* b) {
  alignas(16) int16_t rows[N];
  for (int h = 0; h < 2; ++h) {
    int16x8_t c[16];
    for (int j = 0; j < 16; ++j) {
      const int16x8_t x = vld1q_s16(a->c + 16 * j + 8 * h), y = vld1q_s16(b->c + 16 * j + 8 * h);
      c[j] = montmul(x, y, vmulq_n_s16(y, mldsa::kQSInv));  // < 4067
    }
    for (int j = 0; j < 16; j += 2) c[j + 1] = montmul_lanes(inv_diff(c[j], c[j + 1]), kInvLanes, h, 7 + j / 2);
    for (int j = 0; j < 16; ++j)
      if (!(j & 2)) c[j + 2] = montmul_lanes(inv_diff(c[j], c[j + 2]), kInvLanes, h, 3 + j / 4);
    for (int j = 0; j < 16; ++j)
      if (!(j & 4)) c[j + 4] = montmul_lanes(inv_diff(c[j], c[j + 4]), kInvLanes, h, 1 + j / 8);
    for (int j = 0; j < 16; ++j) c[j] = barrett(c[j]);  // from < 32536
    for (int j = 0; j < 8; ++j) c[j + 8] = montmul_lanes(inv_diff(c[j], c[j + 8]), kInvLanes, h, 0);
    store_columns(rows, c, h);
  }
  const int16x8_t z[2] = {vld1q_s16(kInvRows.z), vld1q_s16(kInvRows.z + 8)};
  const int16x8_t zq[2] = {vld1q_s16(kInvRows.zq), vld1q_s16(kInvRows.zq + 8)};
  for (int C = 0; C < 2; ++C) {
    int16x8_t v[16];
    for (int r = 0; r < 16; ++r) v[r] = vld1q_s16(rows + 16 * r + 8 * C);
    inv_rows<1>(v, z, zq);
    inv_rows<2>(v, z, zq);
    for (int r = 0; r < 16; ++r) v[r] = barrett(v[r]);  // from <= 30720
    inv_rows<4>(v, z, zq);
    for (int r = 0; r < 8; ++r) {  // len 128 with the scale
      const int16x8_t d = inv_diff(v[r], v[r + 8]);
      v[r] = montmul(v[r], kScale);
      v[r + 8] = montmul(d, kScaleZ1);
    }
    for (int r = 0; r < 16; ++r) {
      const int16x8_t x = barrett(v[r]);  // centred: the exact coefficient
      int32_t* p = out->c + 16 * r + 8 * C;
      vst1q_s32(p, vmovl_s16(vget_low_s16(x)));
      vst1q_s32(p + 4, vmovl_high_s16(x));
    }
  }
}

}  // namespace small_ntt8
}  // namespace
