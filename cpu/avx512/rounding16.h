// rounding16.h - the signing loop's coefficient-wise steps on 16 x int32
// lanes (AVX-512 F/BW/DQ), as cpu/avx2/rounding8.h: the infinity-norm checks,
// the reductions they follow, MakeHint with its count, and caddq; and
// Decompose / UseHint with w1Encode, as cpu/avx2/poly8.h. Constant
// time: comparisons give mask registers that are only OR-ed, counted with
// vector adds, or used to select, never branched on.
//
// Anonymous namespace on purpose (built with the AVX-512 backend's flags).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "cpu/avx512/packing16.h"
#include "cpu/ct.h"
#include "cpu/poly.h"

namespace {
namespace rounding16 {

// reduce32: a - round(a / 2^23) * q.
inline __m512i reduce32(__m512i a) {
  const __m512i t = _mm512_srai_epi32(_mm512_add_epi32(a, _mm512_set1_epi32(1 << 22)), 23);
  return _mm512_sub_epi32(a, _mm512_mullo_epi32(t, _mm512_set1_epi32(mldsa::Q)));
}

// Lanes with |c| >= bound.
inline __mmask16 over(__m512i c, __m512i bound_minus_1) {
  return _mm512_cmpgt_epi32_mask(_mm512_abs_epi32(c), bound_minus_1);
}
inline uint32_t verdict(uint32_t any) { return mldsa::ct_mask_nonzero(any); }

inline uint32_t exceeds(const mldsa::Poly* a, int32_t bound) {
  const __m512i b1 = _mm512_set1_epi32(bound - 1);
  uint32_t any = 0;
  for (int i = 0; i < mldsa::N; i += 16) any |= over(_mm512_load_si512(a->c + i), b1);
  return verdict(any);
}

inline uint32_t add_reduce_exceeds(mldsa::Poly* c, const mldsa::Poly* a, const mldsa::Poly* b, int32_t bound) {
  const __m512i b1 = _mm512_set1_epi32(bound - 1);
  uint32_t any = 0;
  for (int i = 0; i < mldsa::N; i += 16) {
    __m512i v = _mm512_load_si512(a->c + i);
    if (b) v = _mm512_add_epi32(v, _mm512_load_si512(b->c + i));  // b's presence is public
    v = reduce32(v);
    _mm512_store_si512(c->c + i, v);
    any |= over(v, b1);
  }
  return verdict(any);
}

inline uint32_t sub_reduce_exceeds(mldsa::Poly* c, const mldsa::Poly* a, const mldsa::Poly* b, int32_t bound) {
  const __m512i b1 = _mm512_set1_epi32(bound - 1);
  uint32_t any = 0;
  for (int i = 0; i < mldsa::N; i += 16) {
    const __m512i v = reduce32(_mm512_sub_epi32(_mm512_load_si512(a->c + i), _mm512_load_si512(b->c + i)));
    _mm512_store_si512(c->c + i, v);
    any |= over(v, b1);
  }
  return verdict(any);
}

// Hint where a0 = r0 + ct0 > gamma2, < -gamma2, or == -gamma2 with w1 != 0.
inline unsigned make_hint(mldsa::Poly* h, const mldsa::Poly* r0, const mldsa::Poly* ct0, const mldsa::Poly* w1,
                          int32_t gamma2) {
  const __m512i g = _mm512_set1_epi32(gamma2), ng = _mm512_set1_epi32(-gamma2), one = _mm512_set1_epi32(1);
  __m512i count = _mm512_setzero_si512();
  for (int i = 0; i < mldsa::N; i += 16) {
    const __m512i a0 = _mm512_add_epi32(_mm512_load_si512(r0->c + i), _mm512_load_si512(ct0->c + i));
    const __m512i w = _mm512_load_si512(w1->c + i);
    // |a0| > gamma2, or a0 == -gamma2 where w1 != 0
    const __mmask16 hint =
        _mm512_cmpgt_epi32_mask(_mm512_abs_epi32(a0), g) | _mm512_mask_cmpeq_epi32_mask(_mm512_test_epi32_mask(w, w), a0, ng);
    const __m512i bit = _mm512_maskz_mov_epi32(hint, one);
    _mm512_store_si512(h->c + i, bit);
    count = _mm512_add_epi32(count, bit);
  }
  return static_cast<unsigned>(_mm512_reduce_add_epi32(count));
}

inline void caddq(mldsa::Poly* a) {
  const __m512i q = _mm512_set1_epi32(mldsa::Q);
  for (int i = 0; i < mldsa::N; i += 16) {
    const __m512i v = _mm512_load_si512(a->c + i);
    _mm512_store_si512(a->c + i, _mm512_add_epi32(v, _mm512_and_si512(_mm512_srai_epi32(v, 31), q)));
  }
}

// Decompose (Algorithm 36) on 16 lanes of a in [0, q): the arithmetic of
// cpu/rounding.cc (multiply-shift division by 2*gamma2, branch-free centring).
inline __m512i decompose(__m512i* lo_out, __m512i v, int32_t gamma2) {
  using mldsa::Q;
  __m512i hi = _mm512_srai_epi32(_mm512_add_epi32(v, _mm512_set1_epi32(127)), 7);
  if (gamma2 == (Q - 1) / 32) {
    hi = _mm512_srai_epi32(_mm512_add_epi32(_mm512_mullo_epi32(hi, _mm512_set1_epi32(1025)), _mm512_set1_epi32(1 << 21)), 22);
    hi = _mm512_and_si512(hi, _mm512_set1_epi32(15));
  } else {
    hi = _mm512_srai_epi32(_mm512_add_epi32(_mm512_mullo_epi32(hi, _mm512_set1_epi32(11275)), _mm512_set1_epi32(1 << 23)), 24);
    hi = _mm512_maskz_mov_epi32(_mm512_cmpneq_epi32_mask(hi, _mm512_set1_epi32(44)), hi);  // 44 -> 0
  }
  __m512i lo = _mm512_sub_epi32(v, _mm512_mullo_epi32(hi, _mm512_set1_epi32(2 * gamma2)));
  // lo > (q-1)/2: lo - q
  lo = _mm512_mask_sub_epi32(lo, _mm512_cmpgt_epi32_mask(lo, _mm512_set1_epi32((Q - 1) / 2)), lo, _mm512_set1_epi32(Q));
  *lo_out = lo;
  return hi;
}

// w1Encode: SimpleBitPack in 4 or 6 bits.
inline void pack_w1(uint8_t* out, const int32_t* w, int32_t gamma2) {
  if (gamma2 == (mldsa::Q - 1) / 32)
    packing16::pack<4>(out, w, 0, false);
  else
    packing16::pack<6>(out, w, 0, false);
}

// Sign's rows: Decompose, then w1Encode. Constant time: w is secret.
inline void decompose_w1(mldsa::Poly* a1, mldsa::Poly* a0, uint8_t* w1enc, const mldsa::Poly* a, int32_t gamma2) {
  for (int i = 0; i < mldsa::N; i += 16) {
    __m512i lo;
    _mm512_store_si512(a1->c + i, decompose(&lo, _mm512_load_si512(a->c + i), gamma2));
    _mm512_store_si512(a0->c + i, lo);
  }
  pack_w1(w1enc, a1->c, gamma2);
}

// Verify's rows: UseHint (Algorithm 40): where h = 1, a1 moves one step
// towards a0's side (up if a0 > 0), modulo 16 or 44; then w1Encode.
inline void use_hint_w1(uint8_t* w1enc, const mldsa::Poly* a, const mldsa::Poly* h, int32_t gamma2) {
  const bool g32 = gamma2 == (mldsa::Q - 1) / 32;
  alignas(64) int32_t w1[mldsa::N];
  const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
  for (int i = 0; i < mldsa::N; i += 16) {
    __m512i lo;
    __m512i hi = decompose(&lo, _mm512_load_si512(a->c + i), gamma2);
    const __m512i hint = _mm512_load_si512(h->c + i);
    const __mmask16 up = _mm512_cmpgt_epi32_mask(lo, zero);
    const __mmask16 hinted = _mm512_test_epi32_mask(hint, hint);
    hi = _mm512_mask_add_epi32(hi, hinted & up, hi, one);
    hi = _mm512_mask_sub_epi32(hi, hinted & ~up, hi, one);
    if (g32) {
      hi = _mm512_and_si512(hi, _mm512_set1_epi32(15));
    } else {  // -1 -> 43, 44 -> 0
      hi = _mm512_mask_mov_epi32(hi, _mm512_cmpeq_epi32_mask(hi, _mm512_set1_epi32(-1)), _mm512_set1_epi32(43));
      hi = _mm512_maskz_mov_epi32(_mm512_cmpneq_epi32_mask(hi, _mm512_set1_epi32(44)), hi);
    }
    _mm512_store_si512(w1 + i, hi);
  }
  pack_w1(w1enc, w1, gamma2);
}

// Power2Round of freeze(t + s2), as rounding8::power2round.
inline void power2round(mldsa::Poly* t1, mldsa::Poly* t0, const mldsa::Poly* t, const mldsa::Poly* s2) {
  const __m512i q = _mm512_set1_epi32(mldsa::Q), half = _mm512_set1_epi32((1 << (mldsa::D - 1)) - 1);
  for (int i = 0; i < mldsa::N; i += 16) {
    __m512i a = reduce32(_mm512_add_epi32(_mm512_load_si512(t->c + i), _mm512_load_si512(s2->c + i)));
    a = _mm512_add_epi32(a, _mm512_and_si512(_mm512_srai_epi32(a, 31), q));
    const __m512i hi = _mm512_srai_epi32(_mm512_add_epi32(a, half), mldsa::D);
    _mm512_store_si512(t1->c + i, hi);
    _mm512_store_si512(t0->c + i, _mm512_sub_epi32(a, _mm512_slli_epi32(hi, mldsa::D)));
  }
}

}  // namespace rounding16
}  // namespace
