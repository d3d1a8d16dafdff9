// ntt.h - the number-theoretic transform over Z_q (FIPS 204 Algorithms 41-45),
// portable versions used by the ref backend.
#pragma once

#include <array>

#include "cpu/poly.h"

namespace mldsa {

namespace ntt_detail {
// b^e mod m (m = q unless given; also the NTT' over q' of small_ntt.h), in [0, m).
constexpr int64_t powmod(int64_t b, unsigned e, int64_t m = Q) {
  int64_t r = 1;
  b %= m;
  if (b < 0) b += m;
  while (e) {
    if (e & 1) r = r * b % m;
    b = b * b % m;
    e >>= 1;
  }
  return r;
}
constexpr unsigned brv8(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 8; ++i) r |= ((x >> i) & 1u) << (7 - i);
  return r;
}
constexpr std::array<int32_t, N> make_zetas() {
  constexpr int32_t kZeta = 1753;  // primitive 512th root of unity mod q
  std::array<int32_t, N> z{};
  for (unsigned i = 0; i < N; ++i) {
    int64_t v = powmod(kZeta, brv8(i)) * ((int64_t{1} << 32) % Q) % Q;
    if (v > Q / 2) v -= Q;
    z[i] = static_cast<int32_t>(v);
  }
  return z;
}
}  // namespace ntt_detail

// zeta^brv8(i) * 2^32 mod q, centred: the NTT's twiddle factors, derived at
// compile time so no table is typed in (backends and kernels share it).
inline constexpr std::array<int32_t, N> kZetas = ntt_detail::make_zetas();

// 2^64 / 256 mod q: undoes the 1/256 of the inverse transform and leaves one
// Montgomery factor 2^32 in the result.
inline constexpr int32_t kInvNMont = 41978;

void ntt_ref(Poly* a);
void invntt_tomont_ref(Poly* a);
void pointwise_acc_ref(Poly* c, const Poly* a, const Poly* b, unsigned n);

}  // namespace mldsa
