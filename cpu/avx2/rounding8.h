// rounding8.h - the signing loop's coefficient-wise steps on 8 x int32 lanes
// (AVX2; the AVX-512 backend has its own in cpu/avx512/rounding16.h): the
// infinity-norm checks, the reductions they follow, MakeHint with its count,
// and caddq. Same results as cpu/rounding.cc; constant time (no branch or
// index on coefficients; the verdicts and the count leave as plain values).
//
// Anonymous namespace on purpose (built with different ISA flags per backend).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "cpu/ct.h"
#include "cpu/poly.h"

namespace {
namespace rounding8 {

inline __m256i load(const int32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
inline void store(int32_t* p, __m256i v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }

// reduce32: a - round(a / 2^23) * q.
inline __m256i reduce32(__m256i a) {
  const __m256i t = _mm256_srai_epi32(_mm256_add_epi32(a, _mm256_set1_epi32(1 << 22)), 23);
  return _mm256_sub_epi32(a, _mm256_mullo_epi32(t, _mm256_set1_epi32(mldsa::Q)));
}

// Lanes with |c| >= bound set in acc (all-ones lanes).
inline __m256i flag_exceeds(__m256i acc, __m256i c, __m256i bound_minus_1) {
  return _mm256_or_si256(acc, _mm256_cmpgt_epi32(_mm256_abs_epi32(c), bound_minus_1));
}
// All-ones if any lane of acc is set, else 0, without a branch.
inline uint32_t verdict(__m256i acc) {
  return mldsa::ct_mask_nonzero(static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(acc))));
}

inline uint32_t exceeds(const mldsa::Poly* a, int32_t bound) {
  const __m256i b1 = _mm256_set1_epi32(bound - 1);
  __m256i acc = _mm256_setzero_si256();
  for (int i = 0; i < mldsa::N; i += 8) acc = flag_exceeds(acc, load(a->c + i), b1);
  return verdict(acc);
}

inline uint32_t add_reduce_exceeds(mldsa::Poly* c, const mldsa::Poly* a, const mldsa::Poly* b, int32_t bound) {
  const __m256i b1 = _mm256_set1_epi32(bound - 1);
  __m256i acc = _mm256_setzero_si256();
  for (int i = 0; i < mldsa::N; i += 8) {
    __m256i v = load(a->c + i);
    if (b) v = _mm256_add_epi32(v, load(b->c + i));  // b's presence is public
    v = reduce32(v);
    store(c->c + i, v);
    acc = flag_exceeds(acc, v, b1);
  }
  return verdict(acc);
}

inline uint32_t sub_reduce_exceeds(mldsa::Poly* c, const mldsa::Poly* a, const mldsa::Poly* b, int32_t bound) {
  const __m256i b1 = _mm256_set1_epi32(bound - 1);
  __m256i acc = _mm256_setzero_si256();
  for (int i = 0; i < mldsa::N; i += 8) {
    const __m256i v = reduce32(_mm256_sub_epi32(load(a->c + i), load(b->c + i)));
    store(c->c + i, v);
    acc = flag_exceeds(acc, v, b1);
  }
  return verdict(acc);
}

// Hint where a0 = r0 + ct0 > gamma2, < -gamma2, or == -gamma2 with w1 != 0.
inline unsigned make_hint(mldsa::Poly* h, const mldsa::Poly* r0, const mldsa::Poly* ct0, const mldsa::Poly* w1,
                          int32_t gamma2) {
  const __m256i g = _mm256_set1_epi32(gamma2), ng = _mm256_set1_epi32(-gamma2), zero = _mm256_setzero_si256();
  __m256i count = zero;
  for (int i = 0; i < mldsa::N; i += 8) {
    const __m256i a0 = _mm256_add_epi32(load(r0->c + i), load(ct0->c + i));
    const __m256i edge = _mm256_andnot_si256(_mm256_cmpeq_epi32(load(w1->c + i), zero), _mm256_cmpeq_epi32(a0, ng));
    const __m256i hint = _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_abs_epi32(a0), g), edge);  // |a0| > gamma2
    store(h->c + i, _mm256_srli_epi32(hint, 31));
    count = _mm256_sub_epi32(count, hint);  // -(-1) per hint
  }
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(count), _mm256_extracti128_si256(count, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  return static_cast<unsigned>(_mm_cvtsi128_si32(s));
}

inline void caddq(mldsa::Poly* a) {
  const __m256i q = _mm256_set1_epi32(mldsa::Q);
  for (int i = 0; i < mldsa::N; i += 8) {
    const __m256i v = load(a->c + i);
    store(a->c + i, _mm256_add_epi32(v, _mm256_and_si256(_mm256_srai_epi32(v, 31), q)));
  }
}

// Power2Round of freeze(t + s2): t1 = (a + 2^12 - 1) >> 13, t0 = a - t1 * 2^13.
inline void power2round(mldsa::Poly* t1, mldsa::Poly* t0, const mldsa::Poly* t, const mldsa::Poly* s2) {
  const __m256i q = _mm256_set1_epi32(mldsa::Q), half = _mm256_set1_epi32((1 << (mldsa::D - 1)) - 1);
  for (int i = 0; i < mldsa::N; i += 8) {
    __m256i a = reduce32(_mm256_add_epi32(load(t->c + i), load(s2->c + i)));
    a = _mm256_add_epi32(a, _mm256_and_si256(_mm256_srai_epi32(a, 31), q));
    const __m256i hi = _mm256_srai_epi32(_mm256_add_epi32(a, half), mldsa::D);
    store(t1->c + i, hi);
    store(t0->c + i, _mm256_sub_epi32(a, _mm256_slli_epi32(hi, mldsa::D)));
  }
}

}  // namespace rounding8
}  // namespace
