// codec.cc - Falcon's byte encodings (specification section 3.11): 14-bit
// values mod q (public key), fixed-width signed values (private key), and the
// compressed signature value (sign, 7 low bits, the rest in unary).
#include "cpu/ct.h"
#include "cpu/falcon/internal.h"

namespace falcon {

size_t modq_encode(uint8_t* out, size_t max, const uint16_t* x, unsigned logn) {
  const size_t n = size_t{1} << logn, len = (n * 14 + 7) / 8;
  if (len > max) return 0;
  for (size_t i = 0; i < n; ++i)
    if (x[i] >= Q) return 0;
  uint32_t acc = 0;
  unsigned bits = 0;
  size_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    acc = (acc << 14) | x[i];
    bits += 14;
    while (bits >= 8) {
      bits -= 8;
      out[v++] = static_cast<uint8_t>(acc >> bits);
    }
  }
  if (bits > 0) out[v++] = static_cast<uint8_t>(acc << (8 - bits));
  return v;
}

size_t modq_decode(uint16_t* x, unsigned logn, const uint8_t* in, size_t len) {
  const size_t n = size_t{1} << logn, need = (n * 14 + 7) / 8;
  if (len < need) return 0;
  uint32_t acc = 0;
  unsigned bits = 0;
  size_t u = 0, v = 0;
  while (u < n) {
    acc = (acc << 8) | in[v++];
    bits += 8;
    if (bits >= 14) {
      bits -= 14;
      const uint32_t w = (acc >> bits) & 0x3FFF;
      if (w >= Q) return 0;
      x[u++] = static_cast<uint16_t>(w);
    }
  }
  if ((acc & ((1u << bits) - 1)) != 0) return 0;  // padding bits must be zero
  return need;
}

// Secret values: the loops run over every coefficient alike.
size_t trim_i8_encode(uint8_t* out, size_t max, const int8_t* x, unsigned logn, unsigned bits) {
  const size_t n = size_t{1} << logn, len = (n * bits + 7) / 8;
  if (len > max) return 0;
  const int32_t lim = (1 << (bits - 1)) - 1;
  uint32_t bad = 0;
  for (size_t i = 0; i < n; ++i)
    bad |= static_cast<uint32_t>(x[i] + lim) >> 31 | static_cast<uint32_t>(lim - x[i]) >> 31;
  if (bad) return 0;
  const uint32_t mask = (1u << bits) - 1;
  uint32_t acc = 0;
  unsigned nb = 0;
  size_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    acc = (acc << bits) | (static_cast<uint32_t>(x[i]) & mask);
    nb += bits;
    while (nb >= 8) {
      nb -= 8;
      out[v++] = static_cast<uint8_t>(acc >> nb);
    }
  }
  if (nb > 0) out[v++] = static_cast<uint8_t>(acc << (8 - nb));
  return v;
}

size_t trim_i8_decode(int8_t* x, unsigned logn, unsigned bits, const uint8_t* in, size_t len) {
  const size_t n = size_t{1} << logn, need = (n * bits + 7) / 8;
  if (len < need) return 0;
  const uint32_t mask1 = (1u << bits) - 1, mask2 = 1u << (bits - 1);
  uint32_t acc = 0, bad = 0;
  unsigned nb = 0;
  size_t u = 0, v = 0;
  while (u < n) {
    acc = (acc << 8) | in[v++];
    nb += 8;
    while (nb >= bits && u < n) {
      nb -= bits;
      uint32_t w = (acc >> nb) & mask1;
      w |= 0u - (w & mask2);  // sign extension
      const uint32_t d = w ^ (0u - mask2);
      bad |= ((d | (0u - d)) >> 31) ^ 1u;  // -2^(bits-1) is not allowed
      x[u++] = static_cast<int8_t>(static_cast<int32_t>(w));
    }
  }
  bad |= (acc & ((1u << nb) - 1)) != 0;
  // Whether the key is well formed is public (a malformed one is refused).
  return mldsa::declassify(bad) ? 0 : need;
}

size_t comp_encode(uint8_t* out, size_t max, const int16_t* x, unsigned logn) {
  const size_t n = size_t{1} << logn;
  for (size_t i = 0; i < n; ++i)
    if (x[i] < -2047 || x[i] > 2047) return 0;
  uint32_t acc = 0;
  unsigned nb = 0;
  size_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t t = static_cast<uint32_t>(x[i] < 0 ? -x[i] : x[i]);
    // sign bit and the seven low bits, then (t >> 7) zeros and a one.
    uint32_t w = (x[i] < 0 ? 0x80u : 0u) | (t & 0x7F);
    w = (w << ((t >> 7) + 1)) | 1u;
    acc = (acc << (8 + (t >> 7) + 1)) | w;
    nb += 8 + (t >> 7) + 1;
    while (nb >= 8) {
      nb -= 8;
      if (v >= max) return 0;
      out[v++] = static_cast<uint8_t>(acc >> nb);
    }
  }
  if (nb > 0) {
    if (v >= max) return 0;
    out[v++] = static_cast<uint8_t>(acc << (8 - nb));
  }
  return v;
}

size_t comp_decode(int16_t* x, unsigned logn, const uint8_t* in, size_t len) {
  const size_t n = size_t{1} << logn;
  uint32_t acc = 0;
  unsigned nb = 0;
  size_t v = 0;
  for (size_t u = 0; u < n; ++u) {
    if (v >= len) return 0;
    acc = (acc << 8) | in[v++];
    const uint32_t b = acc >> nb;
    const uint32_t s = b & 0x80;
    uint32_t m = b & 0x7F;
    for (;;) {
      if (nb == 0) {
        if (v >= len) return 0;
        acc = (acc << 8) | in[v++];
        nb = 8;
      }
      --nb;
      if ((acc >> nb) & 1) break;
      m += 128;
      if (m > 2047) return 0;
    }
    if (s && m == 0) return 0;  // "minus zero" has no place in the format
    x[u] = static_cast<int16_t>(s ? -static_cast<int32_t>(m) : static_cast<int32_t>(m));
  }
  if ((acc & ((1u << nb) - 1)) != 0) return 0;
  return v;
}

}  // namespace falcon
