// packing8.h - SimpleBitPack / BitPack and their inverses (FIPS 204
// Algorithms 16-19) on 8 x int32 lanes, for the widths the encodings use:
// eta (3, 4 bits), w1 (4, 6), t1 (10), t0 (13) and z (18, 20); and
// HintBitPack's index list (Algorithm 20). Same bytes as mldsa::pack_bits /
// mldsa::unpack_bits, which handle any other width.
//
// 8 coefficients of B bits are B bytes; each 128-bit lane holds 4 of them,
// starting at bit 4*j*B of the group (lane j). Reads and writes stay inside
// the packed polynomial: the general path sends its last groups through a
// small local buffer; the narrow one (B <= 6) stores exact byte counts.
// No data-dependent branch or index (the inputs are secret for s1, s2, t0).
//
// Anonymous namespace on purpose (built with different ISA flags per backend).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "cpu/packing.h"
#include "cpu/poly.h"

namespace {
namespace packing8 {

// Unpacking one 128-bit lane: coefficient i's bits start at bit e + i*B of
// the lane's first byte (e = 4 for odd B in odd lanes, else 0); a 4-byte
// window gathered by pshufb and a right shift bring them to bit 0 (B + 7 <= 32).
// `bias` moves the window when the lane's bytes sit `bias` bytes into its load.
struct UnpackLane {
  int8_t shuf[16];
  int32_t shift[4];
};
constexpr UnpackLane unpack_lane(unsigned B, unsigned j, unsigned bias) {
  UnpackLane l{};
  const unsigned e = (4 * j * B) % 8;
  for (unsigned i = 0; i < 4; ++i) {
    const unsigned bit = e + i * B;
    for (unsigned t = 0; t < 4; ++t) l.shuf[4 * i + t] = static_cast<int8_t>(bias + bit / 8 + t);
    l.shift[i] = static_cast<int32_t>(bit % 8);
  }
  return l;
}

// Groups 0 .. safe_groups-1 may touch `reach` bytes from their start without
// leaving the 32*B bytes of the polynomial.
constexpr unsigned safe_groups(unsigned B, unsigned reach) {
  const unsigned g = (32 * B - reach) / B + 1;
  return g < 32 ? g : 32;
}

// The offset / negate of pack_bits as vector constants: v = (a ^ s) - s + off
// with s = -1 to negate.
struct Affine {
  __m256i sign, off;
  Affine(int32_t offset, bool negate)
      : sign(_mm256_set1_epi32(negate ? -1 : 0)), off(_mm256_set1_epi32(offset)) {}
};

template <unsigned B>
inline __m256i decode_group(const uint8_t* p, const __m256i& shuf, const __m256i& shift, const Affine& f) {
  const __m256i raw = _mm256_inserti128_si256(
      _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))),
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + B / 2)), 1);
  const __m256i v = _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(raw, shuf), shift),
                                     _mm256_set1_epi32((1 << B) - 1));
  const __m256i r = _mm256_sub_epi32(v, f.off);  // unpack_bits: negate ? off - v : v - off
  return _mm256_sub_epi32(_mm256_xor_si256(r, f.sign), f.sign);
}

template <unsigned B>
inline void unpack(mldsa::Poly* a, const uint8_t* in, int32_t offset, bool negate) {
  static constexpr UnpackLane kLo = unpack_lane(B, 0, 0), kHi = unpack_lane(B, 1, 0);
  constexpr unsigned kSafe = safe_groups(B, B / 2 + 16);
  const __m256i shuf = _mm256_setr_m128i(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kLo.shuf)),
                                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(kHi.shuf)));
  const __m256i shift = _mm256_setr_epi32(kLo.shift[0], kLo.shift[1], kLo.shift[2], kLo.shift[3], kHi.shift[0],
                                          kHi.shift[1], kHi.shift[2], kHi.shift[3]);
  const Affine f(offset, negate);
  unsigned g = 0;
  for (; g < kSafe; ++g)
    _mm256_store_si256(reinterpret_cast<__m256i*>(a->c + 8 * g), decode_group<B>(in + g * B, shuf, shift, f));
  if constexpr (kSafe < 32) {
    uint8_t tail[(32 - kSafe) * B + 32] = {};
    std::memcpy(tail, in + kSafe * B, (32 - kSafe) * B);
    for (; g < 32; ++g)
      _mm256_store_si256(reinterpret_cast<__m256i*>(a->c + 8 * g),
                         decode_group<B>(tail + (g - kSafe) * B, shuf, shift, f));
  }
}

// Packing 8 coefficients: pairs into 2B-bit qwords, qword pairs into 4B-bit
// lanes, then the two lanes into B bytes. Writes 16 bytes (B <= 16) or B/2 + 16
// bytes from p; the bytes past the group are zeros the next group overwrites.
template <unsigned B>
inline void encode_group(uint8_t* p, const int32_t* a, const Affine& f) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(a));
  v = _mm256_sub_epi32(_mm256_xor_si256(v, f.sign), f.sign);
  v = _mm256_and_si256(_mm256_add_epi32(v, f.off), _mm256_set1_epi32((1 << B) - 1));
  // q_j = v_2j | v_2j+1 << B
  const __m256i q = _mm256_or_si256(_mm256_blend_epi32(v, zero, 0xAA),
                                    _mm256_srli_epi64(_mm256_blend_epi32(v, zero, 0x55), 32 - B));
  // lane = q_0 | q_1 << 2B as 128 bits
  const __m256i q1 = _mm256_shuffle_epi32(q, 0xEE);
  __m256i r = _mm256_or_si256(_mm256_blend_epi32(q, zero, 0xCC),
                              _mm256_sllv_epi64(q1, _mm256_setr_epi64x(2 * B, 64, 2 * B, 64)));
  if constexpr (4 * B > 64) r = _mm256_or_si256(r, _mm256_srlv_epi64(q1, _mm256_setr_epi64x(64, 64 - 2 * B, 64, 64 - 2 * B)));
  const __m128i lo = _mm256_castsi256_si128(r), hi = _mm256_extracti128_si256(r, 1);
  if constexpr (B <= 16) {  // both lanes in 128 bits: lo | hi << 4B (4B = 8k + m)
    constexpr unsigned k = 4 * B / 8, m = 4 * B % 8;
    __m128i h = hi;
    if constexpr (m != 0) h = _mm_slli_epi64(h, m);  // hi < 2^(4B) leaves room in its low qword
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_or_si128(lo, _mm_bslli_si128(h, k)));
  } else {  // B even: each lane is B/2 whole bytes
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), lo);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p + B / 2), hi);
  }
}

// Widths of at most 6 bits: 32 coefficients at a time narrowed to one byte
// each (vpackus keeps them exact), then merged with multiply-adds: 4B bytes
// per step, stored exactly.
template <unsigned B>
inline void pack_narrow(uint8_t* out, const int32_t* a, const Affine& f) {
  const __m256i mask = _mm256_set1_epi32((1 << B) - 1);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);  // undo vpackus' lane interleave
  for (int i = 0; i < mldsa::N; i += 32, out += 4 * B) {
    __m256i v[4];
    for (int j = 0; j < 4; ++j) {
      const __m256i x = _mm256_load_si256(reinterpret_cast<const __m256i*>(a + i + 8 * j));
      v[j] = _mm256_and_si256(_mm256_add_epi32(_mm256_sub_epi32(_mm256_xor_si256(x, f.sign), f.sign), f.off), mask);
    }
    const __m256i bytes = _mm256_permutevar8x32_epi32(
        _mm256_packus_epi16(_mm256_packus_epi32(v[0], v[1]), _mm256_packus_epi32(v[2], v[3])), order);
    if constexpr (B == 4) {  // byte pairs -> one byte each
      const __m256i m = _mm256_maddubs_epi16(bytes, _mm256_set1_epi16(0x1001));
      const __m256i r = _mm256_permute4x64_epi64(_mm256_packus_epi16(m, m), 0x08);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(r));
    } else if constexpr (B == 6) {  // 4 coefficients -> 24-bit dwords -> 3 bytes each
      const __m256i m = _mm256_maddubs_epi16(bytes, _mm256_set1_epi16(0x4001));
      const __m256i d = _mm256_madd_epi16(m, _mm256_set1_epi32(0x10000001));
      const __m256i three = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, 0, 1, 2, 4, 5, 6,
                                             8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
      const __m256i r = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(d, three), _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(r));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + 16), _mm256_extracti128_si256(r, 1));
    } else {  // B == 3: 4 coefficients -> 12-bit dwords, pairs -> 24-bit qwords -> 3 bytes each
      static_assert(B == 3);
      const __m256i m = _mm256_maddubs_epi16(bytes, _mm256_set1_epi16(0x0801));
      const __m256i d = _mm256_madd_epi16(m, _mm256_set1_epi32(0x00400001));
      const __m256i zero = _mm256_setzero_si256();
      const __m256i q = _mm256_or_si256(_mm256_blend_epi32(d, zero, 0xAA),
                                        _mm256_srli_epi64(_mm256_blend_epi32(d, zero, 0x55), 32 - 12));
      const __m256i six = _mm256_setr_epi8(0, 1, 2, 8, 9, 10, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 8, 9,
                                           10, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
      const __m256i r = _mm256_shuffle_epi8(q, six);
      const __m128i x = _mm_or_si128(_mm256_castsi256_si128(r), _mm_bslli_si128(_mm256_extracti128_si256(r, 1), 6));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out), x);
      const uint32_t hi = static_cast<uint32_t>(_mm_extract_epi32(x, 2));
      std::memcpy(out + 8, &hi, 4);
    }
  }
}

// a: 256 coefficients, 32-byte aligned.
template <unsigned B>
inline void pack(uint8_t* out, const int32_t* a, int32_t offset, bool negate) {
  const Affine f(offset, negate);
  if constexpr (B == 3 || B == 4 || B == 6) {
    pack_narrow<B>(out, a, f);
  } else {
    constexpr unsigned kSafe = safe_groups(B, B <= 16 ? 16 : B / 2 + 16);
    unsigned g = 0;
    for (; g < kSafe; ++g) encode_group<B>(out + g * B, a + 8 * g, f);
    if constexpr (kSafe < 32) {
      uint8_t tail[(32 - kSafe) * B + 32];
      for (; g < 32; ++g) encode_group<B>(tail + (g - kSafe) * B, a + 8 * g, f);
      std::memcpy(out + kSafe * B, tail, (32 - kSafe) * B);
    }
  }
}

// HintBitPack's positions (mldsa::hint_positions_by8), the lanes' mask by a compare.
inline unsigned hint_positions(uint8_t* pos, const mldsa::Poly* h) {
  return mldsa::hint_positions_by8(pos, h, [](const int32_t* p) {
    const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i zero = _mm256_setzero_si256();
    return 0xFFu & ~static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, zero))));
  });
}

inline void pack_bits(uint8_t* out, const mldsa::Poly* a, unsigned bits, int32_t offset, bool negate) {
  if (!mldsa::with_packed_width(bits, [&](auto B) { pack<B>(out, a->c, offset, negate); })) mldsa::pack_bits(out, a, bits, offset, negate);
}

inline void unpack_bits(mldsa::Poly* a, const uint8_t* in, unsigned bits, int32_t offset, bool negate) {
  if (!mldsa::with_packed_width(bits, [&](auto B) { unpack<B>(a, in, offset, negate); })) mldsa::unpack_bits(a, in, bits, offset, negate);
}

}  // namespace packing8
}  // namespace
