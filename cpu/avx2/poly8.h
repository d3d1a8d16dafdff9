// poly8.h - coefficient-wise helpers on 8 x int32 lanes (AVX2; the AVX-512
// backend builds them too): the uniform rejection sampler of ExpandA, the
// unpacking of ExpandMask's y, and Decompose + w1Encode. Same results as the
// portable helpers in cpu/sampling.cc, cpu/packing.cc and cpu/rounding.cc.
//
// Anonymous namespace on purpose (built with different ISA flags per backend).
#pragma once

#include <immintrin.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

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
// 8 coefficients take 18 bytes (g = 17) or 20 bytes (g = 19); each lane reads
// a 3-byte window and shifts it. Reads up to 14 bytes past the packed data.
inline void unpack_z(mldsa::Poly* z, const uint8_t* in, unsigned gamma1_bits) {
  const bool g17 = gamma1_bits == 17;
  const unsigned step = g17 ? 18 : 20;
  const __m256i shuf = g17 ? _mm256_setr_epi8(0, 1, 2, -1, 2, 3, 4, -1, 4, 5, 6, -1, 6, 7, 8, -1, 0, 1, 2, -1, 2, 3, 4,
                                               -1, 4, 5, 6, -1, 6, 7, 8, -1)
                           : _mm256_setr_epi8(0, 1, 2, -1, 2, 3, 4, -1, 5, 6, 7, -1, 7, 8, 9, -1, 0, 1, 2, -1, 2, 3, 4,
                                               -1, 5, 6, 7, -1, 7, 8, 9, -1);
  const __m256i shift = g17 ? _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6) : _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4);
  const __m256i mask = _mm256_set1_epi32((1 << (gamma1_bits + 1)) - 1);
  const __m256i gamma1 = _mm256_set1_epi32(1 << gamma1_bits);
  for (int i = 0; i < mldsa::N; i += 8, in += step) {
    const __m256i raw = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + step / 2)), 1);
    const __m256i v = _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(raw, shuf), shift), mask);
    _mm256_store_si256(reinterpret_cast<__m256i*>(z->c + i), _mm256_sub_epi32(gamma1, v));
  }
}

// Decompose (Algorithm 36) on 8 lanes, the arithmetic of cpu/rounding.cc
// (multiply-shift division by 2*gamma2, branch-free centring), then
// w1Encode with the fixed widths 4 or 6. Constant time: w is secret.
inline void decompose_w1(mldsa::Poly* a1, mldsa::Poly* a0, uint8_t* w1enc, const mldsa::Poly* a, int32_t gamma2) {
  using mldsa::Q;
  const bool g32 = gamma2 == (Q - 1) / 32;
  const __m256i mul = _mm256_set1_epi32(g32 ? 1025 : 11275);
  const __m256i rnd = _mm256_set1_epi32(g32 ? 1 << 21 : 1 << 23);
  const __m256i two_g2 = _mm256_set1_epi32(2 * gamma2);
  const __m256i half_q = _mm256_set1_epi32((Q - 1) / 2), q = _mm256_set1_epi32(Q);
  const __m256i c127 = _mm256_set1_epi32(127), c43 = _mm256_set1_epi32(43), c15 = _mm256_set1_epi32(15);
  for (int i = 0; i < mldsa::N; i += 8) {
    const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(a->c + i));
    __m256i hi = _mm256_srai_epi32(_mm256_add_epi32(v, c127), 7);
    if (g32) {
      hi = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(hi, mul), rnd), 22);
      hi = _mm256_and_si256(hi, c15);
    } else {
      hi = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(hi, mul), rnd), 24);
      hi = _mm256_xor_si256(hi, _mm256_and_si256(_mm256_srai_epi32(_mm256_sub_epi32(c43, hi), 31), hi));  // 44 -> 0
    }
    __m256i lo = _mm256_sub_epi32(v, _mm256_mullo_epi32(hi, two_g2));
    lo = _mm256_sub_epi32(lo, _mm256_and_si256(_mm256_srai_epi32(_mm256_sub_epi32(half_q, lo), 31), q));
    _mm256_store_si256(reinterpret_cast<__m256i*>(a1->c + i), hi);
    _mm256_store_si256(reinterpret_cast<__m256i*>(a0->c + i), lo);
  }
  const int32_t* w = a1->c;
  if (g32) {  // 4 bits: two coefficients a byte
    for (int i = 0; i < mldsa::N / 2; ++i) w1enc[i] = static_cast<uint8_t>(w[2 * i] | (w[2 * i + 1] << 4));
  } else {  // 6 bits: four coefficients in three bytes
    for (int i = 0; i < mldsa::N / 4; ++i) {
      const uint32_t t = static_cast<uint32_t>(w[4 * i] | (w[4 * i + 1] << 6) | (w[4 * i + 2] << 12) | (w[4 * i + 3] << 18));
      w1enc[3 * i] = static_cast<uint8_t>(t);
      w1enc[3 * i + 1] = static_cast<uint8_t>(t >> 8);
      w1enc[3 * i + 2] = static_cast<uint8_t>(t >> 16);
    }
  }
}

}  // namespace poly8
}  // namespace
