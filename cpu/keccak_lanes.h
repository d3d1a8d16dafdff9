// keccak_lanes.h - Keccak-f[1600] on several states at once, one state per
// 64-bit vector lane: lane i of the 25 vectors is state i.
//
// Written once over a small "Ops" type (xor, andnot-xor, rotate) so the
// vector backends share the round code: AVX2 (4 states in __m256i), AVX-512
// (4 in __m256i with vpternlogq / vprolq, or 8 in __m512i) and NEON (2 in
// uint64x2_t, plain or with the SHA-3 extension's EOR3 / RAX1 / XAR / BCAX).
// Ops may also supply the fused steps xor_rol<R>(a, b) = rol(a ^ b, R) and
// xor_rol1(a, b) = a ^ rol(b, 1); without them the round composes xor2 and
// rol. ISA-neutral (no intrinsics here). Include only from files built with
// the matching ISA flags, and declare the Ops types in an anonymous
// namespace: the instantiations are then local to that file, so no
// vector-ISA copy can be picked by the linker for another.
// Also permute_scalar: one state in general-purpose registers, the
// single-state permutation of the vector backends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "cpu/keccak.h"

namespace keccak_lanes {

using mldsa::KECCAK_RC;
using mldsa::KECCAK_RHO;

// Lane x + 5y moves to (y, 2x + 3y).
constexpr size_t pi_dest(size_t i) { return (i / 5) + 5 * ((2 * (i % 5) + 3 * (i / 5)) % 5); }

// rol(a ^ b, R) and a ^ rol(b, 1), fused where Ops has them.
template <class Ops, unsigned R>
[[gnu::always_inline]] inline typename Ops::V xor_rol(typename Ops::V a, typename Ops::V b) {
  if constexpr (requires { Ops::template xor_rol<R>(a, b); })
    return Ops::template xor_rol<R>(a, b);
  else
    return Ops::template rol<R>(Ops::xor2(a, b));
}
template <class Ops>
[[gnu::always_inline]] inline typename Ops::V xor_rol1(typename Ops::V a, typename Ops::V b) {
  if constexpr (requires { Ops::xor_rol1(a, b); })
    return Ops::xor_rol1(a, b);
  else
    return Ops::xor2(a, Ops::template rol<1>(b));
}

template <class Ops, size_t I>
inline void rho_pi(typename Ops::V* B, const typename Ops::V* A, const typename Ops::V* D) {
  B[pi_dest(I)] = xor_rol<Ops, KECCAK_RHO[I]>(A[I], D[I % 5]);
}

template <class Ops, size_t I>
inline void chi(typename Ops::V* A, const typename Ops::V* B) {
  constexpr size_t x = I % 5, y = I - x;
  A[I] = Ops::chi(B[I], B[y + (x + 1) % 5], B[y + (x + 2) % 5]);
}

// permute_inline is for loops that keep the state in registers around it
// (32 vector registers); permute, out of line, for everything else.
template <class Ops>
[[gnu::always_inline]] inline void permute_inline(typename Ops::V A[25]) {
  using V = typename Ops::V;
  // Four rounds per iteration: fewer register moves and spills at the loop
  // edge (0.93x the cycles of the rolled loop for 8 states in __m512i on
  // Zen 5; no change for AVX2).
#pragma GCC unroll 4
  for (int round = 0; round < 24; ++round) {
    V C[5], D[5], B[25];
    for (int x = 0; x < 5; ++x) C[x] = Ops::xor5(A[x], A[x + 5], A[x + 10], A[x + 15], A[x + 20]);
    for (int x = 0; x < 5; ++x) D[x] = xor_rol1<Ops>(C[(x + 4) % 5], C[(x + 1) % 5]);
    [&]<size_t... I>(std::index_sequence<I...>) { (rho_pi<Ops, I>(B, A, D), ...); }(std::make_index_sequence<25>{});
    [&]<size_t... I>(std::index_sequence<I...>) { (chi<Ops, I>(A, B), ...); }(std::make_index_sequence<25>{});
    A[0] = Ops::xor2(A[0], Ops::splat(KECCAK_RC[round]));
  }
}

template <class Ops>
inline void permute(typename Ops::V A[25]) {
  permute_inline<Ops>(A);
}

namespace {
// One state in general-purpose registers (x86 with -mbmi -mbmi2: andn for
// chi, rorx for rho and theta; AArch64: bic, and eor with a rotated operand).
// On x86 25 lanes do not fit in 15 registers, so the round
// streams the state instead: it builds one output plane at a time from the
// five input lanes pi brings into it (theta and rho on the way in, chi and
// iota on the way out) and writes it to a second buffer; only D (5) and one
// plane (5) are live. C is recomputed from the input plane loads rather than
// accumulated across the round, which keeps it out of registers too.
[[gnu::always_inline]] inline uint64_t rol_scalar(uint64_t v, unsigned r) {
  return r == 0 ? v : (v << r) | (v >> (64 - r));
}

[[gnu::always_inline]] inline void round_scalar(const uint64_t* A, uint64_t* E, uint64_t rc) {
  uint64_t C[5], D[5];
#pragma GCC unroll 5
  for (int x = 0; x < 5; ++x) C[x] = A[x] ^ A[x + 5] ^ A[x + 10] ^ A[x + 15] ^ A[x + 20];
#pragma GCC unroll 5
  for (int x = 0; x < 5; ++x) D[x] = C[(x + 4) % 5] ^ rol_scalar(C[(x + 1) % 5], 1);
#pragma GCC unroll 5
  for (int Y = 0; Y < 5; ++Y) {
    uint64_t B[5];
#pragma GCC unroll 5
    for (int X = 0; X < 5; ++X) {  // output lane (X, Y) comes from (x, y) = (X + 3Y, X)
      const int x = (X + 3 * Y) % 5;
      B[X] = rol_scalar(A[x + 5 * X] ^ D[x], KECCAK_RHO[x + 5 * X]);
    }
#pragma GCC unroll 5
    for (int X = 0; X < 5; ++X) E[X + 5 * Y] = B[X] ^ (~B[(X + 1) % 5] & B[(X + 2) % 5]) ^ (X + Y == 0 ? rc : 0);
  }
}

// Two rounds per iteration, s -> E -> s, so the state ends in s.
inline void permute_scalar(uint64_t s[25]) {
  uint64_t E[25];
  for (int round = 0; round < 24; round += 2) {
    round_scalar(s, E, KECCAK_RC[round]);
    round_scalar(E, s, KECCAK_RC[round + 1]);
  }
}
}  // namespace

}  // namespace keccak_lanes
