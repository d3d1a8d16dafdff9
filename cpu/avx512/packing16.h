// packing16.h - SimpleBitPack / BitPack and their inverses (FIPS 204
// Algorithms 16-19) on 16 x int32 lanes (AVX-512 F/BW, no VBMI), for the
// widths of cpu/avx2/packing8.h; other widths go to the portable code.
//
// 16 coefficients of B bits are 2B bytes, 4 per 128-bit lane as in
// packing8.h. Byte-masked loads and stores keep every access inside the
// packed polynomial, so no tail buffer is needed. No data-dependent branch
// or index.
//
// Anonymous namespace on purpose (built with the AVX-512 backend's flags).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "cpu/avx2/packing8.h"
#include "cpu/packing.h"
#include "cpu/poly.h"

namespace {
namespace packing16 {

// Unpacking: lane j's bytes start at byte floor(j*B/2) of the group; vpermd
// brings the 16 bytes from the dword holding it into lane j, and the lane's
// pshufb pattern starts `bias` = floor(j*B/2) % 4 bytes in.
struct UnpackLayout {
  int32_t perm[16];
  int8_t shuf[64];
  int32_t shift[16];
};
constexpr UnpackLayout unpack_layout(unsigned B) {
  UnpackLayout u{};
  for (unsigned j = 0; j < 4; ++j) {
    const unsigned base = j * B / 2;
    const packing8::UnpackLane l = packing8::unpack_lane(B, j, base % 4);
    for (unsigned t = 0; t < 4; ++t) {
      u.perm[4 * j + t] = static_cast<int32_t>(base / 4 + t);
      u.shift[4 * j + t] = l.shift[t];
    }
    for (unsigned t = 0; t < 16; ++t) u.shuf[16 * j + t] = l.shuf[t];
  }
  return u;
}

// v = (a ^ s) - s + off with s = -1 to negate (pack_bits' offset / negate).
struct Affine {
  __m512i sign, off;
  Affine(int32_t offset, bool negate)
      : sign(_mm512_set1_epi32(negate ? -1 : 0)), off(_mm512_set1_epi32(offset)) {}
};

// The bytes of the polynomial left from `used` on, up to a full vector.
inline __mmask64 bytes_left(unsigned total, unsigned used) {
  const unsigned n = total - used;
  return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1;
}

template <unsigned B>
inline void unpack(mldsa::Poly* a, const uint8_t* in, int32_t offset, bool negate) {
  static constexpr UnpackLayout kL = unpack_layout(B);
  const __m512i perm = _mm512_loadu_si512(kL.perm), shuf = _mm512_loadu_si512(kL.shuf),
                shift = _mm512_loadu_si512(kL.shift), mask = _mm512_set1_epi32((1 << B) - 1);
  const Affine f(offset, negate);
  for (unsigned g = 0; g < 16; ++g) {
    const __m512i raw = _mm512_maskz_loadu_epi8(bytes_left(32 * B, 2 * B * g), in + 2 * B * g);
    __m512i v = _mm512_shuffle_epi8(_mm512_permutexvar_epi32(perm, raw), shuf);
    v = _mm512_and_si512(_mm512_srlv_epi32(v, shift), mask);
    const __m512i r = _mm512_sub_epi32(v, f.off);  // unpack_bits: negate ? off - v : v - off
    _mm512_store_si512(a->c + 16 * g, _mm512_sub_epi32(_mm512_xor_si512(r, f.sign), f.sign));
  }
}

// Packing 16 coefficients: pairs into 2B-bit qwords, qword pairs into 4B-bit
// lanes (as packing8.h), then lanes 0|1 and 2|3 into B bytes each (B <= 16),
// or each lane's B/2 bytes stored as they are (B even).
template <unsigned B>
inline void encode_group(uint8_t* p, const int32_t* a, const Affine& f) {
  __m512i v = _mm512_load_si512(a);
  v = _mm512_sub_epi32(_mm512_xor_si512(v, f.sign), f.sign);
  v = _mm512_and_si512(_mm512_add_epi32(v, f.off), _mm512_set1_epi32((1 << B) - 1));
  const __m512i q = _mm512_or_si512(_mm512_maskz_mov_epi32(0x5555, v),
                                    _mm512_srli_epi64(_mm512_maskz_mov_epi32(0xAAAA, v), 32 - B));
  const __m512i q1 = _mm512_shuffle_epi32(q, static_cast<_MM_PERM_ENUM>(0xEE));
  __m512i r = _mm512_or_si512(_mm512_maskz_mov_epi64(0x55, q),
                              _mm512_sllv_epi64(q1, _mm512_set_epi64(64, 2 * B, 64, 2 * B, 64, 2 * B, 64, 2 * B)));
  if constexpr (4 * B > 64)
    r = _mm512_or_si512(
        r, _mm512_srlv_epi64(q1, _mm512_set_epi64(64 - 2 * B, 64, 64 - 2 * B, 64, 64 - 2 * B, 64, 64 - 2 * B, 64)));
  if constexpr (B <= 16) {  // lane 2i | lane 2i+1 << 4B (4B = 8k + m) in lane 2i
    constexpr unsigned k = 4 * B / 8, m = 4 * B % 8;
    __m512i odd = _mm512_shuffle_i32x4(r, r, _MM_SHUFFLE(3, 3, 1, 1));
    if constexpr (m != 0) odd = _mm512_slli_epi64(odd, m);
    const __m512i c = _mm512_or_si512(r, _mm512_bslli_epi128(odd, k));
    constexpr __mmask16 kB = (1u << B) - 1;
    _mm_mask_storeu_epi8(p, kB, _mm512_castsi512_si128(c));
    _mm_mask_storeu_epi8(p + B, kB, _mm512_extracti32x4_epi32(c, 2));
  } else {
    constexpr __mmask16 kH = (1u << (B / 2)) - 1;
    _mm_mask_storeu_epi8(p, kH, _mm512_castsi512_si128(r));
    _mm_mask_storeu_epi8(p + B / 2, kH, _mm512_extracti32x4_epi32(r, 1));
    _mm_mask_storeu_epi8(p + B, kH, _mm512_extracti32x4_epi32(r, 2));
    _mm_mask_storeu_epi8(p + 3 * B / 2, kH, _mm512_extracti32x4_epi32(r, 3));
  }
}

// a: 256 coefficients, 64-byte aligned. Widths up to 6 bits take
// packing8.h's byte-narrowing path, which measures faster than 16 lanes of
// the general one here.
template <unsigned B>
inline void pack(uint8_t* out, const int32_t* a, int32_t offset, bool negate) {
  if constexpr (B <= 6) {
    packing8::pack<B>(out, a, offset, negate);
  } else {
    const Affine f(offset, negate);
    for (unsigned g = 0; g < 16; ++g) encode_group<B>(out + 2 * B * g, a + 16 * g, f);
  }
}

// ExpandMask's unpacking (as poly8::unpack_z).
inline void unpack_z(mldsa::Poly* z, const uint8_t* in, unsigned gamma1_bits) {
  if (gamma1_bits == 17)
    unpack<18>(z, in, 1 << 17, true);
  else
    unpack<20>(z, in, 1 << 19, true);
}

inline void pack_bits(uint8_t* out, const mldsa::Poly* a, unsigned bits, int32_t offset, bool negate) {
  if (!mldsa::with_packed_width(bits, [&](auto B) { pack<B>(out, a->c, offset, negate); })) mldsa::pack_bits(out, a, bits, offset, negate);
}

inline void unpack_bits(mldsa::Poly* a, const uint8_t* in, unsigned bits, int32_t offset, bool negate) {
  if (!mldsa::with_packed_width(bits, [&](auto B) { unpack<B>(a, in, offset, negate); })) mldsa::unpack_bits(a, in, bits, offset, negate);
}

}  // namespace packing16
}  // namespace
