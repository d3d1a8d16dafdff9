// keygen.cc - Falcon key generation (specification section 3.8, Algorithm 4):
// f and g from a discrete Gaussian driven by SHAKE256(seed) in the round-3
// reference's order, the norm checks, h = g/f, NTRUSolve; and the parameter sets.
#include <cstring>

#include "cpu/falcon/internal.h"

namespace falcon {

namespace {

// The keygen Gaussian (sigma = 1.17 sqrt(q / 2048)): entry 0 is P(x = 0),
// entry k > 0 is P(x >= k + 1 | x > 0), scaled by 2^63 (round-3 reference's table).
constexpr uint64_t GAUSS_1024[27] = {
    1283868770400643928u, 6416574995475331444u, 4078260278032692663u, 2353523259288686585u,
    1227179971273316331u, 575931623374121527u,  242543240509105209u,  91437049221049666u,
    30799446349977173u,   9255276791179340u,    2478152334826140u,    590642893610164u,
    125206034929641u,     23590435911403u,      3948334035941u,       586753615614u,
    77391054539u,         9056793210u,          940121950u,           86539696u,
    7062824u,             510971u,              32764u,               1862u,
    94u,                  4u,                   0u};

uint64_t rng_u64(mldsa::Keccak& rng) {
  uint8_t t[8];
  rng.squeeze(t, 8);
  uint64_t r = 0;
  for (int b = 7; b >= 0; --b) r = (r << 8) | t[b];
  return r;
}

// A Gaussian value of sigma 1.17 sqrt(q / 2n): the sum of 1024/n draws from
// the table. Each draw takes two 64-bit words: the first gives the sign and
// the "is zero" test, the second the magnitude (the reference's order).
int mkgauss(mldsa::Keccak& rng, unsigned logn) {
  int val = 0;
  for (unsigned u = 0; u < (1u << (10 - logn)); ++u) {
    uint64_t r = rng_u64(rng);
    const uint32_t neg = static_cast<uint32_t>(r >> 63);
    r &= ~(uint64_t{1} << 63);
    uint32_t f = static_cast<uint32_t>((r - GAUSS_1024[0]) >> 63);
    uint32_t v = 0;
    r = rng_u64(rng) & ~(uint64_t{1} << 63);
    for (uint32_t k = 1; k < 27; ++k) {
      const uint32_t t = static_cast<uint32_t>((r - GAUSS_1024[k]) >> 63) ^ 1;
      v |= k & (0u - (t & (f ^ 1)));
      f |= t;
    }
    v = (v ^ (0u - neg)) + neg;
    val += static_cast<int32_t>(v);
  }
  return val;
}

// f with |f_i| <= 127 and an odd sum of coefficients (so that its resultant
// with x^n + 1 is odd): the last coefficient is drawn again until it is.
// Redraws reveal nothing kept: the value is discarded.
void poly_gauss(mldsa::Keccak& rng, int8_t* f, unsigned logn) {
  const size_t n = size_t{1} << logn;
  unsigned mod2 = 0;
  for (size_t u = 0; u < n; ++u) {
    int s;
    for (;;) {
      s = mkgauss(rng, logn);
      if (s < -127 || s > 127) continue;
      if (u == n - 1 && (mod2 ^ static_cast<unsigned>(s & 1)) == 0) continue;
      break;
    }
    mod2 ^= static_cast<unsigned>(s & 1);
    f[u] = static_cast<int8_t>(s);
  }
}

// ||(g, -f)||^2 and the Gram-Schmidt norm of the second basis vector,
// q ||(adj f, adj g) / (f adj f + g adj g)||, both below 1.17^2 q.
bool norms_ok(const int8_t* f, const int8_t* g, unsigned logn) {
  const size_t n = size_t{1} << logn;
  uint32_t norm = 0;
  for (size_t i = 0; i < n; ++i) norm += static_cast<uint32_t>(f[i] * f[i] + g[i] * g[i]);
  if (norm >= 16823) return false;
  double a[MAX_N], b[MAX_N], d[MAX_N];
  for (size_t i = 0; i < n; ++i) {
    a[i] = f[i];
    b[i] = g[i];
  }
  fft(a, logn);
  fft(b, logn);
  std::memcpy(d, a, n * sizeof(double));
  poly_mulselfadj_fft(d, logn);
  double e[MAX_N];
  std::memcpy(e, b, n * sizeof(double));
  poly_mulselfadj_fft(e, logn);
  poly_add(d, e, logn);
  const size_t hn = n / 2;
  for (size_t k = 0; k < hn; ++k) {
    // adj(x) q / (f adj f + g adj g), the denominator real.
    const double inv = static_cast<double>(Q) / d[k];
    a[k] *= inv;
    a[k + hn] *= -inv;
    b[k] *= inv;
    b[k + hn] *= -inv;
  }
  ifft(a, logn);
  ifft(b, logn);
  double bnorm = 0.0;
  for (size_t i = 0; i < n; ++i) bnorm += a[i] * a[i] + b[i] * b[i];
  wipe(a, sizeof a);
  wipe(b, sizeof b);
  wipe(d, sizeof d);
  wipe(e, sizeof e);
  return bnorm < 16822.4121;
}

}  // namespace

const Params& falcon512() {
  static constexpr Params p{"Falcon-512", 9, 512, 897, 1281, 752, 666, 6, 34034726,
                            1.2778336969128337,
                            0.006033669668157724};
  return p;
}

const Params& falcon1024() {
  static constexpr Params p{"Falcon-1024", 10, 1024, 1793, 2305, 1462, 1280, 5, 70265242,
                            1.298280334344292, 0.005938645309533116};
  return p;
}

void keygen(const Params& p, const uint8_t seed[SEED_BYTES], uint8_t* pk, uint8_t* sk) {
  const unsigned logn = p.logn;
  mldsa::Keccak rng;
  rng.init(mldsa::SHAKE256_RATE);
  rng.absorb(seed, SEED_BYTES);
  rng.finalize(mldsa::DS_SHAKE);
  int8_t f[MAX_N], g[MAX_N], F[MAX_N], G[MAX_N];
  uint16_t h[MAX_N];
  const int lim = 1 << (p.fg_bits - 1);
  for (;;) {
    poly_gauss(rng, f, logn);
    poly_gauss(rng, g, logn);
    bool fits = true;
    for (size_t i = 0; i < p.n; ++i)
      fits &= f[i] < lim && f[i] > -lim && g[i] < lim && g[i] > -lim;
    if (!fits || !norms_ok(f, g, logn) || !mq_div(h, g, f, logn)) continue;
    if (!ntru_solve(F, G, f, g, logn)) continue;
    break;
  }
  pk[0] = static_cast<uint8_t>(logn);
  modq_encode(pk + 1, p.pk_bytes - 1, h, logn);
  sk[0] = static_cast<uint8_t>(0x50 + logn);
  size_t u = 1;
  u += trim_i8_encode(sk + u, p.sk_bytes - u, f, logn, p.fg_bits);
  u += trim_i8_encode(sk + u, p.sk_bytes - u, g, logn, p.fg_bits);
  trim_i8_encode(sk + u, p.sk_bytes - u, F, logn, 8);
  rng.wipe();
  wipe(f, sizeof f);
  wipe(g, sizeof g);
  wipe(F, sizeof F);
  wipe(G, sizeof G);
}

}  // namespace falcon
