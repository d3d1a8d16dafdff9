// simd.h - the Falcon kernels that have vector versions, and the choice
// between them. The vector versions give bit-identical results: the same
// IEEE-754 operations in the same order on each element (no FMA), the same
// bytes from the PRNG. Falcon follows the ML-DSA core's backend (cpu/backend.h):
// its AVX2 kernels run where that backend is avx2 or avx512, its NEON ones
// (AArch64) where it is neon, the portable ones under "ref" (so
// select_backend("ref") / MLDSA_ACCEL_CPU=ref force them).
#pragma once

#include <cstdint>

namespace falcon {

struct Kernels {
  const char* name;  // "portable", "avx2" or "neon"
  // Eight ChaCha20 blocks of the signing PRNG (Prng::refill's layout).
  void (*chacha8)(uint8_t out[512], const uint32_t key[12], uint64_t counter);
  // In-place complex DFT of size 2^logn (fft.cc), interleaved re, im:
  // A_k = sum_j a_j exp(+-2 pi i jk / n), the sign - unless inverse.
  void (*dft)(double* a, unsigned logn, bool inverse);
  // Pointwise operations on FFT-form polynomials (internal.h), logn >= 1.
  void (*split_fft)(double* f0, double* f1, const double* f, unsigned logn);
  void (*merge_fft)(double* f, const double* f0, const double* f1, unsigned logn);
  void (*poly_ldl_fft)(const double* g00, double* g01, double* g11, unsigned logn);
  void (*poly_mul_fft)(double* a, const double* b, unsigned logn);
  // The NTT mod q of modq.cc and its inverse, values in [0, q) in and out;
  // the NTT domain's order is the forward walk's (the same on every path).
  void (*ntt_fwd)(uint32_t* a, unsigned logn);
  void (*ntt_inv)(uint32_t* a, unsigned logn);
  // BaseSampler's count: how many RCDT entries exceed the 72-bit value
  // v2 || v1 || v0 (24-bit words, high first). Constant time.
  int (*rcdt_count)(uint32_t v0, uint32_t v1, uint32_t v2);
};

// The kernels for the backend now in use.
const Kernels& kernels();

extern const Kernels kPortableKernels;
// The portable kernels (fft.cc, modq.cc, sampler.cc), which kPortableKernels lists.
namespace portable {
void chacha8(uint8_t out[512], const uint32_t key[12], uint64_t counter);
void dft(double* a, unsigned logn, bool inverse);
void split_fft(double* f0, double* f1, const double* f, unsigned logn);
void merge_fft(double* f, const double* f0, const double* f1, unsigned logn);
void poly_ldl_fft(const double* g00, double* g01, double* g11, unsigned logn);
void poly_mul_fft(double* a, const double* b, unsigned logn);
int rcdt_count(uint32_t v0, uint32_t v1, uint32_t v2);
void ntt_fwd(uint32_t* a, unsigned logn);
void ntt_inv(uint32_t* a, unsigned logn);
}  // namespace portable
// The RCDT table (sampler.cc): 18 entries of three 24-bit words, high first.
extern const uint32_t RCDT[18][3];
#if defined(__x86_64__)
extern const Kernels kAvx2Kernels;
#endif
#if defined(__aarch64__)
extern const Kernels kNeonKernels;
#endif

}  // namespace falcon
