// keccak2.h - two Keccak states in the 64-bit lanes of uint64x2_t: the Ops
// of cpu/keccak_lanes.h and cpu/sampling_lanes.h for AArch64 (Advanced SIMD),
// and the 4-way permutation as two 2-way ones.
//
// NeonOps is plain Advanced SIMD (a rotation is a shift plus a
// shift-and-insert). Sha3Ops, only in files built with the SHA-3 extension
// (__ARM_FEATURE_SHA3, cpu/neon/neon_sha3.cc), fuses theta's five-way xor
// (EOR3), its rotate-and-xor (RAX1), rho's xor-and-rotate (XAR) and chi
// (BCAX): one instruction each.
//
// Anonymous namespace on purpose: the file is built with and without the
// SHA-3 extension, and internal linkage keeps each copy with its own file.
#pragma once

#include <arm_neon.h>

#include <cstdint>

#include "cpu/keccak_lanes.h"

namespace {
namespace keccak2 {

struct NeonOps {
  using V = uint64x2_t;
  static constexpr unsigned kWays = 2;
  static constexpr unsigned kVectorRegisters = 32;
  static V load(const uint64_t* p) { return vld1q_u64(p); }
  static void store(uint64_t* p, V v) { vst1q_u64(p, v); }
  static V splat(uint64_t v) { return vdupq_n_u64(v); }
  static V xor2(V a, V b) { return veorq_u64(a, b); }
  static V xor5(V a, V b, V c, V d, V e) { return xor2(xor2(xor2(a, b), xor2(c, d)), e); }
  static V chi(V a, V b, V c) { return veorq_u64(a, vbicq_u64(c, b)); }  // a ^ (~b & c)
  template <unsigned R>
  static V rol(V v) {
    if constexpr (R == 0)
      return v;
    else
      return vsriq_n_u64(vshlq_n_u64(v, R), v, 64 - R);
  }
  // r[0] = lane i of both states, r[1] = lane i + 1 -> r[w] = lanes i, i + 1 of state w.
  static void transpose(V r[2]) {
    const V a = vzip1q_u64(r[0], r[1]);
    r[1] = vzip2q_u64(r[0], r[1]);
    r[0] = a;
  }
  static void store_lanes(uint8_t* p, V v, unsigned m) {
    if (m == 2)
      vst1q_u8(p, vreinterpretq_u8_u64(v));
    else
      vst1_u8(p, vreinterpret_u8_u64(vget_low_u64(v)));
  }
};

#ifdef __ARM_FEATURE_SHA3
struct Sha3Ops : NeonOps {
  static V xor5(V a, V b, V c, V d, V e) { return veor3q_u64(veor3q_u64(a, b, c), d, e); }
  static V chi(V a, V b, V c) { return vbcaxq_u64(a, c, b); }  // a ^ (c & ~b)
  template <unsigned R>
  static V xor_rol(V a, V b) {
    return vxarq_u64(a, b, (64 - R) % 64);  // rotate right by 64 - R
  }
  static V xor_rol1(V a, V b) { return vrax1q_u64(a, b); }  // a ^ rol(b, 1)
};
#endif

// Keccak-f[1600] on four states: states 0, 1 and then 2, 3 side by side.
template <class Ops>
inline void permute_x4(uint64_t s[4][25]) {
  for (int h = 0; h < 4; h += 2) {
    uint64x2_t A[25];
    for (int i = 0; i < 25; ++i) A[i] = vcombine_u64(vld1_u64(&s[h][i]), vld1_u64(&s[h + 1][i]));
    keccak_lanes::permute<Ops>(A);
    for (int i = 0; i < 25; ++i) {
      vst1_u64(&s[h][i], vget_low_u64(A[i]));
      vst1_u64(&s[h + 1][i], vget_high_u64(A[i]));
    }
  }
}

}  // namespace keccak2
}  // namespace
