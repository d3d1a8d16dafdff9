// neon_sha3.cc - the NEON backend's Keccak users with the SHA-3 extension
// (see neon_sha3.h). Built with -march=armv8.2-a+sha3.
#include "cpu/neon/neon_sha3.h"

#include "cpu/neon/keccak2.h"
#include "cpu/neon/packing4.h"
#include "cpu/neon/sampling4.h"
#include "cpu/sampling_lanes.h"

#ifndef __ARM_FEATURE_SHA3
#error "cpu/neon/neon_sha3.cc needs the SHA-3 extension (-march=armv8.2-a+sha3)"
#endif

namespace mldsa::neon_sha3 {

void keccakf1600x4(uint64_t s[4][25]) { keccak2::permute_x4<keccak2::Sha3Ops>(s); }

void expand_a(Poly* A, const uint8_t rho[32], unsigned k, unsigned l) {
  keccak_lanes::expand_a<keccak2::Sha3Ops>(A, rho, k, l, sampling4::rej_ntt);
}
void expand_s(Poly* s, unsigned n, const uint8_t rhoprime[64], unsigned eta, uint16_t nonce) {
  keccak_lanes::expand_s<keccak2::Sha3Ops>(s, n, rhoprime, eta, nonce, sampling4::rej_bounded);
}
void expand_mask(Poly* y, unsigned l, const uint8_t rhopp[64], uint16_t kappa, unsigned gamma1_bits) {
  keccak_lanes::expand_mask<keccak2::Sha3Ops>(y, l, rhopp, kappa, gamma1_bits, packing4::unpack_z);
}

}  // namespace mldsa::neon_sha3
