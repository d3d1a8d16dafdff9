// poly8.h - coefficient-wise helpers on 8 x int32 lanes (AVX2; the AVX-512
// backend uses the Decompose + w1Encode ones, and sampling16.h for the rest):
// the rejection samplers of ExpandA and ExpandS, the unpacking of
// ExpandMask's y, and Decompose + w1Encode. Same results as the
// portable helpers in cpu/sampling.cc, cpu/packing.cc and cpu/rounding.cc.
//
// Anonymous namespace on purpose (built with different ISA flags per backend).
#pragma once

#include <immintrin.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cpu/avx2/packing8.h"
#include "cpu/ct.h"
#include "cpu/poly.h"
#include "cpu/sampling.h"

namespace {
namespace poly8 {

// For each 8-bit accept mask, the lanes to keep, packed to the front.
struct CompressTable {
  uint8_t idx[256][8];
};
constexpr CompressTable make_compress_table() {
  CompressTable t{};
  for (int m = 0; m < 256; ++m) {
    int n = 0;
    for (int i = 0; i < 8; ++i)
      if (m & (1 << i)) t.idx[m][n++] = static_cast<uint8_t>(i);
  }
  return t;
}
alignas(64) constexpr CompressTable kCompress = make_compress_table();

// Eight 3-byte candidates from 24 bytes at p (reads 28 bytes), 23 bits each.
inline __m256i candidates24(const uint8_t* p) {
  const __m256i raw = _mm256_inserti128_si256(
      _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))),
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 12)), 1);
  const __m256i shuf = _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1, 0, 1, 2, -1, 3, 4, 5,
                                        -1, 6, 7, 8, -1, 9, 10, 11, -1);
  return _mm256_and_si256(_mm256_shuffle_epi8(raw, shuf), _mm256_set1_epi32(0x7FFFFF));
}

// RejNTTPoly's parsing (Algorithm 30): as mldsa::rej_ntt_coeffs. A^ is
// public, so indexing a table by the accept mask is fine. A full vector is
// stored while at least 8 slots are left; lanes past the accepted ones are
// overwritten by the next store.
inline unsigned rej_ntt(int32_t* a, unsigned ctr, const uint8_t* buf, size_t len) {
  size_t pos = 0;
  const __m256i q = _mm256_set1_epi32(mldsa::Q);
  while (ctr + 8 <= mldsa::N && pos + 28 <= len) {
    const __m256i v = candidates24(buf + pos);
    const unsigned m = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(q, v))));
    const __m256i perm = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(kCompress.idx[m])));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(a + ctr), _mm256_permutevar8x32_epi32(v, perm));
    ctr += static_cast<unsigned>(__builtin_popcount(m));
    pos += 24;
  }
  return mldsa::rej_ntt_coeffs(a, ctr, buf + pos, len - pos);  // the tail, one candidate at a time
}

// RejBoundedPoly's parsing (Algorithm 31): as mldsa::rej_bounded_coeffs,
// 8 half-byte candidates from 4 bytes at a time. The candidates are secret;
// only the accept mask is declassified (cpu/ct.h), and it alone picks the
// compress pattern and the count.
inline unsigned rej_bounded(int32_t* a, unsigned ctr, const uint8_t* buf, size_t len, unsigned eta) {
  size_t pos = 0;
  const __m128i spread = _mm_setr_epi8(0, 0, 1, 1, 2, 2, 3, 3, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i shift = _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4);
  const __m256i nib = _mm256_set1_epi32(15);
  const __m256i limit = _mm256_set1_epi32(eta == 2 ? 15 : 9);
  const __m256i top = _mm256_set1_epi32(static_cast<int32_t>(eta));
  while (ctr + 8 <= mldsa::N && pos + 4 <= len) {
    uint32_t w;
    std::memcpy(&w, buf + pos, 4);
    const __m128i bytes = _mm_shuffle_epi8(_mm_cvtsi32_si128(static_cast<int>(w)), spread);
    const __m256i b = _mm256_and_si256(_mm256_srlv_epi32(_mm256_cvtepu8_epi32(bytes), shift), nib);
    __m256i r = b;
    if (eta == 2) {  // b mod 5 for b < 15: b - ((205 b) >> 10) * 5
      const __m256i t = _mm256_srli_epi32(_mm256_mullo_epi16(b, _mm256_set1_epi32(205)), 10);
      r = _mm256_sub_epi32(b, _mm256_add_epi32(_mm256_slli_epi32(t, 2), t));
    }
    const __m256i v = _mm256_sub_epi32(top, r);
    const unsigned m = mldsa::declassify(
        static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(limit, b)))));
    const __m256i perm = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(kCompress.idx[m])));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(a + ctr), _mm256_permutevar8x32_epi32(v, perm));
    ctr += static_cast<unsigned>(__builtin_popcount(m));
    pos += 4;
  }
  return mldsa::rej_bounded_coeffs(a, ctr, buf + pos, len - pos, eta);
}

// ExpandMask's unpacking: z_i = 2^g - (bits of width g+1), as mldsa::unpack_z.
inline void unpack_z(mldsa::Poly* z, const uint8_t* in, unsigned gamma1_bits) {
  if (gamma1_bits == 17)
    packing8::unpack<18>(z, in, 1 << 17, true);
  else
    packing8::unpack<20>(z, in, 1 << 19, true);
}

// Decompose (Algorithm 36) on 8 lanes of a in [0, q), the arithmetic of
// cpu/rounding.cc: multiply-shift division by 2*gamma2, branch-free centring.
inline __m256i decompose(__m256i* lo_out, __m256i v, int32_t gamma2) {
  using mldsa::Q;
  __m256i hi = _mm256_srai_epi32(_mm256_add_epi32(v, _mm256_set1_epi32(127)), 7);
  if (gamma2 == (Q - 1) / 32) {
    hi = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(hi, _mm256_set1_epi32(1025)), _mm256_set1_epi32(1 << 21)), 22);
    hi = _mm256_and_si256(hi, _mm256_set1_epi32(15));
  } else {
    hi = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(hi, _mm256_set1_epi32(11275)), _mm256_set1_epi32(1 << 23)), 24);
    hi = _mm256_xor_si256(hi, _mm256_and_si256(_mm256_srai_epi32(_mm256_sub_epi32(_mm256_set1_epi32(43), hi), 31), hi));  // 44 -> 0
  }
  __m256i lo = _mm256_sub_epi32(v, _mm256_mullo_epi32(hi, _mm256_set1_epi32(2 * gamma2)));
  lo = _mm256_sub_epi32(lo, _mm256_and_si256(_mm256_srai_epi32(_mm256_sub_epi32(_mm256_set1_epi32((Q - 1) / 2), lo), 31),
                                             _mm256_set1_epi32(Q)));
  *lo_out = lo;
  return hi;
}

// w1Encode: SimpleBitPack of w1 in 4 or 6 bits (packing8.h).
inline void pack_w1(uint8_t* out, const int32_t* w, int32_t gamma2) {
  if (gamma2 == (mldsa::Q - 1) / 32)
    packing8::pack<4>(out, w, 0, false);
  else
    packing8::pack<6>(out, w, 0, false);
}

// Sign's rows: Decompose, then w1Encode. Constant time: w is secret.
inline void decompose_w1(mldsa::Poly* a1, mldsa::Poly* a0, uint8_t* w1enc, const mldsa::Poly* a, int32_t gamma2) {
  for (int i = 0; i < mldsa::N; i += 8) {
    __m256i lo;
    const __m256i hi = decompose(&lo, _mm256_load_si256(reinterpret_cast<const __m256i*>(a->c + i)), gamma2);
    _mm256_store_si256(reinterpret_cast<__m256i*>(a1->c + i), hi);
    _mm256_store_si256(reinterpret_cast<__m256i*>(a0->c + i), lo);
  }
  pack_w1(w1enc, a1->c, gamma2);
}

// Verify's rows: UseHint (Algorithm 40): a1 moves one step towards a0's side
// where h = 1, modulo 16 or 44; then w1Encode.
inline void use_hint_w1(uint8_t* w1enc, const mldsa::Poly* a, const mldsa::Poly* h, int32_t gamma2) {
  const bool g32 = gamma2 == (mldsa::Q - 1) / 32;
  alignas(32) int32_t w1[mldsa::N];
  const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
  for (int i = 0; i < mldsa::N; i += 8) {
    __m256i lo;
    __m256i hi = decompose(&lo, _mm256_load_si256(reinterpret_cast<const __m256i*>(a->c + i)), gamma2);
    const __m256i hint = _mm256_load_si256(reinterpret_cast<const __m256i*>(h->c + i));
    // a1 + 1 where a0 > 0, else a1 - 1; only where h = 1. down is -1 where
    // a0 > 0 (all-ones | 1), else 1; vpsignd zeroes it where h = 0.
    const __m256i down = _mm256_or_si256(_mm256_cmpgt_epi32(lo, zero), one);
    hi = _mm256_sub_epi32(hi, _mm256_sign_epi32(down, hint));
    if (g32) {
      hi = _mm256_and_si256(hi, _mm256_set1_epi32(15));
    } else {  // -1 -> 43, 44 -> 0
      hi = _mm256_add_epi32(hi, _mm256_and_si256(_mm256_cmpgt_epi32(zero, hi), _mm256_set1_epi32(44)));
      hi = _mm256_andnot_si256(_mm256_cmpeq_epi32(hi, _mm256_set1_epi32(44)), hi);
    }
    _mm256_store_si256(reinterpret_cast<__m256i*>(w1 + i), hi);
  }
  pack_w1(w1enc, w1, gamma2);
}

}  // namespace poly8
}  // namespace
