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
  // rho rotates lane x + 5y by mldsa::keccak_rho (constant once unrolled);
  // pi moves it: (x, y) -> (y, 2x + 3y).
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
      for (int y = 0; y < 5; ++y) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl64(a[x + 5 * y] ^ d, mldsa::keccak_rho(x + 5 * y));
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

// ---- Word-wide sponge steps, for data at 8-byte-aligned addresses ----
//
// The byte-wise absorb and squeeze above cost ~75-90 instructions a lane in
// the SASS (8 byte loads or stores, shifts, a state index); bench/gpu_model.py
// counted them as most of the thread kernels' non-hash work besides the NTTs
// and samplers. Where the caller's buffer is 8-byte aligned (alignas(8)
// locals; the batch buffers' keys, whose sizes are multiples of 8, at
// 8-aligned offsets: kernels/host/device_worker.cc), a lane is one 64-bit
// load or store. Bytes sit in lanes little-endian (FIPS 202), as in the
// device's and the host's memory, so the state is the same byte for byte.
// No alignment test at run time: the model counts both sides of a branch
// (a tested lane came to ~85 instructions, no gain), and a misaligned device
// load faults rather than reading wrong data. Model count, ML-DSA-44
// keygen_kernel per warp outside hashing: 586,416 -> 540,284 (tr = H(pk)
// ~21 instructions a lane instead of ~79; unresolved loops 8 -> 4).
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "lanes are read from memory as little-endian words");

MLDSA_HD inline uint64_t load_lane(const uint8_t* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const uint64_t*>(p);
#else
  uint64_t v;
  __builtin_memcpy(&v, p, 8);
  return v;
#endif
}

MLDSA_HD inline void store_lane(uint8_t* p, uint64_t v) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<uint64_t*>(p) = v;
#else
  __builtin_memcpy(p, &v, 8);
#endif
}

// Absorbs n lanes (8n bytes) from in (8-byte aligned); the sponge must be at
// a lane boundary, as it is after init and after whole lanes.
MLDSA_HD inline void sponge_absorb_lanes(Sponge& sp, const uint8_t* in, uint32_t n) {
  for (uint32_t w = 0; w < n; ++w) {
    sp.s[sp.pos / 8] ^= load_lane(in + 8 * w);
    sp.pos += 8;
    if (sp.pos == sp.rate) {
      keccak_f1600(sp.s);
      sp.pos = 0;
    }
  }
}

// Absorbs the low `bytes` (1..7) bytes of v, little-endian (the samplers'
// 2-byte indices and nonces), at a lane boundary: one XOR; the rate is whole
// lanes, so this never fills a block.
MLDSA_HD inline void sponge_absorb_value(Sponge& sp, uint64_t v, uint32_t bytes) {
  sp.s[sp.pos / 8] ^= v;
  sp.pos += bytes;
}

// The next 8 output bytes as one lane, at a lane boundary (every stream here
// is read from the start of a block in lanes).
MLDSA_HD inline uint64_t sponge_squeeze_lane(Sponge& sp) {
  if (sp.pos == sp.rate) sponge_next_block(sp);
  const uint64_t v = sp.s[sp.pos / 8];
  sp.pos += 8;
  return v;
}

// Squeezes n lanes (8n bytes) to out (8-byte aligned), at a lane boundary.
MLDSA_HD inline void sponge_squeeze_lanes(Sponge& sp, uint8_t* out, uint32_t n) {
  for (uint32_t w = 0; w < n; ++w) store_lane(out + 8 * w, sponge_squeeze_lane(sp));
}

// SHAKE256 of inlen bytes to outlen bytes, both multiples of 8, in and out
// 8-byte aligned: tr = H(pk).
MLDSA_HD inline void shake256_lanes(uint8_t* out, uint32_t outlen, const uint8_t* in, uint32_t inlen) {
  Sponge sp;
  sponge_init(sp, kShake256Rate);
  sponge_absorb_lanes(sp, in, inlen / 8);
  sponge_finalize(sp);
  sponge_squeeze_lanes(sp, out, outlen / 8);
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
