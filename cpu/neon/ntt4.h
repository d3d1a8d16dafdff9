// ntt4.h - NTT, inverse NTT and pointwise multiply-accumulate on 4 x int32
// lanes (AArch64 Advanced SIMD).
//
// Bit-identical to the ref backend: every butterfly is the ref's, with the
// same Montgomery reduction, and only the order of independent butterflies
// differs. A Montgomery product mont(b * z) is
//   hsub(sqdmulh(b, z), sqdmulh(b * zq, q)),  zq = z * qinv mod 2^32:
// the doubled high halves of b*z and t*q (t = lo32(b * zq), the ref's t)
// differ by exactly 2 * (b*z - t*q) / 2^32, because the low halves agree,
// and the halving subtract returns (b*z - t*q) >> 32 without overflow. No
// saturation: sqdmulh saturates only for INT32_MIN * INT32_MIN, and q is
// neither. Layers are merged:
//   pass 1: 16 vectors at stride 16 (coefficients 4j + 16t) take layers
//           128..16 with twiddles taken by lane from four registers;
//   pass 2: each block of 16 coefficients (4 vectors) takes layers 8 and 4
//           between whole vectors, is transposed 4x4 so that layers 2 and 1
//           run between whole vectors with per-lane twiddles, and leaves
//           through an interleaving store (st4), which undoes the transpose.
// The inverse runs the same passes backwards (ld4 in, then the transpose).
//
// Anonymous namespace on purpose (see keccak2.h).
#pragma once

#include <arm_neon.h>

#include <cstdint>
#include <utility>

#include "cpu/ntt.h"
#include "cpu/ntt_twiddles.h"
#include "cpu/poly.h"

namespace {
namespace ntt4 {

using mldsa::kZetas;
using mldsa::N;
using mldsa::Q;
using mldsa::qinv_mul;

// f(std::integral_constant<int, I>) for I = 0 .. n-1: lane numbers must be
// constants, so the unrolled layers are written with this.
template <class F, int... I>
[[gnu::always_inline]] inline void each(std::integer_sequence<int, I...>, F&& f) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int n, class F>
[[gnu::always_inline]] inline void each(F&& f) {
  each(std::make_integer_sequence<int, n>{}, f);
}

// Twiddles of pass 1: [k] for k < 16 (mldsa::make_scalar_twiddles: zeta_k,
// -zeta_k for the inverse, whose [0] is the final factor 2^64/256).
struct PassOne {
  int32_t z[16], zq[16];
};
constexpr PassOne make_pass_one(bool inverse) {
  const auto s = mldsa::make_scalar_twiddles<16>(inverse);
  PassOne t{};
  for (int k = 0; k < 16; ++k) {
    t.z[k] = s.zzq[k][0];
    t.zq[k] = s.zzq[k][1];
  }
  return t;
}
alignas(16) constexpr PassOne kFwdOne = make_pass_one(false);
alignas(16) constexpr PassOne kInvOne = make_pass_one(true);

// Twiddles of pass 2 for block b (coefficients 16b .. 16b + 15), four
// vectors: [0] lane 0 layer 8, lanes 1, 2 layer 4 (first, second half);
// [1] layer 2 per lane (lane i: coefficients 16b + 4i ..); [2], [3] layer 1
// per lane, first and second pair of those four coefficients.
struct PassTwo {
  int32_t z[16][4][4], zq[16][4][4];
};
constexpr PassTwo make_pass_two(bool inverse) {
  PassTwo t{};
  for (int b = 0; b < 16; ++b) {
    int idx[4][4] = {};
    for (int i = 0; i < 4; ++i) {
      // The ref's block k of each layer; the inverse's block m of a layer
      // with B blocks uses -zeta[2B - 1 - m].
      idx[0][0] = inverse ? 31 - b : 16 + b;
      idx[0][1] = inverse ? 63 - 2 * b : 32 + 2 * b;
      idx[0][2] = inverse ? 63 - (2 * b + 1) : 32 + 2 * b + 1;
      idx[1][i] = inverse ? 127 - (4 * b + i) : 64 + 4 * b + i;
      idx[2][i] = inverse ? 255 - (8 * b + 2 * i) : 128 + 8 * b + 2 * i;
      idx[3][i] = inverse ? 255 - (8 * b + 2 * i + 1) : 128 + 8 * b + 2 * i + 1;
    }
    for (int r = 0; r < 4; ++r)
      for (int i = 0; i < 4; ++i) {
        if (r == 0 && i == 3) continue;  // unused lane
        const int32_t z = inverse ? -kZetas[idx[r][i]] : kZetas[idx[r][i]];
        t.z[b][r][i] = z;
        t.zq[b][r][i] = qinv_mul(z);
      }
  }
  return t;
}
alignas(16) constexpr PassTwo kFwdTwo = make_pass_two(false);
alignas(16) constexpr PassTwo kInvTwo = make_pass_two(true);

// mont(b * z) with z, zq lane L of the twiddle registers, or lane by lane.
template <int L>
[[gnu::always_inline]] inline int32x4_t montmul_lane(int32x4_t b, int32x4_t z, int32x4_t zq) {
  return vhsubq_s32(vqdmulhq_laneq_s32(b, z, L), vqdmulhq_n_s32(vmulq_laneq_s32(b, zq, L), Q));
}
[[gnu::always_inline]] inline int32x4_t montmul(int32x4_t b, int32x4_t z, int32x4_t zq) {
  return vhsubq_s32(vqdmulhq_s32(b, z), vqdmulhq_n_s32(vmulq_s32(b, zq), Q));
}

// Forward butterfly (a, b) -> (a + t, a - t), t = mont(zeta * b); inverse
// (a, b) -> (a + b, mont(zeta' * (a - b))).
[[gnu::always_inline]] inline void fwd_bf(int32x4_t& a, int32x4_t& b, int32x4_t t) {
  b = vsubq_s32(a, t);
  a = vaddq_s32(a, t);
}
[[gnu::always_inline]] inline int32x4_t inv_diff(int32x4_t& a, int32x4_t b) {
  const int32x4_t d = vsubq_s32(a, b);
  a = vaddq_s32(a, b);
  return d;
}

// 4x4 transpose: v[r] lane i <-> v[i] lane r.
[[gnu::always_inline]] inline void transpose4(int32x4_t v[4]) {
  const int32x4_t a0 = vtrn1q_s32(v[0], v[1]), a1 = vtrn2q_s32(v[0], v[1]);
  const int32x4_t a2 = vtrn1q_s32(v[2], v[3]), a3 = vtrn2q_s32(v[2], v[3]);
  const auto w = [](int32x4_t x) { return vreinterpretq_s64_s32(x); };
  v[0] = vreinterpretq_s32_s64(vtrn1q_s64(w(a0), w(a2)));
  v[1] = vreinterpretq_s32_s64(vtrn1q_s64(w(a1), w(a3)));
  v[2] = vreinterpretq_s32_s64(vtrn2q_s64(w(a0), w(a2)));
  v[3] = vreinterpretq_s32_s64(vtrn2q_s64(w(a1), w(a3)));
}

// Pass 1's layer of distance D (8, 4, 2, 1 vectors: len 128 .. 16). The u-th
// butterfly pairs vectors t, t + D; its twiddle is k = 8/D + t/(2D) forward
// and 16/D - 1 - t/(2D) inverse, lane k % 4 of register k / 4.
template <int D>
[[gnu::always_inline]] inline void fwd_layer(int32x4_t v[16], const int32x4_t z[4], const int32x4_t zq[4]) {
  each<8>([&](auto u) {
    constexpr int i = decltype(u)::value, t = (i / D) * 2 * D + i % D, k = 8 / D + t / (2 * D);
    fwd_bf(v[t], v[t + D], montmul_lane<k % 4>(v[t + D], z[k / 4], zq[k / 4]));
  });
}
template <int D>
[[gnu::always_inline]] inline void inv_layer(int32x4_t v[16], const int32x4_t z[4], const int32x4_t zq[4]) {
  each<8>([&](auto u) {
    constexpr int i = decltype(u)::value, t = (i / D) * 2 * D + i % D, k = 16 / D - 1 - t / (2 * D);
    v[t + D] = montmul_lane<k % 4>(inv_diff(v[t], v[t + D]), z[k / 4], zq[k / 4]);
  });
}

inline void ntt(mldsa::Poly* p) {
  int32_t* a = p->c;
  const PassOne* one = mldsa::opaque(&kFwdOne);
  int32x4_t z[4], zq[4];
  for (int i = 0; i < 4; ++i) {
    z[i] = vld1q_s32(one->z + 4 * i);
    zq[i] = vld1q_s32(one->zq + 4 * i);
  }
  for (int j = 0; j < 16; j += 4) {  // layers 128, 64, 32, 16
    int32x4_t v[16];
#pragma GCC unroll 16
    for (int t = 0; t < 16; ++t) v[t] = vld1q_s32(a + j + 16 * t);
    fwd_layer<8>(v, z, zq);
    fwd_layer<4>(v, z, zq);
    fwd_layer<2>(v, z, zq);
    fwd_layer<1>(v, z, zq);
#pragma GCC unroll 16
    for (int t = 0; t < 16; ++t) vst1q_s32(a + j + 16 * t, v[t]);
  }
  const PassTwo* two = mldsa::opaque(&kFwdTwo);
#pragma GCC unroll 2
  for (int b = 0; b < 16; ++b) {  // layers 8, 4, then 2, 1 transposed
    int32_t* blk = a + 16 * b;
    int32x4_t v[4] = {vld1q_s32(blk), vld1q_s32(blk + 4), vld1q_s32(blk + 8), vld1q_s32(blk + 12)};
    const int32x4_t s = vld1q_s32(two->z[b][0]), sq = vld1q_s32(two->zq[b][0]);
    fwd_bf(v[0], v[2], montmul_lane<0>(v[2], s, sq));
    fwd_bf(v[1], v[3], montmul_lane<0>(v[3], s, sq));
    fwd_bf(v[0], v[1], montmul_lane<1>(v[1], s, sq));
    fwd_bf(v[2], v[3], montmul_lane<2>(v[3], s, sq));
    transpose4(v);  // v[r] lane i: coefficient 16b + 4i + r
    const int32x4_t z2 = vld1q_s32(two->z[b][1]), zq2 = vld1q_s32(two->zq[b][1]);
    fwd_bf(v[0], v[2], montmul(v[2], z2, zq2));
    fwd_bf(v[1], v[3], montmul(v[3], z2, zq2));
    fwd_bf(v[0], v[1], montmul(v[1], vld1q_s32(two->z[b][2]), vld1q_s32(two->zq[b][2])));
    fwd_bf(v[2], v[3], montmul(v[3], vld1q_s32(two->z[b][3]), vld1q_s32(two->zq[b][3])));
    vst4q_s32(blk, (int32x4x4_t{{v[0], v[1], v[2], v[3]}}));
  }
}

inline void invntt_tomont(mldsa::Poly* p) {
  int32_t* a = p->c;
  const PassTwo* two = mldsa::opaque(&kInvTwo);
#pragma GCC unroll 2
  for (int b = 0; b < 16; ++b) {  // layers 1, 2 transposed, then 4, 8
    int32_t* blk = a + 16 * b;
    const int32x4x4_t in = vld4q_s32(blk);  // val[r] lane i: coefficient 16b + 4i + r
    int32x4_t v[4] = {in.val[0], in.val[1], in.val[2], in.val[3]};
    v[1] = montmul(inv_diff(v[0], v[1]), vld1q_s32(two->z[b][2]), vld1q_s32(two->zq[b][2]));
    v[3] = montmul(inv_diff(v[2], v[3]), vld1q_s32(two->z[b][3]), vld1q_s32(two->zq[b][3]));
    const int32x4_t z2 = vld1q_s32(two->z[b][1]), zq2 = vld1q_s32(two->zq[b][1]);
    v[2] = montmul(inv_diff(v[0], v[2]), z2, zq2);
    v[3] = montmul(inv_diff(v[1], v[3]), z2, zq2);
    transpose4(v);  // v[r]: coefficients 16b + 4r .. 16b + 4r + 3
    const int32x4_t s = vld1q_s32(two->z[b][0]), sq = vld1q_s32(two->zq[b][0]);
    v[1] = montmul_lane<1>(inv_diff(v[0], v[1]), s, sq);
    v[3] = montmul_lane<2>(inv_diff(v[2], v[3]), s, sq);
    v[2] = montmul_lane<0>(inv_diff(v[0], v[2]), s, sq);
    v[3] = montmul_lane<0>(inv_diff(v[1], v[3]), s, sq);
    for (int r = 0; r < 4; ++r) vst1q_s32(blk + 4 * r, v[r]);
  }
  const PassOne* one = mldsa::opaque(&kInvOne);
  int32x4_t z[4], zq[4];
  for (int i = 0; i < 4; ++i) {
    z[i] = vld1q_s32(one->z + 4 * i);
    zq[i] = vld1q_s32(one->zq + 4 * i);
  }
  for (int j = 0; j < 16; j += 4) {  // layers 16, 32, 64, 128, then the 2^64/256 factor
    int32x4_t v[16];
#pragma GCC unroll 16
    for (int t = 0; t < 16; ++t) v[t] = vld1q_s32(a + j + 16 * t);
    inv_layer<1>(v, z, zq);
    inv_layer<2>(v, z, zq);
    inv_layer<4>(v, z, zq);
    inv_layer<8>(v, z, zq);
#pragma GCC unroll 16
    for (int t = 0; t < 16; ++t) vst1q_s32(a + j + 16 * t, montmul_lane<0>(v[t], z[0], zq[0]));
  }
}

// mont(a * b) lane by lane for arbitrary a, b (|a * b| < 2^31 q).
[[gnu::always_inline]] inline int32x4_t montmul_vv(int32x4_t a, int32x4_t b) {
  const int32x4_t t = vmulq_n_s32(vmulq_s32(a, b), mldsa::QINV);
  return vhsubq_s32(vqdmulhq_s32(a, b), vqdmulhq_n_s32(t, Q));
}

// reduce32: a - round(a / 2^23) * q; the rounding shift is (a + 2^22) >> 23
// without the intermediate overflow.
[[gnu::always_inline]] inline int32x4_t reduce32(int32x4_t a) { return vmlsq_n_s32(a, vrshrq_n_s32(a, 23), Q); }

// Four accumulators (16 coefficients) stay in registers while the terms stream through.
inline void pointwise_acc(mldsa::Poly* c, const mldsa::Poly* a, const mldsa::Poly* b, unsigned n) {
  for (int j = 0; j < N; j += 16) {
    int32x4_t acc[4];
    for (int r = 0; r < 4; ++r) acc[r] = montmul_vv(vld1q_s32(a[0].c + j + 4 * r), vld1q_s32(b[0].c + j + 4 * r));
    for (unsigned i = 1; i < n; ++i)
      for (int r = 0; r < 4; ++r)
        acc[r] = vaddq_s32(acc[r], montmul_vv(vld1q_s32(a[i].c + j + 4 * r), vld1q_s32(b[i].c + j + 4 * r)));
    for (int r = 0; r < 4; ++r) vst1q_s32(c->c + j + 4 * r, reduce32(acc[r]));
  }
}

}  // namespace ntt4
}  // namespace
