// keccak.h - Keccak-f[1600] and the sponge (FIPS 202): SHAKE128/256, SHA3-*.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/host_device.h"

namespace mldsa {

inline constexpr unsigned SHAKE128_RATE = 168;
inline constexpr unsigned SHAKE256_RATE = 136;
inline constexpr uint8_t DS_SHAKE = 0x1F;  // domain separation + first pad bit
inline constexpr uint8_t DS_SHA3 = 0x06;

// Keccak-f[1600]'s round constants (iota) and rotation offsets of lane x + 5y
// (rho), FIPS 202 Section 3.2; every permutation, CPU and GPU, takes them
// from here.
inline constexpr uint64_t KECCAK_RC[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808Aull, 0x8000000080008000ull,
    0x000000000000808Bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008Aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000Aull,
    0x000000008000808Bull, 0x800000000000008Bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800Aull, 0x800000008000000Aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull,
};
// rho as a function: CUDA device code cannot read a namespace-scope table,
// but calls this one; with a constant lane (unrolled loops) it folds to an
// immediate on either side.
MLDSA_HD constexpr unsigned keccak_rho(unsigned lane) {
  constexpr unsigned kRho[25] = {0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43,
                                 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14};
  return kRho[lane];
}

// The portable permutation (backends may supply faster ones).
void keccakf1600_ref(uint64_t s[25]);
// Four independent permutations; the portable one loops over keccakf1600_ref.
void keccakf1600x4_ref(uint64_t s[4][25]);

// An incremental sponge. Absorb any number of times, finalize once, then
// squeeze any number of times.
struct Keccak {
  uint64_t s[25];
  unsigned rate;  // bytes
  unsigned pos;   // byte offset within the current block

  void init(unsigned rate_bytes);
  void absorb(const uint8_t* in, size_t len);
  void finalize(uint8_t ds);
  void squeeze(uint8_t* out, size_t len);
  void squeeze_blocks(uint8_t* out, size_t nblocks);  // only right after finalize or whole blocks
  void wipe();
};

// One-shot helpers.
void shake128(uint8_t* out, size_t outlen, const uint8_t* in, size_t inlen);
void shake256(uint8_t* out, size_t outlen, const uint8_t* in, size_t inlen);
// Up to four SHAKE256 hashes of equal-length inputs side by side, through the
// backend's 4-way permutation (on the portable backend, one permutation per
// live lane): out[i] = SHAKE256(in[i], outlen) for i < n, 1 <= n <= 4.
void shake256_x4(uint8_t* const out[], size_t outlen, const uint8_t* const in[], size_t inlen, unsigned n);
// SHA3 with a digest of mdlen bytes (28, 32, 48, 64).
void sha3(uint8_t* out, size_t mdlen, const uint8_t* in, size_t inlen);

}  // namespace mldsa
