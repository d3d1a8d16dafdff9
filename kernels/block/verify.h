// verify.h - ML-DSA.Verify from mu (FIPS 204 Algorithm 8 from line 7 on) as
// one block's task, with mu = H(H(pk) || M') on the device for the tasks
// whose message travels (as kernels/thread/verify.h, same verdicts and reasons).
//
//   block         the signature and pk staged in shared memory
//   thread 0      HintBitUnpack's checks and the hint bit masks (sequential,
//                 at most omega + k bytes)  |  warp 1: tr, mu (warp sponge)
//   warps         z (norm check, then z^ = NTT(z))
//   warp 0        c^ = NTT(SampleInBall(c~))  |  warps 1-3: the first rows' A^
//   per pass      rows i: w'_i = NTT^-1(A^[i] o z^ - c^ o NTT(t1_i 2^d)),
//                 w1'_i = UseHint(h_i, w'_i) packed into the hash input
//   warp 0        c~' = H(mu || w1'), compared with c~
#pragma once

#include "kernels/block/block.h"
#include "kernels/warp/sampling.h"
#include "kernels/thread/packing.h"
#include "kernels/thread/verify.h"

namespace mldsa::gpu::coop {

struct VerifyShared {
  BlockBase base;
  uint32_t sig = 0, pk = 0, tr = 0;
  uint32_t hash = 0;   // mu || w1Encode(w1'): the input of c~'
  uint32_t zhat = 0, chat = 0, cpoly = 0;
  uint32_t ball = 0;   // SampleInBall's squeezed block
  uint32_t ctilde = 0; // c~'
  uint32_t masks = 0;  // k * 8 words: hint bit of coefficient 32 x + lane of row i in word 8 i + x
  uint32_t flags = 0;  // one word per warp, then the verdict
  uint32_t a = 0;
  uint32_t rows_per_pass = 0, bytes = 0;

  MLDSA_HD explicit VerifyShared(const TaskParams& p) {
    SharedPlan plan;
    base.plan(plan);
    sig = plan.take(p.sig_bytes);
    pk = plan.take(p.pk_bytes);
    tr = plan.take(64);
    hash = plan.take(64 + p.k * 32 * w1_bits(p));
    zhat = plan.take(p.l * kPolyBytes);
    chat = plan.take(kPolyBytes);
    cpoly = plan.take(kPolyBytes);
    ball = plan.take(kShake256Rate);
    ctilde = plan.take(64);
    masks = plan.take(p.k * 8 * 4);
    flags = plan.take((kBlockWarps + 1) * 4);
    const uint32_t room = (kSharedBudget - plan.bytes) / (p.l * kPolyBytes);
    rows_per_pass = room < p.k ? room : p.k;
    a = plan.take(rows_per_pass * p.l * kPolyBytes);
    bytes = plan.bytes;
  }
  MLDSA_DEV Shared<int32_t> poly(uint32_t region, unsigned i) const {
    return simt::shared_at<int32_t>(region + i * kPolyBytes);
  }
};

// Threads 32.. sample A^[i][j] of rows [r0, r0 + rows) from rho (the staged pk).
MLDSA_DEV inline void verify_sample_rows(const TaskParams& p, const VerifyShared& S, unsigned r0, unsigned rows) {
  const unsigned t = simt::thread_index();
  if (t < simt::kWarpSize || t - simt::kWarpSize >= rows * p.l) return;
  const unsigned e = t - simt::kWarpSize;
  const Shared<int32_t> out = S.poly(S.a, e);
  lane_rej_ntt_poly(simt::shared_at<uint8_t>(S.pk), r0 + e / p.l, e % p.l, [&](unsigned c, int32_t v) { out[pad32(c)] = v; });
}

// message false: mu given (64 bytes); true: mu = H(H(pk) || M') of mprime
// (mprime_len bytes). Returns kVerifyOk, kVerifyFailed or
// kVerifyMalformedHint, in every thread.
MLDSA_DEV inline uint8_t block_verify(const TaskParams& p, const uint8_t* pk, const uint8_t* sig, bool message,
                                      const uint8_t* mu, const uint8_t* mprime, size_t mprime_len) {
  const VerifyShared S(p);
  const unsigned t = simt::thread_index(), w = simt::warp_index(), l = simt::lane();
  const Shared<int32_t> zetas = S.base.zeta_table(), scratch = S.base.warp_scratch();
  const Shared<uint8_t> ssig = simt::shared_at<uint8_t>(S.sig), spk = simt::shared_at<uint8_t>(S.pk);
  const Shared<uint8_t> hash = simt::shared_at<uint8_t>(S.hash);
  const Shared<uint32_t> masks = simt::shared_at<uint32_t>(S.masks), flags = simt::shared_at<uint32_t>(S.flags);
  const uint32_t zbytes = z_poly_bytes(p), hint_at = p.ctilde_bytes + p.l * zbytes;
  block_load_zetas(zetas);
  block_copy_in(ssig, sig, p.sig_bytes);
  block_copy_in(spk, pk, p.pk_bytes);
  simt::sync_block();

  if (t == 0) {
    // sigDecode's hint checks (line 3), then the rows' hint bits.
    const bool ok = hints_well_formed(ssig.raw() + hint_at, p.omega, p.k);
    for (unsigned i = 0; i < p.k * 8; ++i) masks[i] = 0;
    if (ok) {
      for (unsigned i = 0, idx = 0; i < p.k; ++i) {
        const unsigned end = ssig[hint_at + p.omega + i];
        for (; idx < end; ++idx) {
          const unsigned c = ssig[hint_at + idx];
          masks[8 * i + c / 32] |= 1u << (c % 32);
        }
      }
    }
    flags[kBlockWarps] = ok ? kVerifyOk : kVerifyMalformedHint;
  }
  if (w == 1) {  // mu = H(tr || M'), tr = H(pk, tr_bytes)  (lines 6-7), or the caller's mu
    if (message) {
      const Shared<uint8_t> tr = simt::shared_at<uint8_t>(S.tr);
      WarpSponge sp;
      warp_sponge_init(sp, kShake256Rate);
      warp_absorb(sp, spk, p.pk_bytes);
      warp_finalize(sp);
      warp_squeeze(sp, tr, p.tr_bytes);
      simt::sync_warp();
      warp_sponge_init(sp, kShake256Rate);
      warp_absorb(sp, tr, p.tr_bytes);
      warp_absorb(sp, mprime, mprime_len);
      warp_finalize(sp);
      warp_squeeze(sp, hash, 64);
    } else {
      for (unsigned b = l; b < 64; b += simt::kWarpSize) hash[b] = mu[b];
    }
  }
  simt::sync_block();
  if (flags[kBlockWarps] != kVerifyOk) return kVerifyMalformedHint;

  // z, checked against gamma1 - beta (line 13), then z^ = NTT(z).
  const int32_t bound = p.gamma1 - static_cast<int32_t>(p.beta);
  uint32_t bad = 0;
  for (unsigned j = w; j < p.l; j += kBlockWarps) {
    Frag z = unpack_strided(ssig + p.ctilde_bytes + j * zbytes, p.gamma1_bits + 1, p.gamma1, true);
    bad |= warp_exceeds(z, bound) ? 1u : 0u;
    warp_ntt(z, scratch, zetas);
    store_contiguous(S.poly(S.zhat, j), z);
  }
  warp_flag(flags, bad);
  // c^ = NTT(SampleInBall(c~))  (lines 8-9); the first rows' A^ meanwhile.
  if (w == 0) {
    const Shared<int32_t> c = S.poly(S.cpoly, 0);
    warp_sample_in_ball(c, ssig, p.ctilde_bytes, p.tau, simt::shared_at<uint8_t>(S.ball));
    Frag f = load_strided(c);
    warp_ntt(f, scratch, zetas);
    store_contiguous(S.poly(S.chat, 0), f);
  }
  verify_sample_rows(p, S, 0, S.rows_per_pass);
  simt::sync_block();
  if (block_or(flags) != 0) return kVerifyFailed;

  // Rows: w'_i = NTT^-1(sum_j A^[i][j] o z^[j] - c^ o NTT(t1_i 2^d))  (line 10),
  // w1'_i = UseHint(h_i, w'_i)  (line 11), packed into the hash input.
  const unsigned w1b = w1_bits(p);
  for (unsigned r0 = 0; r0 < p.k; r0 += S.rows_per_pass) {
    const unsigned rows = p.k - r0 < S.rows_per_pass ? p.k - r0 : S.rows_per_pass;
    if (r0 > 0) {
      verify_sample_rows(p, S, r0, rows);
      simt::sync_block();
    }
    for (unsigned i = r0 + w; i < r0 + rows; i += kBlockWarps) {
      Frag acc{};
      for (unsigned j = 0; j < p.l; ++j) {
        const Frag a = load_contiguous(S.poly(S.a, (i - r0) * p.l + j)), z = load_contiguous(S.poly(S.zhat, j));
        MLDSA_UNROLL
        for (unsigned x = 0; x < 8; ++x) {
          const int32_t prod = mont_mul(a.c[x], z.c[x]);
          acc.c[x] += prod;
        }
      }
      Frag ct1 = unpack_strided(spk + 32 + i * kT1Bytes, 10, 0, false);
      MLDSA_UNROLL
      for (unsigned x = 0; x < 8; ++x) ct1.c[x] <<= kD;
      warp_ntt(ct1, scratch, zetas);
      const Frag c = load_contiguous(S.poly(S.chat, 0));
      MLDSA_UNROLL
      for (unsigned x = 0; x < 8; ++x)
        acc.c[x] = reduce32(reduce32(acc.c[x]) - reduce32(mont_mul(c.c[x], ct1.c[x])));
      warp_invntt_tomont(acc, scratch, zetas);
      MLDSA_UNROLL
      for (unsigned x = 0; x < 8; ++x) {
        const int32_t h = static_cast<int32_t>((static_cast<uint32_t>(masks[8 * i + x]) >> l) & 1);
        acc.c[x] = use_hint(caddq(acc.c[x]), h, p.gamma2);
      }
      warp_to_contiguous(acc, scratch);
      pack_contiguous(hash + 64 + i * 32 * w1b, acc, w1b, 0, false);
    }
    simt::sync_block();
  }

  // c~' = H(mu || w1Encode(w1'), lambda/4)  (line 12), compared with c~.
  if (w == 0) {
    const Shared<uint8_t> ct = simt::shared_at<uint8_t>(S.ctilde);
    warp_challenge_seed(p, hash, ct);
    uint32_t diff = 0;
    for (unsigned b = l; b < p.ctilde_bytes; b += simt::kWarpSize)
      diff |= static_cast<uint32_t>(static_cast<uint8_t>(ct[b]) ^ static_cast<uint8_t>(ssig[b]));
    const bool differ = simt::any(diff != 0);
    if (l == 0) flags[kBlockWarps] = differ ? kVerifyFailed : kVerifyOk;
  }
  simt::sync_block();
  return static_cast<uint8_t>(flags[kBlockWarps]);
}

}  // namespace mldsa::gpu::coop
