// internal.h - the pieces of the Falcon core shared between its files
// (FFT over the reals, arithmetic mod q, codecs, the sampler, NTRUSolve).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/falcon/falcon.h"
#include "cpu/keccak.h"

namespace falcon {

inline constexpr unsigned MAX_LOGN = 10;
inline constexpr unsigned MAX_N = 1u << MAX_LOGN;

// ---- FFT (fft.cc). A real polynomial of degree < n = 2^logn (logn >= 1) in
// FFT form is its values at the n/2 roots zeta_k = exp(i pi (2k+1)/n),
// k < n/2, of x^n + 1 (the other half are their conjugates): real parts in
// f[0, n/2), imaginary parts in f[n/2, n). For logn = 0 it is the one real
// coefficient.
void fft(double* f, unsigned logn);
void ifft(double* f, unsigned logn);
// f = f0(x^2) + x f1(x^2): f0, f1 (n/2 each) from f, and back.
void split_fft(double* f0, double* f1, const double* f, unsigned logn);
void merge_fft(double* f, const double* f0, const double* f1, unsigned logn);
void poly_add(double* a, const double* b, unsigned logn);
void poly_sub(double* a, const double* b, unsigned logn);
void poly_neg(double* a, unsigned logn);
void poly_mulconst(double* a, double c, unsigned logn);
void poly_mul_fft(double* a, const double* b, unsigned logn);     // a *= b
void poly_muladj_fft(double* a, const double* b, unsigned logn);  // a *= adj(b)
void poly_mulselfadj_fft(double* a, unsigned logn);               // a = a adj(a)
// LDL of the self-adjoint [[g00, g01], [adj g01, g11]]: g01 <- l10 = adj(g01)/g00,
// g11 <- d11 = g11 - |g01|^2 / g00 (g00 is d00 already).
void poly_ldl_fft(const double* g00, double* g01, double* g11, unsigned logn);

// exp(i pi k / MAX_N) for k < 2 MAX_N, as {re, im}: the roots the transforms use.
const double* fft_root(size_t k);
// The DFT's input permutation: the n = 2^logn interleaved {re, im} values of
// a in bit-reversed order (public indices; a move, so exact on every path).
void bit_reverse(double* a, unsigned logn);
// The roots split_fft and merge_fft use, w[(2j+1) MAX_N/n] for j < n/4, as
// separate real and imaginary rows per logn, for the vector kernels (the same
// doubles as fft_root's).
struct SplitRoots {
  double re[MAX_LOGN + 1][MAX_N / 4], im[MAX_LOGN + 1][MAX_N / 4];
  SplitRoots();
};
const SplitRoots& split_roots();

// Round half to even, floor, truncation of doubles, without branches.
int64_t fpr_rint(double x);
int64_t fpr_floor(double x);

// ---- Arithmetic mod q (modq.cc). Coefficients in [0, q).
// The NTT's twiddles (its forward and inverse walks), MAX_N each, in [0, q).
const uint32_t* ntt_zetas(bool inverse);
// The NTT's scalar butterfly layers, whole for the portable transforms and
// the narrow ones for the vector kernels: forward, the layers len = from_len,
// from_len / 2, ..., 1 of an n-point transform, k the index of the last
// twiddle used before them; inverse, the layers len = 1, 2, ... below
// until_len (k = n at the start), returning the next twiddle index.
void ntt_fwd_scalar_layers(uint32_t* a, size_t n, size_t from_len, size_t k);
size_t ntt_inv_scalar_layers(uint32_t* a, size_t n, size_t until_len);
// -q^-1 mod 2^16, for the vector kernels' Montgomery products.
constexpr uint32_t neg_qinv16() {
  uint32_t inv = Q;
  for (int i = 0; i < 5; ++i) inv *= 2 - Q * inv;
  return (0u - inv) & 0xFFFF;
}
// h = g / f mod (q, x^n+1); false when f is not invertible.
bool mq_div(uint16_t* h, const int8_t* g, const int8_t* f, unsigned logn);
// G = g F / f mod q, centred; false when f is not invertible or a coefficient
// of G is outside [-127, 127].
bool complete_private(int8_t* G, const int8_t* f, const int8_t* g, const int8_t* F, unsigned logn);
// s1 = hm - s2 h mod q, centred in (-q/2, q/2].
void mq_s1(int16_t* s1, const uint16_t* hm, const int16_t* s2, const uint16_t* h, unsigned logn);
// ||(s1, s2)||^2 <= l2bound (saturating sum).
bool is_short(const int16_t* s1, const int16_t* s2, unsigned logn, uint32_t l2bound);

// ---- Encodings (codec.cc). Each returns the bytes used, 0 on malformed input
// or (encoders) a value that does not fit.
size_t modq_encode(uint8_t* out, size_t max, const uint16_t* x, unsigned logn);
size_t modq_decode(uint16_t* x, unsigned logn, const uint8_t* in, size_t len);
size_t trim_i8_encode(uint8_t* out, size_t max, const int8_t* x, unsigned logn, unsigned bits);
size_t trim_i8_decode(int8_t* x, unsigned logn, unsigned bits, const uint8_t* in, size_t len);
size_t comp_encode(uint8_t* out, size_t max, const int16_t* x, unsigned logn);
size_t comp_decode(int16_t* x, unsigned logn, const uint8_t* in, size_t len);

// ---- Hash to point (sign.cc): SHAKE256(nonce || msg) to n values mod q.
void hash_to_point(uint16_t* hm, const uint8_t nonce[NONCE_BYTES], const uint8_t* msg, size_t msglen,
                   unsigned logn);

// ---- The sampler (sampler.cc).
// The signing PRNG of the reference implementation (ChaCha20 core, 8 blocks
// interleaved), seeded with 56 bytes of a SHAKE256 output.
struct Prng {
  uint8_t buf[512];
  uint32_t key[12];
  uint64_t counter;
  size_t ptr;
  void init(mldsa::Keccak& src);
  void refill();
  uint64_t u64();
  unsigned u8();
  void wipe();
};
struct Kernels;  // simd.h
struct SamplerCtx {
  Prng prng;
  double sigma_min;
  const Kernels* k;  // kernels(), looked up once per signature
};
// An integer from D_{Z, mu, 1/isigma}.
int sampler_z(SamplerCtx& sc, double mu, double isigma);

// ---- NTRUSolve (ntru.cc): F, G with f G - g F = q, |F|, |G| <= 127.
// False when there is none within the bounds (keygen draws again).
bool ntru_solve(int8_t* F, int8_t* G, const int8_t* f, const int8_t* g, unsigned logn);

void wipe(void* p, size_t n);

}  // namespace falcon
