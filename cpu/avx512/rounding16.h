// rounding16.h - the signing loop's coefficient-wise steps on 16 x int32
// lanes (AVX-512 F/BW/DQ), as cpu/avx2/rounding8.h: the infinity-norm checks,
// the reductions they follow, MakeHint with its count, and caddq. Constant
// time: comparisons give mask registers that are only OR-ed, counted with
// vector adds, or used to select, never branched on.
//
// Anonymous namespace on purpose (built with the AVX-512 backend's flags).
#pragma once

#include <immintrin.h>

#include <cstdint>

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

}  // namespace rounding16
}  // namespace
