// sampler.cc - Falcon's integer Gaussian sampler (specification section 3.9.3,
// SamplerZ, BaseSampler, BerExp, ApproxExp) and the ChaCha20-based PRNG the
// round-3 reference draws its bits from (its byte order is part of the KATs).
#include <bit>
#include <cstring>

#include "cpu/ct.h"
#include "cpu/falcon/internal.h"
#include "cpu/falcon/simd.h"

namespace falcon {
namespace {

inline uint32_t rotl(uint32_t x, unsigned c) { return (x << c) | (x >> (32 - c)); }
inline void qround(uint32_t* s, int a, int b, int c, int d) {
  s[a] += s[b]; s[d] = rotl(s[d] ^ s[a], 16);
  s[c] += s[d]; s[b] = rotl(s[b] ^ s[c], 12);
  s[a] += s[b]; s[d] = rotl(s[d] ^ s[a], 8);
  s[c] += s[d]; s[b] = rotl(s[b] ^ s[c], 7);
}
constexpr uint32_t SIGMA_WORDS[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};

inline uint32_t le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// The reverse cumulative distribution of the base half-Gaussian (sigma_0 =
// 1.8205), 72-bit values as three 24-bit words, high word first
// (specification, table RCDT).
}  // namespace
extern const uint32_t RCDT[18][3] = {
    {10745844u, 3068844u, 3741698u}, {5559083u, 1580863u, 8248194u}, {2260429u, 13669192u, 2736639u},
    {708981u, 4421575u, 10046180u},  {169348u, 7122675u, 4136815u},  {30538u, 13063405u, 7650655u},
    {4132u, 14505003u, 7826148u},    {417u, 16768101u, 11363290u},   {31u, 8444042u, 8086568u},
    {1u, 12844466u, 265321u},        {0u, 1232676u, 13644283u},      {0u, 38047u, 9111839u},
    {0u, 870u, 6138264u},            {0u, 14u, 12545723u},           {0u, 0u, 3104126u},
    {0u, 0u, 28824u},                {0u, 0u, 198u},                 {0u, 0u, 1u}};
namespace {

// ApproxExp's polynomial (specification, table C), 2^63-scaled.
constexpr uint64_t EXP_C[13] = {
    0x00000004741183A3u, 0x00000036548CFC06u, 0x0000024FDCBF140Au, 0x0000171D939DE045u,
    0x0000D00CF58F6F84u, 0x000680681CF796E3u, 0x002D82D8305B0FEAu, 0x011111110E066FD0u,
    0x0555555555070F00u, 0x155555555581FF00u, 0x400000000002B400u, 0x7FFFFFFFFFFF4800u,
    0x8000000000000000u};

inline uint64_t mulhi64(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
}

constexpr double LN2 = 0x1.62e42fefa39efp-1;
constexpr double INV_LN2 = 0x1.71547652b82fep+0;
constexpr double INV_2SQRSIGMA0 = 0.15086504887537272;  // 1 / (2 sigma_0^2)
constexpr double TWO63 = 9223372036854775808.0;

// ccs * exp(-x) * 2^63, for 0 <= x < ln 2 and 0 < ccs <= 1.
uint64_t expm_p63(double x, double ccs) {
  uint64_t y = EXP_C[0];
  const uint64_t z = static_cast<uint64_t>(static_cast<int64_t>(x * TWO63)) << 1;
  for (unsigned u = 1; u < 13; ++u) y = EXP_C[u] - mulhi64(z, y);
  const uint64_t c = static_cast<uint64_t>(static_cast<int64_t>(ccs * TWO63)) << 1;
  return mulhi64(c, y);
}

// One half-Gaussian value from 72 random bits, compared with every RCDT entry.
int base_sampler(SamplerCtx& sc) {
  Prng& p = sc.prng;
  const uint64_t lo = p.u64();
  const uint32_t hi = p.u8();
  const uint32_t v0 = static_cast<uint32_t>(lo) & 0xFFFFFF;
  const uint32_t v1 = static_cast<uint32_t>(lo >> 24) & 0xFFFFFF;
  const uint32_t v2 = static_cast<uint32_t>(lo >> 48) | (hi << 16);
  return sc.k->rcdt_count(v0, v1, v2);
}

// A bit that is 1 with probability ccs * exp(-x), x >= 0. The bytes are
// compared lazily, high first, as in the specification (and the KATs' PRNG
// stream): the loop goes on while a fresh uniform byte equals z's byte. That
// happens with probability 1/256 whatever z's byte is, so the number of bytes
// drawn has the same distribution for every secret z; the decision is
// declassified (cpu/ct.h), nothing else about z or the random byte is. (With
// the round's verdict, the 1 in 256 rounds that go past the first byte say a
// little about z's lower bytes: the specification's choice, docs/FALCON.md.)
int ber_exp(Prng& p, double x, double ccs) {
  int64_t s = static_cast<int64_t>(x * INV_LN2);  // x >= 0: truncation is floor
  const double r = x - static_cast<double>(s) * LN2;
  uint64_t sw = static_cast<uint64_t>(s);
  sw ^= (sw ^ 63) & (0 - ((63 - sw) >> 63));  // min(s, 63)
  const uint64_t z = ((expm_p63(r, ccs) << 1) - 1) >> sw;
  uint32_t w;
  int i = 64;
  do {
    i -= 8;
    w = p.u8() - static_cast<uint32_t>((z >> i) & 0xFF);
  } while (mldsa::declassify(w == 0) && i > 0);
  return static_cast<int>(w >> 31);
}

}  // namespace

void Prng::init(mldsa::Keccak& src) {
  uint8_t t[56];
  src.squeeze(t, sizeof t);
  for (int i = 0; i < 12; ++i) key[i] = le32(t + 4 * i);
  counter = uint64_t{le32(t + 48)} | uint64_t{le32(t + 52)} << 32;
  falcon::wipe(t, sizeof t);
  refill();
}

namespace portable {
int rcdt_count(uint32_t v0, uint32_t v1, uint32_t v2) {
  int z = 0;
  for (const auto& w : RCDT) {
    uint32_t cc = (v0 - w[2]) >> 31;
    cc = (v1 - w[1] - cc) >> 31;
    cc = (v2 - w[0] - cc) >> 31;
    z += static_cast<int>(cc);
  }
  return z;
}

void chacha8(uint8_t out[512], const uint32_t key[12], uint64_t counter) {
  // Eight ChaCha20 blocks with counters counter .. counter+7; the output is
  // interleaved: word v of block u is 32-bit word u + 8 v of the buffer.
  for (unsigned u = 0; u < 8; ++u) {
    // The counter is secret (from the seed): the block index goes through an
    // empty asm, so that the optimiser cannot make counter + u the loop's
    // variable and compare it with counter + 8 (valgrind saw that branch).
    // The asm's operand is public (MemorySanitizer checks asm operands).
    uint64_t ui = u;
    __asm__("" : "+r"(ui));
    const uint64_t c = counter + ui;
    uint32_t s[16];
    std::memcpy(s, SIGMA_WORDS, sizeof SIGMA_WORDS);
    std::memcpy(s + 4, key, 12 * sizeof key[0]);
    s[14] ^= static_cast<uint32_t>(c);
    s[15] ^= static_cast<uint32_t>(c >> 32);
    for (int i = 0; i < 10; ++i) {
      qround(s, 0, 4, 8, 12); qround(s, 1, 5, 9, 13); qround(s, 2, 6, 10, 14); qround(s, 3, 7, 11, 15);
      qround(s, 0, 5, 10, 15); qround(s, 1, 6, 11, 12); qround(s, 2, 7, 8, 13); qround(s, 3, 4, 9, 14);
    }
    for (int v = 0; v < 4; ++v) s[v] += SIGMA_WORDS[v];
    for (int v = 4; v < 14; ++v) s[v] += key[v - 4];
    s[14] += key[10] ^ static_cast<uint32_t>(c);
    s[15] += key[11] ^ static_cast<uint32_t>(c >> 32);
    for (unsigned v = 0; v < 16; ++v)
      for (unsigned b = 0; b < 4; ++b) out[(u << 2) + (v << 5) + b] = static_cast<uint8_t>(s[v] >> (8 * b));
    falcon::wipe(s, sizeof s);
  }
}
}  // namespace portable

void Prng::refill() {
  kernels().chacha8(buf, key, counter);
  counter += 8;
  ptr = 0;
}

uint64_t Prng::u64() {
  if (ptr >= sizeof buf - 9) refill();
  uint64_t r;  // little-endian
  std::memcpy(&r, buf + ptr, sizeof r);
  if constexpr (std::endian::native == std::endian::big) r = __builtin_bswap64(r);
  ptr += 8;
  return r;
}

unsigned Prng::u8() {
  const unsigned v = buf[ptr++];
  if (ptr == sizeof buf) refill();
  return v;
}

void Prng::wipe() { falcon::wipe(this, sizeof *this); }

int sampler_z(SamplerCtx& sc, double mu, double isigma) {
  const int64_t s = fpr_floor(mu);
  const double r = mu - static_cast<double>(s);
  const double dss = isigma * isigma * 0.5;
  const double ccs = isigma * sc.sigma_min;
  for (;;) {
    const int z0 = base_sampler(sc);
    const int b = static_cast<int>(sc.prng.u8()) & 1;
    const int z = b + ((b << 1) - 1) * z0;
    const double d = static_cast<double>(z) - r;
    double x = d * d * dss;
    x -= static_cast<double>(z0 * z0) * INV_2SQRSIGMA0;
    // Accept or draw again. ccs = sigma_min / sigma' scales the acceptance
    // probability to one that does not depend on mu or sigma' (the
    // specification's isochrony argument, Howe-Prest-Ricosset-Rossi 2020):
    // the number of rounds says nothing about the secrets, so the verdict is
    // declassified; the sample z stays secret.
    if (mldsa::declassify(ber_exp(sc.prng, x, ccs))) return static_cast<int>(s) + z;
  }
}

}  // namespace falcon
