// keccak.h - Keccak-f[1600] and the SHAKE sponge (FIPS 202), one thread per sponge.
//
// Thread-per-task version: the 25 lanes live in one thread. The task kernels
// use it for every hash; the cooperative kernels use it where a task has many
// independent streams (ExpandA, ExpandS, ExpandMask: kernels/warp/sampling.h)
// and the warp-wide permutation (kernels/warp/keccak.h) for one-stream
// hashes (tr, mu, c~).
#pragma once

#include "cpu/keccak.h"
#include "kernels/thread/params.h"

namespace mldsa::gpu {

inline constexpr uint32_t kShake128Rate = mldsa::SHAKE128_RATE;
inline constexpr uint32_t kShake256Rate = mldsa::SHAKE256_RATE;

struct RoundConstants {
  uint64_t rc[24];
};
// The iota constants: the core's table (cpu/keccak.h), copied at compile time
// into a struct the device can hold in constant memory.
constexpr RoundConstants make_round_constants() {
  RoundConstants t{};
  for (int r = 0; r < 24; ++r) t.rc[r] = mldsa::KECCAK_RC[r];
  return t;
}
inline constexpr RoundConstants kRoundConstants = make_round_constants();

#if defined(__CUDACC__)
// Constant memory: in thread-per-task code every thread of a warp reads the same
// round's constant at the same time, which constant memory broadcasts.
static __constant__ RoundConstants g_round_constants = kRoundConstants;
#endif

MLDSA_HD inline uint64_t round_constant(int r) {
#if defined(__CUDA_ARCH__)
  return g_round_constants.rc[r];
#else
  return kRoundConstants.rc[r];
#endif
}

MLDSA_HD inline uint64_t rotl64(uint64_t x, unsigned n) { return n == 0 ? x : (x << n) | (x >> (64 - n)); }

// Keccak-f[1600] (FIPS 202 Section 3.3). The lane loops are fully unrolled so
// every index is a constant and the state stays in registers.
MLDSA_HD MLDSA_NOINLINE inline void keccak_f1600(uint64_t st[25]) {
  // Rotation offset of lane x + 5y (rho), and where pi moves it: (x, y) -> (y, 2x + 3y).
  constexpr unsigned kRho[25] = {0,  1,  62, 28, 27, 36, 44, 6,  55, 20, 3,  10, 43,
                                 25, 39, 41, 45, 15, 21, 8,  18, 2,  61, 56, 14};
  uint64_t a[25];
  MLDSA_UNROLL
  for (int i = 0; i < 25; ++i) a[i] = st[i];
  for (int round = 0; round < 24; ++round) {
    uint64_t c[5], b[25];
    MLDSA_UNROLL
    for (int x = 0; x < 5; ++x) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
    MLDSA_UNROLL
    for (int x = 0; x < 5; ++x) {
      const uint64_t d = c[(x + 4) % 5] ^ rotl64(c[(x + 1) % 5], 1);
      MLDSA_UNROLL
      for (int y = 0; y < 5; ++y) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl64(a[x + 5 * y] ^ d, kRho[x + 5 * y]);
    }
    MLDSA_UNROLL
    for (int y = 0; y < 25; y += 5) {
      MLDSA_UNROLL
      for (int x = 0; x < 5; ++x) a[y + x] = b[y + x] ^ (~b[y + (x + 1) % 5] & b[y + (x + 2) % 5]);
    }
    a[0] ^= round_constant(round);
  }
  MLDSA_UNROLL
  for (int i = 0; i < 25; ++i) st[i] = a[i];
}

// An incremental SHAKE sponge: absorb any number of times, finalize once, then
// squeeze.
struct Sponge {
  uint64_t s[25];
  uint32_t rate;  // bytes
  uint32_t pos;   // byte offset in the current block; == rate: block used up
};

MLDSA_HD inline void sponge_init(Sponge& sp, uint32_t rate) {
  for (int i = 0; i < 25; ++i) sp.s[i] = 0;
  sp.rate = rate;
  sp.pos = 0;
}

MLDSA_HD inline void sponge_absorb(Sponge& sp, const uint8_t* in, size_t len) {
  while (len > 0) {
    if ((sp.pos & 7) == 0 && len >= 8) {  // a whole lane
      uint64_t v = 0;
      for (int i = 7; i >= 0; --i) v = (v << 8) | in[i];
      sp.s[sp.pos / 8] ^= v;
      sp.pos += 8;
      in += 8;
      len -= 8;
    } else {
      sp.s[sp.pos / 8] ^= static_cast<uint64_t>(*in) << (8 * (sp.pos % 8));
      ++sp.pos;
      ++in;
      --len;
    }
    if (sp.pos == sp.rate) {
      keccak_f1600(sp.s);
      sp.pos = 0;
    }
  }
}

// SHAKE padding: domain bits 1111, then pad10*1.
MLDSA_HD inline void sponge_finalize(Sponge& sp) {
  sp.s[sp.pos / 8] ^= uint64_t{0x1F} << (8 * (sp.pos % 8));
  sp.s[(sp.rate - 1) / 8] ^= uint64_t{0x80} << (8 * ((sp.rate - 1) % 8));
  sp.pos = sp.rate;
}

// Byte i of the current output block.
MLDSA_HD inline uint8_t sponge_byte(const Sponge& sp, uint32_t i) {
  return static_cast<uint8_t>(sp.s[i / 8] >> (8 * (i % 8)));
}

// Permutes to the next output block and marks it wholly unread; the caller
// reads it with sponge_byte (the samplers read blocks this way, no buffer).
MLDSA_HD inline void sponge_next_block(Sponge& sp) {
  keccak_f1600(sp.s);
  sp.pos = 0;
}

MLDSA_HD inline uint8_t sponge_squeeze_byte(Sponge& sp) {
  if (sp.pos == sp.rate) sponge_next_block(sp);
  return sponge_byte(sp, sp.pos++);
}

MLDSA_HD inline void sponge_squeeze(Sponge& sp, uint8_t* out, size_t len) {
  for (size_t i = 0; i < len; ++i) out[i] = sponge_squeeze_byte(sp);
}

MLDSA_HD inline void shake256(uint8_t* out, size_t outlen, const uint8_t* in, size_t inlen) {
  Sponge sp;
  sponge_init(sp, kShake256Rate);
  sponge_absorb(sp, in, inlen);
  sponge_finalize(sp);
  sponge_squeeze(sp, out, outlen);
  wipe_words(sp.s, sizeof sp.s);  // some callers hash secrets
}

}  // namespace mldsa::gpu
