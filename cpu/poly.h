// poly.h - polynomials of R_q = Z_q[X]/(X^256+1) and modular arithmetic.
#pragma once

#include <cstdint>

namespace mldsa {

inline constexpr int N = 256;
inline constexpr int32_t Q = 8380417;  // 2^23 - 2^13 + 1
inline constexpr int D = 13;           // dropped bits of t
inline constexpr int32_t QINV = 58728449;  // q^-1 mod 2^32
inline constexpr int MAX_K = 8, MAX_L = 7;

struct alignas(64) Poly {
  int32_t c[N];
};

// Montgomery reduction: returns r = a * 2^-32 mod q with -q < r < q,
// for |a| < 2^31 * q.
inline int32_t montgomery_reduce(int64_t a) {
  int32_t t = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(a)) * static_cast<uint32_t>(QINV));
  return static_cast<int32_t>((a - static_cast<int64_t>(t) * Q) >> 32);
}

// r = a mod q with -6283008 <= r <= 6283008, for a <= 2^31 - 2^22 - 1.
inline int32_t reduce32(int32_t a) {
  int32_t t = (a + (1 << 22)) >> 23;
  return a - t * Q;
}

// Adds q if a is negative.
inline int32_t caddq(int32_t a) { return a + ((a >> 31) & Q); }

// Standard representative in [0, q).
inline int32_t freeze(int32_t a) { return caddq(reduce32(a)); }

}  // namespace mldsa
