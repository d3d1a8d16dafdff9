// params.h - what one GPU task needs to know about its parameter set, and the
// macros that let the same thread-level code compile for the host and the device.
//
// Everything under kernels/thread/ is header-only, thread-level code: one thread
// runs one whole KeyGen_internal or Verify. It is marked MLDSA_HD, so nvcc builds
// it for the GPU and g++ builds the same source for the CPU, where
// tests/kernels/task_host_test.cc checks it against the core (cpu/).
// Rules for this folder: plain arrays, no std:: containers, no function
// pointers, no exceptions, no dynamic memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/mldsa.h"
#include "cpu/scalar.h"  // MLDSA_HD and the arithmetic on one coefficient

#if defined(__CUDACC__)
#if defined(__CUDA_ARCH__)
#define MLDSA_UNROLL _Pragma("unroll")
#else  // nvcc's host pass: no pragma both its front end and g++ accept
#define MLDSA_UNROLL
#endif
// For the big leaf functions (the permutation, the NTTs): one copy in the
// binary instead of one per call site keeps compile time and registers down.
#define MLDSA_NOINLINE __noinline__
#else
#define MLDSA_UNROLL _Pragma("GCC unroll 32")
#define MLDSA_NOINLINE
#endif

namespace mldsa::gpu {

inline constexpr int kN = mldsa::N;
inline constexpr int32_t kQ = mldsa::Q;
inline constexpr int kD = mldsa::D;
inline constexpr unsigned kMaxK = mldsa::MAX_K, kMaxL = mldsa::MAX_L;
inline constexpr unsigned kT1Bytes = 320, kT0Bytes = 416;

// The values of mldsa::Params a task reads, as a small POD passed to kernels by
// value (mldsa::Params holds a host pointer, the name). round3: the set is
// CRYSTALS-Dilithium round 3's (cpu/mldsa.h lists what differs).
struct TaskParams {
  uint32_t k, l, eta, tau, beta, gamma1_bits, omega;
  int32_t gamma1, gamma2;
  uint32_t ctilde_bytes;  // lambda / 4; 32 in round 3
  uint32_t tr_bytes;      // 64; 32 in round 3
  uint32_t rnd_bytes;     // 32; 64 in round 3 (rho'' itself)
  uint32_t round3;
  uint32_t pk_bytes, sk_bytes, sig_bytes;
};

inline TaskParams task_params(const Params& p) {
  TaskParams t{};
  t.k = p.k;
  t.l = p.l;
  t.eta = p.eta;
  t.tau = p.tau;
  t.beta = p.beta;
  t.gamma1_bits = p.gamma1_bits;
  t.omega = p.omega;
  t.gamma1 = p.gamma1;
  t.gamma2 = p.gamma2;
  t.ctilde_bytes = static_cast<uint32_t>(p.ctilde_bytes);
  t.tr_bytes = static_cast<uint32_t>(p.tr_bytes);
  t.rnd_bytes = static_cast<uint32_t>(p.rnd_bytes);
  t.round3 = p.scheme == Scheme::dilithium_r3 ? 1 : 0;
  t.pk_bytes = static_cast<uint32_t>(p.pk_bytes);
  t.sk_bytes = static_cast<uint32_t>(p.sk_bytes);
  t.sig_bytes = static_cast<uint32_t>(p.sig_bytes);
  return t;
}

// Byte sizes of the encodings (FIPS 204 Section 7.2).
MLDSA_HD inline uint32_t sk_s1_offset(const TaskParams& p) { return 64 + p.tr_bytes; }  // after rho, K, tr
MLDSA_HD inline uint32_t eta_poly_bytes(const TaskParams& p) { return p.eta == 2 ? 96 : 128; }
MLDSA_HD inline uint32_t eta_bits(const TaskParams& p) { return p.eta == 2 ? 3 : 4; }
MLDSA_HD inline uint32_t z_poly_bytes(const TaskParams& p) { return 32 * (p.gamma1_bits + 1); }
MLDSA_HD inline uint32_t w1_bits(const TaskParams& p) { return p.gamma2 == (kQ - 1) / 88 ? 6 : 4; }

// Zeroes a secret in a way the compiler keeps (the stores are volatile).
// bytes must be a multiple of 4 and p 4-byte aligned.
MLDSA_HD inline void wipe_words(void* p, size_t bytes) {
  volatile uint32_t* w = static_cast<volatile uint32_t*>(p);
  for (size_t i = 0; i < bytes / 4; ++i) w[i] = 0;
}

}  // namespace mldsa::gpu
