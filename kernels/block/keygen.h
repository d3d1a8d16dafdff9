// keygen.h - ML-DSA.KeyGen_internal (FIPS 204 Algorithm 6) as one block's task.
//
//   warp 0        (rho, rho', K) = H(xi || k || l)           warp sponge
//   lanes         s1, s2 (warp 0, one lane per polynomial)  one state per lane
//                 A^ entries of the first rows (warps 1-3)
//   warps         s1 packed into sk, s1^ = NTT(s1)
//   per pass      rows i: t = NTT^-1(A^[i] o s1^) + s2_i, (t1, t0), packed
//                 (the next rows' A^ entries sampled by warps 1-3 between)
//   warp 0        tr = H(pk) into sk
// A^ is sampled in passes of as many rows as the 48 KiB shared-memory budget
// holds (all 4 rows of ML-DSA-44, 4 of 6 for ML-DSA-65, 3 of 8 for
// ML-DSA-87), so no entry is stored beyond the rows that use it.
#pragma once

#include "kernels/block/block.h"
#include "kernels/warp/sampling.h"

namespace mldsa::gpu::coop {

struct KeygenShared {
  BlockBase base;
  uint32_t seed = 0;   // rho | rho' | K (128 bytes)
  uint32_t s = 0;      // l + k padded polys: s1 (then s1^ in place), s2
  uint32_t a = 0;      // rows_per_pass * l padded polys: A^ entries
  uint32_t rows_per_pass = 0;
  uint32_t bytes = 0;

  MLDSA_HD explicit KeygenShared(const TaskParams& p) {
    SharedPlan plan;
    base.plan(plan);
    seed = plan.take(128);
    s = plan.take((p.l + p.k) * kPolyBytes);
    const uint32_t room = (kSharedBudget - plan.bytes) / (p.l * kPolyBytes);
    rows_per_pass = room < p.k ? room : p.k;
    a = plan.take(rows_per_pass * p.l * kPolyBytes);
    bytes = plan.bytes;
  }
  MLDSA_DEV Shared<int32_t> poly_s(unsigned i) const { return simt::shared_at<int32_t>(s + i * kPolyBytes); }
  MLDSA_DEV Shared<int32_t> poly_a(unsigned e) const { return simt::shared_at<int32_t>(a + e * kPolyBytes); }
};

// Threads 32.. sample A^[i][j] for the rows [r0, r0 + rows) into the A region.
MLDSA_DEV inline void keygen_sample_rows(const TaskParams& p, const KeygenShared& S, Shared<uint8_t> rho, unsigned r0,
                                         unsigned rows) {
  const unsigned t = simt::thread_index();
  if (t < simt::kWarpSize) return;
  const unsigned e = t - simt::kWarpSize;
  if (e >= rows * p.l) return;
  const Shared<int32_t> out = S.poly_a(e);
  lane_rej_ntt_poly(rho, r0 + e / p.l, e % p.l, [&](unsigned c, int32_t a) { out[pad32(c)] = a; });
}

// seed: 32 bytes; pk, sk: p.pk_bytes, p.sk_bytes (8-byte aligned), global.
MLDSA_DEV inline void block_keygen(const TaskParams& p, const uint8_t* seed, uint8_t* pk, uint8_t* sk) {
  const KeygenShared S(p);
  const unsigned t = simt::thread_index(), w = simt::warp_index();
  const Shared<int32_t> zetas = S.base.zeta_table(), scratch = S.base.warp_scratch();
  const Shared<uint8_t> hseed = simt::shared_at<uint8_t>(S.seed);
  const Shared<uint8_t> rho = hseed, rhoprime = hseed + 32;
  block_load_zetas(zetas);
  if (w == 0) {  // (rho, rho', K) = H(xi || k || l, 128)  (line 1); round 3 hashes zeta alone
    WarpSponge sp;
    warp_sponge_init(sp, kShake256Rate);
    warp_absorb(sp, seed, 32);
    if (!p.round3) warp_absorb_value(sp, p.k | (p.l << 8), 2);
    warp_finalize(sp);
    warp_squeeze(sp, hseed, 128);
  }
  simt::sync_block();

  const uint32_t eb = eta_poly_bytes(p);
  uint8_t* sk_s1 = sk + sk_s1_offset(p);
  uint8_t* sk_s2 = sk_s1 + p.l * eb;
  uint8_t* sk_t0 = sk_s2 + p.k * eb;
  // pk = rho || ..., sk = rho || K || ...
  for (unsigned b = t; b < 64; b += simt::block_size()) {
    const uint8_t v = hseed[b < 32 ? b : 96 + b - 32];
    if (b < 32) pk[b] = v;
    sk[b] = v;
  }
  // s1, s2 (line 4): warp 0, a lane per polynomial; the first rows' A^ entries: warps 1-3.
  if (t < p.l + p.k) {
    const Shared<int32_t> out = S.poly_s(t);
    lane_rej_bounded_poly(rhoprime, static_cast<uint16_t>(t), p.eta, [&](unsigned c, int32_t v) { out[pad32(c)] = v; });
  }
  keygen_sample_rows(p, S, rho, 0, S.rows_per_pass);
  simt::sync_block();

  // s1 into sk, then s1^ = NTT(s1) in place.
  for (unsigned j = w; j < p.l; j += kBlockWarps) {
    pack_contiguous(sk_s1 + j * eb, load_contiguous(S.poly_s(j)), eta_bits(p), static_cast<int32_t>(p.eta), true);
    Frag f = load_strided(S.poly_s(j));
    warp_ntt(f, scratch, zetas);
    store_contiguous(S.poly_s(j), f);
  }
  simt::sync_block();

  // Rows (lines 5-6): t_i = NTT^-1(sum_j A^[i][j] o s1^[j]) + s2_i; (t1, t0) = Power2Round(t).
  for (unsigned r0 = 0; r0 < p.k; r0 += S.rows_per_pass) {
    const unsigned rows = p.k - r0 < S.rows_per_pass ? p.k - r0 : S.rows_per_pass;
    if (r0 > 0) {
      keygen_sample_rows(p, S, rho, r0, rows);
      simt::sync_block();
    }
    for (unsigned i = r0 + w; i < r0 + rows; i += kBlockWarps) {
      Frag acc{};
      for (unsigned j = 0; j < p.l; ++j) {
        const Frag a = load_contiguous(S.poly_a((i - r0) * p.l + j)), b = load_contiguous(S.poly_s(j));
        MLDSA_UNROLL
        for (unsigned x = 0; x < 8; ++x) {
          const int32_t prod = mont_mul(a.c[x], b.c[x]);
          acc.c[x] += prod;
        }
      }
      MLDSA_UNROLL
      for (unsigned x = 0; x < 8; ++x) acc.c[x] = reduce32(acc.c[x]);
      warp_invntt_tomont(acc, scratch, zetas);
      const Shared<int32_t> s2 = S.poly_s(p.l + i);
      pack_contiguous(sk_s2 + i * eb, load_contiguous(s2), eta_bits(p), static_cast<int32_t>(p.eta), true);
      const Frag e = load_strided(s2);
      Frag t1, t0;
      MLDSA_UNROLL
      for (unsigned x = 0; x < 8; ++x) t1.c[x] = power2round(&t0.c[x], freeze(acc.c[x] + e.c[x]));
      warp_to_contiguous(t1, scratch);
      pack_contiguous(pk + 32 + i * kT1Bytes, t1, 10, 0, false);
      warp_to_contiguous(t0, scratch);
      pack_contiguous(sk_t0 + i * kT0Bytes, t0, 13, 1 << (kD - 1), true);
    }
    simt::sync_block();  // the A^ region is read before the next pass samples into it
  }

  // tr = H(pk, 64)  (line 8; 32 bytes in round 3): pk is complete in global memory after the barrier.
  if (w == 0) {
    WarpSponge sp;
    warp_sponge_init(sp, kShake256Rate);
    warp_absorb(sp, static_cast<const uint8_t*>(pk), p.pk_bytes);
    warp_finalize(sp);
    warp_squeeze(sp, sk + 64, p.tr_bytes);
  }
  block_wipe_shared(S.bytes);  // rho', K, s1, s2 and what the NTTs left in the scratch
}

}  // namespace mldsa::gpu::coop
