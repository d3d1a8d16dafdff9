// modq.cc - arithmetic mod q = 12289 for Falcon: the negacyclic NTT, the
// public key h = g/f, the private key's G, and the verification equation.
// Reductions are multiplications and masks (no division, no branch on values).
#include <cstring>

#include "cpu/ct.h"
#include "cpu/falcon/internal.h"
#include "cpu/falcon/simd.h"

namespace falcon {
namespace {

// x mod q for x < 2^32, via floor(2^32 / q) = 349496 and one masked subtraction.
inline uint32_t mq_reduce(uint32_t x) {
  const uint32_t t = static_cast<uint32_t>((uint64_t{x} * 349496u) >> 32);
  uint32_t r = x - t * Q;  // in [0, 2q)
  r -= Q & (0u - static_cast<uint32_t>((r - Q) >> 31 ^ 1u));
  return r;
}
inline uint32_t mq_mul(uint32_t a, uint32_t b) { return mq_reduce(a * b); }
inline uint32_t mq_sub(uint32_t a, uint32_t b) { return mq_reduce(a + Q - b); }
inline uint32_t mq_from_signed(int32_t v) { return mq_reduce(static_cast<uint32_t>(v + static_cast<int32_t>(Q) * 4096)); }

uint32_t mq_pow(uint32_t a, uint32_t e) {  // e is public
  uint32_t r = 1;
  for (int i = 31; i >= 0; --i) {
    r = mq_mul(r, r);
    if ((e >> i) & 1) r = mq_mul(r, a);
  }
  return r;
}

inline uint32_t mq_addr(uint32_t a, uint32_t b) {  // a, b in [0, q): one masked subtraction
  uint32_t r = a + b - Q;
  return r + (Q & (0u - (r >> 31)));
}
inline uint32_t mq_subr(uint32_t a, uint32_t b) {
  uint32_t r = a - b;
  return r + (Q & (0u - (r >> 31)));
}

unsigned bitrev(unsigned x, unsigned bits) {
  unsigned r = 0;
  for (unsigned i = 0; i < bits; ++i) r |= ((x >> i) & 1) << (bits - 1 - i);
  return r;
}

// zeta[k] = psi^brv10(k), psi = 11^((q-1)/2048) a primitive 2048-th root of
// unity (11 generates Z_q^*), and izeta[k] = -zeta[k] mod q (the inverse's
// walk meets, at the step that undoes zeta[j], the k with -zeta[k] = 1 /
// zeta[j], as in FIPS 204's Algorithm 42). For k <
// n = 2^logn, brv10(k) = 2^(10-logn) brv_logn(k): the first n entries are
// the same table for psi_n = psi^(2^(10-logn)), a primitive 2n-th root.
struct Zetas {
  uint32_t zeta[MAX_N], izeta[MAX_N];
  Zetas() {
    const uint32_t psi = mq_pow(11, (Q - 1) / (2 * MAX_N));
    for (unsigned k = 0; k < MAX_N; ++k) {
      const unsigned e = bitrev(k, MAX_LOGN);
      zeta[k] = mq_pow(psi, e);
      izeta[k] = (Q - zeta[k]) % Q;
    }
  }
};
const Zetas& zetas() {
  static const Zetas z;
  return z;
}

void ntt(uint32_t* a, unsigned logn, bool inverse) {
  if (inverse)
    kernels().ntt_inv(a, logn);
  else
    kernels().ntt_fwd(a, logn);
}

// All of a's NTT values non-zero, as a mask-free OR over the values (f's
// invertibility is public: a non-invertible f is drawn again).
bool all_nonzero(const uint32_t* a, size_t n) {
  uint32_t z = 0;
  for (size_t i = 0; i < n; ++i) z |= (a[i] - 1) >> 31;  // 1 where a[i] == 0
  return mldsa::declassify(z == 0);
}

// a <- a / b pointwise (b non-zero): one inversion for all of them
// (Montgomery's trick: prefix products, one b^(q-2), then back down), the
// same steps whatever the values.
void div_ntt(uint32_t* a, const uint32_t* b, size_t n) {
  uint32_t pre[MAX_N];
  pre[0] = b[0];
  for (size_t i = 1; i < n; ++i) pre[i] = mq_mul(pre[i - 1], b[i]);
  uint32_t inv = mq_pow(pre[n - 1], Q - 2);  // 1 / (b_0 ... b_{n-1})
  for (size_t i = n - 1; i > 0; --i) {
    const uint32_t bi_inv = mq_mul(inv, pre[i - 1]);
    inv = mq_mul(inv, b[i]);
    a[i] = mq_mul(a[i], bi_inv);
  }
  a[0] = mq_mul(a[0], inv);
  wipe(pre, n * sizeof pre[0]);
}

inline int32_t centre(uint32_t x) {  // [0, q) -> (-q/2, q/2]
  return static_cast<int32_t>(x) - static_cast<int32_t>(Q & (0u - ((Q / 2 - x) >> 31)));
}

}  // namespace

const uint32_t* ntt_zetas(bool inverse) { return inverse ? zetas().izeta : zetas().zeta; }

void ntt_fwd_scalar_layers(uint32_t* a, size_t n, size_t from_len, size_t k) {
  const uint32_t* z = ntt_zetas(false);
  for (size_t len = from_len; len >= 1; len >>= 1)
    for (size_t start = 0; start < n; start += 2 * len) {
      const uint32_t w = z[++k];
      for (size_t j = start; j < start + len; ++j) {
        const uint32_t t = mq_mul(a[j + len], w);
        a[j + len] = mq_subr(a[j], t);
        a[j] = mq_addr(a[j], t);
      }
    }
}

size_t ntt_inv_scalar_layers(uint32_t* a, size_t n, size_t until_len) {
  const uint32_t* z = ntt_zetas(true);
  size_t k = n;
  for (size_t len = 1; len < until_len; len <<= 1)
    for (size_t start = 0; start < n; start += 2 * len) {
      const uint32_t w = z[--k];
      for (size_t j = start; j < start + len; ++j) {
        const uint32_t t = a[j];
        a[j] = mq_addr(t, a[j + len]);
        a[j + len] = mq_mul(mq_subr(t, a[j + len]), w);
      }
    }
  return k;
}

namespace portable {
// a(x) mod x^n + 1 to its values at the 2n-th roots psi_n^(2j+1), in
// bit-reversed order (Cooley-Tukey butterflies, natural-order input).
// Every use multiplies or tests values pointwise, so their order is free.
void ntt_fwd(uint32_t* a, unsigned logn) {
  const size_t n = size_t{1} << logn;
  ntt_fwd_scalar_layers(a, n, n / 2, 0);
}

// The inverse of ntt_fwd (Gentleman-Sande butterflies, then 1/n).
void ntt_inv(uint32_t* a, unsigned logn) {
  const size_t n = size_t{1} << logn;
  ntt_inv_scalar_layers(a, n, n);
  const uint32_t ninv = Q - (Q - 1) / static_cast<uint32_t>(n);  // n^-1 mod q: q = 1 mod n
  for (size_t j = 0; j < n; ++j) a[j] = mq_mul(a[j], ninv);
}

}  // namespace portable

bool mq_div(uint16_t* h, const int8_t* g, const int8_t* f, unsigned logn) {
  const size_t n = size_t{1} << logn;
  uint32_t a[MAX_N], b[MAX_N];
  for (size_t i = 0; i < n; ++i) {
    a[i] = mq_from_signed(g[i]);
    b[i] = mq_from_signed(f[i]);
  }
  ntt(a, logn, false);
  ntt(b, logn, false);
  const bool ok = all_nonzero(b, n);
  if (ok) {
    div_ntt(a, b, n);
    ntt(a, logn, true);
    for (size_t i = 0; i < n; ++i) h[i] = static_cast<uint16_t>(a[i]);
  }
  wipe(a, sizeof a);
  wipe(b, sizeof b);
  return ok;
}

bool complete_private(int8_t* G, const int8_t* f, const int8_t* g, const int8_t* F, unsigned logn) {
  const size_t n = size_t{1} << logn;
  uint32_t a[MAX_N], b[MAX_N], c[MAX_N];
  for (size_t i = 0; i < n; ++i) {
    a[i] = mq_from_signed(g[i]);
    b[i] = mq_from_signed(f[i]);
    c[i] = mq_from_signed(F[i]);
  }
  ntt(a, logn, false);
  ntt(b, logn, false);
  ntt(c, logn, false);
  bool ok = all_nonzero(b, n);
  if (ok) {
    for (size_t i = 0; i < n; ++i) a[i] = mq_mul(a[i], c[i]);
    div_ntt(a, b, n);
    ntt(a, logn, true);
    uint32_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      const int32_t v = centre(a[i]);
      bad |= static_cast<uint32_t>(v + 127) >> 31 | static_cast<uint32_t>(127 - v) >> 31;
      G[i] = static_cast<int8_t>(v);
    }
    ok = mldsa::declassify(bad == 0);  // a G out of range: the key is refused
  }
  wipe(a, sizeof a);
  wipe(b, sizeof b);
  wipe(c, sizeof c);
  return ok;
}

void mq_s1(int16_t* s1, const uint16_t* hm, const int16_t* s2, const uint16_t* h, unsigned logn) {
  const size_t n = size_t{1} << logn;
  uint32_t a[MAX_N], b[MAX_N];
  for (size_t i = 0; i < n; ++i) {
    a[i] = mq_from_signed(s2[i]);
    b[i] = h[i];
  }
  ntt(a, logn, false);
  ntt(b, logn, false);
  for (size_t i = 0; i < n; ++i) a[i] = mq_mul(a[i], b[i]);
  ntt(a, logn, true);
  for (size_t i = 0; i < n; ++i) s1[i] = static_cast<int16_t>(centre(mq_sub(hm[i], a[i])));
}

bool is_short(const int16_t* s1, const int16_t* s2, unsigned logn, uint32_t l2bound) {
  uint32_t s = 0, ng = 0;
  for (size_t i = 0, n = size_t{1} << logn; i < n; ++i) {
    s += static_cast<uint32_t>(s1[i] * s1[i]);
    ng |= s;
    s += static_cast<uint32_t>(s2[i] * s2[i]);
    ng |= s;
  }
  s |= 0u - (ng >> 31);  // saturate once the sum passed 2^31
  return s <= l2bound;
}

}  // namespace falcon
