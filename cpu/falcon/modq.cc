// modq.cc - arithmetic mod q = 12289 for Falcon: the negacyclic NTT, the
// public key h = g/f, the private key's G, and the verification equation.
// Reductions are multiplications and masks (no division, no branch on values).
#include <cstring>

#include "cpu/ct.h"
#include "cpu/falcon/internal.h"

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
inline uint32_t mq_add(uint32_t a, uint32_t b) { return mq_reduce(a + b); }
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

// psi^k, psi = 11^((q-1)/2048) a primitive 2048-th root of unity (11 generates Z_q^*).
struct Powers {
  uint32_t p[2 * MAX_N];
  Powers() {
    const uint32_t psi = mq_pow(11, (Q - 1) / (2 * MAX_N));
    p[0] = 1;
    for (unsigned k = 1; k < 2 * MAX_N; ++k) p[k] = mq_mul(p[k - 1], psi);
  }
};
const Powers& powers() {
  static const Powers w;
  return w;
}

// a(x) mod x^n + 1 to its values at psi_n^(2k+1): twist by psi_n^j, then a
// cyclic DFT with omega = psi_n^2. inverse undoes it.
void ntt(uint32_t* a, unsigned logn, bool inverse) {
  const size_t n = size_t{1} << logn, scale = MAX_N / n;
  const uint32_t* p = powers().p;
  if (!inverse)
    for (size_t j = 0; j < n; ++j) a[j] = mq_mul(a[j], p[j * scale]);
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const uint32_t t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t step = 2 * MAX_N / len;
    for (size_t s = 0; s < n; s += len)
      for (size_t k = 0; k < len / 2; ++k) {
        const uint32_t tw = p[inverse ? (2 * MAX_N - k * step) % (2 * MAX_N) : k * step];
        const uint32_t u = a[s + k], v = mq_mul(a[s + k + len / 2], tw);
        a[s + k] = mq_add(u, v);
        a[s + k + len / 2] = mq_sub(u, v);
      }
  }
  if (inverse) {
    const uint32_t ninv = mq_pow(static_cast<uint32_t>(n), Q - 2);
    for (size_t j = 0; j < n; ++j)
      a[j] = mq_mul(mq_mul(a[j], ninv), p[(2 * MAX_N - j * scale) % (2 * MAX_N)]);
  }
}

// All of a's NTT values non-zero, as a mask-free OR over the values (f's
// invertibility is public: a non-invertible f is drawn again).
bool all_nonzero(const uint32_t* a, size_t n) {
  uint32_t z = 0;
  for (size_t i = 0; i < n; ++i) z |= (a[i] - 1) >> 31;  // 1 where a[i] == 0
  return mldsa::declassify(z == 0);
}

// a <- a / b pointwise (b non-zero), via b^(q-2).
void div_ntt(uint32_t* a, const uint32_t* b, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] = mq_mul(a[i], mq_pow(b[i], Q - 2));
}

inline int32_t centre(uint32_t x) {  // [0, q) -> (-q/2, q/2]
  return static_cast<int32_t>(x) - static_cast<int32_t>(Q & (0u - ((Q / 2 - x) >> 31)));
}

}  // namespace

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
