// rounding4.h - the coefficient-wise steps of the signing loop, KeyGen and
// Verify on 4 x int32 lanes (AArch64 Advanced SIMD): the infinity-norm checks
// and the reductions they follow, MakeHint with its count, caddq,
// Power2Round, Decompose + w1Encode, UseHint + w1Encode. Same results as
// cpu/rounding.cc; constant time (no branch or index on coefficients; the
// verdicts and the count leave as plain values).
//
// Anonymous namespace on purpose (see keccak2.h).
#pragma once

#include <arm_neon.h>

#include <cstdint>

#include "cpu/ct.h"
#include "cpu/neon/ntt4.h"
#include "cpu/neon/packing4.h"
#include "cpu/poly.h"

namespace {
namespace rounding4 {

using mldsa::N;
using mldsa::Q;
using ntt4::reduce32;

// Lanes with |c| >= bound set in acc (all-ones lanes).
[[gnu::always_inline]] inline uint32x4_t flag_exceeds(uint32x4_t acc, int32x4_t c, int32x4_t bound_minus_1) {
  return vorrq_u32(acc, vcgtq_s32(vabsq_s32(c), bound_minus_1));
}
// All-ones if any lane of acc is set, else 0, without a branch.
[[gnu::always_inline]] inline uint32_t verdict(uint32x4_t acc) { return mldsa::ct_mask_nonzero(vmaxvq_u32(acc)); }

inline uint32_t exceeds(const mldsa::Poly* a, int32_t bound) {
  const int32x4_t b1 = vdupq_n_s32(bound - 1);
  uint32x4_t acc = vdupq_n_u32(0);
  for (int i = 0; i < N; i += 4) acc = flag_exceeds(acc, vld1q_s32(a->c + i), b1);
  return verdict(acc);
}

inline uint32_t add_reduce_exceeds(mldsa::Poly* c, const mldsa::Poly* a, const mldsa::Poly* b, int32_t bound) {
  const int32x4_t b1 = vdupq_n_s32(bound - 1);
  uint32x4_t acc = vdupq_n_u32(0);
  for (int i = 0; i < N; i += 4) {
    int32x4_t v = vld1q_s32(a->c + i);
    if (b) v = vaddq_s32(v, vld1q_s32(b->c + i));  // b's presence is public
    v = reduce32(v);
    vst1q_s32(c->c + i, v);
    acc = flag_exceeds(acc, v, b1);
  }
  return verdict(acc);
}

inline uint32_t sub_reduce_exceeds(mldsa::Poly* c, const mldsa::Poly* a, const mldsa::Poly* b, int32_t bound) {
  const int32x4_t b1 = vdupq_n_s32(bound - 1);
  uint32x4_t acc = vdupq_n_u32(0);
  for (int i = 0; i < N; i += 4) {
    const int32x4_t v = reduce32(vsubq_s32(vld1q_s32(a->c + i), vld1q_s32(b->c + i)));
    vst1q_s32(c->c + i, v);
    acc = flag_exceeds(acc, v, b1);
  }
  return verdict(acc);
}

// Hint where a0 = r0 + ct0 > gamma2, < -gamma2, or == -gamma2 with w1 != 0.
inline unsigned make_hint(mldsa::Poly* h, const mldsa::Poly* r0, const mldsa::Poly* ct0, const mldsa::Poly* w1,
                          int32_t gamma2) {
  const int32x4_t g = vdupq_n_s32(gamma2), ng = vdupq_n_s32(-gamma2);
  int32x4_t count = vdupq_n_s32(0);
  for (int i = 0; i < N; i += 4) {
    const int32x4_t a0 = vaddq_s32(vld1q_s32(r0->c + i), vld1q_s32(ct0->c + i));
    const int32x4_t w = vld1q_s32(w1->c + i);
    const uint32x4_t edge = vandq_u32(vtstq_s32(w, w), vceqq_s32(a0, ng));
    const uint32x4_t hint = vorrq_u32(vcgtq_s32(vabsq_s32(a0), g), edge);  // |a0| > gamma2
    vst1q_s32(h->c + i, vreinterpretq_s32_u32(vshrq_n_u32(hint, 31)));
    count = vsubq_s32(count, vreinterpretq_s32_u32(hint));  // -(-1) per hint
  }
  return static_cast<unsigned>(vaddvq_s32(count));
}

[[gnu::always_inline]] inline int32x4_t caddq_v(int32x4_t v) {
  return vaddq_s32(v, vandq_s32(vshrq_n_s32(v, 31), vdupq_n_s32(Q)));
}

inline void caddq(mldsa::Poly* a) {
  for (int i = 0; i < N; i += 4) vst1q_s32(a->c + i, caddq_v(vld1q_s32(a->c + i)));
}

// Power2Round of freeze(t + s2): t1 = (a + 2^12 - 1) >> 13, t0 = a - t1 * 2^13.
inline void power2round(mldsa::Poly* t1, mldsa::Poly* t0, const mldsa::Poly* t, const mldsa::Poly* s2) {
  const int32x4_t half = vdupq_n_s32((1 << (mldsa::D - 1)) - 1);
  for (int i = 0; i < N; i += 4) {
    const int32x4_t a = caddq_v(reduce32(vaddq_s32(vld1q_s32(t->c + i), vld1q_s32(s2->c + i))));
    const int32x4_t hi = vshrq_n_s32(vaddq_s32(a, half), mldsa::D);
    vst1q_s32(t1->c + i, hi);
    vst1q_s32(t0->c + i, vsubq_s32(a, vshlq_n_s32(hi, mldsa::D)));
  }
}

// Decompose (Algorithm 36) on 4 lanes of a in [0, q), the arithmetic of
// cpu/rounding.cc: multiply-shift division by 2*gamma2 (the rounding shifts
// add the ref's 2^21 or 2^23), branch-free centring.
[[gnu::always_inline]] inline int32x4_t decompose(int32x4_t* lo_out, int32x4_t v, int32_t gamma2) {
  int32x4_t hi = vshrq_n_s32(vaddq_s32(v, vdupq_n_s32(127)), 7);
  if (gamma2 == (Q - 1) / 32) {
    hi = vandq_s32(vrshrq_n_s32(vmulq_n_s32(hi, 1025), 22), vdupq_n_s32(15));
  } else {
    hi = vrshrq_n_s32(vmulq_n_s32(hi, 11275), 24);
    hi = veorq_s32(hi, vandq_s32(vshrq_n_s32(vsubq_s32(vdupq_n_s32(43), hi), 31), hi));  // 44 -> 0
  }
  int32x4_t lo = vmlsq_n_s32(v, hi, 2 * gamma2);
  lo = vsubq_s32(lo, vandq_s32(vshrq_n_s32(vsubq_s32(vdupq_n_s32((Q - 1) / 2), lo), 31), vdupq_n_s32(Q)));
  *lo_out = lo;
  return hi;
}

// Sign's rows: Decompose, then w1Encode. Constant time: w is secret.
inline void decompose_w1(mldsa::Poly* a1, mldsa::Poly* a0, uint8_t* w1enc, const mldsa::Poly* a, int32_t gamma2) {
  for (int i = 0; i < N; i += 4) {
    int32x4_t lo;
    vst1q_s32(a1->c + i, decompose(&lo, vld1q_s32(a->c + i), gamma2));
    vst1q_s32(a0->c + i, lo);
  }
  packing4::pack_w1(w1enc, a1, gamma2);
}

// Verify's rows: UseHint (Algorithm 40): a1 moves one step towards a0's side
// where h = 1, modulo 16 or 44; then w1Encode. Public data.
inline void use_hint_w1(uint8_t* w1enc, const mldsa::Poly* a, const mldsa::Poly* h, int32_t gamma2) {
  const bool g32 = gamma2 == (Q - 1) / 32;
  mldsa::Poly w1;
  const int32x4_t zero = vdupq_n_s32(0), one = vdupq_n_s32(1), n44 = vdupq_n_s32(44);
  for (int i = 0; i < N; i += 4) {
    int32x4_t lo;
    int32x4_t hi = decompose(&lo, vld1q_s32(a->c + i), gamma2);
    const int32x4_t hint = vld1q_s32(h->c + i);
    // down is -1 where a0 > 0, else 1; it applies where h != 0.
    const int32x4_t down = vorrq_s32(vreinterpretq_s32_u32(vcgtq_s32(lo, zero)), one);
    hi = vsubq_s32(hi, vandq_s32(down, vreinterpretq_s32_u32(vtstq_s32(hint, hint))));
    if (g32) {
      hi = vandq_s32(hi, vdupq_n_s32(15));
    } else {  // -1 -> 43, 44 -> 0
      hi = vaddq_s32(hi, vandq_s32(vreinterpretq_s32_u32(vcltq_s32(hi, zero)), n44));
      hi = vbicq_s32(hi, vreinterpretq_s32_u32(vceqq_s32(hi, n44)));
    }
    vst1q_s32(w1.c + i, hi);
  }
  packing4::pack_w1(w1enc, &w1, gamma2);
}

}  // namespace rounding4
}  // namespace
