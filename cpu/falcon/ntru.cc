// ntru.cc - NTRUSolve (specification section 3.8.2, Algorithms 6 and 7): F, G
// with f G - g F = q, by field norms down to integers, an extended GCD, and
// lifting back up with Babai reduction at each level. Values are kept as
// exact big integers in fixed widths per level (two's complement, 32-bit
// limbs); the products work on the values' own lengths: as int64
// convolutions, by NTT modulo one 63-bit prime, where the sums stay below
// 2^62 (the shallow depths, and Babai's k (f, g) by 16-bit halves of k
// against 32-bit limb planes), else schoolbook on signs and magnitudes with
// deferred carries. The reductions use binary64 approximations. Not
// constant time: big-number lengths, the GCD's steps and the number of
// reduction rounds depend on f, g (see docs/FALCON.md); the products
// themselves (NTT, convolutions, sign handling) have no secret-dependent
// branches or indices.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cpu/falcon/internal.h"

namespace falcon {
namespace {

using Limb = uint32_t;

// Wipes a vector's elements; an empty one has no storage to wipe (and may
// have a null data()).
template <class T>
void wipe_vec(std::vector<T>& v) {
  if (!v.empty()) wipe(v.data(), v.size() * sizeof(T));
}

// A polynomial of m big integers of w limbs each.
struct ZPoly {
  size_t m, w;
  std::vector<Limb> d;
  ZPoly(size_t m_, size_t w_) : m(m_), w(w_), d(m_ * w_, 0) {}
  ZPoly(const ZPoly&) = default;
  ZPoly& operator=(const ZPoly&) = default;
  ~ZPoly() { wipe_vec(d); }
  Limb* c(size_t i) { return d.data() + i * w; }
  const Limb* c(size_t i) const { return d.data() + i * w; }
};

inline Limb sign_limb(const Limb* x, size_t w) { return 0u - (x[w - 1] >> 31); }

// y (wy limbs) = x (wx limbs), sign-extended or truncated.
void zcopy(Limb* y, size_t wy, const Limb* x, size_t wx) {
  const Limb ext = sign_limb(x, wx);
  for (size_t i = 0; i < wy; ++i) y[i] = i < wx ? x[i] : ext;
}

ZPoly resized(const ZPoly& a, size_t w) {
  ZPoly r(a.m, w);
  for (size_t i = 0; i < a.m; ++i) zcopy(r.c(i), w, a.c(i), a.w);
  return r;
}

void zneg(Limb* x, size_t w) {
  uint64_t c = 1;
  for (size_t i = 0; i < w; ++i) {
    c += static_cast<Limb>(~x[i]);
    x[i] = static_cast<Limb>(c);
    c >>= 32;
  }
}

// acc += a * k, mod 2^(32 w).
void zmac_small(Limb* acc, const Limb* a, int32_t k, size_t w) {
  const uint32_t uk = static_cast<uint32_t>(k < 0 ? -static_cast<int64_t>(k) : k);
  uint64_t cp = 0, ca = 0, cb = 0;
  for (size_t i = 0; i < w; ++i) {
    cp += uint64_t{a[i]} * uk;
    const Limb p = static_cast<Limb>(cp);
    cp >>= 32;
    if (k >= 0) {
      ca += uint64_t{acc[i]} + p;
      acc[i] = static_cast<Limb>(ca);
      ca >>= 32;
    } else {
      const uint64_t t = uint64_t{acc[i]} - p - cb;
      acc[i] = static_cast<Limb>(t);
      cb = t >> 63;
    }
  }
}

// x (w limbs) -= y (wy limbs, sign-extended) << s, mod 2^(32 w). The limbs
// below s / 32 do not change.
void zsub_shifted(Limb* x, size_t w, const Limb* y, size_t wy, size_t s) {
  const size_t o = s / 32;
  const unsigned r = s % 32;
  const Limb ext = sign_limb(y, wy);
  Limb prev = 0;  // the limb of y below the current one
  uint64_t b = 0;
  for (size_t i = o; i < w; ++i) {
    const Limb cur = i - o < wy ? y[i - o] : ext;
    const Limb v = r == 0 ? cur : (cur << r) | (prev >> (32 - r));
    prev = cur;
    const uint64_t t = uint64_t{x[i]} - v - b;
    x[i] = static_cast<Limb>(t);
    b = t >> 63;
  }
}

// Bits of |x| (of ~x for negative x): the highest limb that is not sign extension.
int zbits(const Limb* x, size_t w) {
  const Limb ext = sign_limb(x, w);
  for (size_t i = w; i-- > 0;) {
    const Limb v = x[i] ^ ext;
    if (v != 0) return static_cast<int>(32 * i + 32 - __builtin_clz(v));
  }
  return 0;
}

int poly_bits(const ZPoly& a) {
  int b = 0;
  for (size_t i = 0; i < a.m; ++i) b = std::max(b, zbits(a.c(i), a.w));
  return b;
}

// A polynomial's coefficients as signs and magnitudes of a common length
// (the limbs of its largest magnitude): the products below multiply only
// those limbs, not the full two's-complement width the value is kept in.
struct SignMag {
  size_t m = 0, w = 0;
  std::vector<Limb> mag;
  std::vector<Limb> neg;  // all-ones for a negative coefficient
  std::vector<int64_t> small;  // the values themselves, where they are short
  ~SignMag() {
    wipe_vec(small);
    wipe_vec(mag);
    wipe_vec(neg);
  }
  const Limb* c(size_t i) const { return mag.data() + i * w; }
};

// Coefficients (start, start + step, ...) of a, m of them.
void to_signmag(SignMag& r, const ZPoly& a, size_t start, size_t step, size_t m) {
  int bits = 0;
  for (size_t i = 0; i < m; ++i) bits = std::max(bits, zbits(a.c(start + i * step), a.w));
  r.m = m;
  r.w = static_cast<size_t>(bits) / 32 + 1;  // |x| <= 2^bits
  r.mag.assign(m * r.w, 0);
  r.neg.assign(m, 0);
  for (size_t i = 0; i < m; ++i) {
    const Limb* x = a.c(start + i * step);
    const Limb s = sign_limb(x, a.w);
    uint64_t c = s & 1;  // |x| = (x ^ s) + (s & 1)
    for (size_t j = 0; j < r.w; ++j) {
      c += static_cast<Limb>((j < a.w ? x[j] : s) ^ s);
      r.mag[i * r.w + j] = static_cast<Limb>(c);
      c >>= 32;
    }
    r.neg[i] = s;
  }
}

// Sums of signed products of SignMag coefficients with deferred carries:
// each output coefficient keeps one signed 128-bit column per limb position
// of a product (wa + wb columns), so a product costs wa * wb multiply-adds
// and the carries are propagated once, at the end. A column sums at most
// 2 * 1024 * min(wa, wb) products below 2^64: far inside 2^127.
class Columns {
 public:
  Columns(size_t m, size_t wc) : m_(m), wc_(wc), col_(m * wc, 0) {}
  ~Columns() { wipe_vec(col_); }
  // Coefficient k += a * b, or -= where neg is all-ones.
  void mac(size_t k, const Limb* a, size_t wa, const Limb* b, size_t wb, Limb neg) {
    __int128* c = col_.data() + k * wc_;
    const __int128 s = -static_cast<__int128>(neg & 1);  // 0 or -1
    for (size_t i = 0; i < wa; ++i) {
      const uint64_t ai = a[i];
      for (size_t j = 0; j < wb; ++j) c[i + j] += (static_cast<__int128>(ai * b[j]) ^ s) - s;
    }
  }
  // Coefficient k += a * b, or -= where neg is all-ones, for a < 2^31:
  // each limb product fits a signed 64-bit integer, so the sign is applied
  // there, not on 128 bits.
  void mac31(size_t k, Limb a, const Limb* b, size_t wb, Limb neg) {
    __int128* c = col_.data() + k * wc_;
    const int64_t s = -static_cast<int64_t>(neg & 1);
    for (size_t j = 0; j < wb; ++j) c[j] += (static_cast<int64_t>(uint64_t{a} * b[j]) ^ s) - s;
  }
  // Coefficient k into w limbs, two's complement, mod 2^(32 w).
  void store(Limb* out, size_t k, size_t w) const {
    const __int128* c = col_.data() + k * wc_;
    __int128 carry = 0;
    for (size_t t = 0; t < w; ++t) {
      carry += t < wc_ ? c[t] : 0;
      out[t] = static_cast<Limb>(static_cast<uint64_t>(carry));
      carry >>= 32;
    }
  }
  ZPoly to_zpoly(size_t w) const {
    ZPoly r(m_, w);
    for (size_t k = 0; k < m_; ++k) store(r.c(k), k, w);
    return r;
  }

 private:
  size_t m_, wc_;
  std::vector<__int128> col_;
};

// The shallow depths, where the values are short: products and their sums
// fit a signed 64-bit integer, so the big-integer machinery is skipped.
// bits of a value, plus bits of the other factor, plus 11 (sums of up to
// 2048 products) must stay below 63.
constexpr int SMALL_LIMIT = 63 - 11;

// Coefficient i of a as a signed 64-bit integer (for values of <= 62 bits).
int64_t small_val(const ZPoly& a, size_t i) {
  const Limb* x = a.c(i);
  const uint64_t hi = a.w > 1 ? x[1] : sign_limb(x, a.w);
  return static_cast<int64_t>(uint64_t{x[0]} | hi << 32);
}

// acc += a(x^stride) b(x) mod x^m + 1, a of na coefficients (stride na <= m).
void conv_small(int64_t* acc, const int64_t* a, size_t na, size_t stride, const int64_t* b, size_t m) {
  for (size_t i = 0; i < na; ++i) {
    const size_t o = stride * i;
    const int64_t ai = a[i];
    for (size_t j = 0; j < m - o; ++j) acc[o + j] += ai * b[j];
    for (size_t j = m - o; j < m; ++j) acc[o + j - m] -= ai * b[j];
  }
}

// lo += a(x) b(x), hi += c(x) b(x) mod x^m + 1 (one pass over b).
void conv2_small(int64_t* lo, int64_t* hi, const int64_t* a, const int64_t* c, const int64_t* b, size_t m) {
  for (size_t i = 0; i < m; ++i) {
    const int64_t ai = a[i], ci = c[i];
    for (size_t j = 0; j < m - i; ++j) {
      lo[i + j] += ai * b[j];
      hi[i + j] += ci * b[j];
    }
    for (size_t j = m - i; j < m; ++j) {
      lo[i + j - m] -= ai * b[j];
      hi[i + j - m] -= ci * b[j];
    }
  }
}

// Negacyclic products by NTT modulo one prime P = 2^63 - 100351 (P = 1 mod
// 2048, so x^m + 1 splits for every m <= 1024), for the sums above whose
// magnitude stays below 2^62 < P / 2: the centred residue is the exact
// value. Montgomery multiplication (R = 2^64); constant time.
class Ntt64 {
 public:
  static constexpr uint64_t P = 9223372036854675457u;
  static const Ntt64& get() {
    static const Ntt64 t;  // built once, thread-safe
    return t;
  }
  static uint64_t mul(uint64_t a, uint64_t b) {  // a b / R mod P
    const unsigned __int128 t = static_cast<unsigned __int128>(a) * b;
    const uint64_t q = static_cast<uint64_t>(t) * PNEG_INV;
    uint64_t u = static_cast<uint64_t>((t + static_cast<unsigned __int128>(q) * P) >> 64);
    u -= P & (0u - static_cast<uint64_t>(u >= P));
    return u;
  }
  static uint64_t add(uint64_t a, uint64_t b) {
    const uint64_t c = a + b;
    return c - (P & (0u - static_cast<uint64_t>(c >= P)));
  }
  static uint64_t sub(uint64_t a, uint64_t b) {
    const uint64_t c = a - b;
    return c + (P & (0u - static_cast<uint64_t>(a < b)));
  }
  static uint64_t from_signed(int64_t x) {
    return static_cast<uint64_t>(x) + (P & (0u - (static_cast<uint64_t>(x) >> 63)));
  }
  static int64_t to_signed(uint64_t x) {
    return static_cast<int64_t>(x) - static_cast<int64_t>(P & (0u - static_cast<uint64_t>(x > P / 2)));
  }
  // Evaluation at the roots of x^m + 1 (Cooley-Tukey, bit-reversed order).
  void forward(uint64_t* a, size_t m) const {
    size_t k = 1;
    for (size_t len = m / 2; len >= 1; len /= 2)
      for (size_t start = 0; start < m; start += 2 * len) {
        const uint64_t z = zeta_[k++];
        for (size_t j = start; j < start + len; ++j) {
          const uint64_t t = mul(z, a[j + len]);
          a[j + len] = sub(a[j], t);
          a[j] = add(a[j], t);
        }
      }
  }
  // The inverse of forward, for values that went through one mul() each
  // (their 1/R is taken back here with the 1/m).
  void inverse(uint64_t* a, size_t m) const {
    for (size_t len = 1; len < m; len *= 2) {
      const size_t base = m / (2 * len);
      for (size_t b = 0; b < base; ++b) {
        const uint64_t z = izeta_[base + b];
        for (size_t j = 2 * len * b; j < 2 * len * b + len; ++j) {
          const uint64_t u = a[j], v = a[j + len];
          a[j] = add(u, v);
          a[j + len] = mul(sub(u, v), z);
        }
      }
    }
    size_t l = 0;
    while ((size_t{1} << l) < m) ++l;
    for (size_t j = 0; j < m; ++j) a[j] = mul(a[j], scale_[l]);
  }

 private:
  static constexpr uint64_t PNEG_INV = 0u - 8642309984488622081u;  // -P^-1 mod 2^64
  static constexpr uint64_t PSI = 9049461781042640807u;            // of order 2048
  static uint64_t mulmod(uint64_t a, uint64_t b) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(a) * b % P);
  }
  static uint64_t powmod(uint64_t a, uint64_t e) {
    uint64_t r = 1;
    for (; e != 0; e >>= 1, a = mulmod(a, a))
      if (e & 1) r = mulmod(r, a);
    return r;
  }
  Ntt64() {
    const uint64_t R = static_cast<uint64_t>((static_cast<unsigned __int128>(1) << 64) % P);
    // psi^j and psi^-j (psi^-1 = psi^2047) for j < 1024, then bit-reversed:
    // zeta_[k] = psi^brv(k) serves every m <= 1024.
    std::vector<uint64_t> pw(1024), ipw(1024);
    const uint64_t ipsi = powmod(PSI, 2047);
    pw[0] = ipw[0] = 1;
    for (unsigned j = 1; j < 1024; ++j) {
      pw[j] = mulmod(pw[j - 1], PSI);
      ipw[j] = mulmod(ipw[j - 1], ipsi);
    }
    for (unsigned k = 0; k < 1024; ++k) {
      unsigned r = 0;  // k bit-reversed on 10 bits
      for (unsigned b = 0; b < 10; ++b) r |= ((k >> b) & 1) << (9 - b);
      zeta_[k] = mulmod(pw[r], R);
      izeta_[k] = mulmod(ipw[r], R);
    }
    // scale_[l] = R^2 / 2^l: one mul() by it multiplies by R / 2^l.
    const uint64_t R2 = mulmod(R, R);
    for (unsigned l = 0; l <= 10; ++l) scale_[l] = mulmod(R2, powmod(powmod(2, l), P - 2));
  }
  uint64_t zeta_[1024], izeta_[1024], scale_[11];
};

// Below this many coefficients the schoolbook convolution is cheaper.
constexpr size_t NTT_MIN = 32;

// acc += a(x^stride) b(x) mod x^m + 1 as conv_small, for sums below 2^62.
void conv_exact(int64_t* acc, const int64_t* a, size_t na, size_t stride, const int64_t* b, size_t m) {
  if (m < NTT_MIN) {
    conv_small(acc, a, na, stride, b, m);
    return;
  }
  const Ntt64& t = Ntt64::get();
  std::vector<uint64_t> x(m, 0), y(m);
  for (size_t i = 0; i < na; ++i) x[stride * i] = Ntt64::from_signed(a[i]);
  for (size_t j = 0; j < m; ++j) y[j] = Ntt64::from_signed(b[j]);
  t.forward(x.data(), m);
  t.forward(y.data(), m);
  for (size_t j = 0; j < m; ++j) x[j] = Ntt64::mul(x[j], y[j]);
  t.inverse(x.data(), m);
  for (size_t j = 0; j < m; ++j) acc[j] += Ntt64::to_signed(x[j]);
  wipe_vec(x);
  wipe_vec(y);
}

ZPoly from_small(const std::vector<int64_t>& v, size_t w) {
  ZPoly r(v.size(), w);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint64_t u = static_cast<uint64_t>(v[i]);
    const Limb ext = 0u - static_cast<Limb>(u >> 63);
    for (size_t j = 0; j < w; ++j) r.c(i)[j] = j == 0 ? static_cast<Limb>(u) : j == 1 ? static_cast<Limb>(u >> 32) : ext;
  }
  return r;
}

void wipe_small(std::vector<int64_t>& v) { wipe_vec(v); }

// N(f) = f0^2 - x f1^2 mod x^(m/2) + 1, for f = f0(x^2) + x f1(x^2), in width w.
ZPoly field_norm(const ZPoly& f, size_t w) {
  const size_t h = f.m / 2;
  if (poly_bits(f) * 2 < SMALL_LIMIT) {
    std::vector<int64_t> f0(h), f1(h), acc(h, 0), t(h, 0);
    for (size_t i = 0; i < h; ++i) {
      f0[i] = small_val(f, 2 * i);
      f1[i] = small_val(f, 2 * i + 1);
    }
    conv_exact(acc.data(), f0.data(), h, 1, f0.data(), h);
    conv_exact(t.data(), f1.data(), h, 1, f1.data(), h);
    acc[0] += t[h - 1];  // - x t
    for (size_t i = 0; i + 1 < h; ++i) acc[i + 1] -= t[i];
    ZPoly r = from_small(acc, w);
    for (auto* v : {&f0, &f1, &acc, &t}) wipe_small(*v);
    return r;
  }
  SignMag f0, f1;
  to_signmag(f0, f, 0, 2, h);
  to_signmag(f1, f, 1, 2, h);
  Columns acc(h, 2 * std::max(f0.w, f1.w));
  for (size_t i = 0; i < h; ++i)
    for (size_t j = 0; j < h; ++j) {
      size_t k = i + j;
      const Limb wrap = k >= h ? ~Limb{0} : 0;
      if (k >= h) k -= h;
      acc.mac(k, f0.c(i), f0.w, f0.c(j), f0.w, f0.neg[i] ^ f0.neg[j] ^ wrap);
      // - x f1_i f1_j x^(i+j): position i+j+1
      size_t k1 = i + j + 1;
      Limb neg = ~Limb{0};
      if (k1 >= h) {
        k1 -= h;
        neg = 0;
      }
      acc.mac(k1, f1.c(i), f1.w, f1.c(j), f1.w, f1.neg[i] ^ f1.neg[j] ^ neg);
    }
  return acc.to_zpoly(w);
}

// F'(x^2) g(-x) mod x^m + 1, in width w (F' has m/2 coefficients).
ZPoly lift(const ZPoly& Fp, const ZPoly& g, size_t w) {
  const size_t m = g.m;
  if (poly_bits(Fp) + poly_bits(g) < SMALL_LIMIT) {
    std::vector<int64_t> a(m / 2), b(m), acc(m, 0);
    for (size_t i = 0; i < m / 2; ++i) a[i] = small_val(Fp, i);
    for (size_t j = 0; j < m; ++j) b[j] = (j & 1) != 0 ? -small_val(g, j) : small_val(g, j);
    conv_exact(acc.data(), a.data(), m / 2, 2, b.data(), m);
    ZPoly r = from_small(acc, w);
    for (auto* v : {&a, &b, &acc}) wipe_small(*v);
    return r;
  }
  SignMag a, b;
  to_signmag(a, Fp, 0, 1, m / 2);
  to_signmag(b, g, 0, 1, m);
  Columns acc(m, a.w + b.w);
  for (size_t i = 0; i < m / 2; ++i)
    for (size_t j = 0; j < m; ++j) {
      size_t k = 2 * i + j;
      Limb neg = (j & 1) != 0 ? ~Limb{0} : 0;
      if (k >= m) {
        k -= m;
        neg = ~neg;
      }
      acc.mac(k, a.c(i), a.w, b.c(j), b.w, neg ^ a.neg[i] ^ b.neg[j]);
    }
  return acc.to_zpoly(w);
}

// x 2^-s as a double, for x of any length: from the top three limbs of |x|
// (relative error about 2^-52; the limbs below cannot change it). The caller
// picks s so that the result stays far from overflow.
double zscaled(const Limb* x, size_t w, int s) {
  const Limb ext = sign_limb(x, w);  // y = x ^ ext is |x| for x >= 0, |x| - 1 below
  size_t t = w;
  while (t > 0 && (x[t - 1] ^ ext) == 0) --t;
  const size_t lo = t > 3 ? t - 3 : 0;
  double v = 0.0;
  for (size_t i = t; i-- > lo;) v = v * 4294967296.0 + static_cast<double>(x[i] ^ ext);
  if (ext != 0) v = -(v + (lo == 0 ? 1.0 : 0.0));
  return std::ldexp(v, static_cast<int>(32 * lo) - s);
}

// The approximations of a polynomial pair carry this many bits above their
// scale: all a binary64 can hold, with room for the products of the FFT.
constexpr int APPROX_BITS = 150;

// Babai reduction of (F, G) against (f, g) (all of width w, m coefficients):
// (F, G) -= (k (f, g)) << s with k = round((F adj f + G adj g) / (f adj f +
// g adj g) / 2^s). The approximations keep each coefficient's exponent, so
// F may be any length against f.
class Babai {
 public:
  Babai(const ZPoly& f, const ZPoly& g)
      : f_(f), g_(g), m_(f.m), fa_(m_), ga_(m_), den_(m_), qa_(m_), qb_(m_),
        T_(m_, product_width(f, g)) {
    to_signmag(fsm_, f, 0, 1, m_);
    to_signmag(gsm_, g, 0, 1, m_);
    // k has at most 31 bits.
    small_ = std::max(poly_bits(f), poly_bits(g)) + 31 < SMALL_LIMIT;
    if (small_) {
      for (size_t i = 0; i < m_; ++i) {
        fsm_.small.push_back(small_val(f, i));
        gsm_.small.push_back(small_val(g, i));
      }
    } else {
      for (SignMag* sm : {&fsm_, &gsm_}) {  // limb planes: limb t of every value, signed
        sm->small.resize(sm->w * m_);
        for (size_t t = 0; t < sm->w; ++t)
          for (size_t j = 0; j < m_; ++j) {
            const int64_t v = sm->c(j)[t];
            sm->small[t * m_ + j] = sm->neg[j] != 0 ? -v : v;
          }
      }
      use_ntt_ = m_ >= NTT_MIN;
      if (use_ntt_) {
        const Ntt64& ntt = Ntt64::get();
        for (int which = 0; which < 2; ++which) {
          const SignMag& sm = which == 0 ? fsm_ : gsm_;
          std::vector<uint64_t>& pl = which == 0 ? fplane_ : gplane_;
          pl.resize(sm.w * m_);
          for (size_t i = 0; i < pl.size(); ++i) pl[i] = Ntt64::from_signed(sm.small[i]);
          for (size_t t = 0; t < sm.w; ++t) ntt.forward(pl.data() + t * m_, m_);
        }
      }
    }
    while ((size_t{1} << logm_) < m_) ++logm_;
    sf_ = std::max(0, std::max(poly_bits(f), poly_bits(g)) - APPROX_BITS);
    for (size_t i = 0; i < m_; ++i) {
      fa_[i] = zscaled(f.c(i), f.w, sf_);
      ga_[i] = zscaled(g.c(i), g.w, sf_);
    }
    fft(fa_.data(), logm_);
    fft(ga_.data(), logm_);
    std::memcpy(den_.data(), fa_.data(), m_ * sizeof(double));
    poly_mulselfadj_fft(den_.data(), logm_);
    std::memcpy(qa_.data(), ga_.data(), m_ * sizeof(double));
    poly_mulselfadj_fft(qa_.data(), logm_);
    poly_add(den_.data(), qa_.data(), logm_);
  }
  ~Babai() {
    for (auto* v : {&fa_, &ga_, &den_, &qa_, &qb_}) wipe(v->data(), m_ * sizeof(double));
    for (auto* v : {&fplane_, &gplane_}) wipe_vec(*v);
  }

  // The quotient, scaled by 2^-s: m values.
  const double* quotient(const ZPoly& F, const ZPoly& G, int s) {
    const int sF = std::max(0, std::max(poly_bits(F), poly_bits(G)) - APPROX_BITS);
    for (size_t i = 0; i < m_; ++i) {
      qa_[i] = zscaled(F.c(i), F.w, sF);
      qb_[i] = zscaled(G.c(i), G.w, sF);
    }
    fft(qa_.data(), logm_);
    fft(qb_.data(), logm_);
    poly_muladj_fft(qa_.data(), fa_.data(), logm_);
    poly_muladj_fft(qb_.data(), ga_.data(), logm_);
    poly_add(qa_.data(), qb_.data(), logm_);
    for (size_t i = 0; i < m_ / 2; ++i) {
      qa_[i] /= den_[i];
      qa_[i + m_ / 2] /= den_[i];
    }
    ifft(qa_.data(), logm_);
    poly_mulconst(qa_.data(), std::ldexp(1.0, sF - sf_ - s), logm_);
    return qa_.data();
  }

  // (F, G) -= (k (f, g)) << s, for k of at most 31 bits.
  void subtract(ZPoly& F, ZPoly& G, const int32_t* k, int s) {
    const size_t w = T_.w;
    if (small_) {
      std::vector<int64_t> kv(k, k + m_), acc(m_);
      for (ZPoly* pr : {&F, &G}) {
        std::fill(acc.begin(), acc.end(), 0);
        conv_exact(acc.data(), kv.data(), m_, 1, (pr == &F ? fsm_ : gsm_).small.data(), m_);
        for (size_t i = 0; i < m_; ++i) {
          const uint64_t u = static_cast<uint64_t>(acc[i]);
          const Limb t[2] = {static_cast<Limb>(u), static_cast<Limb>(u >> 32)};
          zsub_shifted(pr->c(i), pr->w, t, 2, static_cast<size_t>(s));
        }
      }
      wipe_small(kv);
      wipe_small(acc);
      return;
    }
    // k = kh 2^16 + kl with kl in [0, 2^16): a product of a half of k and a
    // signed limb of f stays below 2^48 and a sum of m of them below 2^58,
    // so each limb position of k f is two int64 convolutions, combined in
    // 128 bits once per coefficient.
    std::vector<int64_t> kl(m_), kh(m_), lo(m_), hi(m_);
    for (size_t i = 0; i < m_; ++i) {
      kh[i] = k[i] >> 16;
      kl[i] = k[i] - kh[i] * 65536;
    }
    const Ntt64& ntt = Ntt64::get();
    std::vector<uint64_t> kln, khn, xl, xh;
    if (use_ntt_) {
      kln.resize(m_);
      khn.resize(m_);
      xl.resize(m_);
      xh.resize(m_);
      for (size_t i = 0; i < m_; ++i) {
        kln[i] = Ntt64::from_signed(kl[i]);
        khn[i] = Ntt64::from_signed(kh[i]);
      }
      ntt.forward(kln.data(), m_);
      ntt.forward(khn.data(), m_);
    }
    for (ZPoly* pr : {&F, &G}) {
      const SignMag& src = pr == &F ? fsm_ : gsm_;
      const size_t wc = src.w;
      std::vector<__int128> col(m_ * wc);
      for (size_t t = 0; t < wc; ++t) {
        if (use_ntt_) {  // the planes' transforms are kept, k's made once a round
          const uint64_t* pl = (pr == &F ? fplane_ : gplane_).data() + t * m_;
          for (size_t i = 0; i < m_; ++i) {
            xl[i] = Ntt64::mul(kln[i], pl[i]);
            xh[i] = Ntt64::mul(khn[i], pl[i]);
          }
          ntt.inverse(xl.data(), m_);
          ntt.inverse(xh.data(), m_);
          for (size_t i = 0; i < m_; ++i) {
            lo[i] = Ntt64::to_signed(xl[i]);
            hi[i] = Ntt64::to_signed(xh[i]);
          }
        } else {
          const int64_t* pl = src.small.data() + t * m_;  // limb t of each f_j, signed
          std::fill(lo.begin(), lo.end(), 0);
          std::fill(hi.begin(), hi.end(), 0);
          conv2_small(lo.data(), hi.data(), kl.data(), kh.data(), pl, m_);
        }
        for (size_t i = 0; i < m_; ++i) col[i * wc + t] = lo[i] + (static_cast<__int128>(hi[i]) << 16);
      }
      for (size_t i = 0; i < m_; ++i) {
        __int128 carry = 0;
        for (size_t t = 0; t < w; ++t) {
          carry += t < wc ? col[i * wc + t] : 0;
          T_.c(i)[t] = static_cast<Limb>(static_cast<uint64_t>(carry));
          carry >>= 32;
        }
        zsub_shifted(pr->c(i), pr->w, T_.c(i), w, static_cast<size_t>(s));
      }
      wipe_vec(col);
    }
    for (auto* v : {&kl, &kh, &lo, &hi}) wipe_small(*v);
    for (auto* v : {&kln, &khn, &xl, &xh}) wipe_vec(*v);
  }

 private:
  // Limbs that hold k f and k g (31-bit k, m terms), at most f's width.
  static size_t product_width(const ZPoly& f, const ZPoly& g) {
    const size_t bits = static_cast<size_t>(std::max(poly_bits(f), poly_bits(g))) + 32 + 11;
    return std::min(f.w, bits / 32 + 2);
  }

  const ZPoly &f_, &g_;
  size_t m_;
  unsigned logm_ = 0;
  int sf_ = 0;
  std::vector<double> fa_, ga_, den_, qa_, qb_;
  ZPoly T_;
  SignMag fsm_, gsm_;
  bool small_ = false;
  bool use_ntt_ = false;
  std::vector<uint64_t> fplane_, gplane_;  // the limb planes' transforms
};

// The round-3 reference's length bounds for NTRUSolve by depth (tables of
// its key generation, for n up to 1024): f and g, and the reduced F and G,
// in SMALL_WORDS 31-bit words; F and G before reduction in LARGE_WORDS; the
// measured bit length of f and g, average and standard deviation. Its solver
// gives up on an (f, g) whose values leave these bounds, and keygen then
// draws the next (f, g): the KATs depend on giving up on exactly the same
// pairs, so the same bounds apply here.
constexpr int SMALL_WORDS[11] = {1, 1, 2, 2, 4, 7, 14, 27, 53, 106, 209};
constexpr int LARGE_WORDS[10] = {2, 2, 5, 7, 12, 21, 40, 78, 157, 308};
constexpr int FG_BITS_AVG[11] = {4, 11, 24, 50, 102, 202, 401, 794, 1577, 3138, 6308};
constexpr int FG_BITS_STD[11] = {0, 1, 1, 1, 1, 2, 4, 5, 8, 13, 25};

// True when every value of a and b fits a signed integer of `words` 31-bit words.
bool fits_words(const ZPoly& a, const ZPoly& b, int words) {
  return std::max(poly_bits(a), poly_bits(b)) <= 31 * words - 1;
}

// The reduction at the intermediate depths, with the reference's schedule:
// k in 31 bits at a scale s that starts at the largest length F may have
// less the smallest f may have and drops by 25 bits a round down to a last
// round at s = 0, whatever k was. The reference fails where k leaves 31 bits
// or (F, G) outgrow the words it tracks for them (it would read wrong
// values); an (f, g) so ill-conditioned that a round takes off fewer bits
// than assumed fails here too (their approximations have the same binary64
// precision as these).
bool reduce_scheduled(ZPoly& F, ZPoly& G, const ZPoly& f, const ZPoly& g, unsigned depth) {
  Babai b(f, g);
  const int minbl = FG_BITS_AVG[depth] - 6 * FG_BITS_STD[depth];
  const int maxbl = FG_BITS_AVG[depth] + 6 * FG_BITS_STD[depth];
  int words = LARGE_WORDS[depth];
  int maxbl_FG = 31 * words;
  int s = maxbl_FG - minbl;
  std::vector<int32_t> k(f.m);
  for (;;) {
    if (!fits_words(F, G, words)) return false;
    const double* q = b.quotient(F, G, s);
    for (size_t i = 0; i < f.m; ++i) {
      if (!(q[i] > -2147483647.0 && q[i] < 2147483647.0)) return false;
      k[i] = static_cast<int32_t>(fpr_rint(q[i]));
    }
    b.subtract(F, G, k.data(), s);
    // (F, G) now have at most s + maxbl + 10 bits.
    if (s + maxbl + 10 < maxbl_FG) {
      maxbl_FG = s + maxbl + 10;
      if (31 * words >= maxbl_FG + 31) --words;
    }
    if (s == 0) break;
    s = std::max(0, s - 25);
  }
  return fits_words(F, G, std::min(words, SMALL_WORDS[depth]));
}

// The reduction at depths 1 and 0, where the reference rounds the exact
// quotient once: repeated here until k = 0 (the same result; the rounds
// after the first find k = 0 unless the approximations were off).
bool reduce_full(ZPoly& F, ZPoly& G, const ZPoly& f, const ZPoly& g) {
  Babai b(f, g);
  std::vector<int32_t> k(f.m);
  for (int round = 0; round < 4000; ++round) {
    const double* q = b.quotient(F, G, 0);
    double qmax = 0.0;
    for (size_t i = 0; i < f.m; ++i) qmax = std::max(qmax, std::fabs(q[i]));
    if (!(qmax < 1e300)) return false;
    int e = 0;
    std::frexp(qmax, &e);  // qmax < 2^e: k in 31 bits at s
    const int s = std::max(0, e - 30);
    const double scale = std::ldexp(1.0, -s);
    bool zero = true;
    for (size_t i = 0; i < f.m; ++i) {
      k[i] = static_cast<int32_t>(fpr_rint(q[i] * scale));
      zero &= k[i] == 0;
    }
    if (zero) return true;
    b.subtract(F, G, k.data(), s);
  }
  return false;
}

// Depth 0 of the reference: F adj f + G adj g, computed modulo the prime
// 2147473409 and taken in (-p/2, p/2), is right only while it fits there.
bool numerator_fits(const ZPoly& F, const ZPoly& G, const ZPoly& f, const ZPoly& g) {
  const size_t m = f.m;
  if (std::max(poly_bits(F), poly_bits(G)) > 62 || std::max(poly_bits(f), poly_bits(g)) > 30) return false;
  auto val = [](const ZPoly& a, size_t i) {
    return static_cast<int64_t>(uint64_t{a.c(i)[0]} | uint64_t{a.c(i)[1]} << 32);
  };
  constexpr __int128 HALF_P = 2147473409 / 2;
  if (std::max(poly_bits(F), poly_bits(G)) + std::max(poly_bits(f), poly_bits(g)) < SMALL_LIMIT) {
    // The usual case: the sums fit 64 bits. adj(f)_0 = f_0, adj(f)_j = -f_(m-j).
    std::vector<int64_t> Fv(m), Gv(m), fa(m), ga(m), acc(m, 0);
    for (size_t i = 0; i < m; ++i) {
      Fv[i] = small_val(F, i);
      Gv[i] = small_val(G, i);
      fa[i] = i == 0 ? small_val(f, 0) : -small_val(f, m - i);
      ga[i] = i == 0 ? small_val(g, 0) : -small_val(g, m - i);
    }
    conv_exact(acc.data(), Fv.data(), m, 1, fa.data(), m);
    conv_exact(acc.data(), Gv.data(), m, 1, ga.data(), m);
    bool ok = true;
    for (size_t k = 0; k < m; ++k) ok &= acc[k] <= HALF_P && acc[k] >= -HALF_P;
    for (auto* v : {&Fv, &Gv, &fa, &ga, &acc}) wipe_small(*v);
    return ok;
  }
  for (size_t k = 0; k < m; ++k) {
    // Coefficient k of F adj f + G adj g: adj(f)_j = f_0 for j = 0, -f_(m-j) otherwise.
    __int128 acc = 0;
    for (size_t i = 0; i < m; ++i) {
      const size_t j = (k + m - i) % m;  // F_i adj(f)_j lands at i + j = k mod m
      const size_t fj = j == 0 ? 0 : m - j;
      const bool neg = (j != 0) != (i + j >= m);  // adj's sign times the wrap's
      const __int128 t = static_cast<__int128>(val(F, i)) * val(f, fj) + static_cast<__int128>(val(G, i)) * val(g, fj);
      acc += neg ? -t : t;
    }
    if (acc > HALF_P || acc < -HALF_P) return false;
  }
  return true;
}

// u a + v b = 1 for a, b > 0 not both even (binary extended GCD, HAC 14.61);
// false when gcd(a, b) != 1. All of width w, with room for one more bit.
// Worked in 64-bit words; u and v (nonnegative, shrinking) only over the
// words they still use.
bool xgcd(Limb* u_out, Limb* v_out, const Limb* a32, const Limb* b32, size_t w) {
  using W = uint64_t;
  const size_t n = (w + 1) / 2;
  auto load = [&](const Limb* x) {  // zero-extended: a, b >= 0
    std::vector<W> r(n, 0);
    for (size_t i = 0; i < w; ++i) r[i / 2] |= W{x[i]} << (32 * (i % 2));
    return r;
  };
  std::vector<W> a = load(a32), b = load(b32), u = a, v = b, A(n, 0), B(n, 0), C(n, 0), D(n, 0), t(n);
  A[0] = 1;
  D[0] = 1;
  size_t len = n;  // u and v are zero from word len up
  auto add = [](W* x, const W* y, size_t k) {
    bool c = false;
    for (size_t i = 0; i < k; ++i) {
      W s1, s2;
      const bool c1 = __builtin_add_overflow(x[i], y[i], &s1);
      const bool c2 = __builtin_add_overflow(s1, W{c}, &s2);
      x[i] = s2;
      c = c1 | c2;
    }
  };
  auto sub = [](W* x, const W* y, size_t k) {  // returns the borrow out
    bool br = false;
    for (size_t i = 0; i < k; ++i) {
      W d1, d2;
      const bool b1 = __builtin_sub_overflow(x[i], y[i], &d1);
      const bool b2 = __builtin_sub_overflow(d1, W{br}, &d2);
      x[i] = d2;
      br = b1 | b2;
    }
    return br;
  };
  auto half_u = [](W* x, size_t k) {  // logical: u, v >= 0
    for (size_t i = 0; i + 1 < k; ++i) x[i] = (x[i] >> 1) | (x[i + 1] << 63);
    x[k - 1] >>= 1;
  };
  auto half_s = [&](W* x) {  // arithmetic, over the full width
    for (size_t i = 0; i + 1 < n; ++i) x[i] = (x[i] >> 1) | (x[i + 1] << 63);
    x[n - 1] = static_cast<W>(static_cast<int64_t>(x[n - 1]) >> 1);
  };
  auto halve_pair = [&](W* x, W* X, W* Y) {
    while ((x[0] & 1) == 0) {
      half_u(x, len);
      if ((X[0] & 1) != 0 || (Y[0] & 1) != 0) {
        add(X, b.data(), n);
        sub(Y, a.data(), n);
      }
      half_s(X);
      half_s(Y);
    }
  };
  auto is_zero = [&](const W* x) {
    W r = 0;
    for (size_t i = 0; i < len; ++i) r |= x[i];
    return r == 0;
  };
  for (;;) {
    if (is_zero(u.data())) break;
    halve_pair(u.data(), A.data(), B.data());
    halve_pair(v.data(), C.data(), D.data());
    std::copy(u.begin(), u.begin() + static_cast<std::ptrdiff_t>(len), t.begin());
    if (!sub(t.data(), v.data(), len)) {  // u >= v
      std::copy(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(len), u.begin());
      sub(A.data(), C.data(), n);
      sub(B.data(), D.data(), n);
    } else {  // v -= u
      sub(v.data(), u.data(), len);
      sub(C.data(), A.data(), n);
      sub(D.data(), B.data(), n);
    }
    while (len > 1 && u[len - 1] == 0 && v[len - 1] == 0) --len;
  }
  // C a + D b = v = gcd(a, b).
  bool ok = v[0] == 1;
  for (size_t i = 1; i < n; ++i) ok &= v[i] == 0;
  for (size_t i = 0; i < w; ++i) {
    u_out[i] = static_cast<Limb>(C[i / 2] >> (32 * (i % 2)));
    v_out[i] = static_cast<Limb>(D[i / 2] >> (32 * (i % 2)));
  }
  for (auto* x : {&a, &b, &u, &v, &A, &B, &C, &D, &t}) wipe(x->data(), n * sizeof(W));
  return ok;
}

}  // namespace

bool ntru_solve(int8_t* Fout, int8_t* Gout, const int8_t* f, const int8_t* g, unsigned logn) {
  const size_t n = size_t{1} << logn;
  // Limb widths per depth, from a proven bound on ||f_d||: ||N(f)||_inf <=
  // ||f||^2, so log2 ||f_{d+1}|| <= 2 log2 ||f_d|| + log2(m_d / 2) / 2,
  // starting from ||f||^2 < 16823 (the keygen check).
  size_t wf[MAX_LOGN + 1], wF[MAX_LOGN + 1];
  double bits = 0.5 * std::log2(16823.0);
  for (unsigned d = 0; d <= logn; ++d) {
    wf[d] = static_cast<size_t>(bits / 32) + 2;
    wF[d] = wf[d] + 2;
    const double m = static_cast<double>(n >> d);
    bits = 2 * bits + (m > 2 ? 0.5 * std::log2(m / 2) : 0.0) + 1;
  }
  std::vector<ZPoly> fs, gs;
  fs.emplace_back(n, wf[0]);
  gs.emplace_back(n, wf[0]);
  for (size_t i = 0; i < n; ++i) {
    const Limb fv = static_cast<Limb>(static_cast<int32_t>(f[i])), gv = static_cast<Limb>(static_cast<int32_t>(g[i]));
    for (size_t j = 0; j < wf[0]; ++j) {
      fs[0].c(i)[j] = j == 0 ? fv : 0u - (fv >> 31);
      gs[0].c(i)[j] = j == 0 ? gv : 0u - (gv >> 31);
    }
  }
  for (unsigned d = 0; d < logn; ++d) {
    fs.push_back(field_norm(fs[d], wf[d + 1]));
    gs.push_back(field_norm(gs[d], wf[d + 1]));
  }
  // Deepest level: integers. u f + v g = 1, then F = -q v, G = q u.
  const size_t wt = wF[logn];
  ZPoly Fc(1, wt), Gc(1, wt);
  {
    // The GCD in the width of the values themselves (|u| <= b, |v| <= a),
    // with a limb to spare; the results sign-extended to wt.
    const size_t wx = std::min(wt, static_cast<size_t>(std::max(poly_bits(fs[logn]), poly_bits(gs[logn]))) / 32 + 2);
    ZPoly a = resized(fs[logn], wx), b = resized(gs[logn], wx);
    const bool na = sign_limb(a.c(0), wx) != 0, nb = sign_limb(b.c(0), wx) != 0;
    if (na) zneg(a.c(0), wx);
    if (nb) zneg(b.c(0), wx);
    if ((a.c(0)[0] & 1) == 0 && (b.c(0)[0] & 1) == 0) return false;
    ZPoly ux(1, wx), vx(1, wx);
    if (!xgcd(ux.c(0), vx.c(0), a.c(0), b.c(0), wx)) return false;
    if (na) zneg(ux.c(0), wx);
    if (nb) zneg(vx.c(0), wx);
    const ZPoly u = resized(ux, wt), v = resized(vx, wt);
    zmac_small(Gc.c(0), u.c(0), static_cast<int32_t>(Q), wt);
    zmac_small(Fc.c(0), v.c(0), -static_cast<int32_t>(Q), wt);
  }
  if (!fits_words(Fc, Gc, SMALL_WORDS[logn])) return false;
  for (unsigned d = logn; d-- > 0;) {
    const size_t w = std::max(wF[d + 1] + wf[d] + 1, static_cast<size_t>(31 * LARGE_WORDS[d]) / 32 + 2);
    ZPoly F = lift(Fc, gs[d], w), G = lift(Gc, fs[d], w);
    const ZPoly fe = resized(fs[d], w), ge = resized(gs[d], w);
    if (logn <= 2 || d >= 2) {
      if (!reduce_scheduled(F, G, fe, ge, d)) return false;
    } else {
      // The reference builds depth 1's (F, G) in LARGE_WORDS[1] words and
      // keeps the result in one; at depth 0 it works modulo one 31-bit prime.
      if (d == 1 && !fits_words(F, G, LARGE_WORDS[1])) return false;
      if (d == 0 && !numerator_fits(F, G, fe, ge)) return false;
      if (!reduce_full(F, G, fe, ge)) return false;
      if (d == 1 && !fits_words(F, G, 1)) return false;
    }
    if (std::max(poly_bits(F), poly_bits(G)) > static_cast<int>(32 * wF[d]) - 2) return false;
    Fc = resized(F, wF[d]);
    Gc = resized(G, wF[d]);
  }
  // Depth 0: small F, G, and f G - g F = q checked in plain integers.
  std::vector<int32_t> Fi(n), Gi(n);
  for (size_t i = 0; i < n; ++i) {
    const int32_t Fv = static_cast<int32_t>(Fc.c(i)[0]), Gv = static_cast<int32_t>(Gc.c(i)[0]);
    if (zbits(Fc.c(i), Fc.w) > 8 || zbits(Gc.c(i), Gc.w) > 8 || Fv < -127 || Fv > 127 || Gv < -127 || Gv > 127)
      return false;
    Fi[i] = Fv;
    Gi[i] = Gv;
  }
  // f G - g F, by NTT: the sums stay far below 2^62.
  std::vector<int64_t> fv(n), gv(n), Fv(n), Gv(n), r(n, 0);
  for (size_t i = 0; i < n; ++i) {
    fv[i] = f[i];
    gv[i] = -g[i];
    Fv[i] = Fi[i];
    Gv[i] = Gi[i];
  }
  conv_exact(r.data(), fv.data(), n, 1, Gv.data(), n);
  conv_exact(r.data(), gv.data(), n, 1, Fv.data(), n);
  bool ok = r[0] == static_cast<int64_t>(Q);
  for (size_t i = 1; i < n; ++i) ok &= r[i] == 0;
  if (ok)
    for (size_t i = 0; i < n; ++i) {
      Fout[i] = static_cast<int8_t>(Fi[i]);
      Gout[i] = static_cast<int8_t>(Gi[i]);
    }
  wipe(Fi.data(), n * sizeof(int32_t));
  wipe(Gi.data(), n * sizeof(int32_t));
  for (auto* v : {&fv, &gv, &Fv, &Gv, &r}) wipe_small(*v);
  return ok;
}

}  // namespace falcon
