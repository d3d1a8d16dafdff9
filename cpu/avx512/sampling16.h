// sampling16.h - the stream parsers of ExpandA, ExpandS and ExpandMask on
// 16 x int32 lanes. The rejection samplers (RejNTTPoly, Algorithm 30;
// RejBoundedPoly, Algorithm 31) turn 16 candidates into a keep mask, pack the
// kept ones to the front with vpcompressd and append them: same results as
// mldsa::rej_ntt_coeffs / mldsa::rej_bounded_coeffs on any (ctr, buf, len).
// AVX-512F/BW/VL only (no VBMI).
//
// Anonymous namespace on purpose (built with the AVX-512 backend's flags only).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "cpu/ct.h"
#include "cpu/poly.h"

namespace {
namespace sampling16 {

// The lanes of v selected by keep, packed to the front (vpcompressd); the
// rest zero. keep is public.
[[gnu::always_inline]] inline __m512i compress(__mmask16 keep, __m512i v) {
#ifndef MLDSA_CT_MSAN
  return _mm512_maskz_compress_epi32(keep, v);
#else  // clang-14 MSan reports vpcompressd itself: the same in scalar code
  alignas(64) int32_t in[16], out[16] = {};
  _mm512_store_si512(in, v);
  unsigned n = 0;
  for (unsigned i = 0; i < 16; ++i)
    if ((keep >> i) & 1) out[n++] = in[i];
  return _mm512_load_si512(out);
#endif
}

// Appends the lanes of v selected by keep, as many as fit below N. The
// compress runs in a register: vpcompressd to memory is microcoded on some
// cores. Timing depends on ctr and keep only, both public.
[[gnu::always_inline]] inline unsigned append(int32_t* a, unsigned ctr, __m512i v, __mmask16 keep) {
  const unsigned kept = static_cast<unsigned>(__builtin_popcount(keep));
  const unsigned room = mldsa::N - ctr;
  const unsigned take = kept < room ? kept : room;
  _mm512_mask_storeu_epi32(a + ctr, static_cast<__mmask16>((1u << take) - 1), compress(keep, v));
  return ctr + take;
}

// Byte mask of the first n (<= 64) bytes, for loads that must not read past len.
inline __mmask64 first_bytes(size_t n) { return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1; }

// Sixteen 3-byte candidates (23 bits each) from the 48 bytes in raw: dwords
// 3k..3k+3 to 128-bit lane k, then bytes 3i..3i+2 of the lane into dword i.
inline __m512i candidates48(__m512i raw) {
  const __m512i idx = _mm512_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6, 6, 7, 8, 9, 9, 10, 11, 12);
  const __m512i shuf = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1));
  return _mm512_and_si512(_mm512_shuffle_epi8(_mm512_permutexvar_epi32(idx, raw), shuf), _mm512_set1_epi32(0x7FFFFF));
}

// RejNTTPoly's parsing: candidates below q are kept. A^ is public.
inline unsigned rej_ntt(int32_t* a, unsigned ctr, const uint8_t* buf, size_t len) {
  const __m512i q = _mm512_set1_epi32(mldsa::Q);
  size_t pos = 0;
  // Whole steps while 16 more coefficients fit and a full 64-byte load stays
  // inside the buffer: plain loads and stores. (GCC 12 with -fsanitize=thread
  // miscompiled this loop with a masked load: the second step read zeros.)
  for (; ctr + 16 <= mldsa::N && pos + 64 <= len; pos += 48) {
    const __m512i v = candidates48(_mm512_loadu_si512(buf + pos));
    const __mmask16 keep = _mm512_cmplt_epu32_mask(v, q);
    _mm512_storeu_si512(a + ctr, compress(keep, v));
    ctr += static_cast<unsigned>(__builtin_popcount(keep));
  }
  // The end of the polynomial or of the buffer: fewer lanes or fewer bytes.
  for (; ctr < mldsa::N && pos + 3 <= len; pos += 48) {
    const size_t n = len - pos < 48 ? len - pos : 48;
    const __m512i v = candidates48(_mm512_maskz_loadu_epi8(first_bytes(n), buf + pos));
    const __mmask16 whole = static_cast<__mmask16>((1u << (n / 3)) - 1);  // candidates with all 3 bytes
    ctr = append(a, ctr, v, _mm512_mask_cmplt_epu32_mask(whole, v, q));
  }
  return ctr;
}

// RejBoundedPoly's parsing for one eta: 16 half-byte candidates b from 8
// bytes (low half first); b < 15 gives 2 - (b mod 5), b < 9 gives 4 - b.
// The candidates are secret; only the keep mask is declassified (cpu/ct.h),
// and it alone chooses the compress pattern and the count.
template <unsigned kEta>
inline unsigned rej_bounded_eta(int32_t* a, unsigned ctr, const uint8_t* buf, size_t len) {
  const __m128i spread = _mm_setr_epi8(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
  const __m512i shift = _mm512_set_epi32(4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0);
  const __m512i limit = _mm512_set1_epi32(kEta == 2 ? 15 : 9);
  const auto candidates = [&](__m128i bytes, __m512i* value) {
    const __m512i b = _mm512_and_si512(_mm512_srlv_epi32(_mm512_cvtepu8_epi32(_mm_shuffle_epi8(bytes, spread)), shift),
                                       _mm512_set1_epi32(15));
    __m512i r = b;
    if constexpr (kEta == 2) {  // b mod 5 for b < 15: b - ((205 b) >> 10) * 5
      const __m512i t = _mm512_srli_epi32(_mm512_mullo_epi16(b, _mm512_set1_epi32(205)), 10);
      r = _mm512_sub_epi32(b, _mm512_add_epi32(_mm512_slli_epi32(t, 2), t));
    }
    *value = _mm512_sub_epi32(_mm512_set1_epi32(kEta), r);
    return b;
  };
  size_t pos = 0;
  for (; ctr + 16 <= mldsa::N && pos + 8 <= len; pos += 8) {
    __m512i v;
    const __m512i b = candidates(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(buf + pos)), &v);
    const __mmask16 keep = mldsa::declassify(_mm512_cmplt_epu32_mask(b, limit));
    _mm512_storeu_si512(a + ctr, compress(keep, v));
    ctr += static_cast<unsigned>(__builtin_popcount(keep));
  }
  for (; ctr < mldsa::N && pos < len; pos += 8) {
    const size_t n = len - pos < 8 ? len - pos : 8;
    __m512i v;
    const __m512i b = candidates(_mm_maskz_loadu_epi8(static_cast<__mmask16>(first_bytes(n)), buf + pos), &v);
    const __mmask16 halves = static_cast<__mmask16>((1u << (2 * n)) - 1);
    ctr = append(a, ctr, v, mldsa::declassify(_mm512_mask_cmplt_epu32_mask(halves, b, limit)));
  }
  return ctr;
}

inline unsigned rej_bounded(int32_t* a, unsigned ctr, const uint8_t* buf, size_t len, unsigned eta) {
  return eta == 2 ? rej_bounded_eta<2>(a, ctr, buf, len) : rej_bounded_eta<4>(a, ctr, buf, len);
}

}  // namespace sampling16
}  // namespace
