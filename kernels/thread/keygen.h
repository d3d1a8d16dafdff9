// keygen.h - ML-DSA.KeyGen_internal (FIPS 204 Algorithm 6), and round 3's
// KeyGen, as one thread's task.
//
// Streams its outputs: each polynomial is packed into pk / sk as soon as it is
// known, and A^ is never stored (each entry is sampled into the product
// A^ o s1^ as it comes out of SHAKE128, see expand_a_mul_acc), so a task needs
// about (l + 2) KiB of local memory.
#pragma once

#include "kernels/thread/packing.h"
#include "kernels/thread/sampling.h"

namespace mldsa::gpu {

// seed: the 32-byte xi (round 3: zeta). pk: p.pk_bytes, sk: p.sk_bytes
// (pkEncode / skEncode). pk must be readable after it is written (tr = H(pk)
// reads it back).
MLDSA_HD inline void keygen_task(const TaskParams& p, const uint8_t* seed, uint8_t* pk, uint8_t* sk) {
  // (rho, rho', K) = H(xi || k || l, 128)  (line 1); round 3 hashes zeta alone.
  alignas(8) uint8_t in[34], h[128];
  for (int i = 0; i < 32; ++i) in[i] = seed[i];
  in[32] = static_cast<uint8_t>(p.k);
  in[33] = static_cast<uint8_t>(p.l);
  Sponge sp;
  sponge_init(sp, kShake256Rate);
  sponge_absorb_lanes(sp, in, 4);
  if (!p.round3) sponge_absorb_value(sp, p.k | (p.l << 8), 2);
  sponge_finalize(sp);
  sponge_squeeze_lanes(sp, h, sizeof h / 8);
  wipe_words(sp.s, sizeof sp.s);
  const uint8_t* rho = h;
  const uint8_t* rhoprime = h + 32;
  for (int i = 0; i < 32; ++i) {
    pk[i] = rho[i];
    sk[i] = rho[i];
    sk[32 + i] = h[96 + i];  // K
  }
  const uint32_t eb = eta_poly_bytes(p);
  uint8_t* sk_s1 = sk + sk_s1_offset(p);
  uint8_t* sk_s2 = sk_s1 + p.l * eb;
  uint8_t* sk_t0 = sk_s2 + p.k * eb;

  // s1 (line 4), packed, then kept in NTT form.
  int32_t s1_hat[kMaxL][kN];
  for (uint32_t j = 0; j < p.l; ++j) {
    expand_s_poly(s1_hat[j], rhoprime, static_cast<uint16_t>(j), p.eta);
    pack_bits(sk_s1 + j * eb, s1_hat[j], eta_bits(p), static_cast<int32_t>(p.eta), true);
    ntt(s1_hat[j]);
  }

  // Row by row: t_i = NTT^-1(sum_j A^[i][j] o s1^[j]) + s2_i; (t1, t0) = Power2Round(t)
  // (lines 5-6), with s2_i sampled when row i needs it.
  int32_t t[kN], s2[kN];
  for (uint32_t i = 0; i < p.k; ++i) {
    for (uint32_t j = 0; j < p.l; ++j) expand_a_mul_acc(t, rho, i, j, s1_hat[j], j > 0);
    for (int c = 0; c < kN; ++c) t[c] = reduce32(t[c]);
    invntt_tomont(t);
    expand_s_poly(s2, rhoprime, static_cast<uint16_t>(p.l + i), p.eta);
    pack_bits(sk_s2 + i * eb, s2, eta_bits(p), static_cast<int32_t>(p.eta), true);
    for (int c = 0; c < kN; ++c) {
      int32_t t0;
      const int32_t t1 = power2round(&t0, freeze(t[c] + s2[c]));
      s2[c] = t1;  // s2 is packed already: reuse it for t1
      t[c] = t0;
    }
    pack_bits(pk + 32 + i * kT1Bytes, s2, 10, 0, false);
    pack_bits(sk_t0 + i * kT0Bytes, t, 13, 1 << (kD - 1), true);
  }

  // tr = H(pk, 64)  (line 8); 32 bytes in round 3
  shake256_lanes(sk + 64, p.tr_bytes, pk, p.pk_bytes);  // sk, pk: 8-aligned slots of 8k-byte keys

  // Wipe the secrets this thread held (local memory outlives the task).
  wipe_words(h, sizeof h);
  wipe_words(in, 32);
  wipe_words(s1_hat, sizeof s1_hat[0] * p.l);
  wipe_words(t, sizeof t);
  wipe_words(s2, sizeof s2);
}

}  // namespace mldsa::gpu
