// ntt_twiddles.h - what the vector NTTs (cpu/avx2/ntt8.h, cpu/avx512/ntt16.h)
// share: twiddles with their product by qinv precomputed, so a Montgomery
// product costs one multiply less, and the broadcast-twiddle table of the
// layers that pair whole vectors. ISA-neutral (no intrinsics).
#pragma once

#include <cstdint>

#include "cpu/ntt.h"
#include "cpu/poly.h"

namespace mldsa {

// z * qinv mod 2^32, as a signed lane.
constexpr int32_t qinv_mul(int32_t z) {
  return static_cast<int32_t>(static_cast<uint32_t>(z) * static_cast<uint32_t>(QINV));
}

// Broadcast twiddles {zeta, zeta * qinv} for the first K twiddle indices:
// [k] = zeta_k (forward), -zeta_k (inverse); [0] of the inverse table is
// 2^64/256 mod q.
template <int K>
struct ScalarTwiddles {
  int32_t zzq[K][2];
};
template <int K>
constexpr ScalarTwiddles<K> make_scalar_twiddles(bool inverse) {
  ScalarTwiddles<K> t{};
  for (int k = 0; k < K; ++k) {
    const int32_t z = k == 0 ? (inverse ? kInvNMont : 0) : inverse ? -kZetas[k] : kZetas[k];
    t.zzq[k][0] = z;
    t.zzq[k][1] = qinv_mul(z);
  }
  return t;
}

// The table's address goes through an empty asm so the compiler cannot fold
// the values into immediates: broadcasts from memory are plain loads, while
// broadcasting a constant built in a general register costs vector ops.
template <class T>
inline const T* opaque(const T* t) {
  asm("" : "+r"(t));
  return t;
}

}  // namespace mldsa
