// ntru.cc - NTRUSolve (specification section 3.8.2, Algorithms 6 and 7): F, G
// with f G - g F = q, by field norms down to integers, an extended GCD, and
// lifting back up with Babai reduction at each level. Exact big-integer
// arithmetic in fixed widths per level (two's complement, 32-bit limbs);
// the reductions use binary64 approximations. Not constant time: big-number
// lengths, the GCD's steps and the number of reduction rounds depend on f, g
// (see docs/FALCON.md).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cpu/falcon/internal.h"

namespace falcon {
namespace {

using Limb = uint32_t;

// A polynomial of m big integers of w limbs each.
struct ZPoly {
  size_t m, w;
  std::vector<Limb> d;
  ZPoly(size_t m_, size_t w_) : m(m_), w(w_), d(m_ * w_, 0) {}
  ZPoly(const ZPoly&) = default;
  ZPoly& operator=(const ZPoly&) = default;
  ~ZPoly() { wipe(d.data(), d.size() * sizeof(Limb)); }
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

void zadd(Limb* x, const Limb* y, size_t w) {
  uint64_t c = 0;
  for (size_t i = 0; i < w; ++i) {
    c += uint64_t{x[i]} + y[i];
    x[i] = static_cast<Limb>(c);
    c >>= 32;
  }
}

void zsub(Limb* x, const Limb* y, size_t w) {
  uint64_t b = 0;
  for (size_t i = 0; i < w; ++i) {
    const uint64_t t = uint64_t{x[i]} - y[i] - b;
    x[i] = static_cast<Limb>(t);
    b = t >> 63;
  }
}

void zneg(Limb* x, size_t w) {
  uint64_t c = 1;
  for (size_t i = 0; i < w; ++i) {
    c += static_cast<Limb>(~x[i]);
    x[i] = static_cast<Limb>(c);
    c >>= 32;
  }
}

bool zis_zero(const Limb* x, size_t w) {
  Limb r = 0;
  for (size_t i = 0; i < w; ++i) r |= x[i];
  return r == 0;
}

// acc += a * b (sub: acc -= a * b), all mod 2^(32 w).
void zmac(Limb* acc, const Limb* a, const Limb* b, size_t w, bool sub, Limb* tmp) {
  std::memset(tmp, 0, w * sizeof(Limb));
  for (size_t i = 0; i < w; ++i) {
    if (a[i] == 0) continue;
    uint64_t c = 0;
    for (size_t j = 0; i + j < w; ++j) {
      c += uint64_t{tmp[i + j]} + uint64_t{a[i]} * b[j];
      tmp[i + j] = static_cast<Limb>(c);
      c >>= 32;
    }
  }
  if (sub)
    zsub(acc, tmp, w);
  else
    zadd(acc, tmp, w);
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

// x -= y << s, mod 2^(32 w).
void zsub_shifted(Limb* x, const Limb* y, size_t w, size_t s) {
  const size_t o = s / 32;
  const unsigned r = s % 32;
  uint64_t b = 0;
  for (size_t i = 0; i < w; ++i) {
    Limb v = 0;
    if (i >= o) {
      v = y[i - o] << r;
      if (r != 0 && i > o) v |= y[i - o - 1] >> (32 - r);
    }
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

// floor(x / 2^s) as a double; the quotient must fit in 62 bits.
double zto_double(const Limb* x, size_t w, size_t s) {
  const Limb ext = sign_limb(x, w);
  auto limb = [&](size_t i) -> uint64_t { return i < w ? x[i] : ext; };
  const size_t o = s / 32;
  const unsigned r = s % 32;
  const uint64_t lo = limb(o) | limb(o + 1) << 32, hi = limb(o + 2);
  const uint64_t v = r == 0 ? lo : (lo >> r) | (hi << (64 - r));
  return static_cast<double>(static_cast<int64_t>(v));
}

// N(f) = f0^2 - x f1^2 mod x^(m/2) + 1, for f = f0(x^2) + x f1(x^2), in width w.
ZPoly field_norm(const ZPoly& f, size_t w) {
  const size_t h = f.m / 2;
  ZPoly f0(h, w), f1(h, w), r(h, w);
  for (size_t i = 0; i < h; ++i) {
    zcopy(f0.c(i), w, f.c(2 * i), f.w);
    zcopy(f1.c(i), w, f.c(2 * i + 1), f.w);
  }
  std::vector<Limb> tmp(w);
  for (size_t i = 0; i < h; ++i)
    for (size_t j = 0; j < h; ++j) {
      size_t k = i + j;
      const bool wrap = k >= h;
      if (wrap) k -= h;
      zmac(r.c(k), f0.c(i), f0.c(j), w, wrap, tmp.data());
      // - x f1_i f1_j x^(i+j): position i+j+1
      size_t k1 = i + j + 1;
      bool neg = true;
      if (k1 >= h) {
        k1 -= h;
        neg = !neg;
      }
      zmac(r.c(k1), f1.c(i), f1.c(j), w, neg, tmp.data());
    }
  return r;
}

// F'(x^2) g(-x) mod x^m + 1, in width w (F' has m/2 coefficients).
ZPoly lift(const ZPoly& Fp, const ZPoly& g, size_t w) {
  const size_t m = g.m;
  ZPoly a = resized(Fp, w), b = resized(g, w), r(m, w);
  std::vector<Limb> tmp(w);
  for (size_t i = 0; i < m / 2; ++i)
    for (size_t j = 0; j < m; ++j) {
      size_t k = 2 * i + j;
      bool neg = (j & 1) != 0;
      if (k >= m) {
        k -= m;
        neg = !neg;
      }
      zmac(r.c(k), a.c(i), b.c(j), w, neg, tmp.data());
    }
  return r;
}

// Babai reduction of (F, G) against (f, g) (all of width w, m coefficients):
// (F, G) -= k (f, g) with k = round((F adj f + G adj g) / (f adj f + g adj g)),
// from scaled binary64 approximations, until k is zero at f's scale.
bool reduce(ZPoly& F, ZPoly& G, const ZPoly& f, const ZPoly& g) {
  const size_t m = f.m, w = f.w;
  unsigned logm = 0;
  while ((size_t{1} << logm) < m) ++logm;
  const int bf = std::max(poly_bits(f), poly_bits(g));
  const int sf = std::max(0, bf - 38);
  std::vector<double> fa(m), ga(m), den(m), Fa(m), Ga(m);
  for (size_t i = 0; i < m; ++i) {
    fa[i] = zto_double(f.c(i), w, sf);
    ga[i] = zto_double(g.c(i), w, sf);
  }
  fft(fa.data(), logm);
  fft(ga.data(), logm);
  std::memcpy(den.data(), fa.data(), m * sizeof(double));
  poly_mulselfadj_fft(den.data(), logm);
  std::memcpy(Fa.data(), ga.data(), m * sizeof(double));
  poly_mulselfadj_fft(Fa.data(), logm);
  poly_add(den.data(), Fa.data(), logm);
  std::vector<int32_t> k(m);
  ZPoly T(m, w);
  bool force = false;
  int slack = 0;
  for (int iter = 0; iter < 100000; ++iter) {
    const int bF = std::max(poly_bits(F), poly_bits(G));
    // Fa about 20 bits longer than fa, fewer where f's spectrum made k
    // overflow before (slack).
    const int sF = force ? sf : std::max(sf, bF - (bf - sf) - 20 + slack);
    if (bF - sF > 61) return false;
    for (size_t i = 0; i < m; ++i) {
      Fa[i] = zto_double(F.c(i), w, sF);
      Ga[i] = zto_double(G.c(i), w, sF);
    }
    fft(Fa.data(), logm);
    fft(Ga.data(), logm);
    poly_muladj_fft(Fa.data(), fa.data(), logm);
    poly_muladj_fft(Ga.data(), ga.data(), logm);
    poly_add(Fa.data(), Ga.data(), logm);
    for (size_t i = 0; i < m / 2; ++i) {
      Fa[i] /= den[i];
      Fa[i + m / 2] /= den[i];
    }
    ifft(Fa.data(), logm);
    double qmax = 0.0;
    for (size_t i = 0; i < m; ++i) qmax = std::max(qmax, std::fabs(Fa[i]));
    if (!(qmax < 1073741824.0)) {  // k must fit 30 bits: scale F further down
      if (force || !(qmax < 1e300)) return false;
      slack += static_cast<int>(std::ceil(std::log2(qmax))) - 28;
      continue;
    }
    bool zero = true;
    for (size_t i = 0; i < m; ++i) {
      k[i] = static_cast<int32_t>(fpr_rint(Fa[i]));
      zero &= k[i] == 0;
    }
    if (zero) {
      if (sF == sf) return true;
      force = true;
      continue;
    }
    force = false;
    for (ZPoly* pr : {&F, &G}) {
      const ZPoly& src = pr == &F ? f : g;
      std::fill(T.d.begin(), T.d.end(), 0);
      for (size_t i = 0; i < m; ++i) {
        if (k[i] == 0) continue;
        for (size_t j = 0; j < m; ++j) {
          size_t idx = i + j;
          int32_t kk = k[i];
          if (idx >= m) {
            idx -= m;
            kk = -kk;
          }
          zmac_small(T.c(idx), src.c(j), kk, w);
        }
      }
      for (size_t i = 0; i < m; ++i) zsub_shifted(pr->c(i), T.c(i), w, static_cast<size_t>(sF - sf));
    }
  }
  return false;
}

// u a + v b = 1 for a, b > 0 not both even (binary extended GCD, HAC 14.61);
// false when gcd(a, b) != 1. All of width w, with room for one more bit.
bool xgcd(Limb* u_out, Limb* v_out, const Limb* a, const Limb* b, size_t w) {
  std::vector<Limb> u(a, a + w), v(b, b + w), A(w, 0), B(w, 0), C(w, 0), D(w, 0), t(w);
  A[0] = 1;
  D[0] = 1;
  auto half = [&](std::vector<Limb>& x) {  // arithmetic shift right by one
    for (size_t i = 0; i + 1 < w; ++i) x[i] = (x[i] >> 1) | (x[i + 1] << 31);
    x[w - 1] = static_cast<Limb>(static_cast<int32_t>(x[w - 1]) >> 1);
  };
  auto halve_pair = [&](std::vector<Limb>& x, std::vector<Limb>& X, std::vector<Limb>& Y) {
    while ((x[0] & 1) == 0) {
      half(x);
      if ((X[0] & 1) != 0 || (Y[0] & 1) != 0) {
        zadd(X.data(), b, w);
        zsub(Y.data(), a, w);
      }
      half(X);
      half(Y);
    }
  };
  for (;;) {
    if (zis_zero(u.data(), w)) break;
    halve_pair(u, A, B);
    halve_pair(v, C, D);
    t = u;
    zsub(t.data(), v.data(), w);
    if ((t[w - 1] >> 31) == 0) {
      u = t;
      zsub(A.data(), C.data(), w);
      zsub(B.data(), D.data(), w);
    } else {
      zneg(t.data(), w);
      v = t;
      zsub(C.data(), A.data(), w);
      zsub(D.data(), B.data(), w);
    }
  }
  // C a + D b = v = gcd(a, b).
  std::vector<Limb> one(w, 0);
  one[0] = 1;
  const bool ok = std::memcmp(v.data(), one.data(), w * sizeof(Limb)) == 0;
  std::memcpy(u_out, C.data(), w * sizeof(Limb));
  std::memcpy(v_out, D.data(), w * sizeof(Limb));
  for (auto* x : {&u, &v, &A, &B, &C, &D, &t}) wipe(x->data(), w * sizeof(Limb));
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
    ZPoly a = resized(fs[logn], wt), b = resized(gs[logn], wt);
    const bool na = sign_limb(a.c(0), wt) != 0, nb = sign_limb(b.c(0), wt) != 0;
    if (na) zneg(a.c(0), wt);
    if (nb) zneg(b.c(0), wt);
    if ((a.c(0)[0] & 1) == 0 && (b.c(0)[0] & 1) == 0) return false;
    ZPoly u(1, wt), v(1, wt);
    if (!xgcd(u.c(0), v.c(0), a.c(0), b.c(0), wt)) return false;
    if (na) zneg(u.c(0), wt);
    if (nb) zneg(v.c(0), wt);
    zmac_small(Gc.c(0), u.c(0), static_cast<int32_t>(Q), wt);
    zmac_small(Fc.c(0), v.c(0), -static_cast<int32_t>(Q), wt);
  }
  for (unsigned d = logn; d-- > 0;) {
    const size_t w = wF[d + 1] + wf[d] + 1;
    ZPoly F = lift(Fc, gs[d], w), G = lift(Gc, fs[d], w);
    const ZPoly fe = resized(fs[d], w), ge = resized(gs[d], w);
    if (!reduce(F, G, fe, ge)) return false;
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
  std::vector<int32_t> r(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      const int32_t t = f[i] * Gi[j] - g[i] * Fi[j];
      if (i + j < n)
        r[i + j] += t;
      else
        r[i + j - n] -= t;
    }
  bool ok = r[0] == static_cast<int32_t>(Q);
  for (size_t i = 1; i < n; ++i) ok &= r[i] == 0;
  if (ok)
    for (size_t i = 0; i < n; ++i) {
      Fout[i] = static_cast<int8_t>(Fi[i]);
      Gout[i] = static_cast<int8_t>(Gi[i]);
    }
  wipe(Fi.data(), n * sizeof(int32_t));
  wipe(Gi.data(), n * sizeof(int32_t));
  wipe(r.data(), n * sizeof(int32_t));
  return ok;
}

}  // namespace falcon
