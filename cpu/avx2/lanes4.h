// lanes4.h - four Keccak states in the 64-bit lanes of __m256i (the 4-way
// Ops of the AVX2 and AVX-512 backends): the squeeze's de-interleave and
// partial store that cpu/sampling_lanes.h asks of its Ops.
//
// Anonymous namespace on purpose (built with different ISA flags per backend).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace {
namespace lanes4 {

// r[i] holds lane i of the 4 states; after the transpose r[w] holds 4
// consecutive lanes of state w. Unpacks within 128-bit halves, then
// whole-half moves: 8 shuffles instead of 16 scalar copies.
[[gnu::always_inline]] inline void transpose(__m256i r[4]) {
  const __m256i t0 = _mm256_unpacklo_epi64(r[0], r[1]), t1 = _mm256_unpackhi_epi64(r[0], r[1]);
  const __m256i t2 = _mm256_unpacklo_epi64(r[2], r[3]), t3 = _mm256_unpackhi_epi64(r[2], r[3]);
  r[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
  r[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
  r[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
  r[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}
// Stores the first m lanes of v (m <= 4).
[[gnu::always_inline]] inline void store(uint8_t* p, __m256i v, unsigned m) {
  if (m == 4) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  } else {
    alignas(32) uint64_t t[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(t), v);
    std::memcpy(p, t, 8 * m);
  }
}

}  // namespace lanes4
}  // namespace
