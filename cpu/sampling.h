// sampling.h - pseudorandom sampling (FIPS 204 Section 7.3), portable versions.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/poly.h"

namespace mldsa {

void expand_a_ref(Poly* A, const uint8_t rho[32], unsigned k, unsigned l);
void expand_s_ref(Poly* s, unsigned n, const uint8_t rhoprime[64], unsigned eta, uint16_t nonce);
void expand_mask_ref(Poly* y, unsigned l, const uint8_t rhopp[64], uint16_t kappa, unsigned gamma1_bits);

// Building blocks shared with vectorised backends: parse a SHAKE stream into
// coefficients, starting at index ctr; return the new count (at most N).
unsigned rej_ntt_coeffs(int32_t* a, unsigned ctr, const uint8_t* buf, size_t len);
unsigned rej_bounded_coeffs(int32_t* a, unsigned ctr, const uint8_t* buf, size_t len, unsigned eta);

// SampleInBall (Algorithm 29): c with tau coefficients +-1, from c~ (public).
// first: the stream's first SHAKE256_RATE bytes where the caller has them
// (MaskHash::hash squeezes them beside the masks), else null.
void sample_in_ball(Poly* c, const uint8_t* ctilde, size_t ctilde_len, unsigned tau, const uint8_t* first = nullptr);

}  // namespace mldsa
