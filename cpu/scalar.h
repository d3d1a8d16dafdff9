// scalar.h - the arithmetic on one coefficient that the core (cpu/) and the
// GPU task code (kernels/thread/, kernels/warp/) both need, written once: the
// constants of Z_q, Barrett-style and Montgomery reduction, Power2Round,
// Decompose and UseHint (FIPS 204 Sections 7.4-7.5). Marked MLDSA_HD so nvcc
// builds the same functions for the device; the core's portable backend calls
// them on the CPU, so the GPU's values are the core's by construction.
#pragma once

#include <cstdint>

#include "cpu/host_device.h"

namespace mldsa {

inline constexpr int N = 256;
inline constexpr int32_t Q = 8380417;      // 2^23 - 2^13 + 1
inline constexpr int D = 13;               // dropped bits of t
inline constexpr int32_t QINV = 58728449;  // q^-1 mod 2^32
inline constexpr int MAX_K = 8, MAX_L = 7;

// Montgomery reduction: r = a * 2^-32 mod q with -q < r < q, for |a| < 2^31 * q.
MLDSA_HD inline int32_t montgomery_reduce(int64_t a) {
  const int32_t t = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(a)) * static_cast<uint32_t>(QINV));
  return static_cast<int32_t>((a - static_cast<int64_t>(t) * Q) >> 32);
}

// r = a mod q with -6283008 <= r <= 6283008, for a <= 2^31 - 2^22 - 1.
MLDSA_HD inline int32_t reduce32(int32_t a) {
  const int32_t t = (a + (1 << 22)) >> 23;
  return a - t * Q;
}

// Adds q if a is negative.
MLDSA_HD inline int32_t caddq(int32_t a) { return a + ((a >> 31) & Q); }

// Standard representative in [0, q).
MLDSA_HD inline int32_t freeze(int32_t a) { return caddq(reduce32(a)); }

// Power2Round (Algorithm 35) for r in [0, q): r = r1 * 2^d + r0 with
// r0 in (-2^(d-1), 2^(d-1)]; returns r1.
MLDSA_HD inline int32_t power2round(int32_t* r0, int32_t r) {
  const int32_t r1 = (r + (1 << (D - 1)) - 1) >> D;
  *r0 = r - (r1 << D);
  return r1;
}

// Decompose (Algorithm 36) for r in [0, q): r = r1 * 2 gamma2 + r0, r0
// centred; returns r1. Branch-free on r: the divisions by 2 gamma2 are
// multiply-shifts exact over this range (the branch is on the public gamma2).
MLDSA_HD inline int32_t decompose(int32_t* r0, int32_t r, int32_t gamma2) {
  int32_t r1 = (r + 127) >> 7;
  if (gamma2 == (Q - 1) / 32) {
    r1 = (r1 * 1025 + (1 << 21)) >> 22;
    r1 &= 15;
  } else {  // (q-1)/88
    r1 = (r1 * 11275 + (1 << 23)) >> 24;
    r1 ^= ((43 - r1) >> 31) & r1;  // 44 wraps to 0
  }
  int32_t lo = r - r1 * 2 * gamma2;
  lo -= (((Q - 1) / 2 - lo) >> 31) & Q;  // centre around 0
  *r0 = lo;
  return r1;
}

// UseHint (Algorithm 40) for r in [0, q) and hint bit h. Verify only: public values.
MLDSA_HD inline int32_t use_hint(int32_t r, int32_t h, int32_t gamma2) {
  int32_t r0;
  const int32_t r1 = decompose(&r0, r, gamma2);
  if (h == 0) return r1;
  if (gamma2 == (Q - 1) / 32) return (r0 > 0 ? r1 + 1 : r1 - 1) & 15;
  return r0 > 0 ? (r1 == 43 ? 0 : r1 + 1) : (r1 == 0 ? 43 : r1 - 1);
}

}  // namespace mldsa
