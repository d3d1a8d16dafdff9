// lanes8.h - eight Keccak states in the 64-bit lanes of __m512i (the 8-way
// Ops of the AVX-512 backend): the squeeze's de-interleave and partial store
// that cpu/sampling_lanes.h asks of its Ops.
//
// Anonymous namespace on purpose (built with the AVX-512 backend's flags only).
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace {
namespace lanes8 {

// r[i] holds lane i of the 8 states; after the transpose r[w] holds 8
// consecutive lanes of state w: unpacks within 128-bit halves, then two
// rounds of half moves (24 shuffles instead of 64 scalar copies).
[[gnu::always_inline]] inline void transpose(__m512i r[8]) {
  __m512i t[8], u[8];
  for (int i = 0; i < 8; i += 2) {  // t[i] = (r[i][2k], r[i+1][2k]), t[i+1] the odd k, for k < 4
    t[i] = _mm512_unpacklo_epi64(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi64(r[i], r[i + 1]);
  }
  // 128-bit halves: 0x88 picks halves 0, 2 of each source, 0xDD halves 1, 3.
  for (int j = 0; j < 2; ++j) {
    u[4 * j + 0] = _mm512_shuffle_i64x2(t[j], t[j + 2], 0x88);
    u[4 * j + 1] = _mm512_shuffle_i64x2(t[j], t[j + 2], 0xDD);
    u[4 * j + 2] = _mm512_shuffle_i64x2(t[j + 4], t[j + 6], 0x88);
    u[4 * j + 3] = _mm512_shuffle_i64x2(t[j + 4], t[j + 6], 0xDD);
  }
  for (int j = 0; j < 2; ++j) {
    r[j + 0] = _mm512_shuffle_i64x2(u[4 * j + 0], u[4 * j + 2], 0x88);
    r[j + 4] = _mm512_shuffle_i64x2(u[4 * j + 0], u[4 * j + 2], 0xDD);
    r[j + 2] = _mm512_shuffle_i64x2(u[4 * j + 1], u[4 * j + 3], 0x88);
    r[j + 6] = _mm512_shuffle_i64x2(u[4 * j + 1], u[4 * j + 3], 0xDD);
  }
}
// Stores the first m lanes of v (m <= 8).
[[gnu::always_inline]] inline void store(uint8_t* p, __m512i v, unsigned m) {
  if (m == 8)
    _mm512_storeu_si512(p, v);
  else
    _mm512_mask_storeu_epi64(p, static_cast<__mmask8>((1u << m) - 1), v);
}

}  // namespace lanes8
}  // namespace
