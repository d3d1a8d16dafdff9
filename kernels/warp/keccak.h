// keccak.h - Keccak-f[1600] and SHAKE with the state spread over a warp:
// lane w < 25 holds state word w (x = w mod 5, y = w / 5), lanes 25-31 ride
// along. For the one-stream hashes of a task (H(seed), tr = H(pk), mu,
// c~ = H(mu || w1), SampleInBall's stream): input and output move 8 bytes
// per lane (lanes 0..rate/8-1 cover a whole 136- or 168-byte block in one
// coalesced access, 8-byte aligned where the buffer is).
//
// Why a warp for one stream, by counting (sm_90, 64-bit words as 32-bit
// pairs): one thread's permutation is ~4.7k instructions (the measured
// 3.55e9 permutations/s of an H200 is that many per lane at the integer
// rate); with one stream per task it occupies one lane of a warp, so the
// warp issues all 4.7k. Here a round is 9 64-bit shuffles (18 SHFL: theta's
// column sums 4, theta's D 2, rho+pi 1, chi 2) and ~25 other instructions,
// ~1k warp instructions per permutation, ~4.5x fewer issue slots, and the
// state needs 2 registers per lane instead of ~100. Where a task has many
// independent streams (ExpandA, ExpandS, ExpandMask) one state per lane is
// the cheaper permutation (kernels/warp/sampling.h).
#pragma once

#include "kernels/warp/poly.h"
#include "kernels/thread/keccak.h"

namespace mldsa::gpu::coop {

// A lane's shuffle sources and rotation, computed once per sponge.
struct KeccakLane {
  uint8_t theta[4];  // the other four words of its column
  uint8_t dprev, dnext;  // lanes holding C[x-1] and C[x+1]
  uint8_t rho;       // its rotation
  uint8_t pi;        // the lane whose rotated word moves here
  uint8_t chi1, chi2;  // B[x+1, y], B[x+2, y]
};

// rho's rotation of word w (FIPS 202 Section 3.2.2): 6 bits each, packed
// into three constants so a lane computes its own (an indexed table would
// sit in local memory).
MLDSA_HD constexpr uint64_t pack_rho(unsigned first) {
  uint64_t v = 0;
  for (unsigned i = first; i < first + 10 && i < 25; ++i) v |= uint64_t{mldsa::keccak_rho(i)} << (6 * (i - first));
  return v;
}
MLDSA_DEV inline unsigned rho_offset(unsigned w) {
  constexpr uint64_t k0 = pack_rho(0), k1 = pack_rho(10), k2 = pack_rho(20);
  const uint64_t v = w < 10 ? k0 : w < 20 ? k1 : k2;
  return static_cast<unsigned>(v >> (6 * (w % 10))) & 63;
}

MLDSA_DEV inline KeccakLane keccak_lane(unsigned l) {
  KeccakLane k;
  if (l >= 25) {  // idle lanes read themselves
    for (unsigned i = 0; i < 4; ++i) k.theta[i] = static_cast<uint8_t>(l);
    k.dprev = k.dnext = k.pi = k.chi1 = k.chi2 = static_cast<uint8_t>(l);
    k.rho = 0;
    return k;
  }
  const unsigned x = l % 5, y = l / 5;
  for (unsigned i = 0; i < 4; ++i) k.theta[i] = static_cast<uint8_t>(x + 5 * ((y + 1 + i) % 5));
  k.dprev = static_cast<uint8_t>((x + 4) % 5 + 5 * y);
  k.dnext = static_cast<uint8_t>((x + 1) % 5 + 5 * y);
  k.rho = static_cast<uint8_t>(rho_offset(l));
  // pi: (x, y) -> (y, 2x + 3y); so lane (X, Y) takes lane (X + 3Y mod 5, X).
  k.pi = static_cast<uint8_t>((x + 3 * y) % 5 + 5 * x);
  k.chi1 = static_cast<uint8_t>((x + 1) % 5 + 5 * y);
  k.chi2 = static_cast<uint8_t>((x + 2) % 5 + 5 * y);
  return k;
}

// Keccak-f[1600] (FIPS 202 Section 3.3) on the warp's state.
MLDSA_DEV inline uint64_t warp_keccak_f1600(uint64_t a, const KeccakLane& k) {
  const bool lane0 = simt::lane() == 0;
  for (int round = 0; round < 24; ++round) {
    const uint64_t c =
        a ^ simt::shfl(a, k.theta[0]) ^ simt::shfl(a, k.theta[1]) ^ simt::shfl(a, k.theta[2]) ^ simt::shfl(a, k.theta[3]);
    a ^= simt::shfl(c, k.dprev) ^ rotl64(simt::shfl(c, k.dnext), 1);
    a = simt::shfl(rotl64(a, k.rho), k.pi);
    const uint64_t b1 = simt::shfl(a, k.chi1), b2 = simt::shfl(a, k.chi2);
    a ^= ~b1 & b2;
    if (lane0) a ^= round_constant(round);
  }
  return a;
}

// Word access for the sponge: 8 bytes at p + i, one load or store when
// aligned, else byte by byte (little-endian either way).
MLDSA_DEV inline bool aligned8(const uint8_t* p) { return (reinterpret_cast<uintptr_t>(p) & 7) == 0; }
MLDSA_DEV inline uint64_t word_at(const uint8_t* p, size_t i) {
  if (aligned8(p + i)) return *reinterpret_cast<const uint64_t*>(p + i);
  uint64_t v = 0;
  for (unsigned b = 0; b < 8; ++b) v |= static_cast<uint64_t>(p[i + b]) << (8 * b);
  return v;
}
MLDSA_DEV inline uint64_t word_at(Shared<uint8_t> p, size_t i) {
  if (aligned8(p.raw() + i)) return static_cast<uint64_t>((p + i).template as<uint64_t>()[0]);
  uint64_t v = 0;
  for (unsigned b = 0; b < 8; ++b) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i + b])) << (8 * b);
  return v;
}
MLDSA_DEV inline void set_word(uint8_t* p, size_t i, uint64_t v) {
  if (aligned8(p + i)) {
    *reinterpret_cast<uint64_t*>(p + i) = v;
    return;
  }
  for (unsigned b = 0; b < 8; ++b) p[i + b] = static_cast<uint8_t>(v >> (8 * b));
}
MLDSA_DEV inline void set_word(Shared<uint8_t> p, size_t i, uint64_t v) {
  if (aligned8(p.raw() + i)) {
    (p + i).template as<uint64_t>()[0] = v;
    return;
  }
  for (unsigned b = 0; b < 8; ++b) p[i + b] = static_cast<uint8_t>(v >> (8 * b));
}

// A SHAKE sponge on a warp. Every lane calls every function with the same
// arguments (pos is warp-uniform).
struct WarpSponge {
  uint64_t s;  // this lane's state word (lanes >= 25: unused)
  uint32_t rate, pos;
  KeccakLane k;
};

MLDSA_DEV inline void warp_sponge_init(WarpSponge& sp, uint32_t rate) {
  sp.s = 0;
  sp.rate = rate;
  sp.pos = 0;
  sp.k = keccak_lane(simt::lane());
}

// Absorbs len bytes of in (a global pointer or Shared<uint8_t>).
template <typename In>
MLDSA_DEV inline void warp_absorb(WarpSponge& sp, In in, size_t len) {
  const unsigned w0 = 8 * simt::lane();
  while (len > 0) {
    const uint32_t take = len < sp.rate - sp.pos ? static_cast<uint32_t>(len) : sp.rate - sp.pos;
    // This lane's word covers state bytes [w0, w0 + 8): its part of [pos, pos + take).
    const uint32_t lo = w0 > sp.pos ? w0 : sp.pos;
    const uint32_t hi = w0 + 8 < sp.pos + take ? w0 + 8 : sp.pos + take;
    if (lo < hi) {
      uint64_t v;
      if (hi - lo == 8) {
        v = word_at(in, lo - sp.pos);
      } else {
        v = 0;
        for (uint32_t b = lo; b < hi; ++b) v |= static_cast<uint64_t>(byte_at(in, b - sp.pos)) << (8 * (b - w0));
      }
      sp.s ^= v;
    }
    sp.pos += take;
    in = in + take;
    len -= take;
    if (sp.pos == sp.rate) {
      sp.s = warp_keccak_f1600(sp.s, sp.k);
      sp.pos = 0;
    }
  }
}

// Absorbs the low n (<= 8) bytes of v, given in every lane (a nonce, a counter).
MLDSA_DEV inline void warp_absorb_value(WarpSponge& sp, uint64_t v, unsigned n) {
  for (unsigned b = 0; b < n; ++b) {
    if (simt::lane() == sp.pos / 8) sp.s ^= ((v >> (8 * b)) & 0xFF) << (8 * (sp.pos % 8));
    if (++sp.pos == sp.rate) {
      sp.s = warp_keccak_f1600(sp.s, sp.k);
      sp.pos = 0;
    }
  }
}

// SHAKE padding (domain bits 1111, then pad10*1).
MLDSA_DEV inline void warp_finalize(WarpSponge& sp) {
  const unsigned l = simt::lane();
  if (l == sp.pos / 8) sp.s ^= uint64_t{0x1F} << (8 * (sp.pos % 8));
  if (l == (sp.rate - 1) / 8) sp.s ^= uint64_t{0x80} << 56;
  sp.pos = sp.rate;
}

// Squeezes len bytes into out (a global pointer or Shared<uint8_t>).
template <typename Out>
MLDSA_DEV inline void warp_squeeze(WarpSponge& sp, Out out, size_t len) {
  const unsigned w0 = 8 * simt::lane();
  while (len > 0) {
    if (sp.pos == sp.rate) {
      sp.s = warp_keccak_f1600(sp.s, sp.k);
      sp.pos = 0;
    }
    const uint32_t take = len < sp.rate - sp.pos ? static_cast<uint32_t>(len) : sp.rate - sp.pos;
    const uint32_t lo = w0 > sp.pos ? w0 : sp.pos;
    const uint32_t hi = w0 + 8 < sp.pos + take ? w0 + 8 : sp.pos + take;
    if (lo < hi) {
      if (hi - lo == 8) {
        set_word(out, lo - sp.pos, sp.s);
      } else {
        for (uint32_t b = lo; b < hi; ++b) set_byte(out, b - sp.pos, static_cast<uint8_t>(sp.s >> (8 * (b - w0))));
      }
    }
    sp.pos += take;
    out = out + take;
    len -= take;
  }
}

}  // namespace mldsa::gpu::coop
