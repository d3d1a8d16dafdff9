// ntt16.h - NTT, inverse NTT and pointwise multiply-accumulate on 16 x int32
// lanes (AVX-512F). The whole polynomial lives in 16 zmm registers: layers
// 128..16 run between whole vectors with broadcast twiddles; a 16x16
// transpose then puts each 16-coefficient block in one lane, so layers 8..1
// also run between whole vectors (per-lane twiddles), and a second transpose
// restores the order. The inverse runs the same steps backwards.
//
// Bit-identical to the ref backend for the same reason as cpu/avx2/ntt8.h:
// the same butterflies with the same exact Montgomery reduction.
// Anonymous namespace on purpose (built only with the AVX-512 flags).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "cpu/ntt.h"
#include "cpu/poly.h"

namespace {
namespace ntt16 {

using mldsa::kZetas;
using mldsa::N;
using mldsa::Q;

constexpr int32_t qinv_mul(int32_t z) {
  return static_cast<int32_t>(static_cast<uint32_t>(z) * static_cast<uint32_t>(mldsa::QINV));
}

// Per-lane twiddles after the transpose (lane r = coefficients 16r..16r+15):
// row 0: layer 8; rows 1-2: layer 4 (h = 0, 1); rows 3-6: layer 2 (quarter
// 0..3); rows 7-14: layer 1 (pair 0..7).
struct LaneTwiddles {
  int32_t z[15][16], zq[15][16];
};

constexpr LaneTwiddles make_lane_twiddles(bool inverse) {
  LaneTwiddles t{};
  for (int r = 0; r < 16; ++r) {
    int idx[15];
    idx[0] = inverse ? 31 - r : 16 + r;
    for (int h = 0; h < 2; ++h) idx[1 + h] = inverse ? 63 - (2 * r + h) : 32 + 2 * r + h;
    for (int h = 0; h < 4; ++h) idx[3 + h] = inverse ? 127 - (4 * r + h) : 64 + 4 * r + h;
    for (int h = 0; h < 8; ++h) idx[7 + h] = inverse ? 255 - (8 * r + h) : 128 + 8 * r + h;
    for (int e = 0; e < 15; ++e) {
      const int32_t z = inverse ? -kZetas[idx[e]] : kZetas[idx[e]];
      t.z[e][r] = z;
      t.zq[e][r] = qinv_mul(z);
    }
  }
  return t;
}

alignas(64) constexpr LaneTwiddles kFwdLanes = make_lane_twiddles(false);
alignas(64) constexpr LaneTwiddles kInvLanes = make_lane_twiddles(true);

struct Twiddle {
  int32_t z, zq;
};
constexpr Twiddle fwd(int k) { return {kZetas[k], qinv_mul(kZetas[k])}; }
constexpr Twiddle inv(int k) { return {-kZetas[k], qinv_mul(-kZetas[k])}; }

inline __m512i montmul(__m512i b, __m512i z, __m512i zq, __m512i zo, __m512i zqo) {
  const __m512i q = _mm512_set1_epi32(Q);
  const __m512i bo = _mm512_srli_epi64(b, 32);
  __m512i pe = _mm512_mul_epi32(b, z);
  __m512i po = _mm512_mul_epi32(bo, zo);
  const __m512i te = _mm512_mul_epi32(_mm512_mul_epi32(b, zq), q);
  const __m512i to = _mm512_mul_epi32(_mm512_mul_epi32(bo, zqo), q);
  pe = _mm512_sub_epi64(pe, te);
  po = _mm512_sub_epi64(po, to);
  return _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe, 32), po);
}
inline __m512i montmul(__m512i b, Twiddle t) {
  const __m512i z = _mm512_set1_epi32(t.z), zq = _mm512_set1_epi32(t.zq);
  return montmul(b, z, zq, z, zq);
}
inline __m512i montmul_lanes(__m512i b, const LaneTwiddles& t, int row) {
  const __m512i z = _mm512_load_si512(t.z[row]), zq = _mm512_load_si512(t.zq[row]);
  return montmul(b, z, zq, _mm512_srli_epi64(z, 32), _mm512_srli_epi64(zq, 32));
}

inline void fwd_bf(__m512i& a, __m512i& b, __m512i t) {
  b = _mm512_sub_epi32(a, t);
  a = _mm512_add_epi32(a, t);
}
inline __m512i inv_diff(__m512i& a, __m512i b) {
  const __m512i d = _mm512_sub_epi32(a, b);
  a = _mm512_add_epi32(a, b);
  return d;
}

inline void transpose16(__m512i v[16]) {
  __m512i t[16], u[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(v[2 * i], v[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(v[2 * i], v[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    u[4 * i + 0] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  // u[4i + j], 128-bit block L = column 4L + j of rows 4i..4i+3: a 4x4
  // transpose of 128-bit blocks finishes the job.
  for (int j = 0; j < 4; ++j) {
    const __m512i x0 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0x44);
    const __m512i x1 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0xEE);
    const __m512i x2 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0x44);
    const __m512i x3 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0xEE);
    v[j] = _mm512_shuffle_i32x4(x0, x2, 0x88);
    v[4 + j] = _mm512_shuffle_i32x4(x0, x2, 0xDD);
    v[8 + j] = _mm512_shuffle_i32x4(x1, x3, 0x88);
    v[12 + j] = _mm512_shuffle_i32x4(x1, x3, 0xDD);
  }
}

inline void ntt(mldsa::Poly* p) {
  __m512i v[16];
  for (int r = 0; r < 16; ++r) v[r] = _mm512_load_si512(p->c + 16 * r);
  for (int r = 0; r < 8; ++r) fwd_bf(v[r], v[r + 8], montmul(v[r + 8], fwd(1)));
  for (int r = 0; r < 16; ++r)
    if (!(r & 4)) fwd_bf(v[r], v[r + 4], montmul(v[r + 4], fwd(2 + r / 8)));
  for (int r = 0; r < 16; ++r)
    if (!(r & 2)) fwd_bf(v[r], v[r + 2], montmul(v[r + 2], fwd(4 + r / 4)));
  for (int r = 0; r < 16; r += 2) fwd_bf(v[r], v[r + 1], montmul(v[r + 1], fwd(8 + r / 2)));
  transpose16(v);
  for (int c = 0; c < 8; ++c) fwd_bf(v[c], v[c + 8], montmul_lanes(v[c + 8], kFwdLanes, 0));
  for (int c = 0; c < 16; ++c)
    if (!(c & 4)) fwd_bf(v[c], v[c + 4], montmul_lanes(v[c + 4], kFwdLanes, 1 + c / 8));
  for (int c = 0; c < 16; ++c)
    if (!(c & 2)) fwd_bf(v[c], v[c + 2], montmul_lanes(v[c + 2], kFwdLanes, 3 + c / 4));
  for (int c = 0; c < 16; c += 2) fwd_bf(v[c], v[c + 1], montmul_lanes(v[c + 1], kFwdLanes, 7 + c / 2));
  transpose16(v);
  for (int r = 0; r < 16; ++r) _mm512_store_si512(p->c + 16 * r, v[r]);
}

inline void invntt_tomont(mldsa::Poly* p) {
  __m512i v[16];
  for (int r = 0; r < 16; ++r) v[r] = _mm512_load_si512(p->c + 16 * r);
  transpose16(v);
  for (int c = 0; c < 16; c += 2) v[c + 1] = montmul_lanes(inv_diff(v[c], v[c + 1]), kInvLanes, 7 + c / 2);
  for (int c = 0; c < 16; ++c)
    if (!(c & 2)) v[c + 2] = montmul_lanes(inv_diff(v[c], v[c + 2]), kInvLanes, 3 + c / 4);
  for (int c = 0; c < 16; ++c)
    if (!(c & 4)) v[c + 4] = montmul_lanes(inv_diff(v[c], v[c + 4]), kInvLanes, 1 + c / 8);
  for (int c = 0; c < 8; ++c) v[c + 8] = montmul_lanes(inv_diff(v[c], v[c + 8]), kInvLanes, 0);
  transpose16(v);
  for (int r = 0; r < 16; r += 2) v[r + 1] = montmul(inv_diff(v[r], v[r + 1]), inv(15 - r / 2));
  for (int r = 0; r < 16; ++r)
    if (!(r & 2)) v[r + 2] = montmul(inv_diff(v[r], v[r + 2]), inv(7 - r / 4));
  for (int r = 0; r < 16; ++r)
    if (!(r & 4)) v[r + 4] = montmul(inv_diff(v[r], v[r + 4]), inv(3 - r / 8));
  for (int r = 0; r < 8; ++r) v[r + 8] = montmul(inv_diff(v[r], v[r + 8]), inv(1));
  const Twiddle f{mldsa::kInvNMont, qinv_mul(mldsa::kInvNMont)};
  for (int r = 0; r < 16; ++r) _mm512_store_si512(p->c + 16 * r, montmul(v[r], f));
}

inline __m512i montmul_vv(__m512i a, __m512i b) {
  const __m512i q = _mm512_set1_epi32(Q), qinv = _mm512_set1_epi32(mldsa::QINV);
  const __m512i ao = _mm512_srli_epi64(a, 32), bo = _mm512_srli_epi64(b, 32);
  __m512i pe = _mm512_mul_epi32(a, b);
  __m512i po = _mm512_mul_epi32(ao, bo);
  const __m512i te = _mm512_mul_epi32(_mm512_mul_epu32(pe, qinv), q);
  const __m512i to = _mm512_mul_epi32(_mm512_mul_epu32(po, qinv), q);
  pe = _mm512_sub_epi64(pe, te);
  po = _mm512_sub_epi64(po, to);
  return _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe, 32), po);
}

inline void pointwise_acc(mldsa::Poly* c, const mldsa::Poly* a, const mldsa::Poly* b, unsigned n) {
  for (int j = 0; j < N; j += 16) {
    __m512i acc = montmul_vv(_mm512_load_si512(a[0].c + j), _mm512_load_si512(b[0].c + j));
    for (unsigned i = 1; i < n; ++i)
      acc = _mm512_add_epi32(acc, montmul_vv(_mm512_load_si512(a[i].c + j), _mm512_load_si512(b[i].c + j)));
    const __m512i t = _mm512_srai_epi32(_mm512_add_epi32(acc, _mm512_set1_epi32(1 << 22)), 23);  // reduce32
    _mm512_store_si512(c->c + j, _mm512_sub_epi32(acc, _mm512_mullo_epi32(t, _mm512_set1_epi32(Q))));
  }
}

}  // namespace ntt16
}  // namespace
