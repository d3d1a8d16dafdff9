// ntt8.h - NTT, inverse NTT and pointwise multiply-accumulate on 8 x int32
// lanes (AVX2; the AVX-512 backend builds the same code with EVEX encodings).
//
// Bit-identical to the ref backend: every butterfly is the ref's butterfly
// with the same Montgomery reduction (hi(a*z) - hi(q * lo(a*z*qinv)) equals
// (a - t*q) >> 32 exactly), and no reductions are added or dropped; only the
// order in which independent butterflies run differs. Layers are merged:
//   pass 1: 8 vectors at stride 32 (coefficients j + 32t) take layers 128..32;
//   pass 2: 8 vectors of 64 consecutive coefficients take layers 16 and 8, then
//           are transposed 8x8 so layers 4, 2, 1 run between whole vectors with
//           per-lane twiddles, and transposed back.
// The inverse runs the same passes backwards.
//
// Everything here is in an anonymous namespace on purpose: the file is built
// with different ISA flags in different backends, and internal linkage keeps
// each copy with its own backend.
#pragma once

#include <immintrin.h>

#include <array>
#include <cstdint>

#include "cpu/ntt.h"
#include "cpu/ntt_twiddles.h"
#include "cpu/poly.h"

namespace {
namespace ntt8 {

using mldsa::kZetas;
using mldsa::N;
using mldsa::Q;

using mldsa::opaque;
using mldsa::qinv_mul;

// Per-lane twiddles for the transposed layers of 64-coefficient group g:
// lane r is the 8-coefficient block 8g + r.
struct LaneTwiddles {
  // [g][0..7] layer 4; [g][8 + 8h] layer 2 (h: first/second pair of the
  // block); [g][24 + 8p] layer 1 (p: pair 0..3 of the block). zo, zqo: the
  // odd lanes' values moved down to the even lanes (vpmuldq reads those).
  int32_t z[4][56], zq[4][56], zo[4][56], zqo[4][56];
};

constexpr LaneTwiddles make_lane_twiddles(bool inverse) {
  LaneTwiddles t{};
  for (int g = 0; g < 4; ++g)
    for (int r = 0; r < 8; ++r) {
      const int b = 8 * g + r;  // block of 8 coefficients
      int idx[7] = {32 + b, 64 + 2 * b, 64 + 2 * b + 1, 128 + 4 * b, 128 + 4 * b + 1, 128 + 4 * b + 2,
                    128 + 4 * b + 3};
      if (inverse) {  // block m of a layer with B blocks uses -zeta[2B - 1 - m]
        idx[0] = 63 - b;
        idx[1] = 127 - 2 * b;
        idx[2] = 127 - (2 * b + 1);
        for (int p = 0; p < 4; ++p) idx[3 + p] = 255 - (4 * b + p);
      }
      for (int e = 0; e < 7; ++e) {
        const int32_t z = inverse ? -kZetas[idx[e]] : kZetas[idx[e]];
        t.z[g][8 * e + r] = z;
        t.zq[g][8 * e + r] = qinv_mul(z);
      }
    }
  for (int g = 0; g < 4; ++g)
    for (int i = 0; i < 56; ++i) {
      t.zo[g][i] = t.z[g][i | 1];
      t.zqo[g][i] = t.zq[g][i | 1];
    }
  return t;
}

alignas(64) constexpr LaneTwiddles kFwdLanes = make_lane_twiddles(false);
alignas(64) constexpr LaneTwiddles kInvLanes = make_lane_twiddles(true);

// Broadcast twiddles (cpu/ntt_twiddles.h) of the layers that pair whole vectors.
using ScalarTwiddles = mldsa::ScalarTwiddles<32>;
alignas(64) constexpr ScalarTwiddles kFwdScalars = mldsa::make_scalar_twiddles<32>(false);
alignas(64) constexpr ScalarTwiddles kInvScalars = mldsa::make_scalar_twiddles<32>(true);


// A twiddle as montmul wants it: z and zq = z * qinv in the even lanes, zo
// and zqo the odd lanes' values moved down to the even lanes.
struct Tw {
  __m256i z, zq, zo, zqo;
};
inline Tw splat(const ScalarTwiddles* t, int k) {
  const __m256i z = _mm256_set1_epi32(t->zzq[k][0]), zq = _mm256_set1_epi32(t->zzq[k][1]);
  return {z, zq, z, zq};
}
inline __m256i load(const int32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
inline void store(int32_t* p, __m256i v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
inline Tw lanes(const LaneTwiddles& t, int g, int off) {
  return {load(t.z[g] + off), load(t.zq[g] + off), load(t.zo[g] + off), load(t.zqo[g] + off)};
}

// Odd lanes copied down onto the even ones (vpshufd, imm 3,3,1,1).
inline __m256i odd_down(__m256i x) { return _mm256_shuffle_epi32(x, 0xF5); }

// mont(b * z) lane by lane: the 64-bit products b*z and t*q (t = lo32(b * zq))
// of the even and odd lanes. Their low halves agree, so each 64-bit
// difference holds the result in its high half.
inline __m256i montmul(__m256i b, const Tw& w) {
  const __m256i q = _mm256_set1_epi32(Q);
  const __m256i bo = odd_down(b);
  const __m256i de = _mm256_sub_epi64(_mm256_mul_epi32(b, w.z), _mm256_mul_epi32(_mm256_mul_epi32(b, w.zq), q));
  const __m256i dodd = _mm256_sub_epi64(_mm256_mul_epi32(bo, w.zo), _mm256_mul_epi32(_mm256_mul_epi32(bo, w.zqo), q));
  return _mm256_blend_epi32(odd_down(de), dodd, 0xAA);
}

// Forward butterfly: (a, b) -> (a + t, a - t), t = mont(zeta * b).
inline void fwd_bf(__m256i& a, __m256i& b, const Tw& w) {
  const __m256i t = montmul(b, w);
  b = _mm256_sub_epi32(a, t);
  a = _mm256_add_epi32(a, t);
}
// Inverse butterfly: (a, b) -> (a + b, mont(zeta' * (a - b))).
inline void inv_bf(__m256i& a, __m256i& b, const Tw& w) {
  const __m256i d = _mm256_sub_epi32(a, b);
  a = _mm256_add_epi32(a, b);
  b = montmul(d, w);
}

// One layer between whole vectors: butterflies (v[i], v[i + d]) for each i
// with bit d clear; tws(i) gives the butterfly's twiddle.
template <int D, class Bf, class Tws>
inline void layer(__m256i v[8], Bf bf, Tws tws) {
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i)
    if (!(i & D)) bf(v[i], v[i + D], tws(i));
}

inline void transpose8(__m256i v[8]) {
  __m256i t[8], u[8];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_epi32(v[2 * i], v[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_epi32(v[2 * i], v[2 * i + 1]);
  }
#pragma GCC unroll 2
  for (int i = 0; i < 2; ++i) {
    u[4 * i + 0] = _mm256_unpacklo_epi64(t[4 * i + 0], t[4 * i + 2]);
    u[4 * i + 1] = _mm256_unpackhi_epi64(t[4 * i + 0], t[4 * i + 2]);
    u[4 * i + 2] = _mm256_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm256_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    v[i] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x20);
    v[i + 4] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x31);
  }
}

inline void ntt(mldsa::Poly* p) {
  int32_t* a = p->c;
  const ScalarTwiddles* s = opaque(&kFwdScalars);
  __m256i v[8];
  for (int j = 0; j < 32; j += 8) {  // layers 128, 64, 32
#pragma GCC unroll 8
    for (int t = 0; t < 8; ++t) v[t] = load(a + j + 32 * t);
    layer<4>(v, fwd_bf, [s](int) { return splat(s, 1); });
    layer<2>(v, fwd_bf, [s](int t) { return splat(s, 2 + t / 4); });
    layer<1>(v, fwd_bf, [s](int t) { return splat(s, 4 + t / 2); });
#pragma GCC unroll 8
    for (int t = 0; t < 8; ++t) store(a + j + 32 * t, v[t]);
  }
  for (int g = 0; g < 4; ++g) {  // layers 16, 8, then 4, 2, 1 transposed
    int32_t* b = a + 64 * g;
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r) v[r] = load(b + 8 * r);
    layer<2>(v, fwd_bf, [s, g](int r) { return splat(s, 8 + 2 * g + r / 4); });
    layer<1>(v, fwd_bf, [s, g](int r) { return splat(s, 16 + 4 * g + r / 2); });
    transpose8(v);
    layer<4>(v, fwd_bf, [g](int) { return lanes(kFwdLanes, g, 0); });
    layer<2>(v, fwd_bf, [g](int c) { return lanes(kFwdLanes, g, 8 + 8 * (c / 4)); });
    layer<1>(v, fwd_bf, [g](int c) { return lanes(kFwdLanes, g, 24 + 8 * (c / 2)); });
    transpose8(v);
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r) store(b + 8 * r, v[r]);
  }
}

inline void invntt_tomont(mldsa::Poly* p) {
  int32_t* a = p->c;
  const ScalarTwiddles* s = opaque(&kInvScalars);
  __m256i v[8];
  for (int g = 0; g < 4; ++g) {  // layers 1, 2, 4 transposed, then 8, 16
    int32_t* b = a + 64 * g;
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r) v[r] = load(b + 8 * r);
    transpose8(v);
    layer<1>(v, inv_bf, [g](int c) { return lanes(kInvLanes, g, 24 + 8 * (c / 2)); });
    layer<2>(v, inv_bf, [g](int c) { return lanes(kInvLanes, g, 8 + 8 * (c / 4)); });
    layer<4>(v, inv_bf, [g](int) { return lanes(kInvLanes, g, 0); });
    transpose8(v);
    layer<1>(v, inv_bf, [s, g](int r) { return splat(s, 31 - (4 * g + r / 2)); });
    layer<2>(v, inv_bf, [s, g](int r) { return splat(s, 15 - (2 * g + r / 4)); });
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r) store(b + 8 * r, v[r]);
  }
  for (int j = 0; j < 32; j += 8) {  // layers 32, 64, 128, then the 2^64/256 factor
#pragma GCC unroll 8
    for (int t = 0; t < 8; ++t) v[t] = load(a + j + 32 * t);
    layer<1>(v, inv_bf, [s](int t) { return splat(s, 7 - t / 2); });
    layer<2>(v, inv_bf, [s](int t) { return splat(s, 3 - t / 4); });
    layer<4>(v, inv_bf, [s](int) { return splat(s, 1); });
    const Tw f = splat(s, 0);
#pragma GCC unroll 8
    for (int t = 0; t < 8; ++t) store(a + j + 32 * t, montmul(v[t], f));
  }
}

// mont(a * b) lane by lane for arbitrary a, b.
inline __m256i montmul_vv(__m256i a, __m256i b) {
  const __m256i q = _mm256_set1_epi32(Q), qinv = _mm256_set1_epi32(mldsa::QINV);
  const __m256i ao = _mm256_srli_epi64(a, 32), bo = _mm256_srli_epi64(b, 32);
  __m256i pe = _mm256_mul_epi32(a, b);
  __m256i po = _mm256_mul_epi32(ao, bo);
  const __m256i te = _mm256_mul_epi32(_mm256_mul_epu32(pe, qinv), q);
  const __m256i to = _mm256_mul_epi32(_mm256_mul_epu32(po, qinv), q);
  pe = _mm256_sub_epi64(pe, te);
  po = _mm256_sub_epi64(po, to);
  return _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
}

// reduce32: a - round(a / 2^23) * q.
inline __m256i reduce32(__m256i a) {
  const __m256i t = _mm256_srai_epi32(_mm256_add_epi32(a, _mm256_set1_epi32(1 << 22)), 23);
  return _mm256_sub_epi32(a, _mm256_mullo_epi32(t, _mm256_set1_epi32(Q)));
}

// The products are summed as 64-bit integers and reduced once per
// coefficient (one Montgomery reduction of the sum, not one per term): two
// multiplications per term and 8 coefficients instead of six. |a b| < 9 q^2 <
// 2^49.3, so up to 8 terms stay below 2^52.3, and the reduction of such a sum
// is below 2^52.3 / 2^32 + q/2 < q in magnitude. Sixteen coefficients at a
// time (four accumulators), the terms unrolled for each n the algorithms use:
// with n a run-time bound the loads of one term wait on the previous term's
// loop step. 0.54-0.64x the cycles of a reduction per term for n = 4, 5, 7
// and 0.61x for n = 1 (Zen 3, TSC ticks, both in one process, alternating).
template <unsigned kTerms>
inline void pointwise_acc_n(mldsa::Poly* c, const mldsa::Poly* a, const mldsa::Poly* b) {
  const __m256i q = _mm256_set1_epi32(Q), qinv = _mm256_set1_epi32(mldsa::QINV);
  for (int j = 0; j < N; j += 16) {
    __m256i e0 = _mm256_setzero_si256(), o0 = e0, e1 = e0, o1 = e0;
#pragma GCC unroll 8
    for (unsigned i = 0; i < kTerms; ++i) {
      const __m256i x0 = load(a[i].c + j), y0 = load(b[i].c + j);
      const __m256i x1 = load(a[i].c + j + 8), y1 = load(b[i].c + j + 8);
      e0 = _mm256_add_epi64(e0, _mm256_mul_epi32(x0, y0));
      o0 = _mm256_add_epi64(o0, _mm256_mul_epi32(_mm256_srli_epi64(x0, 32), odd_down(y0)));
      e1 = _mm256_add_epi64(e1, _mm256_mul_epi32(x1, y1));
      o1 = _mm256_add_epi64(o1, _mm256_mul_epi32(_mm256_srli_epi64(x1, 32), odd_down(y1)));
    }
    auto reduce = [&](__m256i e, __m256i o) {
      e = _mm256_sub_epi64(e, _mm256_mul_epi32(_mm256_mul_epu32(e, qinv), q));
      o = _mm256_sub_epi64(o, _mm256_mul_epi32(_mm256_mul_epu32(o, qinv), q));
      return _mm256_blend_epi32(odd_down(e), o, 0xAA);
    };
    store(c->c + j, reduce(e0, o0));
    store(c->c + j + 8, reduce(e1, o1));
  }
}

inline void pointwise_acc(mldsa::Poly* c, const mldsa::Poly* a, const mldsa::Poly* b, unsigned n) {
  switch (n) {  // 1 (c t0, c t1) and l = 4, 5, 7 in use; 1 <= n <= 8 (backend.h)
    case 1: return pointwise_acc_n<1>(c, a, b);
    case 2: return pointwise_acc_n<2>(c, a, b);
    case 3: return pointwise_acc_n<3>(c, a, b);
    case 4: return pointwise_acc_n<4>(c, a, b);
    case 5: return pointwise_acc_n<5>(c, a, b);
    case 6: return pointwise_acc_n<6>(c, a, b);
    case 7: return pointwise_acc_n<7>(c, a, b);
    default: return pointwise_acc_n<8>(c, a, b);
  }
}

}  // namespace ntt8
}  // namespace
