// rounding.h - Power2Round, Decompose and UseHint (FIPS 204 Section 7.4,
// Algorithms 35, 36 and 40) on one coefficient, branch-free where the core is.
#pragma once

#include "kernels/task/params.h"

namespace mldsa::gpu {

// Power2Round for r in [0, q): r = r1 * 2^d + r0 with r0 in (-2^(d-1), 2^(d-1)].
MLDSA_HD inline int32_t power2round(int32_t* r0, int32_t r) {
  const int32_t r1 = (r + (1 << (kD - 1)) - 1) >> kD;
  *r0 = r - (r1 << kD);
  return r1;
}

// Decompose for r in [0, q): r = r1 * 2 gamma2 + r0, r0 centred; the divisions
// by 2 gamma2 are multiply-shifts exact on this range (as in cpu/rounding.cc).
MLDSA_HD inline int32_t decompose(int32_t* r0, int32_t r, int32_t gamma2) {
  int32_t r1 = (r + 127) >> 7;
  if (gamma2 == (kQ - 1) / 32) {
    r1 = (r1 * 1025 + (1 << 21)) >> 22;
    r1 &= 15;
  } else {  // (q-1)/88
    r1 = (r1 * 11275 + (1 << 23)) >> 24;
    r1 ^= ((43 - r1) >> 31) & r1;  // 44 wraps to 0
  }
  int32_t lo = r - r1 * 2 * gamma2;
  lo -= (((kQ - 1) / 2 - lo) >> 31) & kQ;
  *r0 = lo;
  return r1;
}

// UseHint for r in [0, q) and hint bit h. Verify only: public values.
MLDSA_HD inline int32_t use_hint(int32_t r, int32_t h, int32_t gamma2) {
  int32_t r0;
  const int32_t r1 = decompose(&r0, r, gamma2);
  if (h == 0) return r1;
  if (gamma2 == (kQ - 1) / 32) return (r0 > 0 ? r1 + 1 : r1 - 1) & 15;
  return r0 > 0 ? (r1 == 43 ? 0 : r1 + 1) : (r1 == 0 ? 43 : r1 - 1);
}

}  // namespace mldsa::gpu
