// sampling_lanes.h - ExpandA, ExpandS and ExpandMask on W Keccak states at
// once (W = Ops::kWays: 4 for AVX2, 4 or 8 for AVX-512, 2 for NEON). Each
// state makes one polynomial; the output is exactly the ref backend's, since
// every state squeezes the same stream the ref sponge would.
//
// ISA-neutral: besides keccak_lanes.h's operations, Ops supplies the
// squeeze's de-interleave, transpose(V r[W]) (r[i] holds lane i of the W
// states; afterwards r[w] holds W consecutive lanes of state w), and
// store_lanes(p, v, m), which stores the first m lanes of v.
// Same inclusion rule as keccak_lanes.h (Ops in an anonymous namespace).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>

#include "cpu/keccak_lanes.h"
#include "cpu/backend.h"
#include "cpu/ct.h"
#include "cpu/keccak.h"
#include "cpu/mldsa.h"
#include "cpu/packing.h"
#include "cpu/sampling.h"

namespace keccak_lanes {

// W sponges; s[i][w] is lane i of state w while the sponges rest between
// calls. A squeeze loads the states into vectors once for all its blocks.
template <class Ops>
struct alignas(64) Sponges {
  static constexpr unsigned W = Ops::kWays;
  uint64_t s[25][W];

  // One absorbed block: a seed of seed_words whole lanes, then a 16-bit
  // suffix per state, the SHAKE padding, and the rate's closing bit. Written
  // a whole vector at a time: the squeeze loads them so, and a vector load
  // of lanes stored one by one is not forwarded from those stores (it waits
  // until they reach the cache).
  void start(const uint8_t* seed, unsigned seed_words, const uint16_t* suffix, unsigned rate) {
    using V = typename Ops::V;
    alignas(64) uint64_t last[W];
    for (unsigned w = 0; w < W; ++w) last[w] = suffix_lane(suffix[w]);
    for (unsigned i = 0; i < 25; ++i) {
      V v = i < seed_words ? Ops::splat(load64(seed + 8 * i)) : i == seed_words ? Ops::load(last) : Ops::splat(0);
      if (i == rate / 8 - 1) v = Ops::xor2(v, Ops::splat(kRateEnd));
      Ops::store(s[i], v);
    }
  }
  // The same for state w alone.
  void start_lane(unsigned w, const uint8_t* seed, unsigned seed_words, uint16_t suffix, unsigned rate) {
    for (unsigned i = 0; i < 25; ++i) s[i][w] = 0;
    for (unsigned i = 0; i < seed_words; ++i) std::memcpy(&s[i][w], seed + 8 * i, 8);
    s[seed_words][w] = suffix_lane(suffix);
    s[rate / 8 - 1][w] ^= kRateEnd;
  }
  // The lane after the seed (the suffix, then SHAKE's domain bits) and the
  // rate's closing bit, in its last lane.
  static uint64_t suffix_lane(uint16_t suffix) { return suffix | (uint64_t{mldsa::DS_SHAKE} << 16); }
  static constexpr uint64_t kRateEnd = uint64_t{0x80} << 56;
  // A sponge of kRate beside the others in state w: absorbs msg's next block
  // (from absorbed on, which it advances), padded with SHAKE's suffix when it
  // is the last; true once the padded block is in.
  template <unsigned kRate>
  bool absorb_block(unsigned w, const uint8_t* msg, size_t msg_len, size_t& absorbed) {
    uint8_t blk[kRate];
    const bool last = next_block<kRate>(blk, msg, msg_len, absorbed);
    for (unsigned i = 0; i < kRate / 8; ++i) s[i][w] ^= load64(blk + 8 * i);
    mldsa::secure_zero(blk, sizeof blk);
    return last;
  }
  // The same for a state of its own.
  template <unsigned kRate>
  static bool absorb_block_into(uint64_t state[25], const uint8_t* msg, size_t msg_len, size_t& absorbed) {
    uint8_t blk[kRate];
    const bool last = next_block<kRate>(blk, msg, msg_len, absorbed);
    for (unsigned i = 0; i < kRate / 8; ++i) state[i] ^= load64(blk + 8 * i);
    mldsa::secure_zero(blk, sizeof blk);
    return last;
  }
  // The first n bytes (n <= 200) of state w, as a squeeze reads them.
  void read_lane(unsigned w, uint8_t* out, size_t n) const {
    for (size_t i = 0; i < n; i += 8) store64(out + i, s[i / 8][w], n - i);
  }
  // The same of a state of its own.
  static void read_state(const uint64_t state[25], uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; i += 8) store64(out + i, state[i / 8], n - i);
  }
  // msg's next kRate bytes from absorbed on (which it advances) into blk,
  // padded with SHAKE's suffix when they are the last; true then.
  template <unsigned kRate>
  static bool next_block(uint8_t (&blk)[kRate], const uint8_t* msg, size_t msg_len, size_t& absorbed) {
    std::memset(blk, 0, kRate);
    const size_t n = msg_len - absorbed < kRate ? msg_len - absorbed : kRate;
    if (n) std::memcpy(blk, msg + absorbed, n);  // msg may be null when msg_len is 0
    absorbed += n;
    if (n < kRate) {  // the last block (possibly no message bytes)
      blk[n] ^= mldsa::DS_SHAKE;
      blk[kRate - 1] ^= 0x80;
    }
    return n < kRate;
  }
  static uint64_t load64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  // The first min(n, 8) bytes of v to p.
  static void store64(uint8_t* p, uint64_t v, size_t n) { std::memcpy(p, &v, n < 8 ? n : 8); }
  // The rate's bytes of each of the W states in A to dst[w] (little-endian
  // lanes), through W x W transposes.
  template <unsigned kRate>
  static void store_block(const typename Ops::V* A, uint8_t* const* dst) {
    using V = typename Ops::V;
    constexpr unsigned kLanes = kRate / 8;
    for (unsigned g = 0; g < kLanes; g += W) {
      V r[W];
      for (unsigned i = 0; i < W; ++i) r[i] = A[g + i < 25 ? g + i : 24];  // past the rate: unused
      Ops::transpose(r);
      for (unsigned w = 0; w < W; ++w) Ops::store_lanes(dst[w] + 8 * g, r[w], kLanes - g < W ? kLanes - g : W);
    }
  }
  // Squeezes n blocks per state: block b of state w to out[w] + b * kRate.
  template <unsigned kRate>
  void squeeze_blocks(uint8_t* const* out, unsigned n) {
    using V = typename Ops::V;
    V A[25];
    for (int i = 0; i < 25; ++i) A[i] = Ops::load(s[i]);
    for (unsigned b = 0; b < n; ++b) {
      // Inlined, the whole-state permutation keeps the states in registers
      // from block to block (0.96x with 32 registers); with AVX2's 16 it
      // spills twice as much that way (2x slower), so the streamed one stays
      // a call.
      if constexpr (!keccak_lanes::streamed_form<Ops>())
        keccak_lanes::permute_inline<Ops>(A);
      else
        keccak_lanes::permute<Ops>(A);
      uint8_t* dst[W];
      for (unsigned w = 0; w < W; ++w) dst[w] = out[w] + b * kRate;
      store_block<kRate>(A, dst);
    }
    for (int i = 0; i < 25; ++i) Ops::store(s[i], A[i]);
  }
  void wipe() { mldsa::secure_zero(s, sizeof s); }
};

// rej parses a stream as mldsa::rej_ntt_coeffs does (a vectorised one may be passed).
// The sponges and their output buffers (up to 10 KiB for 8 ways) live on the
// heap: OpenSSL runs ASYNC jobs on 32 KiB stacks.
template <class Ops, unsigned kBufBytes>
struct Work {
  Sponges<Ops> h;
  alignas(64) uint8_t buf[Ops::kWays][kBufBytes];
};

// ExpandA's stream for A^[idx] (row idx / l, column idx % l): rho || j || i.
inline uint16_t expand_a_suffix(unsigned idx, unsigned l) { return static_cast<uint16_t>((idx % l) | ((idx / l) << 8)); }

template <class Ops>
void expand_a(mldsa::Poly* A, const uint8_t rho[32], unsigned k, unsigned l,
              unsigned (*rej)(int32_t*, unsigned, const uint8_t*, size_t)) {
  using mldsa::N;
  constexpr unsigned W = Ops::kWays, kBlocks = 5;  // 5 blocks give 280 candidates: nearly always enough
  auto work = std::unique_ptr<Work<Ops, kBlocks * mldsa::SHAKE128_RATE>>(new Work<Ops, kBlocks * mldsa::SHAKE128_RATE>);
  auto& buf = work->buf;
  auto& h = work->h;
  const unsigned total = k * l;
  for (unsigned start = 0; start < total; start += W) {
    const unsigned n = total - start < W ? total - start : W;  // spare lanes repeat entry `start`
    uint16_t suffix[W];
    for (unsigned w = 0; w < W; ++w) {
      suffix[w] = expand_a_suffix(start + (w < n ? w : 0), l);
    }
    h.start(rho, 4, suffix, mldsa::SHAKE128_RATE);
    uint8_t* out[W];
    for (unsigned w = 0; w < W; ++w) out[w] = buf[w];
    h.template squeeze_blocks<mldsa::SHAKE128_RATE>(out, kBlocks);
    unsigned ctr[W];
    bool more = false;
    for (unsigned w = 0; w < n; ++w) {
      ctr[w] = rej(A[start + w].c, 0, buf[w], sizeof buf[w]);
      more |= ctr[w] < N;
    }
    while (more) {  // A^ is public: branching on it is fine
      h.template squeeze_blocks<mldsa::SHAKE128_RATE>(out, 1);
      more = false;
      for (unsigned w = 0; w < n; ++w) {
        ctr[w] = rej(A[start + w].c, ctr[w], buf[w], mldsa::SHAKE128_RATE);
        more |= ctr[w] < N;
      }
    }
  }
}

// ExpandA together with SHAKE256 hashes (mldsa::LaneHashes, one after
// another) that do not depend on it (PublicKey::decode: A^ and tr = H(pk)),
// or that depend on it row by row (KeyGen: tr = H(rho || t1), row i of t1
// from row i of A^; verify_encoded: c~' = H(mu || w1'), likewise). A hash is
// a chain of single permutations (15 for a 1952-byte pk) that would
// otherwise run one state at a time; here it occupies a lane while the
// others sample A^, and a lane whose job is done takes the next polynomial
// at once, so the spare lanes of the last batch are filled too. A^ and the
// hashes are public, so the schedule may branch on them. The polynomials
// come out exactly as expand_a makes them (same streams, same rejection
// calls). It pays even where the polynomials fill the lanes exactly
// (ML-DSA-44: the hash adds 5 calls to 20 and saves 10 single
// permutations): verify from the encoded pk 1.06x (44), 1.09x (65), 1.16x
// (87) against expand_a then shake256, AVX2 on Zen 3. The blocks leave
// through the transposes of Sponges::squeeze_blocks; copying them out lane
// by lane cost more than the hash saved.
// Where the hash has its place (Backend tables, per microarchitecture):
// - in a lane (kBeside false): a hash whose next block is not written yet
//   waits off the lanes: its state is parked and its lane samples A^ until
//   the block is there; then the next lane to fall free takes the hash
//   back, except that the last W polynomials go first (the last row's
//   blocks can only follow them).
// - beside the lanes (kBeside true): every lane samples A^, and the hash's
//   state runs in general-purpose registers beside them
//   (keccak_lanes::permute_beside) whenever its next block is there. This
//   needs no lane and no reordering, so it suits ML-DSA-44, whose 16
//   polynomials fill 8 lanes exactly, as well as the others.
// Either way, once no lane holds a polynomial the hashes run on the
// single-state permutation.
//
// With LaneHashes::secrets (KeyGen), ExpandS's l + k polynomials are jobs
// of the same lanes (SHAKE256 sponges beside ExpandA's SHAKE128 ones: the
// permutation is the same), in the order A^'s row 0, s1, s2[0], then each
// further row of A^ followed by its s2[i]: row 0 of t, and so the hash of
// pk, can start after one polynomial's 5 blocks, and the rows after it
// finish one by one instead of in whole batches of W polynomials.
// rej_s parses as mldsa::rej_bounded_coeffs; the schedule branches on its
// accept counts only (public, as in expand_s), and every state and buffer
// that held a secret is wiped.
template <class Ops, bool kBeside = false>
void expand_a_hash(mldsa::Poly* A, const uint8_t rho[32], unsigned k, unsigned l,
                   unsigned (*rej)(int32_t*, unsigned, const uint8_t*, size_t),
                   unsigned (*rej_s)(int32_t*, unsigned, const uint8_t*, size_t, unsigned),
                   mldsa::LaneHashes& hashes) {
  using mldsa::N;
  constexpr unsigned W = Ops::kWays, kBlocks = 5;
  constexpr unsigned kRateA = mldsa::SHAKE128_RATE, kRateH = mldsa::SHAKE256_RATE, kRateS = mldsa::SHAKE256_RATE;
  constexpr int kIdle = -1, kHash = -2;
  auto work = std::unique_ptr<Work<Ops, kBlocks * kRateA>>(new Work<Ops, kBlocks * kRateA>);
  auto& s = work->h.s;
  auto& buf = work->buf;
  int job[W];           // job id (below na: A^[id]; else s[id - na]), kHash (in a lane) or kIdle
  unsigned blocks[W] = {}, ctr[W] = {};
  const mldsa::LaneHashes::Secrets* const sec = hashes.secrets();
  const unsigned na = k * l, total = na + (sec ? l + k : 0);
  unsigned next = 0;  // jobs are started in order[next], order[next + 1], ...
  uint8_t order[mldsa::MAX_K * mldsa::MAX_L + mldsa::MAX_L + mldsa::MAX_K];
  for (unsigned i = 0, n = 0; i < k; ++i) {
    for (unsigned j = 0; j < l; ++j) order[n++] = static_cast<uint8_t>(i * l + j);
    if (!sec) continue;
    if (i == 0)
      for (unsigned j = 0; j < l; ++j) order[n++] = static_cast<uint8_t>(na + j);
    order[n++] = static_cast<uint8_t>(na + l + i);
  }

  // Rows of A^ final so far (each row's polynomials, and s2[i], still being
  // sampled in row_left; s1's in s1_left).
  unsigned row_left[mldsa::MAX_K], rows_final = 0, s1_left = sec ? l : 0;
  for (unsigned i = 0; i < k; ++i) row_left[i] = l + (sec ? 1 : 0);
  // The current hash (have: there is one): its sponge's absorbed bytes,
  // whether the padded last block is in, and the bytes squeezed so far.
  // Its state is `one` while it is off the lanes: parked (in a lane's
  // place) or beside them; due: one holds a block (or the padded tail) that
  // the next permutation is to run on (beside only).
  mldsa::LaneHashes::Job h{};
  bool have = hashes.next(h);
  size_t absorbed = 0, squeezed = 0;
  bool padded = false, parked = have && !kBeside, due = false;  // a new hash starts with its state zero
  alignas(64) uint64_t one[25] = {};
  auto block_ready = [&] {
    size_t ready = hashes.ready(h);     // (which may write the message as far as the rows allow)
    if (rows_final == k) ready = h.msg_len;  // all of A^ is done: so is every message
    return ready == h.msg_len || absorbed + kRateH <= ready;
  };
  auto absorb_block = [&](unsigned w) { padded = work->h.template absorb_block<kRateH>(w, h.msg, h.msg_len, absorbed); };
  // The hash beside the lanes: its next block in when it is there.
  auto feed_one = [&] {
    if (!kBeside || !have || due || padded || !block_ready()) return;
    padded = Sponges<Ops>::template absorb_block_into<kRateH>(one, h.msg, h.msg_len, absorbed);
    due = true;
  };

  // Lane w's next job: the hash when it waits and can go on (unless only the
  // last W polynomials are left to start), else the next polynomial, else none.
  auto start_next = [&](unsigned w) {
    if (!kBeside && parked && (next == total || total - next > W) && block_ready()) {
      for (unsigned i = 0; i < 25; ++i) s[i][w] = one[i];
      parked = false;
      job[w] = kHash;
      absorb_block(w);
      return;
    }
    if (next == total) {
      job[w] = kIdle;
      return;
    }
    const unsigned id = order[next++];
    job[w] = static_cast<int>(id);
    blocks[w] = ctr[w] = 0;
    if (id < na)
      work->h.start_lane(w, rho, 4, expand_a_suffix(id, l), kRateA);
    else
      work->h.start_lane(w, sec->rhoprime, 8, static_cast<uint16_t>(id - na), kRateS);
  };
  // The hash has its digest: the next one, parked (or beside) until its first block is there.
  auto next_hash = [&] {
    have = hashes.next(h);
    absorbed = squeezed = 0;
    padded = due = false;
    parked = have && !kBeside;
    for (uint64_t& v : one) v = 0;
    feed_one();
  };
  // The digest's next bytes, from the hash's state in lane w or in `one`
  // (w == W) after the padded block's permutation (and more, for long
  // outputs): true once it is all out.
  auto squeeze = [&](unsigned w) {
    const size_t n = h.out_len - squeezed < kRateH ? h.out_len - squeezed : kRateH;
    if (w == W)
      Sponges<Ops>::read_state(one, h.out + squeezed, n);
    else
      work->h.read_lane(w, h.out + squeezed, n);
    squeezed += n;
    return squeezed == h.out_len;
  };

  for (unsigned w = 0; w < W; ++w) start_next(w);
  feed_one();

  alignas(64) uint8_t spill[kRateA + 8 * W];  // squeeze target of the hash and idle lanes
  for (;;) {
    bool busy = parked || due, polys = false;
    for (unsigned w = 0; w < W; ++w) {
      busy |= job[w] != kIdle;
      polys |= job[w] >= 0;
    }
    if (!busy) break;
    bool one_ran = false;
    if (polys) {
      // In place on the resting states (s is 64-byte aligned, one vector per lane index).
      using V = typename Ops::V;
      V* const state = reinterpret_cast<V*>(&s[0][0]);
      if (kBeside && due) {
        keccak_lanes::permute_beside<Ops>(state, one);
        one_ran = true;
      } else {
        keccak_lanes::permute<Ops>(state);
      }
      // Every lane's block to its buffer at once (the hash's and idle lanes' to spill).
      uint8_t* dst[W];
      for (unsigned w = 0; w < W; ++w) {
        if (job[w] < 0)
          dst[w] = spill;
        else if (static_cast<unsigned>(job[w]) >= na)  // ExpandS: parsed a block at a time
          dst[w] = buf[w];
        else
          dst[w] = buf[w] + (blocks[w] < kBlocks ? blocks[w] * kRateA : 0);
      }
      Sponges<Ops>::template store_block<kRateA>(state, dst);
    } else if (kBeside) {  // the hash alone: due (all rows are final, so its blocks are there)
      keccak_lanes::permute_scalar(one);
      one_ran = true;
    } else {  // the hash alone (it is on a lane: busy, and placed whenever it can go on)
      for (unsigned w = 0; w < W; ++w) {
        if (job[w] != kHash) continue;
        uint64_t single[25];
        for (unsigned i = 0; i < 25; ++i) single[i] = s[i][w];
        keccak_lanes::permute_scalar(single);
        for (unsigned i = 0; i < 25; ++i) s[i][w] = single[i];
      }
    }
    if (one_ran) {
      due = false;
      if (!padded)
        feed_one();
      else if (squeeze(W))
        next_hash();
      else
        due = true;  // one more permutation to squeeze
    }
    for (unsigned w = 0; w < W; ++w) {
      if (job[w] == kHash) {
        if (!padded) {
          if (block_ready()) {
            absorb_block(w);
          } else {  // off the lane until the next block is written
            for (unsigned i = 0; i < 25; ++i) one[i] = s[i][w];
            parked = true;
            start_next(w);
          }
          continue;
        }
        if (squeeze(w)) {
          next_hash();
          start_next(w);
        }  // else one more permutation to squeeze
        continue;
      }
      if (job[w] == kIdle) continue;
      const unsigned id = static_cast<unsigned>(job[w]);
      if (id >= na) {
        const unsigned i = id - na;
        ctr[w] = rej_s(sec->s[i].c, ctr[w], buf[w], kRateS, sec->eta);
        if (mldsa::declassify(ctr[w] < N)) continue;  // only the accept count is public
        --(i < l ? s1_left : row_left[i - l]);
      } else {
        const unsigned b = blocks[w]++;
        if (b + 1 < kBlocks) continue;
        ctr[w] = b + 1 == kBlocks ? rej(A[id].c, 0, buf[w], sizeof buf[w]) : rej(A[id].c, ctr[w], buf[w], kRateA);
        if (ctr[w] < N) continue;
        --row_left[id / l];
      }
      while (rows_final < k && s1_left == 0 && row_left[rows_final] == 0) hashes.rows_done(++rows_final);
      start_next(w);
    }
    feed_one();  // rows finished this step may have written its next block
    for (unsigned w = 0; w < W && parked; ++w)  // a lane with nothing left to do takes the hash back
      if (job[w] == kIdle) start_next(w);
  }
  if (sec) {  // ExpandS's states, blocks (an idle lane's went to spill) and the last one's parse
    work->h.wipe();
    mldsa::secure_zero(buf, sizeof buf);
    mldsa::secure_zero(spill, sizeof spill);
  }
}

// rej parses a stream as mldsa::rej_bounded_coeffs does.
template <class Ops>
void expand_s(mldsa::Poly* s, unsigned n_polys, const uint8_t rhoprime[64], unsigned eta, uint16_t nonce,
              unsigned (*rej)(int32_t*, unsigned, const uint8_t*, size_t, unsigned)) {
  using mldsa::N;
  constexpr unsigned W = Ops::kWays, kBlocks = 2;
  auto work = std::unique_ptr<Work<Ops, kBlocks * mldsa::SHAKE256_RATE>>(new Work<Ops, kBlocks * mldsa::SHAKE256_RATE>);
  auto& buf = work->buf;
  auto& h = work->h;
  for (unsigned start = 0; start < n_polys; start += W) {
    const unsigned n = n_polys - start < W ? n_polys - start : W;
    uint16_t suffix[W];
    for (unsigned w = 0; w < W; ++w) suffix[w] = static_cast<uint16_t>(nonce + start + (w < n ? w : 0));
    h.start(rhoprime, 8, suffix, mldsa::SHAKE256_RATE);
    uint8_t* out[W];
    for (unsigned w = 0; w < W; ++w) out[w] = buf[w];
    h.template squeeze_blocks<mldsa::SHAKE256_RATE>(out, kBlocks);
    unsigned ctr[W];
    unsigned short_of = 0;
    for (unsigned w = 0; w < n; ++w) {
      ctr[w] = rej(s[start + w].c, 0, buf[w], sizeof buf[w], eta);
      short_of |= mldsa::declassify(ctr[w] < N);  // only the accept count is public
    }
    while (short_of) {
      h.template squeeze_blocks<mldsa::SHAKE256_RATE>(out, 1);
      short_of = 0;
      for (unsigned w = 0; w < n; ++w) {
        ctr[w] = rej(s[start + w].c, ctr[w], buf[w], mldsa::SHAKE256_RATE, eta);
        short_of |= mldsa::declassify(ctr[w] < N);
      }
    }
  }
  h.wipe();
  mldsa::secure_zero(buf, sizeof buf);
}

// unpack decodes y as mldsa::unpack_z does; it may read up to 16 bytes past
// the packed data (the buffer has room).
template <class Ops>
void expand_mask(mldsa::Poly* y, unsigned l, const uint8_t rhopp[64], uint16_t kappa, unsigned gamma1_bits,
                 void (*unpack)(mldsa::Poly*, const uint8_t*, unsigned)) {
  constexpr unsigned W = Ops::kWays, kBlocks = 5;  // 5 * 136 >= 640 = 32 * 20 bytes
  auto work = std::unique_ptr<Work<Ops, kBlocks * mldsa::SHAKE256_RATE>>(new Work<Ops, kBlocks * mldsa::SHAKE256_RATE>);
  auto& buf = work->buf;
  auto& h = work->h;
  for (unsigned start = 0; start < l; start += W) {
    const unsigned n = l - start < W ? l - start : W;
    uint16_t suffix[W];
    for (unsigned w = 0; w < W; ++w) suffix[w] = static_cast<uint16_t>(kappa + start + (w < n ? w : 0));
    h.start(rhopp, 8, suffix, mldsa::SHAKE256_RATE);
    const unsigned blocks = (32 * (gamma1_bits + 1) + mldsa::SHAKE256_RATE - 1) / mldsa::SHAKE256_RATE;
    uint8_t* out[W];
    for (unsigned w = 0; w < W; ++w) out[w] = buf[w];
    h.template squeeze_blocks<mldsa::SHAKE256_RATE>(out, blocks);
    for (unsigned w = 0; w < n; ++w) unpack(&y[start + w], buf[w], gamma1_bits);
  }
  h.wipe();
  mldsa::secure_zero(buf, sizeof buf);
}

// Signing's masks as a stream, with the challenges c~ = H(mu || w1Encode(w1))
// in a lane of the same permutations (Backend::mask_hash). One attempt at a
// time, an attempt draws its l masks in whole W-way permutations and then
// hashes 832-1088 bytes in 7-9 single-state permutations. Here lane 0 runs
// the hashes (and draws the very first mask) and lanes 1..W-1 draw masks
// all the time, the next attempt's while this one's hash runs, so the
// hash's permutations draw masks too: per
// attempt about max(hash, 5 l / (W - 1)) permutations of all lanes instead
// of 5 l / W of them and the hash alone. A mask's sponge needs kBlocks
// permutations of its lane, so the sponges run on across calls (a call ends
// when its hash or the masks it takes are done), squeezing into a ring of
// kRing slots, one per nonce, where finished masks wait to be taken; a lane
// with no free slot waits. The schedule branches on counts only (public);
// the states and the ring hold secrets and are wiped.
template <class Ops>
class MaskHashLanes final : public mldsa::MaskHash {
 public:
  using Unpack = void (*)(mldsa::Poly*, const uint8_t*, unsigned);
  MaskHashLanes(const uint8_t rhopp[64], unsigned gamma1_bits, Unpack unpack)
      : gamma1_bits_(gamma1_bits), unpack_(unpack) {
    std::memcpy(rhopp_, rhopp, sizeof rhopp_);
    for (unsigned w = 0; w < W; ++w) job_[w] = kIdle;
    for (bool& r : ready_) r = false;
    // Before the first hash, lane 0 draws a mask too, so the first attempt's
    // masks come from all W lanes (ML-DSA-44's four in one run of kBlocks):
    // signing 0.96-0.98x the time (44), 0.99-1.00x (65, 87), Zen 3.
    fill_lanes(0);
  }
  ~MaskHashLanes() override {
    h_.wipe();
    mldsa::secure_zero(ring_, sizeof ring_);
    mldsa::secure_zero(rhopp_, sizeof rhopp_);
  }
  MaskHashLanes(const MaskHashLanes&) = delete;
  MaskHashLanes& operator=(const MaskHashLanes&) = delete;

  void take(mldsa::Poly* y, unsigned n) override {
    for (unsigned i = 0; i < n; ++i, ++taken_) {
      while (!ready_[taken_ % kRing]) step();
      unpack_(&y[i], ring_[taken_ % kRing], gamma1_bits_);
      ready_[taken_ % kRing] = false;
      fill_lanes();  // a slot is free: a waiting lane may start
    }
  }

  void hash(const uint8_t* msg, size_t msg_len, uint8_t* out, size_t out_len, uint8_t* ball) override {
    run_hash(msg, msg_len);
    h_.read_lane(0, out, out_len);  // out_len <= 64 < the rate: the first block squeezed
    if (!ball) return;
    run_hash(out, out_len);  // SampleInBall's stream, H(c~): its first block
    h_.read_lane(0, ball, kRate);
  }

 private:
  static constexpr unsigned W = Ops::kWays, kRate = mldsa::SHAKE256_RATE;
  static constexpr unsigned kBlocks = 5;  // 5 * 136 >= 640 = 32 * 20 bytes, and room for unpack's 16-byte reads
  static constexpr unsigned kRing = 8;    // 5.4 KiB: ML-DSA-87's one-shot signing stays under 128 KiB of heap
  static constexpr unsigned kIdle = ~0u;
  static_assert(W >= 2, "one lane hashes, the others draw masks");

  // Lanes first..W-1 without a mask start the next nonces while their slots
  // are free (lane 0 only before the first hash).
  void fill_lanes(unsigned first = 1) {
    for (unsigned w = first; w < W; ++w) {
      if (job_[w] != kIdle || started_ - taken_ >= kRing) continue;
      job_[w] = started_++;
      blocks_[w] = 0;
      h_.start_lane(w, rhopp_, 8, static_cast<uint16_t>(job_[w]), kRate);
    }
  }
  // SHAKE256(msg) in lane 0, the mask lanes running beside it; the output is
  // in lane 0's state.
  void run_hash(const uint8_t* msg, size_t msg_len) {
    while (job_[0] != kIdle) step();  // lane 0's first mask, if not taken yet
    msg_ = msg;
    msg_len_ = msg_len;
    absorbed_ = 0;
    padded_ = false;
    for (unsigned i = 0; i < 25; ++i) h_.s[i][0] = 0;
    absorb_block();
    for (hashing_ = true; hashing_;) step();
  }
  // The hash's next block into lane 0 (the last one padded).
  void absorb_block() { padded_ = h_.template absorb_block<kRate>(0, msg_, msg_len_, absorbed_); }
  // One permutation of every lane, each mask lane's block to its slot.
  void step() {
    using V = typename Ops::V;
    V* const state = reinterpret_cast<V*>(&h_.s[0][0]);  // in place: one vector per lane index
    keccak_lanes::permute<Ops>(state);
    uint8_t* dst[W];
    for (unsigned w = 0; w < W; ++w)
      dst[w] = job_[w] == kIdle ? spill_ : ring_[job_[w] % kRing] + blocks_[w] * kRate;
    Sponges<Ops>::template store_block<kRate>(state, dst);
    if (hashing_) {
      if (padded_)
        hashing_ = false;  // the output is in lane 0's state
      else
        absorb_block();
    }
    for (unsigned w = 0; w < W; ++w) {
      if (job_[w] == kIdle || ++blocks_[w] < kBlocks) continue;
      ready_[job_[w] % kRing] = true;
      job_[w] = kIdle;
    }
    fill_lanes();
  }

  Sponges<Ops> h_;
  alignas(64) uint8_t ring_[kRing][kBlocks * kRate];
  alignas(64) uint8_t spill_[kRate];  // lane 0's and idle lanes' blocks
  uint8_t rhopp_[64];
  const unsigned gamma1_bits_;
  const Unpack unpack_;
  unsigned job_[W], blocks_[W];  // a lane's nonce (kIdle: none) and its blocks squeezed
  bool ready_[kRing];
  unsigned started_ = 0, taken_ = 0;
  const uint8_t* msg_ = nullptr;
  size_t msg_len_ = 0, absorbed_ = 0;
  bool padded_ = false, hashing_ = false;
};

}  // namespace keccak_lanes
