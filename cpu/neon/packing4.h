// packing4.h - SimpleBitPack / BitPack and their inverses (FIPS 204
// Algorithms 16-19) on 4 x int32 lanes for the widths the encodings use:
// eta (3, 4 bits), w1 (4, 6), t1 (10), t0 (13) and z (18, 20); and
// HintBitPack's index list (Algorithm 20). Same bytes as mldsa::pack_bits /
// mldsa::unpack_bits, which handle any other width. AArch64 Advanced SIMD.
//
// One scheme for every width B, its byte tables built at compile time; a
// group is 8 coefficients, B bytes.
//  - unpack: a table lookup (tbl) gathers, for each coefficient, the 4 bytes
//    that hold its B bits (B + 7 <= 32), a per-lane shift brings them to bit
//    0, a mask keeps B bits.
//  - pack: pairs become 2B-bit values in 64-bit lanes (shift-right +
//    shift-left-insert); pair j, which starts at bit 2jB of the group, is
//    shifted left by 2jB mod 8, and two lookups place the bytes of the
//    even and the odd pairs (which never share a byte within their class);
//    an or merges them.
// Reads and writes stay inside the packed polynomial: the last groups go
// through a small local buffer. No data-dependent branch or index (the
// inputs are secret for s1, s2, t0); tbl indices are the constant tables.
//
// Anonymous namespace on purpose (see keccak2.h).
#pragma once

#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "cpu/packing.h"
#include "cpu/poly.h"

namespace {
namespace packing4 {

// Bytes one group reads (unpack) or writes (pack): 16 up to B = 13, else 32 / 24.
constexpr unsigned unpack_reach(unsigned B) { return B <= 13 ? 16 : 32; }
constexpr unsigned pack_reach(unsigned B) { return B <= 16 ? 16 : 24; }
// Groups 0 .. safe_groups-1 may touch `reach` bytes from their start without
// leaving the 32*B bytes of the polynomial.
constexpr unsigned safe_groups(unsigned B, unsigned reach) {
  const unsigned g = (32 * B - reach) / B + 1;
  return g < 32 ? g : 32;
}

struct UnpackTables {
  uint8_t idx[2][16];  // coefficients 4h .. 4h+3: bytes of their 4-byte windows
  int32_t shift[2][4];  // minus the bit offset inside the window
};
constexpr UnpackTables unpack_tables(unsigned B) {
  UnpackTables t{};
  for (unsigned c = 0; c < 8; ++c) {
    const unsigned bit = c * B;
    for (unsigned k = 0; k < 4; ++k) t.idx[c / 4][4 * (c % 4) + k] = static_cast<uint8_t>(bit / 8 + k);
    t.shift[c / 4][c % 4] = -static_cast<int32_t>(bit % 8);
  }
  return t;
}

struct PackTables {
  int64_t shift[2][2];  // pair j = 2v + lane of vector v: left shift 2jB mod 8
  uint8_t even[2][16], odd[2][16];  // output byte 16o + t from byte 8j + (t - first byte of pair j)
};
constexpr PackTables pack_tables(unsigned B) {
  PackTables t{};
  for (unsigned o = 0; o < 2; ++o)
    for (unsigned i = 0; i < 16; ++i) t.even[o][i] = t.odd[o][i] = 0xFF;  // out of range: 0
  for (unsigned j = 0; j < 4; ++j) {
    const unsigned bit = 2 * j * B, first = bit / 8, last = (bit + 2 * B - 1) / 8;
    t.shift[j / 2][j % 2] = bit % 8;
    for (unsigned b = first; b <= last; ++b) {
      uint8_t(&cls)[2][16] = j % 2 ? t.odd : t.even;
      cls[b / 16][b % 16] = static_cast<uint8_t>(8 * j + (b - first));
    }
  }
  return t;
}

template <unsigned B, bool Negate>
[[gnu::always_inline]] inline int32x4_t finish(uint32x4_t v, int32x4_t off) {
  const int32x4_t x = vreinterpretq_s32_u32(v);
  return Negate ? vsubq_s32(off, x) : vsubq_s32(x, off);  // unpack_bits: negate ? off - v : v - off
}

template <unsigned B, bool Negate>
[[gnu::always_inline]] inline void decode_group(int32_t* a, const uint8_t* p, const UnpackTables& t, int32x4_t off) {
  const uint32x4_t mask = vdupq_n_u32((1u << B) - 1);
  for (int h = 0; h < 2; ++h) {
    uint8x16_t w;
    if constexpr (unpack_reach(B) == 16)
      w = vqtbl1q_u8(vld1q_u8(p), vld1q_u8(t.idx[h]));
    else
      w = vqtbl2q_u8(uint8x16x2_t{{vld1q_u8(p), vld1q_u8(p + 16)}}, vld1q_u8(t.idx[h]));
    const uint32x4_t v = vandq_u32(vshlq_u32(vreinterpretq_u32_u8(w), vld1q_s32(t.shift[h])), mask);
    vst1q_s32(a + 4 * h, finish<B, Negate>(v, off));
  }
}

template <unsigned B, bool Negate>
inline void unpack(mldsa::Poly* a, const uint8_t* in, int32_t offset) {
  static constexpr UnpackTables kT = unpack_tables(B);
  constexpr unsigned kSafe = safe_groups(B, unpack_reach(B));
  const int32x4_t off = vdupq_n_s32(offset);
  unsigned g = 0;
  for (; g < kSafe; ++g) decode_group<B, Negate>(a->c + 8 * g, in + g * B, kT, off);
  if constexpr (kSafe < 32) {
    uint8_t tail[(32 - kSafe) * B + 32] = {};
    std::memcpy(tail, in + kSafe * B, (32 - kSafe) * B);
    for (; g < 32; ++g) decode_group<B, Negate>(a->c + 8 * g, tail + (g - kSafe) * B, kT, off);
  }
}

// (negate ? offset - a : a + offset) mod 2^B, as pack_bits.
template <unsigned B, bool Negate>
[[gnu::always_inline]] inline uint64x2_t pairs(const int32_t* a, int32x4_t off) {
  const int32x4_t x = vld1q_s32(a);
  const uint32x4_t v = vandq_u32(vreinterpretq_u32_s32(Negate ? vsubq_s32(off, x) : vaddq_s32(x, off)),
                                 vdupq_n_u32((1u << B) - 1));
  const uint64x2_t w = vreinterpretq_u64_u32(v);
  return vsliq_n_u64(w, vshrq_n_u64(w, 32), B);  // lane: v_even | v_odd << B
}

template <unsigned B, bool Negate>
[[gnu::always_inline]] inline void encode_group(uint8_t* p, const int32_t* a, const PackTables& t, int32x4_t off) {
  const uint8x16x2_t q = {{vreinterpretq_u8_u64(vshlq_u64(pairs<B, Negate>(a, off), vld1q_s64(t.shift[0]))),
                           vreinterpretq_u8_u64(vshlq_u64(pairs<B, Negate>(a + 4, off), vld1q_s64(t.shift[1])))}};
  vst1q_u8(p, vorrq_u8(vqtbl2q_u8(q, vld1q_u8(t.even[0])), vqtbl2q_u8(q, vld1q_u8(t.odd[0]))));
  if constexpr (B > 16) {
    const uint8x16_t hi = vorrq_u8(vqtbl2q_u8(q, vld1q_u8(t.even[1])), vqtbl2q_u8(q, vld1q_u8(t.odd[1])));
    vst1_u8(p + 16, vget_low_u8(hi));
  }
}

template <unsigned B, bool Negate>
inline void pack(uint8_t* out, const mldsa::Poly* a, int32_t offset) {
  static constexpr PackTables kT = pack_tables(B);
  constexpr unsigned kSafe = safe_groups(B, pack_reach(B));
  const int32x4_t off = vdupq_n_s32(offset);
  unsigned g = 0;
  for (; g < kSafe; ++g) encode_group<B, Negate>(out + g * B, a->c + 8 * g, kT, off);
  if constexpr (kSafe < 32) {
    uint8_t tail[(32 - kSafe) * B + 32];
    for (; g < 32; ++g) encode_group<B, Negate>(tail + (g - kSafe) * B, a->c + 8 * g, kT, off);
    std::memcpy(out + kSafe * B, tail, (32 - kSafe) * B);
  }
}

template <unsigned B>
inline void pack_either(uint8_t* out, const mldsa::Poly* a, int32_t offset, bool negate) {
  if (negate)  // the format, public
    pack<B, true>(out, a, offset);
  else
    pack<B, false>(out, a, offset);
}
template <unsigned B>
inline void unpack_either(mldsa::Poly* a, const uint8_t* in, int32_t offset, bool negate) {
  if (negate)
    unpack<B, true>(a, in, offset);
  else
    unpack<B, false>(a, in, offset);
}

inline void pack_bits(uint8_t* out, const mldsa::Poly* a, unsigned bits, int32_t offset, bool negate) {
  if (!mldsa::with_packed_width(bits, [&](auto B) { pack_either<B>(out, a, offset, negate); })) mldsa::pack_bits(out, a, bits, offset, negate);
}

inline void unpack_bits(mldsa::Poly* a, const uint8_t* in, unsigned bits, int32_t offset, bool negate) {
  if (!mldsa::with_packed_width(bits, [&](auto B) { unpack_either<B>(a, in, offset, negate); })) mldsa::unpack_bits(a, in, bits, offset, negate);
}

// ExpandMask's unpacking: z_i = 2^g - (bits of width g+1), as mldsa::unpack_z.
inline void unpack_z(mldsa::Poly* z, const uint8_t* in, unsigned gamma1_bits) {
  if (gamma1_bits == 17)
    unpack<18, true>(z, in, 1 << 17);
  else
    unpack<20, true>(z, in, 1 << 19);
}

// w1Encode: SimpleBitPack of w1 in 4 or 6 bits.
inline void pack_w1(uint8_t* out, const mldsa::Poly* w, int32_t gamma2) {
  if (gamma2 == (mldsa::Q - 1) / 32)
    pack<4, false>(out, w, 0);
  else
    pack<6, false>(out, w, 0);
}

// Bit i set for each non-zero lane i of the 8 coefficients at p.
[[gnu::always_inline]] inline unsigned nonzero_mask8(const int32_t* p) {
  const uint32x4_t lo = vtstq_s32(vld1q_s32(p), vld1q_s32(p)), hi = vtstq_s32(vld1q_s32(p + 4), vld1q_s32(p + 4));
  const uint8x8_t m = vmovn_u16(vcombine_u16(vmovn_u32(lo), vmovn_u32(hi)));
  const uint8x8_t bits = vcreate_u8(0x8040201008040201ull);
  return vaddv_u8(vand_u8(m, bits));
}

// HintBitPack's positions (mldsa::hint_positions_by8).
inline unsigned hint_positions(uint8_t* pos, const mldsa::Poly* h) {
  return mldsa::hint_positions_by8(pos, h, nonzero_mask8);
}

}  // namespace packing4
}  // namespace
