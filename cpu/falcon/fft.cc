// fft.cc - the FFT over the reals of Falcon (polynomials mod x^n + 1 as their
// values at the roots of x^n + 1), splitting, merging and the pointwise
// operations in FFT form. Plain IEEE-754 binary64, built with
// -ffp-contract=off so that every compiler and CPU rounds alike.
#include <cmath>
#include <cstring>
#include <utility>

#include "cpu/falcon/internal.h"
#include "cpu/falcon/simd.h"

namespace falcon {
namespace {

struct Cx {
  double re, im;
};
inline Cx cmul(Cx a, Cx b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
inline Cx cadd(Cx a, Cx b) { return {a.re + b.re, a.im + b.im}; }
inline Cx csub(Cx a, Cx b) { return {a.re - b.re, a.im - b.im}; }
inline Cx conj(Cx a) { return {a.re, -a.im}; }

// exp(i pi k / MAX_N), k < 2 MAX_N: every root of unity the transforms use.
struct Roots {
  Cx w[2 * MAX_N];
  Roots() {
    for (unsigned k = 0; k < 2 * MAX_N; ++k) {
      const long double a = 3.14159265358979323846264338327950288L * k / MAX_N;
      w[k] = {static_cast<double>(cosl(a)), static_cast<double>(sinl(a))};
    }
  }
};
const Roots& roots() {
  static const Roots r;
  return r;
}


}  // namespace

namespace portable {
// In-place DFT (interleaved re, im) of size n = 2^logn: A_k = sum_j a_j exp(sign 2 pi i jk / n).
void dft(double* ad, unsigned logn, bool inverse) {
  Cx* a = reinterpret_cast<Cx*>(ad);
  const size_t n = size_t{1} << logn;
  bit_reverse(ad, logn);
  const Cx* w = roots().w;
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t step = 2 * MAX_N / len;  // exp(2 pi i / len) = w[step]
    for (size_t s = 0; s < n; s += len) {
      for (size_t k = 0; k < len / 2; ++k) {
        Cx tw = w[k * step];
        if (inverse) tw = conj(tw);
        const Cx u = a[s + k];
        const Cx v = cmul(a[s + k + len / 2], tw);
        a[s + k] = cadd(u, v);
        a[s + k + len / 2] = csub(u, v);
      }
    }
  }
}
}  // namespace portable

void fft(double* f, unsigned logn) {
  if (logn == 0) return;
  const size_t n = size_t{1} << logn, hn = n / 2, scale = MAX_N / n;
  const Cx* w = roots().w;
  Cx a[MAX_N];
  for (size_t j = 0; j < n; ++j) a[j] = {f[j] * w[j * scale].re, f[j] * w[j * scale].im};
  kernels().dft(&a[0].re, logn, false);
  for (size_t k = 0; k < hn; ++k) {
    f[k] = a[k].re;
    f[k + hn] = a[k].im;
  }
  wipe(a, n * sizeof a[0]);
}

void ifft(double* f, unsigned logn) {
  if (logn == 0) return;
  const size_t n = size_t{1} << logn, hn = n / 2, scale = MAX_N / n;
  const Cx* w = roots().w;
  Cx a[MAX_N];
  for (size_t k = 0; k < hn; ++k) {
    a[k] = {f[k], f[k + hn]};
    a[n - 1 - k] = {f[k], -f[k + hn]};
  }
  kernels().dft(&a[0].re, logn, true);
  const double inv_n = 1.0 / static_cast<double>(n);
  for (size_t j = 0; j < n; ++j) f[j] = cmul(a[j], conj(w[j * scale])).re * inv_n;
  wipe(a, n * sizeof a[0]);
}

namespace portable {
void split_fft(double* f0, double* f1, const double* f, unsigned logn) {
  const size_t n = size_t{1} << logn, hn = n / 2, qn = n / 4;
  if (logn == 1) {
    f0[0] = f[0];
    f1[0] = f[1];
    return;
  }
  const Cx* w = roots().w;
  const size_t scale = MAX_N / n;
  for (size_t j = 0; j < qn; ++j) {
    const Cx a = {f[j], f[j + hn]};
    const Cx b = {f[hn - 1 - j], -f[hn - 1 - j + hn]};  // f(-zeta_j)
    const Cx s = cadd(a, b), d = cmul(csub(a, b), conj(w[(2 * j + 1) * scale]));
    f0[j] = s.re * 0.5;
    f0[j + qn] = s.im * 0.5;
    f1[j] = d.re * 0.5;
    f1[j + qn] = d.im * 0.5;
  }
}
}  // namespace portable

namespace portable {
void merge_fft(double* f, const double* f0, const double* f1, unsigned logn) {
  const size_t n = size_t{1} << logn, hn = n / 2, qn = n / 4;
  if (logn == 1) {
    f[0] = f0[0];
    f[1] = f1[0];
    return;
  }
  const Cx* w = roots().w;
  const size_t scale = MAX_N / n;
  for (size_t j = 0; j < qn; ++j) {
    const Cx a = {f0[j], f0[j + qn]};
    const Cx t = cmul(Cx{f1[j], f1[j + qn]}, w[(2 * j + 1) * scale]);
    const Cx x = cadd(a, t), y = csub(a, t);
    f[j] = x.re;
    f[j + hn] = x.im;
    f[hn - 1 - j] = y.re;
    f[hn - 1 - j + hn] = -y.im;
  }
}
}  // namespace portable

const double* fft_root(size_t k) { return &roots().w[k].re; }

void bit_reverse(double* a, unsigned logn) {
  const size_t n = size_t{1} << logn;
  for (size_t i = 1, j = 0; i < n; ++i) {  // public indices
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      std::swap(a[2 * i], a[2 * j]);
      std::swap(a[2 * i + 1], a[2 * j + 1]);
    }
  }
}

SplitRoots::SplitRoots() {
  for (unsigned logn = 2; logn <= MAX_LOGN; ++logn) {
    const size_t n = size_t{1} << logn, qn = n / 4, scale = MAX_N / n;
    for (size_t j = 0; j < qn; ++j) {
      const double* w = fft_root((2 * j + 1) * scale);
      re[logn][j] = w[0];
      im[logn][j] = w[1];
    }
  }
}
const SplitRoots& split_roots() {
  static const SplitRoots r;
  return r;
}

void split_fft(double* f0, double* f1, const double* f, unsigned logn) { kernels().split_fft(f0, f1, f, logn); }
void merge_fft(double* f, const double* f0, const double* f1, unsigned logn) { kernels().merge_fft(f, f0, f1, logn); }
void poly_mul_fft(double* a, const double* b, unsigned logn) { kernels().poly_mul_fft(a, b, logn); }
void poly_ldl_fft(const double* g00, double* g01, double* g11, unsigned logn) {
  kernels().poly_ldl_fft(g00, g01, g11, logn);
}

void poly_add(double* a, const double* b, unsigned logn) {
  for (size_t i = 0, n = size_t{1} << logn; i < n; ++i) a[i] += b[i];
}
void poly_sub(double* a, const double* b, unsigned logn) {
  for (size_t i = 0, n = size_t{1} << logn; i < n; ++i) a[i] -= b[i];
}
void poly_neg(double* a, unsigned logn) {
  for (size_t i = 0, n = size_t{1} << logn; i < n; ++i) a[i] = -a[i];
}
void poly_mulconst(double* a, double c, unsigned logn) {
  for (size_t i = 0, n = size_t{1} << logn; i < n; ++i) a[i] *= c;
}

namespace portable {
void poly_mul_fft(double* a, const double* b, unsigned logn) {
  const size_t hn = (size_t{1} << logn) / 2;
  for (size_t k = 0; k < hn; ++k) {
    const Cx r = cmul({a[k], a[k + hn]}, {b[k], b[k + hn]});
    a[k] = r.re;
    a[k + hn] = r.im;
  }
}
}  // namespace portable
void poly_muladj_fft(double* a, const double* b, unsigned logn) {
  const size_t hn = (size_t{1} << logn) / 2;
  for (size_t k = 0; k < hn; ++k) {
    const Cx r = cmul({a[k], a[k + hn]}, {b[k], -b[k + hn]});
    a[k] = r.re;
    a[k + hn] = r.im;
  }
}
void poly_mulselfadj_fft(double* a, unsigned logn) {
  const size_t hn = (size_t{1} << logn) / 2;
  for (size_t k = 0; k < hn; ++k) {
    a[k] = a[k] * a[k] + a[k + hn] * a[k + hn];
    a[k + hn] = 0.0;
  }
}

namespace portable {
void poly_ldl_fft(const double* g00, double* g01, double* g11, unsigned logn) {
  const size_t hn = (size_t{1} << logn) / 2;
  for (size_t k = 0; k < hn; ++k) {
    const Cx d = {g00[k], g00[k + hn]}, b = {g01[k], g01[k + hn]};
    const double inv = 1.0 / (d.re * d.re + d.im * d.im);
    const Cx mu = cmul(conj(b), conj(d));  // adj(g01) / g00
    const Cx l = {mu.re * inv, mu.im * inv};
    const Cx e = csub({g11[k], g11[k + hn]}, cmul(l, b));
    g01[k] = l.re;
    g01[k + hn] = l.im;
    g11[k] = e.re;
    g11[k + hn] = e.im;
  }
}
}  // namespace portable

int64_t fpr_rint(double x) {
  // |x| < 2^51: adding 1.5 * 2^52 leaves an ulp of 1, so the addition
  // rounds to the nearest integer (ties to even) in the default mode.
  constexpr double big = 6755399441055744.0;
  return static_cast<int64_t>((x + big) - big);
}

int64_t fpr_floor(double x) {
  const int64_t t = static_cast<int64_t>(x);  // towards zero
  return t - static_cast<int64_t>(static_cast<double>(t) > x);
}

void wipe(void* p, size_t n) {
  std::memset(p, 0, n);
  __asm__ __volatile__("" : : "r"(p) : "memory");  // keep the stores
}

}  // namespace falcon
