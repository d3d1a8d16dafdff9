// verify.h - ML-DSA.Verify from mu (FIPS 204 Algorithm 8 from line 7 on, the
// core's verify_mu) as one thread's task, and mu = H(H(pk) || M') for the
// tasks whose message travels to the device.
//
// Two ways to a public key's A^, NTT(t1 * 2^d) and tr: from its encoding,
// streaming (A^ is sampled into A^ o z^ as it is generated, t1 unpacked row by
// row; a task needs about (l + 3) KiB of local memory), or from an expanded
// public key (verify_expand_key, kept in the device's public-key cache, so a
// key verified many times skips ExpandA, 80 of ML-DSA-44's 88 permutations).
#pragma once

#include "kernels/thread/packing.h"
#include "kernels/thread/sampling.h"

namespace mldsa::gpu {

// What verify_task reports; the host maps it to the core's mldsa::Status
// (ok, verify_failed, sig_malformed_hint), so a reject on the GPU carries the
// same reason as on the CPU.
inline constexpr uint8_t kVerifyOk = 0, kVerifyFailed = 1, kVerifyMalformedHint = 2;
inline Status verify_result_status(uint8_t code) {
  return code == kVerifyOk ? Status::ok : code == kVerifyMalformedHint ? Status::sig_malformed_hint
                                                                         : Status::verify_failed;
}

// mu = H(tr || M', 64)  (Algorithm 8 line 7), tr p.tr_bytes bytes (round 3:
// 32, and M' is the message).
MLDSA_HD inline void message_mu_from_tr(const TaskParams& p, const uint8_t tr[64], const uint8_t* mprime,
                                        size_t mprime_len, uint8_t mu[64]) {
  Sponge sp;
  sponge_init(sp, kShake256Rate);
  sponge_absorb_lanes(sp, tr, p.tr_bytes / 8);  // tr: 8-byte aligned (a local, an expanded key)
  sponge_absorb(sp, mprime, mprime_len);
  sponge_finalize(sp);
  sponge_squeeze(sp, mu, 64);
}

// The same with tr = H(pk, tr_bytes)  (line 6).
MLDSA_HD inline void message_mu_task(const TaskParams& p, const uint8_t* pk, const uint8_t* mprime, size_t mprime_len,
                                     uint8_t mu[64]) {
  alignas(8) uint8_t tr[64];
  shake256_lanes(tr, p.tr_bytes, pk, p.pk_bytes);
  message_mu_from_tr(p, tr, mprime, mprime_len, mu);
}

// Layout of an expanded public key, in 32-bit words: tr (16 words, bytes),
// then NTT(t1 * 2^d) (k polys) and A^ (k*l, row-major), in NTT form. tr is
// always H(pk, 64): round 3's tr, H(pk, 32), is its first 32 bytes (SHAKE256
// output is a prefix of any longer output), so an expanded key is the same
// for both schemes and the device caches may share a slot between them.
MLDSA_HD inline uint32_t verify_key_t1(const TaskParams&) { return 16; }
MLDSA_HD inline uint32_t verify_key_a(const TaskParams& p) { return 16 + kN * p.k; }
MLDSA_HD inline uint32_t verify_key_words(const TaskParams& p) { return 16 + kN * (p.k + p.k * p.l); }

// pk (p.pk_bytes) into xpk (verify_key_words(p) words). All of it is public.
MLDSA_HD inline void verify_expand_key(const TaskParams& p, const uint8_t* pk, int32_t* xpk) {
  shake256_lanes(reinterpret_cast<uint8_t*>(xpk), 64, pk, p.pk_bytes);  // tr
  int32_t* t1 = xpk + verify_key_t1(p);
  for (uint32_t i = 0; i < p.k; ++i) {
    unpack_bits(t1 + i * kN, pk + 32 + i * kT1Bytes, 10, 0, false);
    for (int c = 0; c < kN; ++c) t1[i * kN + c] <<= kD;
    ntt(t1 + i * kN);
  }
  expand_a(p, pk, xpk + verify_key_a(p));
}

// kVerifyOk iff sig (p.sig_bytes) is a valid signature of mu (64 bytes) under
// the public key: pk (p.pk_bytes), or, when xpk is set, its expanded form
// (verify_expand_key; pk is then not read). Accepts and rejects exactly as
// mldsa::verify_mu does, with its reason: kVerifyMalformedHint where sigDecode
// fails, else kVerifyFailed.
MLDSA_HD inline uint8_t verify_task(const TaskParams& p, const uint8_t* pk, const int32_t* xpk, const uint8_t* mu,
                                    const uint8_t* sig) {
  const uint8_t* ctilde = sig;
  const uint8_t* zbytes = sig + p.ctilde_bytes;
  const uint8_t* hint = zbytes + p.l * z_poly_bytes(p);
  if (!hints_well_formed(hint, p.omega, p.k)) return kVerifyMalformedHint;  // sigDecode fails (line 3)

  // z, checked against gamma1 - beta (line 13), then in NTT form.
  int32_t z_hat[kMaxL][kN];
  const int32_t bound = p.gamma1 - static_cast<int32_t>(p.beta);
  for (uint32_t j = 0; j < p.l; ++j) {
    unpack_bits(z_hat[j], zbytes + j * z_poly_bytes(p), p.gamma1_bits + 1, p.gamma1, true);
    for (int c = 0; c < kN; ++c) {
      const int32_t v = z_hat[j][c];
      if (v >= bound || v <= -bound) return kVerifyFailed;
    }
    ntt(z_hat[j]);
  }

  // c^ = NTT(SampleInBall(c~))  (lines 8-9)
  int32_t c_hat[kN];
  sample_in_ball(c_hat, ctilde, p.ctilde_bytes, p.tau);
  ntt(c_hat);

  // c~' = H(mu || w1Encode(w1'), lambda/4)  (line 12), absorbed row by row.
  Sponge hc;
  sponge_init(hc, kShake256Rate);
  sponge_absorb_lanes(hc, mu, 8);  // mu: the chunk's alignas(8) local

  int32_t w[kN], ct1[kN];
  alignas(8) uint8_t w1enc[32 * 6];
  for (uint32_t i = 0; i < p.k; ++i) {
    // w'_approx_i = NTT^-1(sum_j A^[i][j] o z^[j] - c^ o NTT(t1_i * 2^d))  (line 10)
    const int32_t* t1_hat = ct1;
    if (xpk) {
      pointwise_acc(w, xpk + verify_key_a(p) + i * p.l * kN, &z_hat[0][0], p.l);
      t1_hat = xpk + verify_key_t1(p) + i * kN;
    } else {
      for (uint32_t j = 0; j < p.l; ++j) expand_a_mul_acc(w, pk, i, j, z_hat[j], j > 0);
      unpack_bits(ct1, pk + 32 + i * kT1Bytes, 10, 0, false);
      for (int c = 0; c < kN; ++c) ct1[c] <<= kD;
      ntt(ct1);
    }
    for (int c = 0; c < kN; ++c) w[c] = reduce32(w[c]) - reduce32(mont_mul(c_hat[c], t1_hat[c]));
    for (int c = 0; c < kN; ++c) w[c] = reduce32(w[c]);
    invntt_tomont(w);

    // w1'_i = UseHint(h_i, w'_approx_i)  (line 11). The hint indices of row i
    // are strictly increasing (checked above), so one pass consumes them.
    uint32_t next = i == 0 ? 0 : hint[p.omega + i - 1];
    const uint32_t end = hint[p.omega + i];
    for (int c = 0; c < kN; ++c) {
      int32_t h = 0;
      if (next < end && hint[next] == c) {
        h = 1;
        ++next;
      }
      w[c] = use_hint(caddq(w[c]), h, p.gamma2);
    }
    pack_bits(w1enc, w, w1_bits(p), 0, false);
    sponge_absorb_lanes(hc, w1enc, 4 * w1_bits(p));
  }
  sponge_finalize(hc);
  // Byte by byte on purpose: comparing a lane at a time (c~ gathered into
  // lanes, it is not 8-aligned in the batch) made ptxas spill 4 bytes at
  // the kernel's 128-register cap (tests/kernels/ptxas_check.py).
  uint8_t diff = 0;
  for (uint32_t i = 0; i < p.ctilde_bytes; ++i) diff |= sponge_squeeze_byte(hc) ^ ctilde[i];
  return diff == 0 ? kVerifyOk : kVerifyFailed;
}

}  // namespace mldsa::gpu
