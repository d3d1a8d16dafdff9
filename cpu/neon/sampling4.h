// sampling4.h - the rejection samplers of ExpandA (RejNTTPoly, Algorithm 30)
// and ExpandS (RejBoundedPoly, Algorithm 31) on 4 x int32 lanes (AArch64
// Advanced SIMD): 16 candidates a step, each 4-lane quarter packed to the
// front by a table lookup on its 4-bit accept mask and appended. Same
// results as mldsa::rej_ntt_coeffs / mldsa::rej_bounded_coeffs on any (ctr,
// buf, len): the steps end on candidate boundaries and the portable parsers
// take the rest.
//
// Anonymous namespace on purpose (see keccak2.h).
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "cpu/ct.h"
#include "cpu/poly.h"
#include "cpu/sampling.h"

namespace {
namespace sampling4 {

// For each 4-bit keep mask, the kept lanes' bytes packed to the front, and their number.
struct CompressTable {
  uint8_t idx[16][16];
  uint8_t count[16];
};
constexpr CompressTable make_compress_table() {
  CompressTable t{};
  for (unsigned m = 0; m < 16; ++m) {
    unsigned n = 0;
    for (unsigned i = 0; i < 4; ++i)
      if (m & (1u << i)) {
        for (unsigned b = 0; b < 4; ++b) t.idx[m][4 * n + b] = static_cast<uint8_t>(4 * i + b);
        ++n;
      }
    for (unsigned p = 4 * n; p < 16; ++p) t.idx[m][p] = 0xFF;
    t.count[m] = static_cast<uint8_t>(n);
  }
  return t;
}
alignas(16) constexpr CompressTable kCompress = make_compress_table();

// Stores the lanes of v that mask m (4 bits) keeps at a + ctr (a full vector:
// the next store overwrites the lanes past them); returns the new count.
[[gnu::always_inline]] inline unsigned append(int32_t* a, unsigned ctr, int32x4_t v, unsigned m) {
  const uint8x16_t packed = vqtbl1q_u8(vreinterpretq_u8_s32(v), vld1q_u8(kCompress.idx[m]));
  vst1q_s32(a + ctr, vreinterpretq_s32_u8(packed));
  return ctr + kCompress.count[m];
}

// Bit i of the result: lane i of the 4-lane mask.
[[gnu::always_inline]] inline unsigned mask4(uint32x4_t m) {
  const uint32x4_t bits = {1, 2, 4, 8};
  return vaddvq_u32(vandq_u32(m, bits));
}

// RejNTTPoly's parsing: 48 bytes (ld3 splits them into the first, second
// and third bytes of 16 candidates) give 16 23-bit candidates; those below
// q are kept. A^ is public, so indexing the table by the accept mask is fine.
inline unsigned rej_ntt(int32_t* a, unsigned ctr, const uint8_t* buf, size_t len) {
  size_t pos = 0;
  const uint32x4_t q = vdupq_n_u32(mldsa::Q);
  const uint8x16_t zero = vdupq_n_u8(0);
  while (ctr + 16 <= mldsa::N && pos + 48 <= len) {
    const uint8x16x3_t b = vld3q_u8(buf + pos);
    const uint8x16_t top = vandq_u8(b.val[2], vdupq_n_u8(0x7F));
    const uint16x8_t lo01 = vreinterpretq_u16_u8(vzip1q_u8(b.val[0], b.val[1]));  // candidates 0..7, low 16 bits
    const uint16x8_t lo23 = vreinterpretq_u16_u8(vzip2q_u8(b.val[0], b.val[1]));  // 8..15
    const uint16x8_t hi01 = vreinterpretq_u16_u8(vzip1q_u8(top, zero));
    const uint16x8_t hi23 = vreinterpretq_u16_u8(vzip2q_u8(top, zero));
    const uint32x4_t c[4] = {
        vreinterpretq_u32_u16(vzip1q_u16(lo01, hi01)), vreinterpretq_u32_u16(vzip2q_u16(lo01, hi01)),
        vreinterpretq_u32_u16(vzip1q_u16(lo23, hi23)), vreinterpretq_u32_u16(vzip2q_u16(lo23, hi23))};
    for (int i = 0; i < 4; ++i) ctr = append(a, ctr, vreinterpretq_s32_u32(c[i]), mask4(vcltq_u32(c[i], q)));
    pos += 48;
  }
  return mldsa::rej_ntt_coeffs(a, ctr, buf + pos, len - pos);  // the tail, one candidate at a time
}

// RejBoundedPoly's parsing: 8 bytes give 16 half-byte candidates (low half
// first). The candidates are secret; only the accept mask is declassified
// (cpu/ct.h), and it alone picks the compress pattern and the count.
inline unsigned rej_bounded(int32_t* a, unsigned ctr, const uint8_t* buf, size_t len, unsigned eta) {
  size_t pos = 0;
  const uint8x16_t limit = vdupq_n_u8(eta == 2 ? 15 : 9), top = vdupq_n_u8(static_cast<uint8_t>(eta));
  const uint8x16_t bits = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  while (ctr + 16 <= mldsa::N && pos + 8 <= len) {
    const uint8x8_t raw = vld1_u8(buf + pos);
    const uint8x8_t lo = vand_u8(raw, vdup_n_u8(0x0F)), hi = vshr_n_u8(raw, 4);
    const uint8x16_t b = vcombine_u8(vzip1_u8(lo, hi), vzip2_u8(lo, hi));
    uint8x16_t r = b;
    if (eta == 2) {  // b mod 5 for b < 16: b - 5 * ((13 b) >> 6)
      const uint8x16_t t = vshrq_n_u8(vmulq_u8(b, vdupq_n_u8(13)), 6);
      r = vmlsq_u8(b, t, vdupq_n_u8(5));
    }
    const int8x16_t v = vreinterpretq_s8_u8(vsubq_u8(top, r));  // eta - r, in [-eta, eta] where kept
    const uint8x16_t keep = vandq_u8(vcltq_u8(b, limit), bits);
    const unsigned m = mldsa::declassify(static_cast<unsigned>(vaddv_u8(vget_low_u8(keep))) |
                                         static_cast<unsigned>(vaddv_u8(vget_high_u8(keep))) << 8);
    const int16x8_t w0 = vmovl_s8(vget_low_s8(v)), w1 = vmovl_high_s8(v);
    ctr = append(a, ctr, vmovl_s16(vget_low_s16(w0)), m & 15);
    ctr = append(a, ctr, vmovl_high_s16(w0), (m >> 4) & 15);
    ctr = append(a, ctr, vmovl_s16(vget_low_s16(w1)), (m >> 8) & 15);
    ctr = append(a, ctr, vmovl_high_s16(w1), m >> 12);
    pos += 8;
  }
  return mldsa::rej_bounded_coeffs(a, ctr, buf + pos, len - pos, eta);
}

}  // namespace sampling4
}  // namespace
