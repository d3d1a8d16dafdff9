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
// Also permute_scalar: one state in general-purpose registers (the same
// round code over 64-bit integers), the single-state permutation of the
// vector backends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "cpu/keccak.h"

namespace keccak_lanes {

using mldsa::KECCAK_RC;
using mldsa::keccak_rho;

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
[[gnu::always_inline]] inline void rho_pi(typename Ops::V* B, const typename Ops::V* A, const typename Ops::V* D) {
  B[pi_dest(I)] = xor_rol<Ops, keccak_rho(I)>(A[I], D[I % 5]);
}

template <class Ops, size_t I>
[[gnu::always_inline]] inline void chi(typename Ops::V* A, const typename Ops::V* B) {
  constexpr size_t x = I % 5, y = I - x;
  A[I] = Ops::chi(B[I], B[y + (x + 1) % 5], B[y + (x + 2) % 5]);
}

// permute_inline is for loops that keep the state in registers around it
// (32 vector registers). The round's pieces are forced inline (lambdas take
// __attribute__, not [[gnu::]], in that place): left to g++'s growth limits,
// a file with more Keccak instances got them as calls, 4x the time.
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
    [&]<size_t... I>(std::index_sequence<I...>) __attribute__((always_inline)) { (rho_pi<Ops, I>(B, A, D), ...); }(std::make_index_sequence<25>{});
    [&]<size_t... I>(std::index_sequence<I...>) __attribute__((always_inline)) { (chi<Ops, I>(A, B), ...); }(std::make_index_sequence<25>{});
    A[0] = Ops::xor2(A[0], Ops::splat(KECCAK_RC[round]));
  }
}

// Where 25 lanes do not fit in the registers (16 vector registers, or 15
// general-purpose ones), a round streams the state from one buffer to
// another instead: it builds one output plane at a time from the five input
// lanes pi brings into it (theta and rho on the way in, chi and iota on the
// way out), and adds each plane into the next round's column sums C as it
// goes. Only C, D and one plane are live. For AVX2's four states this stores
// 39 vectors a round where the whole-state round spilled to 72 (Zen 3 stores
// one 256-bit vector a cycle): 0.90x the cycles.
template <class Ops, size_t Y>
[[gnu::always_inline]] inline void streamed_plane(const typename Ops::V* A, typename Ops::V* E,
                                                  const typename Ops::V* D, typename Ops::V* C, uint64_t rc) {
  using V = typename Ops::V;
  V B[5];
  // Output lane (X, Y) comes from input lane (x, y) = (X + 3Y, X).
  [&]<size_t... X>(std::index_sequence<X...>) __attribute__((always_inline)) {
    ((B[X] = xor_rol<Ops, keccak_rho((X + 3 * Y) % 5 + 5 * X)>(A[(X + 3 * Y) % 5 + 5 * X], D[(X + 3 * Y) % 5])), ...);
  }(std::make_index_sequence<5>{});
  [&]<size_t... X>(std::index_sequence<X...>) __attribute__((always_inline)) {
    ((E[X + 5 * Y] = Ops::chi(B[X], B[(X + 1) % 5], B[(X + 2) % 5])), ...);
  }(std::make_index_sequence<5>{});
  if constexpr (Y == 0) E[0] = Ops::xor2(E[0], Ops::splat(rc));
  for (int X = 0; X < 5; ++X) C[X] = Y == 0 ? E[X] : Ops::xor2(C[X], E[X + 5 * Y]);
}

// One round from A to E; C holds A's column sums before and E's after.
template <class Ops>
[[gnu::always_inline]] inline void streamed_round(const typename Ops::V* A, typename Ops::V* E, typename Ops::V* C,
                                                  uint64_t rc) {
  typename Ops::V D[5];
  for (int x = 0; x < 5; ++x) D[x] = xor_rol1<Ops>(C[(x + 4) % 5], C[(x + 1) % 5]);
  streamed_plane<Ops, 0>(A, E, D, C, rc);
  streamed_plane<Ops, 1>(A, E, D, C, rc);
  streamed_plane<Ops, 2>(A, E, D, C, rc);
  streamed_plane<Ops, 3>(A, E, D, C, rc);
  streamed_plane<Ops, 4>(A, E, D, C, rc);
}

// Two rounds per iteration, A -> E -> A, so the state ends in A.
template <class Ops>
inline void permute_streamed(typename Ops::V A[25]) {
  using V = typename Ops::V;
  V E[25], C[5];
  for (int x = 0; x < 5; ++x) C[x] = Ops::xor5(A[x], A[x + 5], A[x + 10], A[x + 15], A[x + 20]);
  for (int round = 0; round < 24; round += 2) {
    streamed_round<Ops>(A, E, C, KECCAK_RC[round]);
    streamed_round<Ops>(E, A, C, KECCAK_RC[round + 1]);
  }
}

// Whether Ops runs the streamed round: where the state does not fit in the
// registers, or where Ops says so (kStreamed): with 32 registers the
// streamed round is 0.86x the cycles of the whole-state one for 8 states in
// __m512i on Zen 5 (0.83x for 4 in __m256i).
template <class Ops>
constexpr bool streamed_form() {
  if constexpr (requires { Ops::kStreamed; })
    return Ops::kStreamed;
  else
    return Ops::kVectorRegisters < 32;
}

// Out of line, the form that suits the register file.
template <class Ops>
inline void permute(typename Ops::V A[25]) {
  if constexpr (streamed_form<Ops>())
    permute_streamed<Ops>(A);
  else
    permute_inline<Ops>(A);
}

namespace {
// One state in general-purpose registers (x86 with -mbmi -mbmi2: andn for
// chi, rorx for rho and theta; AArch64: bic, and eor with a rotated operand).
struct ScalarOps {
  using V = uint64_t;
  static constexpr unsigned kVectorRegisters = 0;  // 25 lanes do not fit: streamed
  static V splat(uint64_t v) { return v; }
  static V xor2(V a, V b) { return a ^ b; }
  static V xor5(V a, V b, V c, V d, V e) { return a ^ b ^ c ^ d ^ e; }
  static V chi(V a, V b, V c) { return a ^ (~b & c); }
  template <unsigned R>
  static V rol(V v) {
    if constexpr (R == 0)
      return v;
    else
      return (v << R) | (v >> (64 - R));
  }
};

inline void permute_scalar(uint64_t s[25]) { permute_streamed<ScalarOps>(s); }
}  // namespace

// The W states of A and one more state in general-purpose registers, round
// by round in one instruction stream, so the out-of-order core runs the
// scalar rounds on the integer pipes while the vector rounds wait on their
// own latencies. Where a vector round is latency-bound (Zen 5: 2-cycle
// vector operations, 37-57 cycles a round), the single state comes cheap:
// 1.05x the time of the AVX2 4-way permutation alone and 1.29x that of the
// AVX-512 8-way (streamed), against 1.61x and 1.93x run one after the other.
// Where the vector pipes are busy (Zen 3) it was 1.13-1.16x slower than
// running them in turn, so each backend's tables choose (cpu/backend.cc).
template <class Ops>
inline void permute_beside(typename Ops::V A[25], uint64_t one[25]) {
  using V = typename Ops::V;
  V E[25], C[5];
  uint64_t e[25], c[5];
  for (int x = 0; x < 5; ++x) C[x] = Ops::xor5(A[x], A[x + 5], A[x + 10], A[x + 15], A[x + 20]);
  for (int x = 0; x < 5; ++x) c[x] = one[x] ^ one[x + 5] ^ one[x + 10] ^ one[x + 15] ^ one[x + 20];
  for (int round = 0; round < 24; round += 2) {
    streamed_round<Ops>(A, E, C, KECCAK_RC[round]);
    streamed_round<ScalarOps>(one, e, c, KECCAK_RC[round]);
    streamed_round<Ops>(E, A, C, KECCAK_RC[round + 1]);
    streamed_round<ScalarOps>(e, one, c, KECCAK_RC[round + 1]);
  }
}

}  // namespace keccak_lanes
