// simd_neon.cc - Falcon's NEON kernels (simd.h), AArch64 only (Advanced SIMD
// is part of the base ISA). Each is the portable kernel two doubles (or four
// 32-bit words, four ChaCha blocks) at a time: the same IEEE-754 operations
// on each element in the same order, negations as sign flips (exact, as
// unary minus), separate multiplies and adds (vmulq/vaddq/vsubq, never
// vfmaq: the library is built with -ffp-contract=off); so the results are
// bit-identical (falcon_simd_test and the KAT tests run both).
#include <arm_neon.h>

#include <cstring>

#include "cpu/falcon/internal.h"
#include "cpu/falcon/simd.h"

namespace falcon {
namespace {

// ---- ChaCha20, four blocks in the four 32-bit lanes, twice: in pass h,
// lane u is block counter + 4h + u, so vector v (word v of those blocks)
// is the 16 bytes the interleaved buffer holds at 32 v + 16 h.
template <int C>
inline uint32x4_t rotl(uint32x4_t x) {
  return vsriq_n_u32(vshlq_n_u32(x, C), x, 32 - C);
}
inline uint32x4_t rotl16(uint32x4_t x) { return vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(x))); }
inline uint32x4_t rotl8(uint32x4_t x) {
  static const uint8_t idx[16] = {3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14};
  return vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(x), vld1q_u8(idx)));
}
inline void qround(uint32x4_t& a, uint32x4_t& b, uint32x4_t& c, uint32x4_t& d) {
  a = vaddq_u32(a, b); d = rotl16(veorq_u32(d, a));
  c = vaddq_u32(c, d); b = rotl<12>(veorq_u32(b, c));
  a = vaddq_u32(a, b); d = rotl8(veorq_u32(d, a));
  c = vaddq_u32(c, d); b = rotl<7>(veorq_u32(b, c));
}

void chacha8_neon(uint8_t out[512], const uint32_t key[12], uint64_t counter) {
  static constexpr uint32_t SIGMA_WORDS[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
  uint32_t lo[4], hi[4];
  uint32x4_t init[16], s[16];
  for (unsigned h = 0; h < 2; ++h) {
    for (unsigned u = 0; u < 4; ++u) {
      uint64_t ui = 4 * h + u;  // counter is secret: kept out of the loop's control (sampler.cc)
      __asm__("" : "+r"(ui));
      const uint64_t c = counter + ui;
      lo[u] = key[10] ^ static_cast<uint32_t>(c);
      hi[u] = key[11] ^ static_cast<uint32_t>(c >> 32);
    }
    for (int v = 0; v < 4; ++v) init[v] = vdupq_n_u32(SIGMA_WORDS[v]);
    for (int v = 4; v < 14; ++v) init[v] = vdupq_n_u32(key[v - 4]);
    init[14] = vld1q_u32(lo);
    init[15] = vld1q_u32(hi);
    for (int v = 0; v < 16; ++v) s[v] = init[v];
    for (int i = 0; i < 10; ++i) {
      qround(s[0], s[4], s[8], s[12]); qround(s[1], s[5], s[9], s[13]);
      qround(s[2], s[6], s[10], s[14]); qround(s[3], s[7], s[11], s[15]);
      qround(s[0], s[5], s[10], s[15]); qround(s[1], s[6], s[11], s[12]);
      qround(s[2], s[7], s[8], s[13]); qround(s[3], s[4], s[9], s[14]);
    }
    for (int v = 0; v < 16; ++v)
      vst1q_u8(out + 32 * v + 16 * h, vreinterpretq_u8_u32(vaddq_u32(s[v], init[v])));
  }
  // The state is the key stream's secret: clear the copies on the stack.
  for (int v = 0; v < 16; ++v) s[v] = init[v] = vdupq_n_u32(0);
  __asm__ __volatile__("" : : "r"(s), "r"(init) : "memory");
  wipe(lo, sizeof lo);
  wipe(hi, sizeof hi);
}

// ---- FFT-form kernels. Complex values on the split layout: real parts in
// one vector, imaginary parts in another.
inline float64x2_t rev(float64x2_t x) { return vextq_f64(x, x, 1); }  // lanes 1, 0
// (ar + i ai)(br + i bi) as cmul in fft.cc: re = ar br - ai bi, im = ar bi + ai br.
inline void cmul(float64x2_t& re, float64x2_t& im, float64x2_t ar, float64x2_t ai, float64x2_t br,
                 float64x2_t bi) {
  re = vsubq_f64(vmulq_f64(ar, br), vmulq_f64(ai, bi));
  im = vaddq_f64(vmulq_f64(ar, bi), vmulq_f64(ai, br));
}

// The DFT of fft.cc. vld2q/vst2q split two interleaved complex values into
// a real and an imaginary vector (and back), so every layer with half >= 2
// is cmul above with the twiddles of k and k + 1; the first layer (len 2,
// one butterfly per pair) takes the u and v of two pairs with vld4q/vst4q.
void dft_neon(double* a, unsigned logn, bool inverse) {
  if (logn < 2) return portable::dft(a, logn, inverse);
  const size_t n = size_t{1} << logn;
  bit_reverse(a, logn);
  const double* w = fft_root(0);
  {  // len = 2: one twiddle, w[0] (conjugated for the inverse, as a sign flip)
    const float64x2_t tr = vdupq_n_f64(w[0]), ti = vdupq_n_f64(inverse ? -w[1] : w[1]);
    for (size_t s = 0; s < n; s += 4) {
      float64x2x4_t x = vld4q_f64(a + 2 * s);  // u re, u im, v re, v im of pairs s and s + 2
      float64x2_t vr, vi;
      cmul(vr, vi, x.val[2], x.val[3], tr, ti);
      const float64x2_t ur = x.val[0], ui = x.val[1];
      x.val[0] = vaddq_f64(ur, vr);
      x.val[1] = vaddq_f64(ui, vi);
      x.val[2] = vsubq_f64(ur, vr);
      x.val[3] = vsubq_f64(ui, vi);
      vst4q_f64(a + 2 * s, x);
    }
  }
  for (size_t len = 4; len <= n; len <<= 1) {
    const size_t step = 2 * MAX_N / len, half = len / 2;
    for (size_t s = 0; s < n; s += len)
      for (size_t k = 0; k < half; k += 2) {
        const double* w0 = w + 2 * k * step;
        const double* w1 = w + 2 * (k + 1) * step;
        const double tr2[2] = {w0[0], w1[0]};
        const double ti2[2] = {inverse ? -w0[1] : w0[1], inverse ? -w1[1] : w1[1]};
        double* p = a + 2 * (s + k);
        double* q = p + 2 * half;
        float64x2x2_t u = vld2q_f64(p), v = vld2q_f64(q);
        float64x2_t tr, ti;
        cmul(tr, ti, v.val[0], v.val[1], vld1q_f64(tr2), vld1q_f64(ti2));
        const float64x2_t ur = u.val[0], ui = u.val[1];
        u.val[0] = vaddq_f64(ur, tr);
        u.val[1] = vaddq_f64(ui, ti);
        v.val[0] = vsubq_f64(ur, tr);
        v.val[1] = vsubq_f64(ui, ti);
        vst2q_f64(p, u);
        vst2q_f64(q, v);
      }
  }
}

void split_fft_neon(double* f0, double* f1, const double* f, unsigned logn) {
  if (logn < 3) return portable::split_fft(f0, f1, f, logn);
  const size_t n = size_t{1} << logn, hn = n / 2, qn = n / 4;
  const double *wr = split_roots().re[logn], *wi = split_roots().im[logn];
  const float64x2_t half = vdupq_n_f64(0.5);
  for (size_t j = 0; j < qn; j += 2) {
    const float64x2_t ar = vld1q_f64(f + j), ai = vld1q_f64(f + j + hn);
    // f(-zeta_j): entries hn-1-j and hn-2-j, conjugated.
    const float64x2_t br = rev(vld1q_f64(f + hn - 2 - j));
    const float64x2_t bi = vnegq_f64(rev(vld1q_f64(f + n - 2 - j)));
    const float64x2_t sr = vaddq_f64(ar, br), si = vaddq_f64(ai, bi);
    float64x2_t dr, di;
    cmul(dr, di, vsubq_f64(ar, br), vsubq_f64(ai, bi), vld1q_f64(wr + j), vnegq_f64(vld1q_f64(wi + j)));
    vst1q_f64(f0 + j, vmulq_f64(sr, half));
    vst1q_f64(f0 + j + qn, vmulq_f64(si, half));
    vst1q_f64(f1 + j, vmulq_f64(dr, half));
    vst1q_f64(f1 + j + qn, vmulq_f64(di, half));
  }
}

void merge_fft_neon(double* f, const double* f0, const double* f1, unsigned logn) {
  if (logn < 3) return portable::merge_fft(f, f0, f1, logn);
  const size_t n = size_t{1} << logn, hn = n / 2, qn = n / 4;
  const double *wr = split_roots().re[logn], *wi = split_roots().im[logn];
  for (size_t j = 0; j < qn; j += 2) {
    const float64x2_t ar = vld1q_f64(f0 + j), ai = vld1q_f64(f0 + j + qn);
    float64x2_t tr, ti;
    cmul(tr, ti, vld1q_f64(f1 + j), vld1q_f64(f1 + j + qn), vld1q_f64(wr + j), vld1q_f64(wi + j));
    vst1q_f64(f + j, vaddq_f64(ar, tr));
    vst1q_f64(f + j + hn, vaddq_f64(ai, ti));
    vst1q_f64(f + hn - 2 - j, rev(vsubq_f64(ar, tr)));
    vst1q_f64(f + n - 2 - j, rev(vnegq_f64(vsubq_f64(ai, ti))));
  }
}

void poly_mul_fft_neon(double* a, const double* b, unsigned logn) {
  if (logn < 2) return portable::poly_mul_fft(a, b, logn);
  const size_t hn = (size_t{1} << logn) / 2;
  for (size_t k = 0; k < hn; k += 2) {
    float64x2_t re, im;
    cmul(re, im, vld1q_f64(a + k), vld1q_f64(a + k + hn), vld1q_f64(b + k), vld1q_f64(b + k + hn));
    vst1q_f64(a + k, re);
    vst1q_f64(a + k + hn, im);
  }
}

void poly_ldl_fft_neon(const double* g00, double* g01, double* g11, unsigned logn) {
  if (logn < 2) return portable::poly_ldl_fft(g00, g01, g11, logn);
  const size_t hn = (size_t{1} << logn) / 2;
  const float64x2_t one = vdupq_n_f64(1.0);
  for (size_t k = 0; k < hn; k += 2) {
    const float64x2_t dr = vld1q_f64(g00 + k), di = vld1q_f64(g00 + k + hn);
    const float64x2_t br = vld1q_f64(g01 + k), bi = vld1q_f64(g01 + k + hn);
    const float64x2_t inv = vdivq_f64(one, vaddq_f64(vmulq_f64(dr, dr), vmulq_f64(di, di)));
    float64x2_t mr, mi;
    cmul(mr, mi, br, vnegq_f64(bi), dr, vnegq_f64(di));  // adj(g01) adj(g00)
    const float64x2_t lr = vmulq_f64(mr, inv), li = vmulq_f64(mi, inv);
    float64x2_t pr, pi;
    cmul(pr, pi, lr, li, br, bi);
    vst1q_f64(g01 + k, lr);
    vst1q_f64(g01 + k + hn, li);
    vst1q_f64(g11 + k, vsubq_f64(vld1q_f64(g11 + k), pr));
    vst1q_f64(g11 + k + hn, vsubq_f64(vld1q_f64(g11 + k + hn), pi));
  }
}

// ---- The NTT mod q, four 32-bit lanes per vector for the layers whose
// butterflies are four or more apart, scalar for the last two. Every value
// is reduced to [0, q) at each step, as in modq.cc, so the results are the
// same numbers.
// x w mod q in [0, q) for x, w in [0, q), with wm = w 2^16 mod q
// (Montgomery: (x wm + m q) / 2^16 < 2q, then one subtraction by min).
inline uint32x4_t vmul(uint32x4_t x, uint32x4_t wm) {
  const uint32x4_t q = vdupq_n_u32(Q);
  const uint32x4_t p = vmulq_u32(x, wm);
  const uint32x4_t m = vandq_u32(vmulq_n_u32(p, neg_qinv16()), vdupq_n_u32(0xFFFF));
  const uint32x4_t r = vshrq_n_u32(vmlaq_u32(p, m, q), 16);
  return vminq_u32(r, vsubq_u32(r, q));
}
inline uint32x4_t vadd(uint32x4_t a, uint32x4_t b) {
  const uint32x4_t s = vaddq_u32(a, b);
  return vminq_u32(s, vsubq_u32(s, vdupq_n_u32(Q)));
}
inline uint32x4_t vsub(uint32x4_t a, uint32x4_t b) {
  const uint32x4_t d = vsubq_u32(a, b);
  return vminq_u32(d, vaddq_u32(d, vdupq_n_u32(Q)));
}
inline uint32x4_t mont_twiddle(uint32_t w) { return vdupq_n_u32(static_cast<uint32_t>((uint64_t{w} << 16) % Q)); }

void ntt_fwd_neon(uint32_t* a, unsigned logn) {
  if (logn < 3) return portable::ntt_fwd(a, logn);
  const size_t n = size_t{1} << logn;
  const uint32_t* z = ntt_zetas(false);
  size_t k = 0;
  size_t len = n / 2;
  for (; len >= 4; len >>= 1)
    for (size_t start = 0; start < n; start += 2 * len) {
      const uint32x4_t w = mont_twiddle(z[++k]);
      for (size_t j = start; j < start + len; j += 4) {
        const uint32x4_t x = vld1q_u32(a + j), t = vmul(vld1q_u32(a + j + len), w);
        vst1q_u32(a + j + len, vsub(x, t));
        vst1q_u32(a + j, vadd(x, t));
      }
    }
  ntt_fwd_scalar_layers(a, n, len, k);
}

void ntt_inv_neon(uint32_t* a, unsigned logn) {
  if (logn < 3) return portable::ntt_inv(a, logn);
  const size_t n = size_t{1} << logn;
  const uint32_t* z = ntt_zetas(true);
  size_t k = ntt_inv_scalar_layers(a, n, 4);
  for (size_t len = 4; len < n; len <<= 1)
    for (size_t start = 0; start < n; start += 2 * len) {
      const uint32x4_t w = mont_twiddle(z[--k]);
      for (size_t j = start; j < start + len; j += 4) {
        const uint32x4_t x = vld1q_u32(a + j), y = vld1q_u32(a + j + len);
        vst1q_u32(a + j, vadd(x, y));
        vst1q_u32(a + j + len, vmul(vsub(x, y), w));
      }
    }
  const uint32x4_t ninv = mont_twiddle(Q - (Q - 1) / static_cast<uint32_t>(n));
  for (size_t j = 0; j < n; j += 4) vst1q_u32(a + j, vmul(vld1q_u32(a + j), ninv));
}

// ---- BaseSampler's comparisons, four RCDT entries per vector (the table
// padded with zero entries, which no value is below).
struct RcdtLanes {
  uint32_t w[5][3][4];  // [vector][word, high first][lane]
  RcdtLanes() {
    std::memset(w, 0, sizeof w);
    for (unsigned e = 0; e < 18; ++e)
      for (unsigned k = 0; k < 3; ++k) w[e / 4][k][e % 4] = RCDT[e][k];
  }
};
const RcdtLanes kRcdtLanes;

int rcdt_count_neon(uint32_t v0, uint32_t v1, uint32_t v2) {
  const uint32x4_t x0 = vdupq_n_u32(v0), x1 = vdupq_n_u32(v1), x2 = vdupq_n_u32(v2);
  uint32x4_t sum = vdupq_n_u32(0);
  for (unsigned i = 0; i < 5; ++i) {
    const uint32_t(*w)[4] = kRcdtLanes.w[i];
    uint32x4_t cc = vshrq_n_u32(vsubq_u32(x0, vld1q_u32(w[2])), 31);
    cc = vshrq_n_u32(vsubq_u32(vsubq_u32(x1, vld1q_u32(w[1])), cc), 31);
    cc = vshrq_n_u32(vsubq_u32(vsubq_u32(x2, vld1q_u32(w[0])), cc), 31);
    sum = vaddq_u32(sum, cc);
  }
  return static_cast<int>(vaddvq_u32(sum));
}

}  // namespace

const Kernels kNeonKernels = {"neon", chacha8_neon, dft_neon, split_fft_neon, merge_fft_neon, poly_ldl_fft_neon, poly_mul_fft_neon, ntt_fwd_neon, ntt_inv_neon, rcdt_count_neon};

}  // namespace falcon
