// sign.h - signing as block-level tasks: the key expansion (one block per
// key) and the rejection loop's attempt (one block per signing unit), on the
// expanded-key layout of kernels/thread/sign.h (the two kernel sets' expanded
// keys are byte-identical, so they share the device's key cache).
//
// Expanded keys are read coalesced: every polynomial is 1 KiB in coefficient
// order, and a warp reads it Contiguous (lane l: words 8l..8l+7, two 16-byte
// loads), so a key is streamed once per attempt in full 32-byte sectors, and
// one key shared by many tasks stays in L2.
//
// One attempt (Algorithm 7 lines 11-31), for attempt number r (kappa = r l):
//   warps            y_j's stream (ExpandMask, the warp sponge), y^_j = NTT(y_j)
//   warps            rows i: w_i = NTT^-1(A^[i] o y^); w1 packed into mu || w1
//   warp 0           c~ = H(mu || w1), c = SampleInBall(c~), c^ = NTT(c)
//   warps            z_j = y_j + NTT^-1(c^ o s1^_j), ||z|| checked
//   warps            r0_i = LowBits(w_i) - c s2_i, c t0_i, their checks, the
//                    hints (a ballot per 32 coefficients) and their count
// The checks are combined over the block (a flag per warp), so control flow
// is block-uniform; as in the core, only verdicts and the public challenge
// steer it.
//
// ExpandMask by warps rather than one state per lane (sampling.h), by
// counting: l = 4..7 streams of 5 permutations cost about the same issue
// slots either way (5 x ~4.7k instructions in one warp with l busy lanes, or
// 5 l x ~1k spread over 4 warps), but lanes would leave the block's other
// three warps waiting ~5 permutations long at the next barrier, and the
// lane permutation would add its ~100 registers (ptxas: this kernel needs
// 128 registers either way; the loop kernel's launch bounds hold it there).
#pragma once

#include "kernels/block/block.h"
#include "kernels/warp/sampling.h"
#include "kernels/thread/sign_scheduler.h"
#include "kernels/thread/sign.h"

namespace mldsa::gpu::coop {

// ---------------------------------------------------------------------------
// Key expansion: skDecode, NTTs and ExpandA (Algorithm 7 lines 1-5).

struct ExpandShared {
  BlockBase base;
  uint32_t sk = 0, bytes = 0;
  MLDSA_HD explicit ExpandShared(const TaskParams& p) {
    SharedPlan plan;
    base.plan(plan);
    sk = plan.take(p.sk_bytes);
    bytes = plan.bytes;
  }
};

// sk: p.sk_bytes (secret, 8-byte aligned); key: sign_key_words(p) words, 16-byte aligned.
MLDSA_DEV inline void block_expand_key(const TaskParams& p, const uint8_t* sk, int32_t* key) {
  const ExpandShared S(p);
  const unsigned t = simt::thread_index(), w = simt::warp_index();
  const Shared<int32_t> zetas = S.base.zeta_table(), scratch = S.base.warp_scratch();
  const Shared<uint8_t> ssk = simt::shared_at<uint8_t>(S.sk);
  block_load_zetas(zetas);
  block_copy_in(ssk, sk, p.sk_bytes);
  simt::sync_block();
  for (unsigned b = t; b < 32; b += simt::block_size()) reinterpret_cast<uint8_t*>(key)[b] = ssk[32 + b];  // K
  // s1, s2, t0 into NTT form: a warp per polynomial.
  const uint32_t eb = eta_poly_bytes(p);
  for (unsigned i = w; i < p.l + 2 * p.k; i += kBlockWarps) {
    const bool eta = i < p.l + p.k;
    const uint32_t s1_at = sk_s1_offset(p);  // after rho, K, tr
    const uint32_t at = eta ? s1_at + i * eb : s1_at + (p.l + p.k) * eb + (i - p.l - p.k) * kT0Bytes;
    Frag f = eta ? unpack_strided(ssk + at, eta_bits(p), static_cast<int32_t>(p.eta), true)
                 : unpack_strided(ssk + at, kD, 1 << (kD - 1), true);
    warp_ntt(f, scratch, zetas);
    store_contiguous(key + sign_key_s1(p) + i * kN, f);  // s1, s2, t0 lie back to back
  }
  // A^: a lane per entry, as the thread code stores it (mont_mul(a, R mod q)).
  if (t < p.k * p.l) {
    int32_t* out = key + sign_key_a(p) + t * kN;
    lane_rej_ntt_poly(ssk, t / p.l, t % p.l, [&](unsigned c, int32_t a) { out[c] = mont_mul(a, kMontOne); });
  }
  block_wipe_shared(S.bytes);
}

// ---------------------------------------------------------------------------
// The rejection loop's attempt.

struct SignShared {
  BlockBase base;
  uint32_t stream = 0;  // l mask streams (5 blocks each); the signature is staged here once accepted
  uint32_t stream_bytes = 0;
  uint32_t yz = 0;      // l padded polys: y^, then z
  uint32_t w = 0;       // k padded polys: w (in [0, q))
  uint32_t hash = 0;    // mu || w1Encode(w1)
  uint32_t chat = 0, cpoly = 0, ball = 0, ctilde = 0;
  uint32_t masks = 0;   // k * 8 hint words, then k counts
  uint32_t flags = 0;   // a word per warp (checks), a word per warp (hint counts), 4 broadcast words
  uint32_t bytes = 0;

  MLDSA_HD explicit SignShared(const TaskParams& p) {
    SharedPlan plan;
    base.plan(plan);
    stream_bytes = mask_stream_blocks(p.gamma1_bits + 1) * kShake256Rate;
    const uint32_t streams = p.l * stream_bytes;
    stream = plan.take(streams > p.sig_bytes ? streams : p.sig_bytes);
    yz = plan.take(p.l * kPolyBytes);
    w = plan.take(p.k * kPolyBytes);
    hash = plan.take(64 + p.k * 32 * w1_bits(p));
    chat = plan.take(kPolyBytes);
    cpoly = plan.take(kPolyBytes);
    ball = plan.take(kShake256Rate);
    ctilde = plan.take(64);
    masks = plan.take(p.k * 9 * 4);
    flags = plan.take((2 * kBlockWarps + 4) * 4);
    bytes = plan.bytes;
  }
  MLDSA_DEV Shared<int32_t> poly(uint32_t region, unsigned i) const {
    return simt::shared_at<int32_t>(region + i * kPolyBytes);
  }
  MLDSA_DEV Shared<uint8_t> stream_of(unsigned j) const { return simt::shared_at<uint8_t>(stream + j * stream_bytes); }
};

// Attempt r with the expanded key (global), mu and rho'' (64 bytes each,
// global). True, in every thread, iff the candidate is accepted; then
// block_sign_encode writes its signature.
MLDSA_DEV inline bool block_sign_attempt(const TaskParams& p, const SignShared& S, const int32_t* key, const uint8_t* mu,
                                         const uint8_t* rhopp, uint32_t r) {
  const unsigned w = simt::warp_index(), l = simt::lane();
  const Shared<int32_t> zetas = S.base.zeta_table(), scratch = S.base.warp_scratch();
  const Shared<uint8_t> hash = simt::shared_at<uint8_t>(S.hash);
  const Shared<uint32_t> flags = simt::shared_at<uint32_t>(S.flags), masks = simt::shared_at<uint32_t>(S.masks);
  const uint16_t kappa = static_cast<uint16_t>(r * p.l);
  const unsigned zbits = p.gamma1_bits + 1, w1b = w1_bits(p);

  // y = ExpandMask(rho'', kappa)  (line 11) and y^ = NTT(y): a warp per
  // polynomial; mu into the hash input.
  if (w == 0 && l < 64 / 8) hash.as<uint64_t>()[l] = reinterpret_cast<const uint64_t*>(mu)[l];
  for (unsigned j = w; j < p.l; j += kBlockWarps) {
    warp_mask_stream(rhopp, static_cast<uint16_t>(kappa + j), S.stream_of(j), S.stream_bytes / kShake256Rate);
    simt::sync_warp();
    Frag y = unpack_strided(S.stream_of(j), zbits, p.gamma1, true);
    warp_ntt(y, scratch, zetas);
    store_contiguous(S.poly(S.yz, j), y);
  }
  simt::sync_block();

  // w = NTT^-1(A^ o y^), w1 = HighBits(w), packed after mu  (lines 12-15)
  const int32_t* a = key + sign_key_a(p);
  for (unsigned i = w; i < p.k; i += kBlockWarps) {
    Frag acc{};
    for (unsigned j = 0; j < p.l; ++j) {
      const Frag ka = load_contiguous(a + (i * p.l + j) * kN), y = load_contiguous(S.poly(S.yz, j));
      MLDSA_UNROLL
      for (unsigned x = 0; x < 8; ++x) {
        const int32_t prod = mont_mul(ka.c[x], y.c[x]);
        acc.c[x] += prod;
      }
    }
    MLDSA_UNROLL
    for (unsigned x = 0; x < 8; ++x) acc.c[x] = reduce32(acc.c[x]);
    warp_invntt_tomont(acc, scratch, zetas);
    Frag w1;
    MLDSA_UNROLL
    for (unsigned x = 0; x < 8; ++x) {
      acc.c[x] = caddq(acc.c[x]);
      int32_t r0;
      w1.c[x] = decompose(&r0, acc.c[x], p.gamma2);
    }
    store_strided(S.poly(S.w, i), acc);
    warp_to_contiguous(w1, scratch);
    pack_contiguous(hash + 64 + i * 32 * w1b, w1, w1b, 0, false);
  }
  simt::sync_block();

  // c~ = H(mu || w1Encode(w1))  (line 15), c = SampleInBall(c~), c^ = NTT(c)  (lines 16-17)
  if (w == 0) {
    const Shared<uint8_t> ct = simt::shared_at<uint8_t>(S.ctilde);
    warp_challenge_seed(p, hash, ct);
    const Shared<int32_t> c = S.poly(S.cpoly, 0);
    warp_sample_in_ball(c, ct, p.ctilde_bytes, p.tau, simt::shared_at<uint8_t>(S.ball));
    Frag f = load_strided(c);
    warp_ntt(f, scratch, zetas);
    store_contiguous(S.poly(S.chat, 0), f);
  }
  simt::sync_block();
  const Frag chat = load_contiguous(S.poly(S.chat, 0));

  // z = y + c s1; reject if ||z|| >= gamma1 - beta  (lines 18-23)
  uint32_t bad = 0;
  const int32_t* s1 = key + sign_key_s1(p);
  for (unsigned j = w; j < p.l; j += kBlockWarps) {
    const Frag ks = load_contiguous(s1 + j * kN);
    Frag cs;
    MLDSA_UNROLL
    for (unsigned x = 0; x < 8; ++x) cs.c[x] = reduce32(mont_mul(chat.c[x], ks.c[x]));
    warp_invntt_tomont(cs, scratch, zetas);
    const Frag y = unpack_strided(S.stream_of(j), zbits, p.gamma1, true);
    MLDSA_UNROLL
    for (unsigned x = 0; x < 8; ++x) cs.c[x] = reduce32(y.c[x] + cs.c[x]);
    bad |= warp_exceeds(cs, p.gamma1 - static_cast<int32_t>(p.beta)) ? 1u : 0u;
    store_strided(S.poly(S.yz, j), cs);  // z, over y^ (read by every warp before the barrier above)
  }
  warp_flag(flags, bad);
  simt::sync_block();
  if (block_or(flags) != 0) return false;

  // r0 = LowBits(w) - c s2, ||r0|| < gamma2 - beta; ||c t0|| < gamma2; hints
  // of r0 + c t0, at most omega ones  (lines 24-28)
  const int32_t* s2 = key + sign_key_s2(p);
  const int32_t* t0 = key + sign_key_t0(p);
  uint32_t ones = 0;
  for (unsigned i = w; i < p.k; i += kBlockWarps) {
    const Frag k2 = load_contiguous(s2 + i * kN), k0 = load_contiguous(t0 + i * kN);
    Frag cs2, ct0;
    MLDSA_UNROLL
    for (unsigned x = 0; x < 8; ++x) {
      cs2.c[x] = reduce32(mont_mul(chat.c[x], k2.c[x]));
      ct0.c[x] = reduce32(mont_mul(chat.c[x], k0.c[x]));
    }
    warp_invntt_tomont(cs2, scratch, zetas);
    warp_invntt_tomont(ct0, scratch, zetas);
    const Frag wi = load_strided(S.poly(S.w, i));
    Frag r0, hi;
    MLDSA_UNROLL
    for (unsigned x = 0; x < 8; ++x) {
      int32_t lo;
      hi.c[x] = decompose(&lo, wi.c[x], p.gamma2);
      r0.c[x] = reduce32(lo - cs2.c[x]);
      ct0.c[x] = reduce32(ct0.c[x]);
    }
    bad |= warp_exceeds(r0, p.gamma2 - static_cast<int32_t>(p.beta)) ? 1u : 0u;
    bad |= warp_exceeds(ct0, p.gamma2) ? 1u : 0u;
    uint32_t row = 0;
    MLDSA_UNROLL
    for (unsigned x = 0; x < 8; ++x) {
      const uint32_t m = simt::ballot(make_hint(r0.c[x] + ct0.c[x], hi.c[x], p.gamma2) != 0);
      if (l == 0) masks[8 * i + x] = m;
      row += simt::popc(m);
    }
    if (l == 0) masks[8 * p.k + i] = row;
    ones += row;
  }
  simt::sync_block();  // every warp has read flags
  warp_flag(flags, bad);
  warp_flag(flags + kBlockWarps, ones);
  simt::sync_block();
  return block_or(flags) == 0 && block_sum(flags + kBlockWarps) <= p.omega;
}

// sigEncode (Algorithm 26) of the attempt just accepted, into sig (global,
// p.sig_bytes, any alignment), staged in shared memory.
MLDSA_DEV inline void block_sign_encode(const TaskParams& p, const SignShared& S, uint8_t* sig) {
  const unsigned t = simt::thread_index(), w = simt::warp_index(), l = simt::lane();
  const Shared<uint8_t> out = simt::shared_at<uint8_t>(S.stream), ct = simt::shared_at<uint8_t>(S.ctilde);
  const Shared<uint32_t> masks = simt::shared_at<uint32_t>(S.masks);
  const uint32_t zbytes = z_poly_bytes(p), hint_at = p.ctilde_bytes + p.l * zbytes;
  for (unsigned b = t; b < p.ctilde_bytes; b += simt::block_size()) out[b] = ct[b];
  for (unsigned b = t; b < p.omega + p.k; b += simt::block_size()) out[hint_at + b] = 0;
  for (unsigned j = w; j < p.l; j += kBlockWarps)
    pack_contiguous(out + p.ctilde_bytes + j * zbytes, load_contiguous(S.poly(S.yz, j)), p.gamma1_bits + 1, p.gamma1, true);
  simt::sync_block();
  // HintBitPack (Algorithm 20): each lane places its coefficient's one at
  // the count of ones before it (a prefix of the row's ballots), then the
  // running count per row.
  for (unsigned i = w; i < p.k; i += kBlockWarps) {
    uint32_t at = 0;
    for (unsigned i2 = 0; i2 < i; ++i2) at += masks[8 * p.k + i2];
    MLDSA_UNROLL
    for (unsigned x = 0; x < 8; ++x) {
      const uint32_t m = masks[8 * i + x];
      if ((m >> l) & 1) out[hint_at + at + simt::popc(m & simt::lanemask_lt())] = static_cast<uint8_t>(l + 32 * x);
      at += simt::popc(m);
    }
    if (l == 0) out[hint_at + p.omega + i] = static_cast<uint8_t>(at);
  }
  simt::sync_block();
  block_copy_out(sig, out, p.sig_bytes);
}

// ---------------------------------------------------------------------------
// A signing unit: one block running kernels/thread/sign_scheduler.h's schedule
// until it says stop. Thread 0 holds the unit's registers and does the
// schedule's atomics; the block learns the step through shared memory.

MLDSA_DEV inline void block_sign_unit(const TaskParams& p, const SignShared& S, const SignSchedule& s,
                                      const int32_t* xkeys, const uint32_t* key_index, const uint8_t* mus,
                                      const uint8_t* rhopps, uint8_t* sigs) {
  const unsigned t = simt::thread_index();
  const Shared<uint32_t> bc = simt::shared_at<uint32_t>(S.flags) + 2 * kBlockWarps;  // step, task, attempt, write
  block_load_zetas(S.base.zeta_table());
  SignUnit u;
  for (;;) {
    if (t == 0) {
      const SchedStep step = sched_acquire(s, u);
      bc[0] = static_cast<uint32_t>(step);
      bc[1] = u.task;
      bc[2] = u.attempt;
    }
    simt::sync_block();
    const auto step = static_cast<SchedStep>(static_cast<uint32_t>(bc[0]));
    const uint32_t task = bc[1], attempt = bc[2];
    simt::sync_block();
    if (step == SchedStep::stop) break;
    if (step == SchedStep::retry) {
      simt::backoff();  // the tail: let the units still signing have the issue slots
      continue;
    }
    const int32_t* key = xkeys + size_t{key_index[task]} * sign_key_words(p);
    const bool accepted = block_sign_attempt(p, S, key, mus + size_t{task} * 64, rhopps + size_t{task} * 64, attempt);
    // sched_complete with the block writing the signature: the smallest
    // accepted attempt so far, under the task's lock.
    if (t == 0) {
      uint32_t write = 0;
      if (accepted && attempt < sched_fetch_min(&s.best[task], attempt)) {
        while (!sched_try_lock(&s.lock[task])) simt::backoff();
        write = sched_load(&s.best[task]) == attempt ? 1 : 0;
        if (!write) sched_unlock(&s.lock[task]);
      }
      bc[3] = write;
    }
    simt::sync_block();
    if (bc[3] != 0) {
      block_sign_encode(p, S, sigs + size_t{task} * p.sig_bytes);
      simt::fence();
      simt::sync_block();
      if (t == 0) sched_unlock(&s.lock[task]);
    }
    if (t == 0) {
      if (accepted) {
        if (u.role == kUnitOwner) sched_fetch_add(s.done, 1);
        u.role = kUnitIdle;
      } else if (u.role == kUnitSpeculative) {
        u.role = kUnitIdle;
      }
    }
  }
  block_wipe_shared(S.bytes);  // y's streams, z, w, the challenge's inputs
}

}  // namespace mldsa::gpu::coop
