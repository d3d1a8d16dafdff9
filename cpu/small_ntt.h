// small_ntt.h - products of small polynomials (c*s1, c*s2 of ML-DSA.Sign,
// Algorithm 7 lines 20 and 22) with an NTT over the small prime q' = 7681.
//
// c has tau coefficients in {-1, 1} and s1, s2 have coefficients in
// [-eta, eta], so every coefficient of c*s mod X^256+1 is at most
// tau*eta <= 196 in magnitude: its centred residue mod q' is the integer
// itself. q' - 1 = 15 * 512, so Z_q' has a primitive 512th root of unity and
// X^256+1 splits into linear factors: the transform ends in single
// coefficients and the product in the NTT domain is pointwise. q' < 2^13
// leaves room for lazy reduction in 16-bit lanes.
//
// The NTT' domain is one contract that every backend produces and consumes
// (expanded keys keep s1, s2 in it and may be used with any backend):
//  - values: the centred residues in [-(q'-1)/2, (q'-1)/2] of the evaluations
//    a(zeta'^(2 brv8(i) + 1)), no Montgomery factor;
//  - order: the standard bit-reversed order (index i as in FIPS 204
//    Algorithm 41) transposed as a 16x16 matrix: position 16 j + r holds
//    index 16 r + j. That is what a vector NTT leaves after its last layers
//    run across a transposed 16x16 block, so it skips one transpose each way.
#pragma once

#include <array>
#include <cstdint>

#include "cpu/ntt.h"
#include "cpu/poly.h"

namespace mldsa {

inline constexpr int32_t QS = 7681;  // q' = 15 * 2^9 + 1
inline constexpr int32_t QS_HALF = (QS - 1) / 2;

struct alignas(64) SmallPoly {
  int16_t c[N];
};

namespace small_ntt_detail {
using ntt_detail::brv8;
constexpr int64_t powmod(int64_t b, unsigned e) { return ntt_detail::powmod(b, e, QS); }
// The smallest z with z^256 = -1: its order divides 512 but not 256.
constexpr int32_t find_root512() {
  for (int32_t z = 2; z < QS; ++z)
    if (powmod(z, 256) == QS - 1) return z;
  return 0;
}
constexpr int32_t centre(int64_t v) {
  v %= QS;
  if (v < 0) v += QS;
  return static_cast<int32_t>(v > QS_HALF ? v - QS : v);
}
// zeta'^(+-brv8(k)) * m mod q', centred.
constexpr std::array<int16_t, N> make_zetas(bool inverse, int64_t m) {
  std::array<int16_t, N> z{};
  for (unsigned k = 0; k < N; ++k) {
    const unsigned e = inverse ? (512 - brv8(k)) % 512 : brv8(k);
    z[k] = static_cast<int16_t>(centre(powmod(find_root512(), e) * m));
  }
  return z;
}
}  // namespace small_ntt_detail

// Primitive 512th root of unity mod q'.
inline constexpr int32_t kZetaS = small_ntt_detail::find_root512();
static_assert(kZetaS != 0 && small_ntt_detail::powmod(kZetaS, 512) == 1);

// Twiddles of the forward (zeta'^brv8(k)) and inverse (zeta'^-brv8(k))
// butterflies of block k (k = 1 at len 128, 2..3 at len 64, ...), plain.
inline constexpr std::array<int16_t, N> kZetasS = small_ntt_detail::make_zetas(false, 1);
inline constexpr std::array<int16_t, N> kZetasSInv = small_ntt_detail::make_zetas(true, 1);

// Montgomery arithmetic with R = 2^16 and Barrett reduction in 16-bit lanes,
// shared by the kernels (scalar here; cpu/avx2, cpu/avx512 vectorise them).
namespace small_ntt_detail {
// q'^-1 mod 2^16 (Newton: each step doubles the correct low bits).
constexpr int16_t qinv16() {
  uint32_t x = QS;  // correct to 3 bits, as for any odd number
  for (int i = 0; i < 4; ++i) x = x * (2 - QS * x);
  return static_cast<int16_t>(x & 0xFFFF);
}
}  // namespace small_ntt_detail
inline constexpr int16_t kQSInv = small_ntt_detail::qinv16();
static_assert(static_cast<int16_t>(kQSInv * QS) == 1);

// A Montgomery multiplier: z = x * R mod q' (centred) and zq = z * q'^-1 mod
// 2^16, so that montmul(a, z, zq) = a * x mod q'.
struct SmallTwiddle {
  int16_t z, zq;
};
constexpr SmallTwiddle small_twiddle(int32_t x) {
  const int16_t z = static_cast<int16_t>(small_ntt_detail::centre(int64_t{x} << 16));
  return {z, static_cast<int16_t>(z * kQSInv)};
}
// The inverse transform leaves 256 * c * 2^-16 (pointwise Montgomery product,
// unscaled butterflies): multiplying by 256 gives c. The last layer's
// difference takes the factor together with its twiddle.
inline constexpr SmallTwiddle kSmallScale = small_twiddle(256);
inline constexpr SmallTwiddle kSmallScaleZ1 = small_twiddle(small_ntt_detail::centre(int64_t{kZetasSInv[1]} * 256));

// hi16(a * b): the top half of the 32-bit product (vpmulhw).
constexpr int16_t mulhi16(int16_t a, int16_t b) { return static_cast<int16_t>((int32_t{a} * b) >> 16); }
// a * b * 2^-16 mod q', |r| <= |a * b| / 2^16 + q' / 2: the low halves of a*b
// and t*q' agree, so the difference of the high halves is exact.
constexpr int16_t small_montmul(int16_t a, int16_t b, int16_t bq) {
  return static_cast<int16_t>(mulhi16(a, b) - mulhi16(static_cast<int16_t>(a * bq), static_cast<int16_t>(QS)));
}
// Barrett: round(a / q') = (hi16(a * 8737) + 2^9) >> 10 for every int16 a, so
// the result is the centred residue (the error of 8737 ~ 2^26 / q' is far
// below the distance of a / q' from a half-integer; checked below for all a).
inline constexpr int16_t kSmallBarrettV = 8737;
constexpr int16_t small_barrett(int16_t a) {
  const int32_t t = (mulhi16(a, kSmallBarrettV) + 512) >> 10;
  return static_cast<int16_t>(a - t * QS);
}
namespace small_ntt_detail {
constexpr bool barrett_is_exact() {
  for (int32_t a = -32768; a < 32768; ++a)
    if (small_barrett(static_cast<int16_t>(a)) != centre(a)) return false;
  return true;
}
static_assert(barrett_is_exact());
}  // namespace small_ntt_detail

// Position of standard NTT' index i in the contract's (transposed) order.
constexpr unsigned small_ntt_pos(unsigned i) { return 16 * (i % 16) + i / 16; }

// Portable versions (ref backend). In: |a_i| <= (q'-1)/2.
void small_ntt_ref(SmallPoly* a_hat, const Poly* a);
// c = NTT'^-1(a_hat o b_hat), centred mod q': the exact integer coefficients
// of a*b mod X^256+1 when those are at most (q'-1)/2 in magnitude.
void small_mul_ref(Poly* c, const SmallPoly* a_hat, const SmallPoly* b_hat);

}  // namespace mldsa
