// small_ntt16.h - the NTT' over q' = 7681 (cpu/small_ntt.h) on 16 x int16
// lanes (AVX2). The polynomial is a 16x16 block in 16 ymm registers: layers
// 128..16 run between whole rows with broadcast twiddles, a transpose puts
// each 16-coefficient block in one lane, and layers 8..1 run between whole
// columns with per-lane twiddles. The columns are the contract's NTT' order,
// so the forward transform ends there and the inverse starts there.
//
// Montgomery arithmetic with R = 2^16 (vpmullw / vpmulhw) and lazy Barrett
// reductions: every intermediate stays below 2^15 in magnitude (bounds in the
// comments); the ends are centred exactly, so the results meet the contract
// whatever the order of the lazy steps.
// Anonymous namespace on purpose (built only with the vector ISA flags).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "cpu/poly.h"
#include "cpu/small_ntt.h"

namespace {
namespace small_ntt16 {

using mldsa::N;
using mldsa::QS;

using Twiddle = mldsa::SmallTwiddle;
constexpr int16_t kQInv = mldsa::kQSInv;
constexpr int16_t kBarrettV = mldsa::kSmallBarrettV;
constexpr Twiddle fwd(int k) { return mldsa::small_twiddle(mldsa::kZetasS[k]); }
constexpr Twiddle inv(int k) { return mldsa::small_twiddle(mldsa::kZetasSInv[k]); }

// Per-lane twiddles after the transpose (lane r = coefficients 16r..16r+15):
// row 0: layer 8; rows 1-2: layer 4 (h = 0, 1); rows 3-6: layer 2 (quarter
// 0..3); rows 7-14: layer 1 (pair 0..7). Block k of a layer as in the ref.
struct LaneTwiddles {
  int16_t z[15][16], zq[15][16];
};
constexpr LaneTwiddles make_lane_twiddles(bool inverse) {
  LaneTwiddles t{};
  for (int r = 0; r < 16; ++r) {
    int idx[15];
    idx[0] = 16 + r;
    for (int h = 0; h < 2; ++h) idx[1 + h] = 32 + 2 * r + h;
    for (int h = 0; h < 4; ++h) idx[3 + h] = 64 + 4 * r + h;
    for (int h = 0; h < 8; ++h) idx[7 + h] = 128 + 8 * r + h;
    for (int e = 0; e < 15; ++e) {
      const Twiddle w = inverse ? inv(idx[e]) : fwd(idx[e]);
      t.z[e][r] = w.z;
      t.zq[e][r] = w.zq;
    }
  }
  return t;
}
alignas(64) constexpr LaneTwiddles kFwdLanes = make_lane_twiddles(false);
alignas(64) constexpr LaneTwiddles kInvLanes = make_lane_twiddles(true);

// A constant g++ cannot see: it turns vpmullw by a known constant into
// shifts and subtractions (four instructions for one, two of them on the
// two shift pipes), which made up a quarter of the inverse transform. For
// constants only: MSan counts an asm operand as a use, and secrets must
// not be used that way (tests/ct).
inline __m256i opaque(__m256i v) {
  __asm__("" : "+x"(v));
  return v;
}

// mldsa::small_montmul and small_barrett on 16 lanes.
inline __m256i montmul(__m256i a, __m256i b, __m256i bq) {
  const __m256i t = _mm256_mullo_epi16(a, bq);
  return _mm256_sub_epi16(_mm256_mulhi_epi16(a, b), _mm256_mulhi_epi16(t, _mm256_set1_epi16(QS)));
}
inline __m256i montmul(__m256i a, Twiddle w) {
  return montmul(a, _mm256_set1_epi16(w.z), opaque(_mm256_set1_epi16(w.zq)));
}
inline __m256i montmul_lanes(__m256i a, const LaneTwiddles& t, int row) {
  return montmul(a, _mm256_load_si256(reinterpret_cast<const __m256i*>(t.z[row])),
                 opaque(_mm256_load_si256(reinterpret_cast<const __m256i*>(t.zq[row]))));
}
inline __m256i barrett(__m256i a) {
  const __m256i hi = _mm256_mulhi_epi16(a, _mm256_set1_epi16(kBarrettV));
  const __m256i t = _mm256_mulhrs_epi16(hi, _mm256_set1_epi16(32));  // (hi + 2^9) >> 10
  return _mm256_sub_epi16(a, _mm256_mullo_epi16(t, opaque(_mm256_set1_epi16(QS))));
}

inline void fwd_bf(__m256i& a, __m256i& b, __m256i t) {
  b = _mm256_sub_epi16(a, t);
  a = _mm256_add_epi16(a, t);
}
inline __m256i inv_diff(__m256i& a, __m256i b) {
  const __m256i d = _mm256_sub_epi16(a, b);
  a = _mm256_add_epi16(a, b);
  return d;
}

// 16x16 transpose of 16-bit elements, rows <-> columns.
inline void transpose(__m256i v[16]) {
  __m256i t[16], u[16];
  // t[2i] (per 128-bit half h): columns 8h+0..3 of rows 2i, 2i+1 interleaved;
  // t[2i+1]: columns 8h+4..7.
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm256_unpacklo_epi16(v[2 * i], v[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_epi16(v[2 * i], v[2 * i + 1]);
  }
  // u[4i+g] (per half h): columns 8h+2g, 8h+2g+1 of rows 4i..4i+3.
  for (int i = 0; i < 4; ++i) {
    u[4 * i + 0] = _mm256_unpacklo_epi32(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = _mm256_unpackhi_epi32(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = _mm256_unpacklo_epi32(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm256_unpackhi_epi32(t[4 * i + 1], t[4 * i + 3]);
  }
  // t[8b+c] (per half h): column 8h+c of rows 8b..8b+7.
  for (int b = 0; b < 2; ++b)
    for (int g = 0; g < 4; ++g) {
      t[8 * b + 2 * g] = _mm256_unpacklo_epi64(u[8 * b + g], u[8 * b + 4 + g]);
      t[8 * b + 2 * g + 1] = _mm256_unpackhi_epi64(u[8 * b + g], u[8 * b + 4 + g]);
    }
  for (int c = 0; c < 8; ++c) {
    v[c] = _mm256_permute2x128_si256(t[c], t[8 + c], 0x20);
    v[8 + c] = _mm256_permute2x128_si256(t[c], t[8 + c], 0x31);
  }
}

// In |a_i| <= (q'-1)/2. Bounds: each forward layer adds at most
// q'/2 + |b| * (q'/2) / 2^16, so four layers from 3840 stay below 21600.
// Each layer runs over the smallest group of registers it couples (pairs 8
// apart first, then halves, then quarters), and every loop is unrolled: with
// 16 ymm registers for 16 rows, a whole layer at a time made g++ keep the
// rows on the stack.
inline void ntt(mldsa::SmallPoly* out, const mldsa::Poly* in) {
  __m256i v[16];
  const auto load = [in](int r) {
    const __m256i lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(in->c + 16 * r));
    const __m256i hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(in->c + 16 * r + 8));
    return _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8);
  };
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    v[r] = load(r);
    v[r + 8] = load(r + 8);
    fwd_bf(v[r], v[r + 8], montmul(v[r + 8], fwd(1)));
  }
#pragma GCC unroll 2
  for (int h = 0; h < 16; h += 8) {
#pragma GCC unroll 4
    for (int r = h; r < h + 4; ++r) fwd_bf(v[r], v[r + 4], montmul(v[r + 4], fwd(2 + r / 8)));
#pragma GCC unroll 2
    for (int g = h; g < h + 8; g += 4) {
#pragma GCC unroll 2
      for (int r = g; r < g + 2; ++r) fwd_bf(v[r], v[r + 2], montmul(v[r + 2], fwd(4 + r / 4)));
#pragma GCC unroll 2
      for (int r = g; r < g + 4; r += 2) fwd_bf(v[r], v[r + 1], montmul(v[r + 1], fwd(8 + r / 2)));
#pragma GCC unroll 4
      for (int r = g; r < g + 4; ++r) v[r] = barrett(v[r]);  // back to |x| <= 3840
    }
  }
  transpose(v);
#pragma GCC unroll 8
  for (int c = 0; c < 8; ++c) fwd_bf(v[c], v[c + 8], montmul_lanes(v[c + 8], kFwdLanes, 0));
#pragma GCC unroll 2
  for (int h = 0; h < 16; h += 8) {
#pragma GCC unroll 4
    for (int c = h; c < h + 4; ++c) fwd_bf(v[c], v[c + 4], montmul_lanes(v[c + 4], kFwdLanes, 1 + c / 8));
#pragma GCC unroll 2
    for (int g = h; g < h + 8; g += 4) {
#pragma GCC unroll 2
      for (int c = g; c < g + 2; ++c) fwd_bf(v[c], v[c + 2], montmul_lanes(v[c + 2], kFwdLanes, 3 + c / 4));
#pragma GCC unroll 2
      for (int c = g; c < g + 4; c += 2) fwd_bf(v[c], v[c + 1], montmul_lanes(v[c + 1], kFwdLanes, 7 + c / 2));
#pragma GCC unroll 4
      for (int c = g; c < g + 4; ++c)
        _mm256_store_si256(reinterpret_cast<__m256i*>(out->c + 16 * c), barrett(v[c]));  // centred
    }
  }
}

constexpr Twiddle kScale = mldsa::kSmallScale;
constexpr Twiddle kScaleZ1 = mldsa::kSmallScaleZ1;

// Bounds: pointwise products <= 3840^2 / 2^16 + 3840.5 < 4067; three
// Gentleman-Sande layers at most double three times (< 32536), so reduce;
// then three more (<= 30720), reduce; two more (<= 15360) and the scale.
// Grouped and unrolled as ntt() is, in the reverse order.
inline void mul(mldsa::Poly* out, const mldsa::SmallPoly* a, const mldsa::SmallPoly* b) {
  __m256i v[16];
  const __m256i qinv = opaque(_mm256_set1_epi16(kQInv));
#pragma GCC unroll 2
  for (int h = 0; h < 16; h += 8) {
#pragma GCC unroll 2
    for (int g = h; g < h + 8; g += 4) {
#pragma GCC unroll 4
      for (int c = g; c < g + 4; ++c) {
        const __m256i x = _mm256_load_si256(reinterpret_cast<const __m256i*>(a->c + 16 * c));
        const __m256i y = _mm256_load_si256(reinterpret_cast<const __m256i*>(b->c + 16 * c));
        v[c] = montmul(x, y, _mm256_mullo_epi16(y, qinv));
      }
#pragma GCC unroll 2
      for (int c = g; c < g + 4; c += 2) v[c + 1] = montmul_lanes(inv_diff(v[c], v[c + 1]), kInvLanes, 7 + c / 2);
#pragma GCC unroll 2
      for (int c = g; c < g + 2; ++c) v[c + 2] = montmul_lanes(inv_diff(v[c], v[c + 2]), kInvLanes, 3 + c / 4);
    }
#pragma GCC unroll 4
    for (int c = h; c < h + 4; ++c) v[c + 4] = montmul_lanes(inv_diff(v[c], v[c + 4]), kInvLanes, 1 + c / 8);
#pragma GCC unroll 8
    for (int c = h; c < h + 8; ++c) v[c] = barrett(v[c]);
  }
#pragma GCC unroll 8
  for (int c = 0; c < 8; ++c) v[c + 8] = montmul_lanes(inv_diff(v[c], v[c + 8]), kInvLanes, 0);
  transpose(v);
#pragma GCC unroll 2
  for (int h = 0; h < 16; h += 8) {
#pragma GCC unroll 2
    for (int g = h; g < h + 8; g += 4) {
#pragma GCC unroll 2
      for (int r = g; r < g + 4; r += 2) v[r + 1] = montmul(inv_diff(v[r], v[r + 1]), inv(8 + r / 2));
#pragma GCC unroll 2
      for (int r = g; r < g + 2; ++r) v[r + 2] = montmul(inv_diff(v[r], v[r + 2]), inv(4 + r / 4));
#pragma GCC unroll 4
      for (int r = g; r < g + 4; ++r) v[r] = barrett(v[r]);
    }
#pragma GCC unroll 4
    for (int r = h; r < h + 4; ++r) v[r + 4] = montmul(inv_diff(v[r], v[r + 4]), inv(2 + r / 8));
  }
  const auto store = [out](int r, __m256i x) {
    x = barrett(x);  // centred: the exact coefficient
    _mm256_store_si256(reinterpret_cast<__m256i*>(out->c + 16 * r), _mm256_cvtepi16_epi32(_mm256_castsi256_si128(x)));
    _mm256_store_si256(reinterpret_cast<__m256i*>(out->c + 16 * r + 8),
                       _mm256_cvtepi16_epi32(_mm256_extracti128_si256(x, 1)));
  };
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    const __m256i d = inv_diff(v[r], v[r + 8]);
    store(r, montmul(v[r], kScale));
    store(r + 8, montmul(d, kScaleZ1));
  }
}

}  // namespace small_ntt16
}  // namespace
