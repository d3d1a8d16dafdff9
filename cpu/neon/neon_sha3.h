// neon_sha3.h - the parts of the NEON backend built with the SHA-3 extension
// (cpu/neon/neon_sha3.cc, -march=armv8.2-a+sha3): the 2-way Keccak with
// EOR3 / RAX1 / XAR / BCAX and the samplers that squeeze through it. Called
// only where HWCAP reports SHA3 (cpu/backend.cc).
#pragma once

#include <cstdint>

#include "cpu/poly.h"

namespace mldsa::neon_sha3 {

void keccakf1600x4(uint64_t s[4][25]);
void expand_a(Poly* A, const uint8_t rho[32], unsigned k, unsigned l);
void expand_s(Poly* s, unsigned n, const uint8_t rhoprime[64], unsigned eta, uint16_t nonce);
void expand_mask(Poly* y, unsigned l, const uint8_t rhopp[64], uint16_t kappa, unsigned gamma1_bits);

}  // namespace mldsa::neon_sha3
