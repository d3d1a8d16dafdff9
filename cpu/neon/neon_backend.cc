// neon_backend.cc - the AArch64 Advanced SIMD (NEON) backend: 2-way Keccak
// (one state per 64-bit lane) for ExpandA / ExpandS / ExpandMask and the
// 4-way permutation, the scalar single-state Keccak of keccak_lanes.h, the
// 4 x int32 NTT (ntt4.h), the 8 x int16 NTT' over q' (small_ntt8.h), and
// 4-lane packing, rounding and sampling. Advanced SIMD is part of the AArch64
// base, so this file needs no extra flags. Two tables, both named "neon":
// with the SHA-3 extension (HWCAP_SHA3) the Keccak users come from
// neon_sha3.cc; backend.cc prefers that one where the CPU has it.
#include <arm_neon.h>

#include "cpu/backend.h"
#include "cpu/keccak_lanes.h"
#include "cpu/neon/keccak2.h"
#include "cpu/neon/neon_sha3.h"
#include "cpu/neon/ntt4.h"
#include "cpu/neon/packing4.h"
#include "cpu/neon/rounding4.h"
#include "cpu/neon/sampling4.h"
#include "cpu/neon/small_ntt8.h"
#include "cpu/sampling_lanes.h"

namespace mldsa {
namespace {

void keccakf1600_scalar(uint64_t s[25]) { keccak_lanes::permute_scalar(s); }
void keccakf1600x4_neon(uint64_t s[4][25]) { keccak2::permute_x4<keccak2::NeonOps>(s); }

void ntt_neon(Poly* a) { ntt4::ntt(a); }
void invntt_tomont_neon(Poly* a) { ntt4::invntt_tomont(a); }
void pointwise_acc_neon(Poly* c, const Poly* a, const Poly* b, unsigned n) { ntt4::pointwise_acc(c, a, b, n); }

void expand_a_neon(Poly* A, const uint8_t rho[32], unsigned k, unsigned l) {
  keccak_lanes::expand_a<keccak2::NeonOps>(A, rho, k, l, sampling4::rej_ntt);
}
void expand_s_neon(Poly* s, unsigned n, const uint8_t rhoprime[64], unsigned eta, uint16_t nonce) {
  keccak_lanes::expand_s<keccak2::NeonOps>(s, n, rhoprime, eta, nonce, sampling4::rej_bounded);
}
void expand_mask_neon(Poly* y, unsigned l, const uint8_t rhopp[64], uint16_t kappa, unsigned gamma1_bits) {
  keccak_lanes::expand_mask<keccak2::NeonOps>(y, l, rhopp, kappa, gamma1_bits, packing4::unpack_z);
}

// The table with the given Keccak users. Signing attempts are not grouped:
// not measured on Arm hardware yet, and the 4-way permutation is two 2-way
// ones, so grouping is unlikely to pay.
constexpr Backend neon_table(decltype(Backend::keccakf1600x4) keccakx4, decltype(Backend::expand_a) expand_a,
                             decltype(Backend::expand_s) expand_s, decltype(Backend::expand_mask) expand_mask) {
  return {
      "neon",
      keccakf1600_scalar,
      keccakx4,
      ntt_neon,
      invntt_tomont_neon,
      pointwise_acc_neon,
      small_ntt8::ntt,
      small_ntt8::mul,
      expand_a,
      expand_s,
      expand_mask,
      rounding4::decompose_w1,
      rounding4::use_hint_w1,
      packing4::pack_bits,
      packing4::unpack_bits,
      rounding4::exceeds,
      rounding4::add_reduce_exceeds,
      rounding4::sub_reduce_exceeds,
      rounding4::make_hint,
      rounding4::caddq,
      packing4::hint_positions,
      rounding4::power2round,
      {1, 1, 1},
      nullptr,  // expand_a_hash not measured on an Arm machine
      {0, 0, 0},
      {0, 0, 0},
      2,        // 2-way permutations: never more of them than without look-ahead (speed not measured on Arm)
      nullptr,  // masks and challenges on shared lanes: not measured on Arm
      {0, 0, 0},
  };
}

}  // namespace

extern const Backend kNeonBackend = neon_table(keccakf1600x4_neon, expand_a_neon, expand_s_neon, expand_mask_neon);
extern const Backend kNeonSha3Backend =
    neon_table(neon_sha3::keccakf1600x4, neon_sha3::expand_a, neon_sha3::expand_s, neon_sha3::expand_mask);

}  // namespace mldsa
