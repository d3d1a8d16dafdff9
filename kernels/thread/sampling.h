// sampling.h - ExpandA, ExpandS and SampleInBall (FIPS 204 Section 7.3), one
// thread per polynomial, reading candidates straight out of the sponge state.
//
// Thread-per-task version. The next step is warp-level rejection sampling:
// each lane tests one candidate, a ballot and a prefix count place the
// accepted ones.
#pragma once

#include "kernels/thread/keccak.h"
#include "kernels/thread/ntt.h"

namespace mldsa::gpu {

// The two rejection samplers over a finalized sponge, put(ctr, coefficient)
// for ctr = 0..255: the thread kernels here and the cooperative ones
// (kernels/warp/sampling.h, one lane per stream) share them.
// RejNTTPoly's (Algorithm 30): three bytes a candidate, a in [0, q). Public.
template <typename Put>
MLDSA_HD inline void rej_ntt_from(Sponge& sp, Put put) {
  int ctr = 0;
  while (ctr < kN) {  // model-trips: rej_ntt_blocks
    sponge_next_block(sp);
    // 168 bytes = 7 groups of 3 lanes, each 8 candidates of 3 bytes, cut
    // out of the lanes with constant shifts (lanes hold bytes little-endian)
    // instead of 3 byte loads a candidate. Candidates past the 256th are
    // read and dropped: the same coefficients, in the same order.
    for (uint32_t g = 0; g < kShake128Rate / 24; ++g) {
      const uint64_t w0 = sp.s[3 * g], w1 = sp.s[3 * g + 1], w2 = sp.s[3 * g + 2];
      const uint64_t cand[8] = {w0, w0 >> 24, (w0 >> 48) | (w1 << 16), w1 >> 8,
                                w1 >> 32, (w1 >> 56) | (w2 << 8), w2 >> 16, w2 >> 40};
      MLDSA_UNROLL
      for (int c = 0; c < 8; ++c) {
        const uint32_t t = static_cast<uint32_t>(cand[c]) & 0x7FFFFF;
        if (t < static_cast<uint32_t>(kQ) && ctr < kN) put(ctr++, static_cast<int32_t>(t));
      }
    }
  }
}

// RejBoundedPoly's (Algorithm 31): half-bytes, s in [-eta, eta]. The stream
// is secret: as in the core, only the accept bit steers control flow.
template <typename Put>
MLDSA_HD inline void rej_bounded_from(Sponge& sp, uint32_t eta, Put put) {
  int ctr = 0;
  while (ctr < kN) {  // model-trips: rej_bounded_blocks
    sponge_next_block(sp);
    // 136 bytes = 17 lanes of 16 half-bytes, low half first (byte order),
    // cut out with constant shifts.
    for (uint32_t w = 0; w < kShake256Rate / 8; ++w) {
      const uint64_t lane = sp.s[w];
      MLDSA_UNROLL
      for (int h = 0; h < 16; ++h) {
        const uint32_t b = static_cast<uint32_t>(lane >> (4 * h)) & 0x0F;
        if (ctr < kN) {
          if (eta == 2) {
            if (b < 15) put(ctr++, 2 - static_cast<int32_t>(b - ((205 * b) >> 10) * 5));  // 2 - (b mod 5)
          } else if (b < 9) {
            put(ctr++, 4 - static_cast<int32_t>(b));
          }
        }
      }
    }
  }
}

// One entry A^[i][j] = RejNTTPoly(rho || j || i) (Algorithms 30 and 32), never
// stored: each accepted coefficient a_c is multiplied into the product at once,
// acc_c (+)= a_c * b_c * 2^-32. "accumulate" false starts the sum, as the first
// term of the core's pointwise_acc does. A^ is public, so the branches are fine.
MLDSA_HD inline void expand_a_mul_acc(int32_t acc[kN], const uint8_t rho[32], unsigned i, unsigned j,
                                      const int32_t b[kN], bool accumulate) {
  Sponge sp;
  sponge_init(sp, kShake128Rate);
  sponge_absorb_lanes(sp, rho, 4);  // rho: 8-byte aligned (keygen's h, a key slot)
  sponge_absorb_value(sp, j | (i << 8), 2);
  sponge_finalize(sp);
  rej_ntt_from(sp, [&](int c, int32_t a) {
    const int32_t prod = mont_mul(a, b[c]);
    acc[c] = accumulate ? acc[c] + prod : prod;
  });
}

// ExpandA (Algorithm 32) stored: A^ (k*l polynomials, row-major) for the
// tasks that keep it (an expanded signing or public key). The sampler
// multiplies each entry into a product as it comes out; multiplying by the
// Montgomery one stores the entry itself (mod q, |a| < q).
MLDSA_HD inline void expand_a(const TaskParams& p, const uint8_t rho[32], int32_t* a) {
  int32_t one[kN];
  for (int c = 0; c < kN; ++c) one[c] = kMontOne;
  for (uint32_t i = 0; i < p.k; ++i)
    for (uint32_t j = 0; j < p.l; ++j) expand_a_mul_acc(a + (i * p.l + j) * kN, rho, i, j, one, false);
}

// RejBoundedPoly(rho' || nonce) (Algorithms 31 and 33): coefficients in
// [-eta, eta]. Whether a candidate is rejected depends on the secret stream;
// as in the core, only that accept bit steers control flow.
MLDSA_HD inline void expand_s_poly(int32_t s[kN], const uint8_t rhoprime[64], uint16_t nonce, uint32_t eta) {
  Sponge sp;
  sponge_init(sp, kShake256Rate);
  sponge_absorb_lanes(sp, rhoprime, 8);  // rhoprime: 8-byte aligned (keygen's h)
  sponge_absorb_value(sp, nonce, 2);
  sponge_finalize(sp);
  rej_bounded_from(sp, eta, [&](int c, int32_t v) { s[c] = v; });
  wipe_words(sp.s, sizeof sp.s);  // the stream is secret
}

// SampleInBall (Algorithm 29): c with tau coefficients +-1. Public (from c~).
MLDSA_HD inline void sample_in_ball(int32_t c[kN], const uint8_t* ctilde, uint32_t ctilde_len, uint32_t tau) {
  Sponge sp;
  sponge_init(sp, kShake256Rate);
  sponge_absorb(sp, ctilde, ctilde_len);
  sponge_finalize(sp);
  // The sign bits are the stream's first lane, and the positions are read
  // out of one lane at a time with a shift (the stream stays lane-aligned)
  // instead of a state index and shift a byte.
  uint64_t signs = sponge_squeeze_lane(sp);
  uint64_t lane = 0;
  uint32_t left = 0;  // bytes of lane not read yet
  for (int i = 0; i < kN; ++i) c[i] = 0;
  for (uint32_t i = kN - tau; i < static_cast<uint32_t>(kN); ++i) {
    uint32_t j;
    do {
      if (left == 0) {
        lane = sponge_squeeze_lane(sp);
        left = 8;
      }
      j = static_cast<uint32_t>(lane) & 0xFF;
      lane >>= 8;
      --left;
    } while (j > i);  // model-trips: ball_draws
    c[i] = c[j];
    c[j] = 1 - 2 * static_cast<int32_t>(signs & 1);
    signs >>= 1;
  }
}

}  // namespace mldsa::gpu
