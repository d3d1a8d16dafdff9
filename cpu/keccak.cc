// keccak.cc - FIPS 202 Keccak-f[1600] and sponge, portable.
#include "cpu/keccak.h"

#include <bit>
#include <cstring>

#include "cpu/backend.h"
#include "cpu/mldsa.h"

namespace mldsa {
namespace {

inline uint64_t rol(uint64_t x, unsigned n) { return n == 0 ? x : (x << n) | (x >> (64 - n)); }

// The sponge's byte view of the state: byte i is bits 8(i%8).. of lane i/8
// (FIPS 202 little-endian lanes). On little-endian hosts that is the state's
// own memory, so absorbing is an 8-byte xor per lane and squeezing a memcpy;
// elsewhere the bytes are shifted in and out one at a time.
constexpr bool kLittleEndian = std::endian::native == std::endian::little;

// s bytes [pos, pos + len) ^= in[0, len).
inline void xor_bytes(uint64_t s[25], unsigned pos, const uint8_t* in, size_t len) {
  if constexpr (kLittleEndian) {
    auto* sb = reinterpret_cast<uint8_t*>(s) + pos;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {  // unaligned 8-byte words: memcpy compiles to plain loads/stores
      uint64_t a, b;
      std::memcpy(&a, sb + i, 8);
      std::memcpy(&b, in + i, 8);
      a ^= b;
      std::memcpy(sb + i, &a, 8);
    }
    for (; i < len; ++i) sb[i] ^= in[i];
  } else {
    for (size_t i = 0; i < len; ++i) {
      const size_t p = pos + i;
      s[p / 8] ^= static_cast<uint64_t>(in[i]) << (8 * (p % 8));
    }
  }
}

// out[0, len) = s bytes [pos, pos + len).
inline void read_bytes(uint8_t* out, const uint64_t s[25], unsigned pos, size_t len) {
  if constexpr (kLittleEndian) {
    const auto* sb = reinterpret_cast<const uint8_t*>(s) + pos;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) std::memcpy(out + i, sb + i, 8);
    if (i < len) {
      // The tail from one 8-byte load, not a memcpy call: pos + len <= rate
      // <= 168, so the load stays inside s.
      uint64_t w;
      std::memcpy(&w, sb + i, 8);
      for (; i < len; ++i, w >>= 8) out[i] = static_cast<uint8_t>(w);
    }
  } else {
    for (size_t i = 0; i < len; ++i) {
      const size_t p = pos + i;
      out[i] = static_cast<uint8_t>(s[p / 8] >> (8 * (p % 8)));
    }
  }
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
        b[y + 5 * ((2 * x + 3 * y) % 5)] = rol(s[from] ^ d[x], keccak_rho(from));
      }
    // chi
    for (int y = 0; y < 25; y += 5)
      for (int x = 0; x < 5; ++x) s[y + x] = b[y + x] ^ (~b[y + (x + 1) % 5] & b[y + (x + 2) % 5]);
    // iota
    s[0] ^= KECCAK_RC[round];
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
  if (len < rate - pos) {  // stays inside the current block (most calls on short inputs)
    xor_bytes(s, pos, in, len);
    pos += static_cast<unsigned>(len);
    return;
  }
  const auto permute = backend().keccakf1600;
  if (pos != 0) {  // complete the started block
    const unsigned take = rate - pos;
    xor_bytes(s, pos, in, take);
    permute(s);
    in += take;
    len -= take;
  }
  for (; len >= rate; in += rate, len -= rate) {
    xor_bytes(s, 0, in, rate);
    permute(s);
  }
  xor_bytes(s, 0, in, len);
  pos = static_cast<unsigned>(len);
}

void Keccak::finalize(uint8_t ds) {
  const uint8_t pad_first = ds, pad_last = 0x80;
  xor_bytes(s, pos, &pad_first, 1);
  xor_bytes(s, rate - 1, &pad_last, 1);
  // Squeezing starts with a permutation; pos == rate marks "block used up".
  pos = rate;
}

namespace {
// Squeeze across block boundaries; kept out of line so that the in-block fast
// path in Keccak::squeeze needs no callee-saved registers.
[[gnu::noinline]] void squeeze_blocks_and_tail(Keccak& k, uint8_t* out, size_t len) {
  const auto permute = backend().keccakf1600;
  while (len > 0) {
    if (k.pos == k.rate) {
      permute(k.s);
      k.pos = 0;
    }
    size_t take = k.rate - k.pos;
    if (take > len) take = len;
    read_bytes(out, k.s, k.pos, take);
    k.pos += static_cast<unsigned>(take);
    out += take;
    len -= take;
  }
}
}  // namespace

void Keccak::squeeze(uint8_t* out, size_t len) {
  if (len <= rate - pos) {  // served from the current block
    if (len == 1) {  // SampleInBall reads its positions one byte at a time
      *out = static_cast<uint8_t>(s[pos / 8] >> (8 * (pos % 8)));
      ++pos;
      return;
    }
    read_bytes(out, s, pos, len);
    pos += static_cast<unsigned>(len);
    return;
  }
  squeeze_blocks_and_tail(*this, out, len);
}

void Keccak::squeeze_blocks(uint8_t* out, size_t nblocks) {
  const auto permute = backend().keccakf1600;
  for (size_t b = 0; b < nblocks; ++b) {
    permute(s);
    read_bytes(out, s, 0, rate);
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

namespace {
// The n live lanes of a 4-way state through one permutation each. The
// portable 4-way permutation is four single ones: there, run only the lanes
// in use.
void permute_x4(uint64_t s[4][25], unsigned n) {
  const Backend& be = backend();
  if (be.keccakf1600x4 == keccakf1600x4_ref) {
    for (unsigned i = 0; i < n; ++i) be.keccakf1600(s[i]);
  } else {
    be.keccakf1600x4(s);
  }
}
}  // namespace

void shake256_x4(uint8_t* const out[], size_t outlen, const uint8_t* const in[], size_t inlen, unsigned n) {
  constexpr unsigned rate = SHAKE256_RATE;
  alignas(64) uint64_t s[4][25] = {};
  size_t off = 0;
  for (; inlen - off >= rate; off += rate) {
    for (unsigned i = 0; i < n; ++i) xor_bytes(s[i], 0, in[i] + off, rate);
    permute_x4(s, n);
  }
  const unsigned tail = static_cast<unsigned>(inlen - off);
  const uint8_t pad_first = DS_SHAKE, pad_last = 0x80;
  for (unsigned i = 0; i < n; ++i) {
    xor_bytes(s[i], 0, in[i] + off, tail);
    xor_bytes(s[i], tail, &pad_first, 1);
    xor_bytes(s[i], rate - 1, &pad_last, 1);
  }
  for (size_t done = 0; done < outlen; done += rate) {
    permute_x4(s, n);
    const size_t take = outlen - done < rate ? outlen - done : rate;
    for (unsigned i = 0; i < n; ++i) read_bytes(out[i] + done, s[i], 0, take);
  }
  secure_zero(s, sizeof s);
}

void sha3(uint8_t* out, size_t mdlen, const uint8_t* in, size_t inlen) {
  sponge_once(static_cast<unsigned>(200 - 2 * mdlen), DS_SHA3, out, mdlen, in, inlen);
}

}  // namespace mldsa
