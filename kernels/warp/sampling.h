// sampling.h - ExpandA, ExpandS, ExpandMask (FIPS 204 Section 7.3) and
// SampleInBall for the cooperative kernels.
//
// ExpandA and ExpandS give a task k*l = 16..56 and l+k = 8..15 independent
// SHAKE streams: one state per lane (kernels/thread/keccak.h's sponge), each
// lane sampling its own polynomial, is the cheaper permutation there (one
// lane-permutation is ~4.7k instructions for the warp however many lanes
// run one; the warp sponge, kernels/warp/keccak.h, costs ~1k warp instructions per
// stream, so it loses once a warp has more than ~4-5 streams). Its price is
// registers: ptxas puts the Verify kernel at 160 registers with it and 80
// without (3 or 6 blocks per SM), KeyGen at 126; which way is faster over
// all needs a GPU (tests/gpu/device_check.sh). Outputs go to shared memory
// for the warps' polynomial arithmetic, except the expanded key's A^, which
// lanes write straight to global memory once per key.
//
// ExpandMask (l = 4..7 streams), SampleInBall and the other one-stream
// hashes use the warp sponge (sign.h says why for the mask); SampleInBall's
// Fisher-Yates steps are sequential: lane 0 runs them over the squeezed block.
#pragma once

#include "kernels/warp/keccak.h"
#include "kernels/thread/sampling.h"

namespace mldsa::gpu::coop {

// The two samplers below absorb their 34/66-byte inputs byte-wise on
// purpose: the thread sponge's lane steps (kernels/thread/keccak.h) were
// tried here and dropped, as the cost model counted coop_verify_kernel 3.1%
// higher (its per-lane permutation compiled longer, 168 registers) and
// coop_keygen_kernel 0.04% lower.
//
// RejNTTPoly(rho || j || i) (Algorithms 30 and 32) by this lane alone:
// put(ctr, a) for ctr = 0..255, a in [0, q). rho: 32 bytes (global or shared).
template <typename Rho, typename Put>
MLDSA_DEV inline void lane_rej_ntt_poly(Rho rho, unsigned i, unsigned j, Put put) {
  uint8_t in[34];
  for (unsigned b = 0; b < 32; ++b) in[b] = byte_at(rho, b);
  in[32] = static_cast<uint8_t>(j);
  in[33] = static_cast<uint8_t>(i);
  Sponge sp;
  sponge_init(sp, kShake128Rate);
  sponge_absorb(sp, in, sizeof in);
  sponge_finalize(sp);
  rej_ntt_from(sp, put);
}

// RejBoundedPoly(rho' || nonce) (Algorithms 31 and 33) by this lane alone:
// put(ctr, s) with s in [-eta, eta]. The stream is secret: only the accept
// bits steer control flow and addresses, as in the core; the state is wiped.
template <typename Seed, typename Put>
MLDSA_DEV inline void lane_rej_bounded_poly(Seed rhoprime, uint16_t nonce, uint32_t eta, Put put) {
  uint8_t in[66];
  for (unsigned b = 0; b < 64; ++b) in[b] = byte_at(rhoprime, b);
  in[64] = static_cast<uint8_t>(nonce);
  in[65] = static_cast<uint8_t>(nonce >> 8);
  Sponge sp;
  sponge_init(sp, kShake256Rate);
  sponge_absorb(sp, in, sizeof in);
  sponge_finalize(sp);
  rej_bounded_from(sp, eta, put);
  wipe_words(sp.s, sizeof sp.s);
  wipe_words(in, 64);
}

// c~ = H(mu || w1Encode(w1), lambda/4) (Algorithm 7 line 15, Algorithm 8
// line 12) by the warp: hash holds mu and the packed w1 (shared), c~ goes to
// ct; the warp has synchronised when it returns. Signing and verifying both.
MLDSA_DEV inline void warp_challenge_seed(const TaskParams& p, Shared<uint8_t> hash, Shared<uint8_t> ct) {
  WarpSponge sp;
  warp_sponge_init(sp, kShake256Rate);
  warp_absorb(sp, hash, 64 + p.k * 32 * w1_bits(p));
  warp_finalize(sp);
  warp_squeeze(sp, ct, p.ctilde_bytes);
  simt::sync_warp();
}

// ExpandMask's stream for one polynomial (Algorithm 34 line 4) by the warp:
// SHAKE256 of rho'' (64 bytes, global) || nonce, `blocks` whole blocks of
// 136 bytes into out (shared, 8-byte aligned). Secret: the state is cleared.
MLDSA_DEV inline void warp_mask_stream(const uint8_t* rhopp, uint16_t nonce, Shared<uint8_t> out, unsigned blocks) {
  WarpSponge sp;
  warp_sponge_init(sp, kShake256Rate);
  warp_absorb(sp, rhopp, 64);
  warp_absorb_value(sp, nonce, 2);
  warp_finalize(sp);
  warp_squeeze(sp, out, blocks * kShake256Rate);
  sp.s = 0;  // the stream is secret
}

// Bytes of ExpandMask's stream per polynomial, in whole blocks (5 for both
// 18- and 20-bit coefficients: 576 or 640 bytes).
MLDSA_HD constexpr unsigned mask_stream_blocks(unsigned zbits) { return (32 * zbits + kShake256Rate - 1) / kShake256Rate; }

// SampleInBall (Algorithm 29) by the warp: c (a padded polynomial in
// shared memory) gets tau coefficients +-1 from c~ (ctilde_len bytes,
// shared). buf: 136 bytes of shared memory, 8-byte aligned. Public data.
MLDSA_DEV inline void warp_sample_in_ball(Shared<int32_t> c, Shared<uint8_t> ctilde, unsigned ctilde_len, unsigned tau,
                                          Shared<uint8_t> buf) {
  const unsigned l = simt::lane();
  WarpSponge sp;
  warp_sponge_init(sp, kShake256Rate);
  warp_absorb(sp, ctilde, ctilde_len);
  warp_finalize(sp);
  warp_squeeze(sp, buf, kShake256Rate);
  for (unsigned j = 0; j < 8; ++j) c[pad32(l + 32 * j)] = 0;
  simt::sync_warp();
  // Lane 0's Fisher-Yates state; the other lanes only help squeeze.
  uint64_t signs = 0;
  unsigned pos = 8, i = kN - tau;
  if (l == 0)
    for (unsigned b = 0; b < 8; ++b) signs |= static_cast<uint64_t>(static_cast<uint8_t>(buf[b])) << (8 * b);
  for (;;) {
    if (l == 0) {
      while (i < static_cast<unsigned>(kN) && pos < kShake256Rate) {
        const unsigned j = buf[pos++];
        if (j > i) continue;
        const int32_t cj = c[pad32(j)];
        c[pad32(i)] = cj;
        c[pad32(j)] = 1 - 2 * static_cast<int32_t>(signs & 1);
        signs >>= 1;
        ++i;
      }
    }
    if (simt::shfl(i, 0) >= static_cast<unsigned>(kN)) break;
    simt::sync_warp();  // lane 0 is done with buf
    warp_squeeze(sp, buf, kShake256Rate);
    simt::sync_warp();
    pos = 0;
  }
  simt::sync_warp();
}

}  // namespace mldsa::gpu::coop
