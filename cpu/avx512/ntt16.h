// ntt16.h - NTT, inverse NTT and pointwise multiply-accumulate on 16 x int32
// lanes (AVX-512F). The whole polynomial lives in 16 zmm registers: layers
// 128..16 run between whole vectors with broadcast twiddles; a 16x16
// transpose then puts each 16-coefficient block in one lane, so layers 8..1
// also run between whole vectors (per-lane twiddles), and a second transpose
// restores the order. The inverse runs the same steps backwards. Every loop
// is unrolled so the 16 vectors stay in registers (no spills).
//
// Bit-identical to the ref backend for the same reason as cpu/avx2/ntt8.h:
// the same butterflies with the same exact Montgomery reduction.
// Anonymous namespace on purpose (built only with the AVX-512 flags).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "cpu/ntt.h"
#include "cpu/ntt_twiddles.h"
#include "cpu/poly.h"

namespace {
namespace ntt16 {

using mldsa::kZetas;
using mldsa::N;
using mldsa::Q;

using mldsa::opaque;
using mldsa::qinv_mul;

// Per-lane twiddles after the transpose (lane r = coefficients 16r..16r+15):
// row 0: layer 8; rows 1-2: layer 4 (h = 0, 1); rows 3-6: layer 2 (quarter
// 0..3); rows 7-14: layer 1 (pair 0..7). z: the twiddle; zq: twiddle * qinv
// mod 2^32; zo, zqo: the odd lanes' values moved down to the even lanes
// (vpmuldq reads even lanes only).
struct LaneTwiddles {
  int32_t z[15][16], zq[15][16], zo[15][16], zqo[15][16];
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
  for (int e = 0; e < 15; ++e)
    for (int r = 0; r < 16; ++r) {
      t.zo[e][r] = t.z[e][r | 1];
      t.zqo[e][r] = t.zq[e][r | 1];
    }
  return t;
}

alignas(64) constexpr LaneTwiddles kFwdLanes = make_lane_twiddles(false);
alignas(64) constexpr LaneTwiddles kInvLanes = make_lane_twiddles(true);

// A twiddle in the four forms montmul wants (see LaneTwiddles).
struct Tw {
  __m512i z, zq, zo, zqo;
};
inline Tw lanes(const LaneTwiddles& t, int row) {
  return {_mm512_load_si512(t.z[row]), _mm512_load_si512(t.zq[row]), _mm512_load_si512(t.zo[row]),
          _mm512_load_si512(t.zqo[row])};
}

// Broadcast twiddles (cpu/ntt_twiddles.h) of the layers that pair whole vectors.
using ScalarTwiddles = mldsa::ScalarTwiddles<16>;
alignas(64) constexpr ScalarTwiddles kFwdScalars = mldsa::make_scalar_twiddles<16>(false);
alignas(64) constexpr ScalarTwiddles kInvScalars = mldsa::make_scalar_twiddles<16>(true);

inline Tw splat(const ScalarTwiddles* t, int k) {
  const __m512i z = _mm512_set1_epi32(t->zzq[k][0]), zq = _mm512_set1_epi32(t->zzq[k][1]);
  return {z, zq, z, zq};
}

// Odd lanes copied down onto the even ones (vpshufd, imm 3,3,1,1).
inline __m512i odd_down(__m512i x) { return _mm512_shuffle_epi32(x, _MM_PERM_DDBB); }

// mont(b * z) per lane, exactly the ref's (b*z - t*q) >> 32 with
// t = lo32(b * z * qinv) = lo32(b * zq): vpmuldq gives the 64-bit products
// b*z, b*zq (low half t) and t*q of the even lanes, and of the odd lanes
// after one vpshufd. The low halves of b*z and t*q agree, so the 64-bit
// difference holds the result in its high half; one masked vpshufd gathers
// the 16 high halves. (vpmulld for t measures the same on Zen 5 but is two
// uops with latency 10 on Intel.)
inline __m512i montmul(__m512i b, const Tw& w) {
  const __m512i q = _mm512_set1_epi32(Q);
  const __m512i bo = odd_down(b);
  const __m512i de = _mm512_sub_epi64(_mm512_mul_epi32(b, w.z), _mm512_mul_epi32(_mm512_mul_epi32(b, w.zq), q));
  const __m512i dodd = _mm512_sub_epi64(_mm512_mul_epi32(bo, w.zo), _mm512_mul_epi32(_mm512_mul_epi32(bo, w.zqo), q));
  return _mm512_mask_shuffle_epi32(dodd, 0x5555, de, _MM_PERM_DDBB);
}

// Forward butterfly: (a, b) -> (a + t, a - t), t = mont(zeta * b).
inline void fwd_bf(__m512i& a, __m512i& b, const Tw& w) {
  const __m512i t = montmul(b, w);
  b = _mm512_sub_epi32(a, t);
  a = _mm512_add_epi32(a, t);
}
// Inverse butterfly: (a, b) -> (a + b, mont(zeta' * (a - b))).
inline void inv_bf(__m512i& a, __m512i& b, const Tw& w) {
  const __m512i d = _mm512_sub_epi32(a, b);
  a = _mm512_add_epi32(a, b);
  b = montmul(d, w);
}

inline void transpose16(__m512i v[16]) {
  __m512i t[16], u[16];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(v[2 * i], v[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(v[2 * i], v[2 * i + 1]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    u[4 * i + 0] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  // u[4i + j], 128-bit block L = column 4L + j of rows 4i..4i+3: a 4x4
  // transpose of 128-bit blocks finishes the job.
#pragma GCC unroll 4
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

// One layer between whole vectors: butterflies (v[i], v[i + d]) for each i
// with bit d clear; Tws(i) gives the twiddle of the butterfly.
template <int D, class Bf, class Tws>
inline void layer(__m512i v[16], Bf bf, Tws tws) {
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i)
    if (!(i & D)) bf(v[i], v[i + D], tws(i));
}

inline void ntt(mldsa::Poly* p) {
  const ScalarTwiddles* s = opaque(&kFwdScalars);
  __m512i v[16];
#pragma GCC unroll 16
  for (int r = 0; r < 16; ++r) v[r] = _mm512_load_si512(p->c + 16 * r);
  layer<8>(v, fwd_bf, [s](int) { return splat(s, 1); });
  layer<4>(v, fwd_bf, [s](int r) { return splat(s, 2 + r / 8); });
  layer<2>(v, fwd_bf, [s](int r) { return splat(s, 4 + r / 4); });
  layer<1>(v, fwd_bf, [s](int r) { return splat(s, 8 + r / 2); });
  transpose16(v);
  layer<8>(v, fwd_bf, [](int) { return lanes(kFwdLanes, 0); });
  layer<4>(v, fwd_bf, [](int c) { return lanes(kFwdLanes, 1 + c / 8); });
  layer<2>(v, fwd_bf, [](int c) { return lanes(kFwdLanes, 3 + c / 4); });
  layer<1>(v, fwd_bf, [](int c) { return lanes(kFwdLanes, 7 + c / 2); });
  transpose16(v);
#pragma GCC unroll 16
  for (int r = 0; r < 16; ++r) _mm512_store_si512(p->c + 16 * r, v[r]);
}

inline void invntt_tomont(mldsa::Poly* p) {
  const ScalarTwiddles* s = opaque(&kInvScalars);
  __m512i v[16];
#pragma GCC unroll 16
  for (int r = 0; r < 16; ++r) v[r] = _mm512_load_si512(p->c + 16 * r);
  transpose16(v);
  layer<1>(v, inv_bf, [](int c) { return lanes(kInvLanes, 7 + c / 2); });
  layer<2>(v, inv_bf, [](int c) { return lanes(kInvLanes, 3 + c / 4); });
  layer<4>(v, inv_bf, [](int c) { return lanes(kInvLanes, 1 + c / 8); });
  layer<8>(v, inv_bf, [](int) { return lanes(kInvLanes, 0); });
  transpose16(v);
  layer<1>(v, inv_bf, [s](int r) { return splat(s, 15 - r / 2); });
  layer<2>(v, inv_bf, [s](int r) { return splat(s, 7 - r / 4); });
  layer<4>(v, inv_bf, [s](int r) { return splat(s, 3 - r / 8); });
  layer<8>(v, inv_bf, [s](int) { return splat(s, 1); });
  const Tw f = splat(s, 0);
#pragma GCC unroll 16
  for (int r = 0; r < 16; ++r) _mm512_store_si512(p->c + 16 * r, montmul(v[r], f));
}

// mont(a * b) per lane for arbitrary a, b: the 64-bit products of the even
// and odd lanes, t = lo32(product * qinv), then as montmul.
inline __m512i montmul_vv(__m512i a, __m512i b) {
  const __m512i q = _mm512_set1_epi32(Q), qinv = _mm512_set1_epi32(mldsa::QINV);
  const __m512i pe = _mm512_mul_epi32(a, b);
  const __m512i po = _mm512_mul_epi32(odd_down(a), odd_down(b));
  const __m512i de = _mm512_sub_epi64(pe, _mm512_mul_epi32(_mm512_mul_epu32(pe, qinv), q));
  const __m512i dodd = _mm512_sub_epi64(po, _mm512_mul_epi32(_mm512_mul_epu32(po, qinv), q));
  return _mm512_mask_shuffle_epi32(dodd, 0x5555, de, _MM_PERM_DDBB);
}

// The 16 accumulators (the whole output polynomial) stay in registers while
// the terms stream through.
inline void pointwise_acc(mldsa::Poly* c, const mldsa::Poly* a, const mldsa::Poly* b, unsigned n) {
  __m512i acc[16];
#pragma GCC unroll 16
  for (int r = 0; r < 16; ++r) acc[r] = montmul_vv(_mm512_load_si512(a[0].c + 16 * r), _mm512_load_si512(b[0].c + 16 * r));
  for (unsigned i = 1; i < n; ++i) {
#pragma GCC unroll 16
    for (int r = 0; r < 16; ++r)
      acc[r] = _mm512_add_epi32(acc[r], montmul_vv(_mm512_load_si512(a[i].c + 16 * r), _mm512_load_si512(b[i].c + 16 * r)));
  }
#pragma GCC unroll 16
  for (int r = 0; r < 16; ++r) {
    const __m512i t = _mm512_srai_epi32(_mm512_add_epi32(acc[r], _mm512_set1_epi32(1 << 22)), 23);  // reduce32
    _mm512_store_si512(c->c + 16 * r, _mm512_sub_epi32(acc[r], _mm512_mullo_epi32(t, _mm512_set1_epi32(Q))));
  }
}

}  // namespace ntt16
}  // namespace
