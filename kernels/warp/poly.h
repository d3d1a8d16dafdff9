// poly.h - a polynomial of R_q held by one warp: 8 coefficients per lane
// in registers, with the NTT, its inverse, layout changes, loads, stores,
// packing and norm checks as warp-level pieces (the middle layer between the
// thread-level arithmetic of kernels/thread/ and the block kernels).
//
// Register layouts of a Frag (lane l, register j):
//   Strided:     coefficient l + 32 j. Coefficient-domain polynomials: each j
//                is 32 consecutive coefficients across the warp, so global
//                rows are 128-byte coalesced and a ballot per j is a 32-bit
//                slice of the polynomial (hint positions in order).
//   Contiguous:  coefficient 8 l + j. NTT-domain polynomials and packing: a
//                lane's 8 coefficients are `bits` whole bytes of an encoding,
//                and a lane reads an expanded-key polynomial as two 16-byte
//                loads (the warp's 1 KiB in 32 full sectors).
// ntt: Strided in, Contiguous out. invntt_tomont: Contiguous in, Strided
// out. Same butterflies and twiddles as kernels/thread/ntt.h (and the core's
// ref backend), so every output equals theirs exactly.
//
// Shared memory (counted against 32 banks of 4 bytes, checked by the host
// SIMT's bank counter in tests/kernels/coop_pieces_test.cc: no conflicts):
//   - a polynomial kept in shared memory is 264 words, coefficient c at
//     pad32(c) = c + c/32: Strided rows hit banks (l + j) mod 32, Contiguous
//     reads 8l + j + l/4 hit 8(l mod 4) + l/4 + j: both conflict-free.
//   - the NTT's exchanges use 288 words of per-warp scratch: registers move
//     between three layouts (Strided; 32(l/4) + l%4 + 4j; Contiguous), the
//     first exchange padded 4 words per 32 coefficients (banks l + 4j), the
//     second 1 word per 8 (banks l + j and 9l + j). Levels 1-3 run in
//     Strided, 4-6 in the middle layout, 7-8 in Contiguous: two exchanges
//     per transform, no block barrier.
//   - twiddles: a 256-word table in shared memory (kWarpZetas): levels 1-6
//     read few distinct words (broadcasts), levels 7 and 8 one word per
//     lane, rearranged so the lanes' words are consecutive (a plain zeta
//     table would give 2- and 4-way conflicts there).
#pragma once

#include "kernels/simt/simt.h"
#include "kernels/thread/ntt.h"

namespace mldsa::gpu::coop {

using simt::Shared;

struct Frag {
  int32_t c[8];
};

inline constexpr unsigned kPolyWords = 264;        // a padded polynomial in shared memory
inline constexpr unsigned kNttScratchWords = 288;  // one warp's exchange scratch
MLDSA_HD constexpr unsigned pad32(unsigned c) { return c + (c >> 5); }
MLDSA_HD constexpr unsigned pad_ex1(unsigned c) { return c + 4 * (c >> 5); }
MLDSA_HD constexpr unsigned pad_ex2(unsigned c) { return c + (c >> 3); }

// The twiddle table in shared memory: [0, 64) kZetas[0, 64); [64, 128) level
// 7 as [h * 32 + l] = kZetas[64 + 2l + h]; [128, 256) level 8 as
// [q * 32 + l] = kZetas[128 + 4l + q].
struct WarpZetaTable {
  int32_t z[kN];
};
constexpr WarpZetaTable make_warp_zetas() {
  WarpZetaTable t{};
  for (unsigned i = 0; i < 64; ++i) t.z[i] = mldsa::kZetas[i];
  for (unsigned h = 0; h < 2; ++h)
    for (unsigned l = 0; l < 32; ++l) t.z[64 + h * 32 + l] = mldsa::kZetas[64 + 2 * l + h];
  for (unsigned q = 0; q < 4; ++q)
    for (unsigned l = 0; l < 32; ++l) t.z[128 + q * 32 + l] = mldsa::kZetas[128 + 4 * l + q];
  return t;
}
inline constexpr WarpZetaTable kWarpZetas = make_warp_zetas();
#if defined(__CUDACC__)
static __constant__ WarpZetaTable g_warp_zetas = kWarpZetas;
#endif

// The block copies the table into shared memory once (256 words).
MLDSA_DEV inline void block_load_zetas(Shared<int32_t> dst) {
  for (unsigned i = simt::thread_index(); i < kN; i += simt::block_size()) {
#if defined(__CUDA_ARCH__)
    dst[i] = g_warp_zetas.z[i];
#else
    dst[i] = kWarpZetas.z[i];
#endif
  }
}

// The t-th lower register of the distance-2 pairs (0, 1, 4, 5) and of the
// distance-1 pairs (0, 2, 4, 6). Loops over registers are unrolled, so every
// index is a constant and a Frag stays in registers.
MLDSA_HD constexpr unsigned low2(unsigned t) { return (t & 1) | ((t & 2) << 1); }
MLDSA_HD constexpr unsigned low1(unsigned t) { return 2 * t; }

MLDSA_DEV inline void fwd_butterfly(int32_t& a, int32_t& b, int32_t z) {
  const int32_t t = mont_mul(z, b);
  b = a - t;
  a = a + t;
}
MLDSA_DEV inline void inv_butterfly(int32_t& a, int32_t& b, int32_t z) {
  const int32_t t = a;
  a = t + b;
  b = mont_mul(z, t - b);
}

// Forward NTT (FIPS 204 Algorithm 41): Strided in, Contiguous out.
MLDSA_DEV inline void warp_ntt(Frag& f, Shared<int32_t> scratch, Shared<int32_t> zetas) {
  const unsigned l = simt::lane();
  const unsigned mid = 32 * (l / 4) + l % 4;  // the middle layout: mid + 4 j
  // len 128, 64, 32: all lanes use one twiddle per step (a broadcast).
  const int32_t z1 = zetas[1];
  MLDSA_UNROLL
  for (unsigned j = 0; j < 4; ++j) fwd_butterfly(f.c[j], f.c[j + 4], z1);
  MLDSA_UNROLL
  for (unsigned t = 0; t < 4; ++t) {
    const unsigned j = low2(t);
    fwd_butterfly(f.c[j], f.c[j + 2], zetas[2 + j / 4]);
  }
  MLDSA_UNROLL
  for (unsigned t = 0; t < 4; ++t) {
    const unsigned j = low1(t);
    fwd_butterfly(f.c[j], f.c[j + 1], zetas[4 + j / 2]);
  }
  simt::sync_warp();  // the scratch's previous readers are done
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) scratch[pad_ex1(l + 32 * j)] = f.c[j];
  simt::sync_warp();
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) f.c[j] = scratch[pad_ex1(mid + 4 * j)];
  // len 16, 8, 4
  MLDSA_UNROLL
  for (unsigned j = 0; j < 4; ++j) fwd_butterfly(f.c[j], f.c[j + 4], zetas[8 + l / 4]);
  MLDSA_UNROLL
  for (unsigned t = 0; t < 4; ++t) {
    const unsigned j = low2(t);
    fwd_butterfly(f.c[j], f.c[j + 2], zetas[16 + 2 * (l / 4) + j / 4]);
  }
  MLDSA_UNROLL
  for (unsigned t = 0; t < 4; ++t) {
    const unsigned j = low1(t);
    fwd_butterfly(f.c[j], f.c[j + 1], zetas[32 + 4 * (l / 4) + j / 2]);
  }
  simt::sync_warp();
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) scratch[pad_ex2(mid + 4 * j)] = f.c[j];
  simt::sync_warp();
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) f.c[j] = scratch[pad_ex2(8 * l + j)];
  // len 2, 1
  MLDSA_UNROLL
  for (unsigned t = 0; t < 4; ++t) {
    const unsigned j = low2(t);
    fwd_butterfly(f.c[j], f.c[j + 2], zetas[64 + (j / 4) * 32 + l]);
  }
  MLDSA_UNROLL
  for (unsigned t = 0; t < 4; ++t) {
    const unsigned j = low1(t);
    fwd_butterfly(f.c[j], f.c[j + 1], zetas[128 + (j / 2) * 32 + l]);
  }
}

// Inverse NTT times 2^32 (Algorithm 42, as kernels/thread/ntt.h's
// invntt_tomont): Contiguous in, Strided out. The twiddle of block b at
// level len is -zeta[256/len - 1 - b].
MLDSA_DEV inline void warp_invntt_tomont(Frag& f, Shared<int32_t> scratch, Shared<int32_t> zetas) {
  const unsigned l = simt::lane();
  const unsigned mid = 32 * (l / 4) + l % 4;
  // len 1, 2, 4 (Contiguous)
  MLDSA_UNROLL
  for (unsigned t = 0; t < 4; ++t) {
    const unsigned j = low1(t);
    inv_butterfly(f.c[j], f.c[j + 1], -zetas[128 + (3 - j / 2) * 32 + 31 - l]);
  }
  MLDSA_UNROLL
  for (unsigned t = 0; t < 4; ++t) {
    const unsigned j = low2(t);
    inv_butterfly(f.c[j], f.c[j + 2], -zetas[64 + (1 - j / 4) * 32 + 31 - l]);
  }
  MLDSA_UNROLL
  for (unsigned j = 0; j < 4; ++j) inv_butterfly(f.c[j], f.c[j + 4], -zetas[63 - l]);
  simt::sync_warp();
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) scratch[pad_ex2(8 * l + j)] = f.c[j];
  simt::sync_warp();
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) f.c[j] = scratch[pad_ex2(mid + 4 * j)];
  // len 8, 16
  MLDSA_UNROLL
  for (unsigned t = 0; t < 4; ++t) {
    const unsigned j = low2(t);
    inv_butterfly(f.c[j], f.c[j + 2], -zetas[31 - 2 * (l / 4) - j / 4]);
  }
  MLDSA_UNROLL
  for (unsigned j = 0; j < 4; ++j) inv_butterfly(f.c[j], f.c[j + 4], -zetas[15 - l / 4]);
  simt::sync_warp();
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) scratch[pad_ex1(mid + 4 * j)] = f.c[j];
  simt::sync_warp();
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) f.c[j] = scratch[pad_ex1(l + 32 * j)];
  // len 32, 64, 128 (Strided)
  MLDSA_UNROLL
  for (unsigned t = 0; t < 4; ++t) {
    const unsigned j = low1(t);
    inv_butterfly(f.c[j], f.c[j + 1], -zetas[7 - j / 2]);
  }
  MLDSA_UNROLL
  for (unsigned t = 0; t < 4; ++t) {
    const unsigned j = low2(t);
    inv_butterfly(f.c[j], f.c[j + 2], -zetas[3 - j / 4]);
  }
  const int32_t z1 = -zetas[1];
  MLDSA_UNROLL
  for (unsigned j = 0; j < 4; ++j) inv_butterfly(f.c[j], f.c[j + 4], z1);
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) f.c[j] = mont_mul(kInvNMont, f.c[j]);
}

// Layout changes through the scratch (padded 1 word per 32: conflict-free
// both ways).
MLDSA_DEV inline void warp_to_contiguous(Frag& f, Shared<int32_t> scratch) {
  const unsigned l = simt::lane();
  simt::sync_warp();
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) scratch[pad32(l + 32 * j)] = f.c[j];
  simt::sync_warp();
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) f.c[j] = scratch[pad32(8 * l + j)];
}
MLDSA_DEV inline void warp_to_strided(Frag& f, Shared<int32_t> scratch) {
  const unsigned l = simt::lane();
  simt::sync_warp();
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) scratch[pad32(8 * l + j)] = f.c[j];
  simt::sync_warp();
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) f.c[j] = scratch[pad32(l + 32 * j)];
}

// --- loads and stores ------------------------------------------------------

// A padded polynomial in shared memory.
MLDSA_DEV inline Frag load_strided(Shared<int32_t> p) {
  Frag f;
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) f.c[j] = p[pad32(simt::lane() + 32 * j)];
  return f;
}
MLDSA_DEV inline Frag load_contiguous(Shared<int32_t> p) {
  Frag f;
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) f.c[j] = p[pad32(8 * simt::lane() + j)];
  return f;
}
MLDSA_DEV inline void store_strided(Shared<int32_t> p, const Frag& f) {
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) p[pad32(simt::lane() + 32 * j)] = f.c[j];
}
MLDSA_DEV inline void store_contiguous(Shared<int32_t> p, const Frag& f) {
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) p[pad32(8 * simt::lane() + j)] = f.c[j];
}

// A polynomial in global memory (256 words, coefficient order), 16-byte
// aligned for the Contiguous forms.
MLDSA_DEV inline Frag load_contiguous(const int32_t* p) {
  Frag f;
  const int32_t* q = p + 8 * simt::lane();
#if defined(__CUDA_ARCH__)
  const int4 a = reinterpret_cast<const int4*>(q)[0], b = reinterpret_cast<const int4*>(q)[1];
  f.c[0] = a.x, f.c[1] = a.y, f.c[2] = a.z, f.c[3] = a.w;
  f.c[4] = b.x, f.c[5] = b.y, f.c[6] = b.z, f.c[7] = b.w;
#else
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) f.c[j] = q[j];
#endif
  return f;
}
MLDSA_DEV inline void store_contiguous(int32_t* p, const Frag& f) {
  int32_t* q = p + 8 * simt::lane();
#if defined(__CUDA_ARCH__)
  reinterpret_cast<int4*>(q)[0] = make_int4(f.c[0], f.c[1], f.c[2], f.c[3]);
  reinterpret_cast<int4*>(q)[1] = make_int4(f.c[4], f.c[5], f.c[6], f.c[7]);
#else
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) q[j] = f.c[j];
#endif
}
MLDSA_DEV inline Frag load_strided(const int32_t* p) {
  Frag f;
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) f.c[j] = p[simt::lane() + 32 * j];
  return f;
}
MLDSA_DEV inline void store_strided(int32_t* p, const Frag& f) {
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) p[simt::lane() + 32 * j] = f.c[j];
}

// --- bytes -----------------------------------------------------------------

// Byte access to global memory (a plain pointer) or shared memory (Shared).
MLDSA_DEV inline uint8_t byte_at(const uint8_t* p, size_t i) { return p[i]; }
MLDSA_DEV inline uint8_t byte_at(Shared<uint8_t> p, size_t i) { return p[i]; }
MLDSA_DEV inline void set_byte(uint8_t* p, size_t i, uint8_t v) { p[i] = v; }
MLDSA_DEV inline void set_byte(Shared<uint8_t> p, size_t i, uint8_t v) { p[i] = v; }

// Contiguous Frag <-> `bits` bytes per lane at out + lane * bits (FIPS 204
// BitPack/SimpleBitPack, Algorithms 16-19, eight coefficients at a time): the
// value packed is offset - a (negate) or a + offset, as kernels/thread/packing.h.
template <typename Out>
MLDSA_DEV inline void pack_contiguous(Out out, const Frag& f, unsigned bits, int32_t offset, bool negate) {
  uint64_t acc = 0;
  unsigned have = 0;
  size_t at = size_t{simt::lane()} * bits;
  const uint32_t mask = (1u << bits) - 1;
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) {
    const int32_t v = negate ? offset - f.c[j] : f.c[j] + offset;
    acc |= static_cast<uint64_t>(static_cast<uint32_t>(v) & mask) << have;
    have += bits;
    while (have >= 8) {
      set_byte(out, at++, static_cast<uint8_t>(acc));
      acc >>= 8;
      have -= 8;
    }
  }
}
template <typename In>
MLDSA_DEV inline Frag unpack_contiguous(In in, unsigned bits, int32_t offset, bool negate) {
  Frag f;
  uint64_t acc = 0;
  unsigned have = 0;
  size_t at = size_t{simt::lane()} * bits;
  const uint32_t mask = (1u << bits) - 1;
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) {
    while (have < bits) {
      acc |= static_cast<uint64_t>(byte_at(in, at++)) << have;
      have += 8;
    }
    const int32_t v = static_cast<int32_t>(acc & mask);
    acc >>= bits;
    have -= bits;
    f.c[j] = negate ? offset - v : v - offset;
  }
  return f;
}
// The same encoding read straight into the Strided layout (coefficient
// l + 32 j at bit (l + 32 j) * bits): no layout change before the NTT.
template <typename In>
MLDSA_DEV inline Frag unpack_strided(In in, unsigned bits, int32_t offset, bool negate) {
  Frag f;
  const uint32_t mask = (1u << bits) - 1;
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) {
    const unsigned bit = (simt::lane() + 32 * j) * bits;
    const unsigned first = bit / 8, shift = bit % 8, nbytes = (shift + bits + 7) / 8;
    uint32_t w = 0;
    for (unsigned b = 0; b < nbytes; ++b) w |= static_cast<uint32_t>(byte_at(in, first + b)) << (8 * b);
    const int32_t v = static_cast<int32_t>((w >> shift) & mask);
    f.c[j] = negate ? offset - v : v - offset;
  }
  return f;
}

// --- arithmetic --------------------------------------------------------------

// Whether some coefficient of the warp's polynomial has |a| >= bound (a
// reduced), without a branch on a coefficient (as kernels/thread/sign.h's poly_exceeds).
MLDSA_DEV inline bool warp_exceeds(const Frag& f, int32_t bound) {
  uint32_t any = 0;
  MLDSA_UNROLL
  for (unsigned j = 0; j < 8; ++j) {
    int32_t v = f.c[j];
    v = v - ((v >> 31) & (2 * v));
    any |= static_cast<uint32_t>(bound - 1 - v) >> 31;
  }
  return simt::any(any != 0);
}

}  // namespace mldsa::gpu::coop
