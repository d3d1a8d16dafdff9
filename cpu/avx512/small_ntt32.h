// small_ntt32.h - the NTT' over q' = 7681 (cpu/small_ntt.h) on 32 x int16
// lanes (AVX-512BW): the same 16x16 block, butterflies, lazy reductions and
// twiddles as cpu/avx2/small_ntt16.h, with two 16-coefficient rows (or
// columns) per zmm. Of the four layers of each half, three run between whole
// zmm registers; the fourth pairs the two halves of one register and runs on
// ymm halves where the data passes through ymm anyway (loading and storing
// the 32-bit polynomials, storing and loading the contract's columns).
// Register pairings: rows {r, r+8} for the 128..16 layers, columns
// {2m, 2m+1} (the contract's memory order) for the 8..1 layers.
// Anonymous namespace on purpose (built only with the AVX-512 flags).
#pragma once

#include <immintrin.h>

#include "cpu/avx2/small_ntt16.h"
#include "cpu/poly.h"
#include "cpu/small_ntt.h"

namespace {
namespace small_ntt32 {

using small_ntt16::fwd;
using small_ntt16::inv;
using small_ntt16::kFwdLanes;
using small_ntt16::kInvLanes;
using small_ntt16::LaneTwiddles;
using small_ntt16::Twiddle;

inline __m512i montmul(__m512i a, __m512i b, __m512i bq) {
  const __m512i t = _mm512_mullo_epi16(a, bq);
  return _mm512_sub_epi16(_mm512_mulhi_epi16(a, b), _mm512_mulhi_epi16(t, _mm512_set1_epi16(mldsa::QS)));
}
// Twiddle lo for the low 16 lanes, hi for the high 16.
inline __m512i montmul(__m512i a, Twiddle lo, Twiddle hi) {
  const __m512i z = _mm512_inserti64x4(_mm512_set1_epi16(lo.z), _mm256_set1_epi16(hi.z), 1);
  const __m512i zq = _mm512_inserti64x4(_mm512_set1_epi16(lo.zq), _mm256_set1_epi16(hi.zq), 1);
  return montmul(a, z, zq);
}
// Per-lane twiddles, the same row of the table in both halves.
inline __m512i montmul_lanes(__m512i a, const LaneTwiddles& t, int row) {
  return montmul(a, _mm512_broadcast_i64x4(_mm256_load_si256(reinterpret_cast<const __m256i*>(t.z[row]))),
                 _mm512_broadcast_i64x4(_mm256_load_si256(reinterpret_cast<const __m256i*>(t.zq[row]))));
}
inline __m512i barrett(__m512i a) {
  const __m512i hi = _mm512_mulhi_epi16(a, _mm512_set1_epi16(small_ntt16::kBarrettV));
  const __m512i t = _mm512_mulhrs_epi16(hi, _mm512_set1_epi16(32));  // (hi + 2^9) >> 10
  return _mm512_sub_epi16(a, _mm512_mullo_epi16(t, _mm512_set1_epi16(mldsa::QS)));
}
inline void fwd_bf(__m512i& a, __m512i& b, __m512i t) {
  b = _mm512_sub_epi16(a, t);
  a = _mm512_add_epi16(a, t);
}
inline __m512i inv_diff(__m512i& a, __m512i b) {
  const __m512i d = _mm512_sub_epi16(a, b);
  a = _mm512_add_epi16(a, b);
  return d;
}
inline __m256i lo256(__m512i v) { return _mm512_castsi512_si256(v); }
inline __m256i hi256(__m512i v) { return _mm512_extracti64x4_epi64(v, 1); }
inline __m512i join(__m256i lo, __m256i hi) { return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1); }

// 16x16 transpose: in z[a] = [line a | line a+8], out z[m] = [line' 2m |
// line' 2m+1], line' j being the j-th column of the lines. The ymm
// transpose's unpack stages run on both halves at once; its last stage
// (128-bit lanes) also picks the output pairs.
inline void transpose(__m512i z[8]) {
  __m512i t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm512_unpacklo_epi16(z[2 * i], z[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi16(z[2 * i], z[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    u[4 * i + 0] = _mm512_unpacklo_epi32(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm512_unpackhi_epi32(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm512_unpacklo_epi32(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm512_unpackhi_epi32(t[4 * i + 1], t[4 * i + 3]);
  }
  // t[c], 128-bit lanes: column c of lines 0-7, 8+c of 0-7, c of 8-15, 8+c of 8-15.
  for (int g = 0; g < 4; ++g) {
    t[2 * g] = _mm512_unpacklo_epi64(u[g], u[4 + g]);
    t[2 * g + 1] = _mm512_unpackhi_epi64(u[g], u[4 + g]);
  }
  for (int m = 0; m < 4; ++m) {
    z[m] = _mm512_shuffle_i64x2(t[2 * m], t[2 * m + 1], 0x88);      // columns 2m, 2m+1
    z[m + 4] = _mm512_shuffle_i64x2(t[2 * m], t[2 * m + 1], 0xDD);  // columns 2m+8, 2m+9
  }
}

// [x 2m | x 2m+1] (m < 8) -> [x r | x r+8] (r < 8).
inline void pair_with_8(__m512i z[8]) {
  __m512i t[8];
  for (int m = 0; m < 4; ++m) {
    t[2 * m] = _mm512_shuffle_i64x2(z[m], z[m + 4], 0x44);
    t[2 * m + 1] = _mm512_shuffle_i64x2(z[m], z[m + 4], 0xEE);
  }
  for (int r = 0; r < 8; ++r) z[r] = t[r];
}

inline void ntt(mldsa::SmallPoly* out, const mldsa::Poly* in) {
  __m512i z[8];
  // Layer 128 pairs rows r and r+8, which then share a register: run it on
  // the ymm rows as they are narrowed.
  for (int r = 0; r < 8; ++r) {
    __m256i a = _mm512_cvtepi32_epi16(_mm512_load_si512(in->c + 16 * r));
    __m256i b = _mm512_cvtepi32_epi16(_mm512_load_si512(in->c + 16 * (r + 8)));
    small_ntt16::fwd_bf(a, b, small_ntt16::montmul(b, fwd(1)));
    z[r] = join(a, b);
  }
  for (int r = 0; r < 4; ++r) fwd_bf(z[r], z[r + 4], montmul(z[r + 4], fwd(2), fwd(3)));
  for (int r = 0; r < 8; ++r)
    if (!(r & 2)) fwd_bf(z[r], z[r + 2], montmul(z[r + 2], fwd(4 + r / 4), fwd(6 + r / 4)));
  for (int r = 0; r < 8; r += 2) fwd_bf(z[r], z[r + 1], montmul(z[r + 1], fwd(8 + r / 2), fwd(12 + r / 2)));
  for (int r = 0; r < 8; ++r) z[r] = barrett(z[r]);
  transpose(z);  // z[m] = columns 2m, 2m+1
  for (int m = 0; m < 4; ++m) fwd_bf(z[m], z[m + 4], montmul_lanes(z[m + 4], kFwdLanes, 0));
  for (int m = 0; m < 8; ++m)
    if (!(m & 2)) fwd_bf(z[m], z[m + 2], montmul_lanes(z[m + 2], kFwdLanes, 1 + m / 4));
  for (int m = 0; m < 8; m += 2) fwd_bf(z[m], z[m + 1], montmul_lanes(z[m + 1], kFwdLanes, 3 + m / 2));
  // Layer 1 pairs the two columns of one register: on ymm halves, stored there.
  for (int m = 0; m < 8; ++m) {
    __m256i a = lo256(z[m]), b = hi256(z[m]);
    small_ntt16::fwd_bf(a, b, small_ntt16::montmul_lanes(b, kFwdLanes, 7 + m));
    _mm256_store_si256(reinterpret_cast<__m256i*>(out->c + 32 * m), small_ntt16::barrett(a));
    _mm256_store_si256(reinterpret_cast<__m256i*>(out->c + 32 * m + 16), small_ntt16::barrett(b));
  }
}

inline void mul(mldsa::Poly* out, const mldsa::SmallPoly* a, const mldsa::SmallPoly* b) {
  __m512i z[8];
  const __m512i qinv = _mm512_set1_epi16(small_ntt16::kQInv);
  for (int m = 0; m < 8; ++m) {
    const __m512i x = _mm512_load_si512(a->c + 32 * m), y = _mm512_load_si512(b->c + 32 * m);
    const __m512i p = montmul(x, y, _mm512_mullo_epi16(y, qinv));
    __m256i lo = lo256(p);
    const __m256i d = small_ntt16::inv_diff(lo, hi256(p));  // layer 1: columns 2m, 2m+1
    z[m] = join(lo, small_ntt16::montmul_lanes(d, kInvLanes, 7 + m));
  }
  for (int m = 0; m < 8; m += 2) z[m + 1] = montmul_lanes(inv_diff(z[m], z[m + 1]), kInvLanes, 3 + m / 2);
  for (int m = 0; m < 8; ++m)
    if (!(m & 2)) z[m + 2] = montmul_lanes(inv_diff(z[m], z[m + 2]), kInvLanes, 1 + m / 4);
  for (int m = 0; m < 8; ++m) z[m] = barrett(z[m]);
  for (int m = 0; m < 4; ++m) z[m + 4] = montmul_lanes(inv_diff(z[m], z[m + 4]), kInvLanes, 0);
  pair_with_8(z);  // columns c, c+8
  transpose(z);    // rows 2m, 2m+1
  pair_with_8(z);  // rows r, r+8
  for (int r = 0; r < 8; r += 2) z[r + 1] = montmul(inv_diff(z[r], z[r + 1]), inv(8 + r / 2), inv(12 + r / 2));
  for (int r = 0; r < 8; ++r)
    if (!(r & 2)) z[r + 2] = montmul(inv_diff(z[r], z[r + 2]), inv(4 + r / 4), inv(6 + r / 4));
  for (int r = 0; r < 8; ++r) z[r] = barrett(z[r]);
  for (int r = 0; r < 4; ++r) z[r + 4] = montmul(inv_diff(z[r], z[r + 4]), inv(2), inv(3));
  // Layer 128 pairs the two rows of one register: on ymm halves, with the
  // final scale, then widened and stored.
  for (int r = 0; r < 8; ++r) {
    __m256i x = lo256(z[r]);
    const __m256i d = small_ntt16::inv_diff(x, hi256(z[r]));
    x = small_ntt16::barrett(small_ntt16::montmul(x, small_ntt16::kScale));
    const __m256i y = small_ntt16::barrett(small_ntt16::montmul(d, small_ntt16::kScaleZ1));
    _mm512_store_si512(out->c + 16 * r, _mm512_cvtepi16_epi32(x));
    _mm512_store_si512(out->c + 16 * (r + 8), _mm512_cvtepi16_epi32(y));
  }
}

}  // namespace small_ntt32
}  // namespace
