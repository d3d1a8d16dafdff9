// simd_avx2.cc - Falcon's AVX2 kernels (simd.h), built with -mavx2 only for
// this file. Each is the portable kernel four doubles (or eight ChaCha blocks)
// at a time: the same IEEE-754 operations on each element in the same order,
// negations as sign flips (exact, as unary minus), no FMA; so the results
// are bit-identical (the KAT tests run both).
#include <immintrin.h>

#include <cstring>

#include "cpu/falcon/internal.h"
#include "cpu/falcon/simd.h"

namespace falcon {
namespace {

// ---- ChaCha20, eight blocks in the eight 32-bit lanes: lane u is block
// counter + u, and vector v (word v of every block) is exactly the 32 bytes
// the interleaved buffer holds at 32 v.
inline __m256i rotl(__m256i x, int c) { return _mm256_or_si256(_mm256_slli_epi32(x, c), _mm256_srli_epi32(x, 32 - c)); }
inline __m256i rotl16(__m256i x) {
  const __m256i m = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10,
                                     11, 8, 9, 14, 15, 12, 13);
  return _mm256_shuffle_epi8(x, m);
}
inline __m256i rotl8(__m256i x) {
  const __m256i m = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5, 6, 11,
                                     8, 9, 10, 15, 12, 13, 14);
  return _mm256_shuffle_epi8(x, m);
}
inline void qround(__m256i& a, __m256i& b, __m256i& c, __m256i& d) {
  a = _mm256_add_epi32(a, b); d = rotl16(_mm256_xor_si256(d, a));
  c = _mm256_add_epi32(c, d); b = rotl(_mm256_xor_si256(b, c), 12);
  a = _mm256_add_epi32(a, b); d = rotl8(_mm256_xor_si256(d, a));
  c = _mm256_add_epi32(c, d); b = rotl(_mm256_xor_si256(b, c), 7);
}

void chacha8_avx2(uint8_t out[512], const uint32_t key[12], uint64_t counter) {
  static constexpr uint32_t SIGMA_WORDS[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
  alignas(32) uint32_t lo[8], hi[8];
  for (unsigned u = 0; u < 8; ++u) {
    uint64_t ui = u;  // counter is secret: kept out of the loop's control (sampler.cc)
    __asm__("" : "+r"(ui));
    const uint64_t c = counter + ui;
    lo[u] = key[10] ^ static_cast<uint32_t>(c);
    hi[u] = key[11] ^ static_cast<uint32_t>(c >> 32);
  }
  __m256i init[16], s[16];
  for (int v = 0; v < 4; ++v) init[v] = _mm256_set1_epi32(static_cast<int>(SIGMA_WORDS[v]));
  for (int v = 4; v < 14; ++v) init[v] = _mm256_set1_epi32(static_cast<int>(key[v - 4]));
  init[14] = _mm256_load_si256(reinterpret_cast<const __m256i*>(lo));
  init[15] = _mm256_load_si256(reinterpret_cast<const __m256i*>(hi));
  for (int v = 0; v < 16; ++v) s[v] = init[v];
  for (int i = 0; i < 10; ++i) {
    qround(s[0], s[4], s[8], s[12]); qround(s[1], s[5], s[9], s[13]);
    qround(s[2], s[6], s[10], s[14]); qround(s[3], s[7], s[11], s[15]);
    qround(s[0], s[5], s[10], s[15]); qround(s[1], s[6], s[11], s[12]);
    qround(s[2], s[7], s[8], s[13]); qround(s[3], s[4], s[9], s[14]);
  }
  for (int v = 0; v < 16; ++v)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * v), _mm256_add_epi32(s[v], init[v]));
  // The state is the key stream's secret: clear the copies on the stack.
  for (int v = 0; v < 16; ++v) s[v] = init[v] = _mm256_setzero_si256();
  __asm__ __volatile__("" : : "r"(s), "r"(init) : "memory");
  wipe(lo, sizeof lo);
  wipe(hi, sizeof hi);
}

// ---- FFT-form kernels. Complex values on the split layout: real parts in
// one vector, imaginary parts in another.
inline __m256d neg(__m256d x) { return _mm256_xor_pd(x, _mm256_set1_pd(-0.0)); }
inline __m256d rev(__m256d x) { return _mm256_permute4x64_pd(x, 0x1B); }  // lanes 3, 2, 1, 0
// (ar + i ai)(br + i bi) as cmul in fft.cc: re = ar br - ai bi, im = ar bi + ai br.
inline void cmul(__m256d& re, __m256d& im, __m256d ar, __m256d ai, __m256d br, __m256d bi) {
  re = _mm256_sub_pd(_mm256_mul_pd(ar, br), _mm256_mul_pd(ai, bi));
  im = _mm256_add_pd(_mm256_mul_pd(ar, bi), _mm256_mul_pd(ai, br));
}

// The DFT of fft.cc, two complex values per vector ([re, im, re, im]); the
// product v tw as cmul's re = vr tr - vi ti and im = vi tr + vr ti (IEEE
// addition commutes, so this is cmul's vr ti + vi tr exactly).
inline __m256d cmul2(__m256d v, __m256d tw) {
  const __m256d tr = _mm256_movedup_pd(tw), ti = _mm256_permute_pd(tw, 0xF);
  return _mm256_addsub_pd(_mm256_mul_pd(v, tr), _mm256_mul_pd(_mm256_permute_pd(v, 0x5), ti));
}
inline __m128d cmul1(__m128d v, __m128d tw) {
  const __m128d tr = _mm_movedup_pd(tw), ti = _mm_permute_pd(tw, 0x3);
  return _mm_addsub_pd(_mm_mul_pd(v, tr), _mm_mul_pd(_mm_permute_pd(v, 0x1), ti));
}

void dft_avx2(double* a, unsigned logn, bool inverse) {
  if (logn < 2) return portable::dft(a, logn, inverse);
  const size_t n = size_t{1} << logn;
  bit_reverse(a, logn);
  const double* w = fft_root(0);
  // conj as a sign flip of the imaginary parts (exact, as conj in fft.cc).
  const __m128d cj1 = inverse ? _mm_set_pd(-0.0, 0.0) : _mm_setzero_pd();
  const __m256d cj2 = _mm256_set_m128d(cj1, cj1);
  {  // len = 2: one twiddle, w[0]
    const __m128d tw = _mm_xor_pd(_mm_loadu_pd(w), cj1);
    for (size_t s = 0; s < n; s += 2) {
      const __m128d u = _mm_loadu_pd(a + 2 * s), v = cmul1(_mm_loadu_pd(a + 2 * s + 2), tw);
      _mm_storeu_pd(a + 2 * s, _mm_add_pd(u, v));
      _mm_storeu_pd(a + 2 * s + 2, _mm_sub_pd(u, v));
    }
  }
  for (size_t len = 4; len <= n; len <<= 1) {
    const size_t step = 2 * MAX_N / len, half = len / 2;
    for (size_t s = 0; s < n; s += len)
      for (size_t k = 0; k < half; k += 2) {
        const __m256d tw = _mm256_xor_pd(
            _mm256_set_m128d(_mm_loadu_pd(w + 2 * (k + 1) * step), _mm_loadu_pd(w + 2 * k * step)), cj2);
        double* p = a + 2 * (s + k);
        double* q = p + 2 * half;
        const __m256d u = _mm256_loadu_pd(p), v = cmul2(_mm256_loadu_pd(q), tw);
        _mm256_storeu_pd(p, _mm256_add_pd(u, v));
        _mm256_storeu_pd(q, _mm256_sub_pd(u, v));
      }
  }
}

void split_fft_avx2(double* f0, double* f1, const double* f, unsigned logn) {
  if (logn < 4) return portable::split_fft(f0, f1, f, logn);
  const size_t n = size_t{1} << logn, hn = n / 2, qn = n / 4;
  const double *wr = split_roots().re[logn], *wi = split_roots().im[logn];
  const __m256d half = _mm256_set1_pd(0.5);
  for (size_t j = 0; j < qn; j += 4) {
    const __m256d ar = _mm256_loadu_pd(f + j), ai = _mm256_loadu_pd(f + j + hn);
    // f(-zeta_j): entries hn-1-j down to hn-4-j, conjugated.
    const __m256d br = rev(_mm256_loadu_pd(f + hn - 4 - j));
    const __m256d bi = neg(rev(_mm256_loadu_pd(f + n - 4 - j)));
    const __m256d sr = _mm256_add_pd(ar, br), si = _mm256_add_pd(ai, bi);
    __m256d dr, di;
    cmul(dr, di, _mm256_sub_pd(ar, br), _mm256_sub_pd(ai, bi), _mm256_loadu_pd(wr + j), neg(_mm256_loadu_pd(wi + j)));
    _mm256_storeu_pd(f0 + j, _mm256_mul_pd(sr, half));
    _mm256_storeu_pd(f0 + j + qn, _mm256_mul_pd(si, half));
    _mm256_storeu_pd(f1 + j, _mm256_mul_pd(dr, half));
    _mm256_storeu_pd(f1 + j + qn, _mm256_mul_pd(di, half));
  }
}

void merge_fft_avx2(double* f, const double* f0, const double* f1, unsigned logn) {
  if (logn < 4) return portable::merge_fft(f, f0, f1, logn);
  const size_t n = size_t{1} << logn, hn = n / 2, qn = n / 4;
  const double *wr = split_roots().re[logn], *wi = split_roots().im[logn];
  for (size_t j = 0; j < qn; j += 4) {
    const __m256d ar = _mm256_loadu_pd(f0 + j), ai = _mm256_loadu_pd(f0 + j + qn);
    __m256d tr, ti;
    cmul(tr, ti, _mm256_loadu_pd(f1 + j), _mm256_loadu_pd(f1 + j + qn), _mm256_loadu_pd(wr + j),
         _mm256_loadu_pd(wi + j));
    _mm256_storeu_pd(f + j, _mm256_add_pd(ar, tr));
    _mm256_storeu_pd(f + j + hn, _mm256_add_pd(ai, ti));
    _mm256_storeu_pd(f + hn - 4 - j, rev(_mm256_sub_pd(ar, tr)));
    _mm256_storeu_pd(f + n - 4 - j, rev(neg(_mm256_sub_pd(ai, ti))));
  }
}

void poly_mul_fft_avx2(double* a, const double* b, unsigned logn) {
  if (logn < 3) return portable::poly_mul_fft(a, b, logn);
  const size_t hn = (size_t{1} << logn) / 2;
  for (size_t k = 0; k < hn; k += 4) {
    __m256d re, im;
    cmul(re, im, _mm256_loadu_pd(a + k), _mm256_loadu_pd(a + k + hn), _mm256_loadu_pd(b + k),
         _mm256_loadu_pd(b + k + hn));
    _mm256_storeu_pd(a + k, re);
    _mm256_storeu_pd(a + k + hn, im);
  }
}

void poly_ldl_fft_avx2(const double* g00, double* g01, double* g11, unsigned logn) {
  if (logn < 3) return portable::poly_ldl_fft(g00, g01, g11, logn);
  const size_t hn = (size_t{1} << logn) / 2;
  const __m256d one = _mm256_set1_pd(1.0);
  for (size_t k = 0; k < hn; k += 4) {
    const __m256d dr = _mm256_loadu_pd(g00 + k), di = _mm256_loadu_pd(g00 + k + hn);
    const __m256d br = _mm256_loadu_pd(g01 + k), bi = _mm256_loadu_pd(g01 + k + hn);
    const __m256d inv = _mm256_div_pd(one, _mm256_add_pd(_mm256_mul_pd(dr, dr), _mm256_mul_pd(di, di)));
    __m256d mr, mi;
    cmul(mr, mi, br, neg(bi), dr, neg(di));  // adj(g01) adj(g00)
    const __m256d lr = _mm256_mul_pd(mr, inv), li = _mm256_mul_pd(mi, inv);
    __m256d pr, pi;
    cmul(pr, pi, lr, li, br, bi);
    _mm256_storeu_pd(g01 + k, lr);
    _mm256_storeu_pd(g01 + k + hn, li);
    _mm256_storeu_pd(g11 + k, _mm256_sub_pd(_mm256_loadu_pd(g11 + k), pr));
    _mm256_storeu_pd(g11 + k + hn, _mm256_sub_pd(_mm256_loadu_pd(g11 + k + hn), pi));
  }
}

// ---- The NTT mod q, eight 32-bit lanes per vector; the last three layers
// (butterflies 4, 2, 1 apart) on two vectors at a time, regrouped. Every
// value is reduced to [0, q) at each step, as in modq.cc, so the results are
// the same numbers.
// x w mod q in [0, q) for x, w in [0, q), with wm = w 2^16 mod q
// (Montgomery: (x wm + m q) / 2^16 < 2q, then one masked subtraction).
inline __m256i vmul(__m256i x, __m256i wm) {
  const __m256i q = _mm256_set1_epi32(Q);
  const __m256i p = _mm256_mullo_epi32(x, wm);
  const __m256i m = _mm256_and_si256(_mm256_mullo_epi32(p, _mm256_set1_epi32(neg_qinv16())), _mm256_set1_epi32(0xFFFF));
  const __m256i r = _mm256_srli_epi32(_mm256_add_epi32(p, _mm256_mullo_epi32(m, q)), 16);
  return _mm256_min_epu32(r, _mm256_sub_epi32(r, q));
}
inline __m256i vadd(__m256i a, __m256i b) {
  const __m256i s = _mm256_add_epi32(a, b);
  return _mm256_min_epu32(s, _mm256_sub_epi32(s, _mm256_set1_epi32(Q)));
}
inline __m256i vsub(__m256i a, __m256i b) {
  const __m256i d = _mm256_sub_epi32(a, b);
  return _mm256_min_epu32(d, _mm256_add_epi32(d, _mm256_set1_epi32(Q)));
}
inline __m256i* v(uint32_t* p) { return reinterpret_cast<__m256i*>(p); }

// The twiddles times 2^16 mod q (vmul's form), forward and inverse walks.
struct MontZetas {
  alignas(32) uint32_t fwd[MAX_N], inv[MAX_N];
  MontZetas() {
    const uint32_t *z = ntt_zetas(false), *iz = ntt_zetas(true);
    for (unsigned k = 0; k < MAX_N; ++k) {
      fwd[k] = static_cast<uint32_t>((uint64_t{z[k]} << 16) % Q);
      inv[k] = static_cast<uint32_t>((uint64_t{iz[k]} << 16) % Q);
    }
  }
};
const MontZetas& mont_zetas() {
  static const MontZetas m;
  return m;
}

// The butterflies on pairs (u_i, v_i): Cooley-Tukey (u + v w, u - v w) or
// Gentleman-Sande (u + v, (u - v) w).
inline void bf_ct(__m256i& u, __m256i& x, __m256i w) {
  const __m256i t = vmul(x, w);
  x = vsub(u, t);
  u = vadd(u, t);
}
inline void bf_gs(__m256i& u, __m256i& x, __m256i w) {
  const __m256i d = vsub(u, x);
  u = vadd(u, x);
  x = vmul(d, w);
}

// The three layers whose butterflies are 4, 2 and 1 apart, on 16
// coefficients (two vectors A, B, that is four groups of the len-4 layer):
// the halves each layer pairs are gathered into U and V, and put back.
// k4, k2, k1: the twiddle index of the block's first group in each layer;
// the next groups' count up (forward walk) or down (inverse walk).
template <bool Inverse>
inline void tail16(uint32_t* p, const uint32_t* zm, size_t k4, size_t k2, size_t k1) {
  const auto z = [zm](size_t k, size_t i) { return static_cast<int>(zm[Inverse ? k - i : k + i]); };
  __m256i A = _mm256_loadu_si256(v(p)), B = _mm256_loadu_si256(v(p + 8));
  auto len4 = [&] {  // groups A[0..8), B[0..8): twiddles k4, k4+1
    __m256i U = _mm256_permute2x128_si256(A, B, 0x20), V = _mm256_permute2x128_si256(A, B, 0x31);
    const __m256i W = _mm256_setr_epi32(z(k4, 0), z(k4, 0), z(k4, 0), z(k4, 0), z(k4, 1), z(k4, 1), z(k4, 1), z(k4, 1));
    if (Inverse) bf_gs(U, V, W); else bf_ct(U, V, W);
    A = _mm256_permute2x128_si256(U, V, 0x20);
    B = _mm256_permute2x128_si256(U, V, 0x31);
  };
  auto len2 = [&] {  // groups A[0..4), A[4..8), B[0..4), B[4..8): k2 .. k2+3
    __m256i U = _mm256_unpacklo_epi64(A, B), V = _mm256_unpackhi_epi64(A, B);
    const __m256i W = _mm256_setr_epi32(z(k2, 0), z(k2, 0), z(k2, 2), z(k2, 2), z(k2, 1), z(k2, 1), z(k2, 3), z(k2, 3));
    if (Inverse) bf_gs(U, V, W); else bf_ct(U, V, W);
    A = _mm256_unpacklo_epi64(U, V);
    B = _mm256_unpackhi_epi64(U, V);
  };
  auto len1 = [&] {  // pairs (A0, A1) .. (B6, B7): k1 .. k1+7
    const __m256 a = _mm256_castsi256_ps(A), b = _mm256_castsi256_ps(B);
    __m256i U = _mm256_castps_si256(_mm256_shuffle_ps(a, b, 0x88)), V = _mm256_castps_si256(_mm256_shuffle_ps(a, b, 0xDD));
    const __m256i W = _mm256_setr_epi32(z(k1, 0), z(k1, 1), z(k1, 4), z(k1, 5), z(k1, 2), z(k1, 3), z(k1, 6), z(k1, 7));
    if (Inverse) bf_gs(U, V, W); else bf_ct(U, V, W);
    A = _mm256_unpacklo_epi32(U, V);
    B = _mm256_unpackhi_epi32(U, V);
  };
  if (Inverse) {
    len1(); len2(); len4();
  } else {
    len4(); len2(); len1();
  }
  _mm256_storeu_si256(v(p), A);
  _mm256_storeu_si256(v(p + 8), B);
}

void ntt_fwd_avx2(uint32_t* a, unsigned logn) {
  if (logn < 4) return portable::ntt_fwd(a, logn);
  const size_t n = size_t{1} << logn;
  const uint32_t* zm = mont_zetas().fwd;
  size_t k = 0;
  for (size_t len = n / 2; len >= 8; len >>= 1)
    for (size_t start = 0; start < n; start += 2 * len) {
      const __m256i w = _mm256_set1_epi32(static_cast<int>(zm[++k]));
      for (size_t j = start; j < start + len; j += 8) {
        __m256i x = _mm256_loadu_si256(v(a + j)), y = _mm256_loadu_si256(v(a + j + len));
        bf_ct(x, y, w);
        _mm256_storeu_si256(v(a + j), x);
        _mm256_storeu_si256(v(a + j + len), y);
      }
    }
  // Layer len (group g at twiddle n / (2 len) + g): 4, 2, 1.
  for (size_t j = 0; j < n; j += 16) tail16<false>(a + j, zm, n / 8 + j / 8, n / 4 + j / 4, n / 2 + j / 2);
}

void ntt_inv_avx2(uint32_t* a, unsigned logn) {
  if (logn < 4) return portable::ntt_inv(a, logn);
  const size_t n = size_t{1} << logn;
  const uint32_t* zm = mont_zetas().inv;
  // Layer len (group g at twiddle n / len - 1 - g): 1, 2, 4.
  for (size_t j = 0; j < n; j += 16) tail16<true>(a + j, zm, n / 4 - 1 - j / 8, n / 2 - 1 - j / 4, n - 1 - j / 2);
  size_t k = n / 8;
  for (size_t len = 8; len < n; len <<= 1)
    for (size_t start = 0; start < n; start += 2 * len) {
      const __m256i w = _mm256_set1_epi32(static_cast<int>(zm[--k]));
      for (size_t j = start; j < start + len; j += 8) {
        __m256i x = _mm256_loadu_si256(v(a + j)), y = _mm256_loadu_si256(v(a + j + len));
        bf_gs(x, y, w);
        _mm256_storeu_si256(v(a + j), x);
        _mm256_storeu_si256(v(a + j + len), y);
      }
    }
  const __m256i ninv = _mm256_set1_epi32(static_cast<int>((uint64_t{Q - (Q - 1) / static_cast<uint32_t>(n)} << 16) % Q));
  for (size_t j = 0; j < n; j += 8) _mm256_storeu_si256(v(a + j), vmul(_mm256_loadu_si256(v(a + j)), ninv));
}

// ---- BaseSampler's comparisons, eight RCDT entries per vector (the table
// padded with zero entries, which no value is below).
struct RcdtLanes {
  alignas(32) uint32_t w[3][3][8];  // [vector][word, high first][lane]
  RcdtLanes() {
    std::memset(w, 0, sizeof w);
    for (unsigned e = 0; e < 18; ++e)
      for (unsigned k = 0; k < 3; ++k) w[e / 8][k][e % 8] = RCDT[e][k];
  }
};
const RcdtLanes kRcdtLanes;

int rcdt_count_avx2(uint32_t v0, uint32_t v1, uint32_t v2) {
  const __m256i x0 = _mm256_set1_epi32(static_cast<int>(v0)), x1 = _mm256_set1_epi32(static_cast<int>(v1)),
                x2 = _mm256_set1_epi32(static_cast<int>(v2));
  __m256i sum = _mm256_setzero_si256();
  for (unsigned i = 0; i < 3; ++i) {
    const __m256i* w = reinterpret_cast<const __m256i*>(kRcdtLanes.w[i]);
    __m256i cc = _mm256_srli_epi32(_mm256_sub_epi32(x0, _mm256_load_si256(w + 2)), 31);
    cc = _mm256_srli_epi32(_mm256_sub_epi32(_mm256_sub_epi32(x1, _mm256_load_si256(w + 1)), cc), 31);
    cc = _mm256_srli_epi32(_mm256_sub_epi32(_mm256_sub_epi32(x2, _mm256_load_si256(w)), cc), 31);
    sum = _mm256_add_epi32(sum, cc);
  }
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  return _mm_cvtsi128_si32(s);
}

}  // namespace

const Kernels kAvx2Kernels = {"avx2", chacha8_avx2, dft_avx2, split_fft_avx2, merge_fft_avx2, poly_ldl_fft_avx2, poly_mul_fft_avx2, ntt_fwd_avx2, ntt_inv_avx2, rcdt_count_avx2};

}  // namespace falcon
