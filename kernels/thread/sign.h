// sign.h - ML-DSA.Sign_internal from mu (FIPS 204 Algorithm 7 from line 7 on,
// the core's sign_mu) as thread-level tasks, split so a scheduler can run the
// rejection loop's iterations anywhere:
//
//   sign_expand_key   skDecode, ExpandA and the NTTs, once per key (Algorithm 7
//                     lines 1-5); the result is a block of 32-bit words that
//                     many tasks (one key, many messages) share.
//   sign_rhopp        rho'' = H(K || rnd || mu, 64), once per task (line 7);
//                     round 3: H(K || mu, 64) or the 64 random bytes.
//   sign_attempt      one iteration of the loop (lines 11-31) for attempt
//                     number r, i.e. kappa = r * l: true and the signature
//                     written iff this kappa's candidate is accepted.
//
// Attempts are independent of each other: the result of FIPS 204 is the
// signature of the smallest accepted r, whoever computes it and in which order
// (kernels/thread/sign_scheduler.h). Constant time as cpu/sign.cc is: only the
// accept/reject verdicts and the (public) challenge steer control flow.
#pragma once

#include "kernels/thread/packing.h"
#include "kernels/thread/sampling.h"

namespace mldsa::gpu {

// Layout of an expanded signing key, in 32-bit words: K (8 words, bytes), then
// s1^ (l polys), s2^ (k), t0^ (k) and A^ (k*l, row-major), all in NTT form.
MLDSA_HD inline uint32_t sign_key_s1(const TaskParams&) { return 8; }
MLDSA_HD inline uint32_t sign_key_s2(const TaskParams& p) { return 8 + kN * p.l; }
MLDSA_HD inline uint32_t sign_key_t0(const TaskParams& p) { return 8 + kN * (p.l + p.k); }
MLDSA_HD inline uint32_t sign_key_a(const TaskParams& p) { return 8 + kN * (p.l + 2 * p.k); }
MLDSA_HD inline uint32_t sign_key_words(const TaskParams& p) { return 8 + kN * (p.l + 2 * p.k + p.k * p.l); }

// Expands sk (skEncode bytes of a key the core accepted, PrivateKey::encoded())
// into key (sign_key_words(p) words). key holds secrets: the caller wipes it.
MLDSA_HD inline void sign_expand_key(const TaskParams& p, const uint8_t* sk, int32_t* key) {
  uint8_t* kbytes = reinterpret_cast<uint8_t*>(key);
  for (int i = 0; i < 32; ++i) kbytes[i] = sk[32 + i];  // K
  const uint8_t* rho = sk;
  const uint32_t eb = eta_poly_bytes(p);
  const uint8_t* q = sk + sk_s1_offset(p);
  int32_t* s1 = key + sign_key_s1(p);
  for (uint32_t j = 0; j < p.l; ++j, q += eb) {
    unpack_bits(s1 + j * kN, q, eta_bits(p), static_cast<int32_t>(p.eta), true);
    ntt(s1 + j * kN);
  }
  int32_t* s2 = key + sign_key_s2(p);
  for (uint32_t i = 0; i < p.k; ++i, q += eb) {
    unpack_bits(s2 + i * kN, q, eta_bits(p), static_cast<int32_t>(p.eta), true);
    ntt(s2 + i * kN);
  }
  int32_t* t0 = key + sign_key_t0(p);
  for (uint32_t i = 0; i < p.k; ++i, q += kT0Bytes) {
    unpack_bits(t0 + i * kN, q, kD, 1 << (kD - 1), true);
    ntt(t0 + i * kN);
  }
  expand_a(p, rho, key + sign_key_a(p));
}

// rho'' = H(K || rnd || mu, 64) with K from the expanded key, rnd p.rnd_bytes
// bytes (the core's sign_mu). Round 3: rnd itself when randomized, H(K || mu,
// 64) when deterministic (rnd all zero; only that verdict steers the branch).
MLDSA_HD inline void sign_rhopp(const TaskParams& p, const int32_t* key, const uint8_t* rnd, const uint8_t mu[64],
                                uint8_t rhopp[64]) {
  if (p.round3) {
    uint32_t any = 0;
    for (int i = 0; i < 64; ++i) any |= rnd[i];
    if (any != 0) {
      for (int i = 0; i < 64; ++i) rhopp[i] = rnd[i];
      return;
    }
  }
  Sponge sp;
  sponge_init(sp, kShake256Rate);
  sponge_absorb(sp, reinterpret_cast<const uint8_t*>(key), 32);
  if (!p.round3) sponge_absorb(sp, rnd, 32);
  sponge_absorb(sp, mu, 64);
  sponge_finalize(sp);
  sponge_squeeze(sp, rhopp, 64);
  wipe_words(sp.s, sizeof sp.s);
}

// v[e] = reduce32(c[16 row + e] * b[16 row + e] * 2^-32), e = 0..15: one row
// of the core's pointwise_acc with one term, for an inverse NTT's first pass.
MLDSA_HD inline void product_row(int32_t v[16], const int32_t* c, const int32_t* b, unsigned row) {
  MLDSA_UNROLL
  for (int e = 0; e < 16; ++e) v[e] = reduce32(mont_mul(c[16 * row + e], b[16 * row + e]));
}

// 1 if |v| >= bound (v reduced), without a branch on v.
MLDSA_HD inline uint32_t coeff_exceeds(int32_t v, int32_t bound) {
  v = v - ((v >> 31) & (2 * v));
  return static_cast<uint32_t>(bound - 1 - v) >> 31;
}

// All-ones if some |a_c| >= bound (a reduced), without a branch on a_c: the
// whole-polynomial check (sign_attempt checks each coefficient as its
// inverse NTT stores it; the cooperative kernels' warp_exceeds is tested
// against this).
MLDSA_HD inline uint32_t poly_exceeds(const int32_t a[kN], int32_t bound) {
  uint32_t any = 0;
  for (int c = 0; c < kN; ++c) any |= coeff_exceeds(a[c], bound);
  return 0u - any;
}

// MakeHint (Algorithm 39) on lo = r0 - c s2 + c t0 and the high bits hi of w:
// 1 iff lo > gamma2, lo < -gamma2, or lo == -gamma2 with hi != 0.
MLDSA_HD inline uint32_t make_hint(int32_t lo, int32_t hi, int32_t gamma2) {
  const uint32_t above = static_cast<uint32_t>(gamma2 - lo) >> 31;
  const uint32_t below = static_cast<uint32_t>(lo + gamma2) >> 31;
  const int32_t d = lo + gamma2;
  const uint32_t at_edge = static_cast<uint32_t>(((d | -d) >> 31) + 1) & 1u;
  const uint32_t hi_nonzero = static_cast<uint32_t>(hi | -hi) >> 31;
  return above | below | (at_edge & hi_nonzero);
}

// The loop's intermediates, in local memory. Secret, except what an accepted
// attempt leaves for sign_encode (c~, z, h); the caller wipes it (sign_wipe)
// when its unit of work is done, not after every attempt.
struct SignScratch {
  alignas(8) uint8_t ctilde[64];
  int32_t y[kMaxL][kN];
  int32_t z[kMaxL][kN];  // y^ until w is known
  int32_t w[kMaxK][kN];  // LowBits(w), then r0 - c s2
  uint8_t w1[kMaxK][kN];
  uint32_t hint[kMaxK][kN / 32];
  int32_t c_hat[kN];
  int32_t tmp[kN];                  // between the two passes of an inverse NTT
  alignas(8) uint8_t buf[32 * 20];  // one ExpandMask output / one packed w1 row
};

MLDSA_HD inline void sign_wipe(SignScratch& s) { wipe_words(&s, sizeof s); }

// One iteration of the rejection loop for attempt r (kappa = r * l, as a
// 16-bit nonce like the core's). True iff the candidate is accepted; then
// sign_encode(s) gives the signature. key: sign_expand_key's words; mu,
// rhopp: 64 bytes each.
//
// Local memory is what bounds this kernel (bench/gpu_model.py counts a
// thread kernel's local bytes as HBM bytes: 16 warps/SM x 32 tasks x ~20 KiB
// of SignScratch do not stay in L1/L2), so every step reads and writes each
// polynomial as few times as it can: the NTTs run in two register passes
// (ntt.h), the products A^ o y^ and c^ o s are computed in the inverse NTT's
// first pass (its load) and the rounding, the norm checks and the hints in
// its last (its store), so no product, no c s_i and no w is written to be
// read back; y^ is made from y in the forward NTT's first pass. The steps and
// their order are the core's, value for value.
MLDSA_HD inline bool sign_attempt(const TaskParams& p, const int32_t* key, const uint8_t* mu, const uint8_t* rhopp,
                                  uint32_t r, SignScratch& s) {
  const uint16_t kappa = static_cast<uint16_t>(r * p.l);
  const uint32_t zbits = p.gamma1_bits + 1;
  // y = ExpandMask(rho'', kappa) (Algorithm 34), y^ = NTT(y)  (lines 11-12)
  for (uint32_t j = 0; j < p.l; ++j) {
    Sponge sp;
    sponge_init(sp, kShake256Rate);
    sponge_absorb_lanes(sp, rhopp, 8);  // rhopp: an 8-aligned 64-byte slot
    sponge_absorb_value(sp, static_cast<uint16_t>(kappa + j), 2);
    sponge_finalize(sp);
    sponge_squeeze_lanes(sp, s.buf, 4 * zbits);
    wipe_words(sp.s, sizeof sp.s);
    // y_j is unpacked as the NTT's first pass reads it (column order), one
    // coefficient out of two words of the aligned buffer (packed_coeff), and
    // kept for z = y + c s1: no unpacking pass of its own (was ~39 SASS
    // instructions a coefficient, three guarded byte steps) and no re-read.
    int32_t* yj = s.y[j];
    ntt_with(s.z[j], [&](int c) {
      const int32_t v = static_cast<int32_t>(p.gamma1) - static_cast<int32_t>(packed_coeff(s.buf, c, zbits));
      yj[c] = v;
      return v;
    });
  }

  // w = NTT^-1(A^ o y^); w1 = HighBits(w); c~ = H(mu || w1Encode(w1))  (lines 12-15)
  Sponge hc;
  sponge_init(hc, kShake256Rate);
  sponge_absorb_lanes(hc, mu, 8);  // mu: an 8-aligned 64-byte slot
  const int32_t* a = key + sign_key_a(p);
  for (uint32_t i = 0; i < p.k; ++i) {
    const int32_t* ai = a + i * p.l * kN;
    int32_t* wi = s.w[i];
    uint8_t* w1i = s.w1[i];
    invntt_tomont_with(
        s.tmp,
        [&](unsigned row, int32_t v[16]) {
          // The l terms of 16 coefficients: a counted loop over j around
          // an unrolled block (was: a loop over j per coefficient, ~57 SASS
          // instructions a product, the loop's overhead and addressing).
          int32_t acc[16] = {};
          for (uint32_t j = 0; j < p.l; ++j) {  // model-trips: sign_l
            const int32_t* aj = ai + j * kN + 16 * row;
            const int32_t* zj = s.z[j] + 16 * row;
            MLDSA_UNROLL
            for (int e = 0; e < 16; ++e) acc[e] += mont_mul(aj[e], zj[e]);
          }
          MLDSA_UNROLL
          for (int e = 0; e < 16; ++e) v[e] = reduce32(acc[e]);
        },
        [&](int c, int, int32_t v) {
          int32_t r0;
          w1i[c] = static_cast<uint8_t>(decompose(&r0, caddq(v), p.gamma2));
          wi[c] = r0;  // w itself is no longer needed: keep LowBits
        });
    pack_bits(s.buf, w1i, w1_bits(p), 0, false);
    sponge_absorb_lanes(hc, s.buf, 4 * w1_bits(p));
  }
  sponge_finalize(hc);
  // The challenge is public (published with the signature; see cpu/ct.h).
  sponge_squeeze_lanes(hc, s.ctilde, p.ctilde_bytes / 8);
  sample_in_ball(s.c_hat, s.ctilde, p.ctilde_bytes, p.tau);
  ntt(s.c_hat);
  const int32_t* c_hat = s.c_hat;

  // z = y + c s1; reject if ||z|| >= gamma1 - beta  (lines 18-23)
  uint32_t reject = 0;
  const int32_t* s1 = key + sign_key_s1(p);
  const int32_t zbound = p.gamma1 - static_cast<int32_t>(p.beta);
  for (uint32_t j = 0; j < p.l; ++j) {  // model-trips: sign_l (the solver misses this one)
    const int32_t* s1j = s1 + j * kN;
    const int32_t* yj = s.y[j];
    int32_t* zj = s.z[j];
    invntt_tomont_with(
        s.tmp, [&](unsigned row, int32_t v[16]) { product_row(v, c_hat, s1j, row); },
        [&](int c, int, int32_t v) {
          const int32_t z = reduce32(yj[c] + v);
          zj[c] = z;
          reject |= coeff_exceeds(z, zbound);
        });
  }
  bool accepted = reject == 0;

  // r0 = LowBits(w) - c s2; reject if ||r0|| >= gamma2 - beta
  const int32_t* s2 = key + sign_key_s2(p);
  const int32_t r0bound = p.gamma2 - static_cast<int32_t>(p.beta);
  for (uint32_t i = 0; accepted && i < p.k; ++i) {
    const int32_t* s2i = s2 + i * kN;
    int32_t* wi = s.w[i];
    invntt_tomont_with(
        s.tmp, [&](unsigned row, int32_t v[16]) { product_row(v, c_hat, s2i, row); },
        [&](int c, int, int32_t v) {
          const int32_t r0 = reduce32(wi[c] - v);
          wi[c] = r0;
          reject |= coeff_exceeds(r0, r0bound);
        });
  }
  accepted = accepted && reject == 0;

  // c t0: reject if ||c t0|| >= gamma2; hints of r0 + c t0, at most omega  (lines 25-28)
  uint32_t ones = 0;
  const int32_t* t0 = key + sign_key_t0(p);
  const int32_t gamma2 = static_cast<int32_t>(p.gamma2);
  for (uint32_t i = 0; accepted && i < p.k; ++i) {
    const int32_t* t0i = t0 + i * kN;
    const int32_t* wi = s.w[i];
    const uint8_t* w1i = s.w1[i];
    // The inverse NTT's last pass stores column col = c mod 16, coefficients
    // col + 16 m: hint word m / 2, bit col + 16 (m mod 2). The words stay in
    // registers (constant indices once the pass is unrolled).
    uint32_t words[kN / 32] = {};
    invntt_tomont_with(
        s.tmp, [&](unsigned row, int32_t v[16]) { product_row(v, c_hat, t0i, row); },
        [&](int c, int m, int32_t v) {
          const int32_t ct0 = reduce32(v);
          const uint32_t h = make_hint(wi[c] + ct0, w1i[c], gamma2);
          words[m >> 1] |= h << ((c & 15) + 16 * (m & 1));
          ones += h;
          reject |= coeff_exceeds(ct0, gamma2);
        });
    for (int w = 0; w < kN / 32; ++w) s.hint[i][w] = words[w];
  }
  return accepted && reject == 0 && ones <= p.omega;
}

// sigEncode (Algorithm 26) of the accepted attempt in s: p.sig_bytes bytes.
MLDSA_HD inline void sign_encode(const TaskParams& p, const SignScratch& s, uint8_t* sig) {
  for (uint32_t b = 0; b < p.ctilde_bytes; ++b) sig[b] = s.ctilde[b];
  uint8_t* q = sig + p.ctilde_bytes;
  for (uint32_t j = 0; j < p.l; ++j, q += z_poly_bytes(p)) pack_bits(q, s.z[j], p.gamma1_bits + 1, p.gamma1, true);
  // HintBitPack (Algorithm 20): positions of the ones, then running counts.
  for (uint32_t b = 0; b < p.omega + p.k; ++b) q[b] = 0;
  uint32_t idx = 0;
  for (uint32_t i = 0; i < p.k; ++i) {
    for (int c = 0; c < kN; ++c)
      if ((s.hint[i][c / 32] >> (c % 32)) & 1) q[idx++] = static_cast<uint8_t>(c);
    q[p.omega + i] = static_cast<uint8_t>(idx);
  }
}

// The whole loop in one thread: attempts 0, 1, ... until one is accepted (the
// core's sign_mu), at most max_attempts of them. Returns the accepted
// attempt's number, or max_attempts when none was (sig is then untouched).
MLDSA_HD inline uint32_t sign_task(const TaskParams& p, const int32_t* key, const uint8_t* mu, const uint8_t* rnd,
                                   SignScratch& s, uint8_t* sig, uint32_t max_attempts) {
  uint8_t rhopp[64];
  sign_rhopp(p, key, rnd, mu, rhopp);
  uint32_t r = 0;
  while (r < max_attempts && !sign_attempt(p, key, mu, rhopp, r, s)) ++r;
  if (r < max_attempts) sign_encode(p, s, sig);
  wipe_words(rhopp, sizeof rhopp);
  sign_wipe(s);
  return r;
}

}  // namespace mldsa::gpu
