// keccak.cc - FIPS 202 Keccak-f[1600] and sponge, portable.
#include "cpu/keccak.h"

#include <cstring>

#include "cpu/backend.h"
#include "cpu/mldsa.h"

namespace mldsa {
namespace {

constexpr uint64_t kRoundConstants[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808Aull, 0x8000000080008000ull,
    0x000000000000808Bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008Aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000Aull,
    0x000000008000808Bull, 0x800000000000008Bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800Aull, 0x800000008000000Aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull,
};

inline uint64_t rol(uint64_t x, unsigned n) { return n == 0 ? x : (x << n) | (x >> (64 - n)); }

// Rotation offset of lane (x, y), index x + 5y.
constexpr unsigned kRho[25] = {0,  1,  62, 28, 27, 36, 44, 6,  55, 20, 3,  10, 43,
                               25, 39, 41, 45, 15, 21, 8,  18, 2,  61, 56, 14};

inline uint64_t load64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline void store64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

void keccakf1600_ref(uint64_t s[25]) {
  uint64_t b[25], c[5], d[5];
  for (int round = 0; round < 24; ++round) {
    // theta
    for (int x = 0; x < 5; ++x) c[x] = s[x] ^ s[x + 5] ^ s[x + 10] ^ s[x + 15] ^ s[x + 20];
    for (int x = 0; x < 5; ++x) d[x] = c[(x + 4) % 5] ^ rol(c[(x + 1) % 5], 1);
    // rho and pi: lane (x, y) moves to (y, 2x + 3y)
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 5; ++x) {
        const int from = x + 5 * y;
        b[y + 5 * ((2 * x + 3 * y) % 5)] = rol(s[from] ^ d[x], kRho[from]);
      }
    // chi
    for (int y = 0; y < 25; y += 5)
      for (int x = 0; x < 5; ++x) s[y + x] = b[y + x] ^ (~b[y + (x + 1) % 5] & b[y + (x + 2) % 5]);
    // iota
    s[0] ^= kRoundConstants[round];
  }
}

void keccakf1600x4_ref(uint64_t s[4][25]) {
  for (int i = 0; i < 4; ++i) keccakf1600_ref(s[i]);
}

void Keccak::init(unsigned rate_bytes) {
  std::memset(s, 0, sizeof s);
  rate = rate_bytes;
  pos = 0;
}

void Keccak::absorb(const uint8_t* in, size_t len) {
  const auto permute = backend().keccakf1600;
  while (len > 0) {
    if (pos == 0 && len >= rate) {  // whole blocks, lane by lane
      for (unsigned i = 0; i < rate / 8; ++i) s[i] ^= load64(in + 8 * i);
      permute(s);
      in += rate;
      len -= rate;
      continue;
    }
    size_t take = rate - pos;
    if (take > len) take = len;
    size_t i = 0;
    if (pos % 8 == 0)  // lane-aligned (e.g. after a 64-byte mu or tr): whole lanes first
      for (; i + 8 <= take; i += 8) s[(pos + i) / 8] ^= load64(in + i);
    for (; i < take; ++i) {
      const unsigned p = pos + static_cast<unsigned>(i);
      s[p / 8] ^= static_cast<uint64_t>(in[i]) << (8 * (p % 8));
    }
    pos += static_cast<unsigned>(take);
    in += take;
    len -= take;
    if (pos == rate) {
      permute(s);
      pos = 0;
    }
  }
}

void Keccak::finalize(uint8_t ds) {
  s[pos / 8] ^= static_cast<uint64_t>(ds) << (8 * (pos % 8));
  s[(rate - 1) / 8] ^= 0x80ull << (8 * ((rate - 1) % 8));
  // Squeezing starts with a permutation; pos == rate marks "block used up".
  pos = rate;
}

void Keccak::squeeze(uint8_t* out, size_t len) {
  const auto permute = backend().keccakf1600;
  while (len > 0) {
    if (pos == rate) {
      permute(s);
      pos = 0;
    }
    size_t take = rate - pos;
    if (take > len) take = len;
    for (size_t i = 0; i < take; ++i) {
      const unsigned p = pos + static_cast<unsigned>(i);
      out[i] = static_cast<uint8_t>(s[p / 8] >> (8 * (p % 8)));
    }
    pos += static_cast<unsigned>(take);
    out += take;
    len -= take;
  }
}

void Keccak::squeeze_blocks(uint8_t* out, size_t nblocks) {
  const auto permute = backend().keccakf1600;
  for (size_t b = 0; b < nblocks; ++b) {
    permute(s);
    for (unsigned i = 0; i < rate / 8; ++i) store64(out + 8 * i, s[i]);
    out += rate;
  }
  pos = rate;
}

void Keccak::wipe() { secure_zero(this, sizeof *this); }

namespace {
// One sponge pass: absorb all of in, pad with ds, squeeze outlen bytes.
void sponge_once(unsigned rate, uint8_t ds, uint8_t* out, size_t outlen, const uint8_t* in, size_t inlen) {
  Keccak k;
  k.init(rate);
  k.absorb(in, inlen);
  k.finalize(ds);
  k.squeeze(out, outlen);
  k.wipe();
}
}  // namespace

void shake128(uint8_t* out, size_t outlen, const uint8_t* in, size_t inlen) {
  sponge_once(SHAKE128_RATE, DS_SHAKE, out, outlen, in, inlen);
}

void shake256(uint8_t* out, size_t outlen, const uint8_t* in, size_t inlen) {
  sponge_once(SHAKE256_RATE, DS_SHAKE, out, outlen, in, inlen);
}

void sha3(uint8_t* out, size_t mdlen, const uint8_t* in, size_t inlen) {
  sponge_once(static_cast<unsigned>(200 - 2 * mdlen), DS_SHA3, out, mdlen, in, inlen);
}

}  // namespace mldsa
