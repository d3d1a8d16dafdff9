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
  // suffix per state, the SHAKE padding, and the rate's closing bit.
  void start(const uint8_t* seed, unsigned seed_words, const uint16_t* suffix, unsigned rate) {
    std::memset(s, 0, sizeof s);
    for (unsigned i = 0; i < seed_words; ++i) {
      uint64_t v;
      std::memcpy(&v, seed + 8 * i, 8);
      for (unsigned w = 0; w < W; ++w) s[i][w] = v;
    }
    for (unsigned w = 0; w < W; ++w) {
      s[seed_words][w] = suffix[w] | (uint64_t{mldsa::DS_SHAKE} << 16);
      s[rate / 8 - 1][w] ^= uint64_t{0x80} << 56;
    }
  }
  // Squeezes n blocks per state: block b of state w to out[w] + b * kRate
  // (little-endian lanes).
  template <unsigned kRate>
  void squeeze_blocks(uint8_t* const* out, unsigned n) {
    using V = typename Ops::V;
    constexpr unsigned kLanes = kRate / 8;
    V A[25];
    for (int i = 0; i < 25; ++i) A[i] = Ops::load(s[i]);
    for (unsigned b = 0; b < n; ++b) {
      // Inlined, the permutation keeps the states in registers from block to
      // block (0.96x with 32 registers); with AVX2's 16 it spills twice as
      // much that way (2x slower), so it stays a call there.
      if constexpr (Ops::kVectorRegisters >= 32)
        keccak_lanes::permute_inline<Ops>(A);
      else
        keccak_lanes::permute<Ops>(A);
      for (unsigned g = 0; g < kLanes; g += W) {
        V r[W];
        for (unsigned i = 0; i < W; ++i) r[i] = A[g + i < 25 ? g + i : 24];  // past the rate: unused
        Ops::transpose(r);
        for (unsigned w = 0; w < W; ++w) Ops::store_lanes(out[w] + b * kRate + 8 * g, r[w], kLanes - g < W ? kLanes - g : W);
      }
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
      const unsigned idx = start + (w < n ? w : 0);
      suffix[w] = static_cast<uint16_t>((idx % l) | ((idx / l) << 8));  // rho || j || i
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

}  // namespace keccak_lanes
