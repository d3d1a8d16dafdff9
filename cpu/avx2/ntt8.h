// ntt8.h - NTT, inverse NTT and pointwise multiply-accumulate on 8 x int32
// lanes (AVX2; the AVX-512 backend builds the same code with EVEX encodings).
//
// Bit-identical to the ref backend: every butterfly is the ref's butterfly
// with the same Montgomery reduction (hi(a*z) - hi(q * lo(a*z*qinv)) equals
// (a - t*q) >> 32 exactly), and no reductions are added or dropped; only the
// order in which independent butterflies run differs. Layers are merged:
//   pass 1: 8 vectors at stride 32 (coefficients j + 32t) take layers 128..32;
//   pass 2: 8 vectors of 64 consecutive coefficients take layers 16 and 8, then
//           are transposed 8x8 so layers 4, 2, 1 run between whole vectors with
//           per-lane twiddles, and transposed back.
// The inverse runs the same passes backwards.
//
// Everything here is in an anonymous namespace on purpose: the file is built
// with different ISA flags in different backends, and internal linkage keeps
// each copy with its own backend.
#pragma once

#include <immintrin.h>

#include <array>
#include <cstdint>

#include "cpu/ntt.h"
#include "cpu/poly.h"

namespace {
namespace ntt8 {

using mldsa::kZetas;
using mldsa::N;
using mldsa::Q;

constexpr int32_t qinv_mul(int32_t z) {
  return static_cast<int32_t>(static_cast<uint32_t>(z) * static_cast<uint32_t>(mldsa::QINV));
}

// Per-lane twiddles for the transposed layers of 64-coefficient group g:
// lane r is the 8-coefficient block 8g + r.
struct LaneTwiddles {
  // [g][0..7] layer 4; [g][8 + 8h] layer 2 (h: first/second pair of the
  // block); [g][24 + 8p] layer 1 (p: pair 0..3 of the block).
  int32_t z[4][56], zq[4][56];
};

constexpr LaneTwiddles make_lane_twiddles(bool inverse) {
  LaneTwiddles t{};
  for (int g = 0; g < 4; ++g)
    for (int r = 0; r < 8; ++r) {
      const int b = 8 * g + r;  // block of 8 coefficients
      int idx[7] = {32 + b, 64 + 2 * b, 64 + 2 * b + 1, 128 + 4 * b, 128 + 4 * b + 1, 128 + 4 * b + 2,
                    128 + 4 * b + 3};
      if (inverse) {  // block m of a layer with B blocks uses -zeta[2B - 1 - m]
        idx[0] = 63 - b;
        idx[1] = 127 - 2 * b;
        idx[2] = 127 - (2 * b + 1);
        for (int p = 0; p < 4; ++p) idx[3 + p] = 255 - (4 * b + p);
      }
      for (int e = 0; e < 7; ++e) {
        const int32_t z = inverse ? -kZetas[idx[e]] : kZetas[idx[e]];
        t.z[g][8 * e + r] = z;
        t.zq[g][8 * e + r] = qinv_mul(z);
      }
    }
  return t;
}

alignas(64) constexpr LaneTwiddles kFwdLanes = make_lane_twiddles(false);
alignas(64) constexpr LaneTwiddles kInvLanes = make_lane_twiddles(true);

// Scalar twiddles for the broadcast layers: zeta and zeta * qinv.
struct Twiddle {
  int32_t z, zq;
};
constexpr Twiddle fwd(int k) { return {kZetas[k], qinv_mul(kZetas[k])}; }
constexpr Twiddle inv(int k) { return {-kZetas[k], qinv_mul(-kZetas[k])}; }

inline __m256i splat(int32_t v) { return _mm256_set1_epi32(v); }

// mont(b * z) lane by lane; z, zq hold the twiddle and twiddle * qinv in every
// lane (zo, zqo: the odd lanes' values moved to even positions).
inline __m256i montmul(__m256i b, __m256i z, __m256i zq, __m256i zo, __m256i zqo) {
  const __m256i q = _mm256_set1_epi32(Q);
  const __m256i bo = _mm256_srli_epi64(b, 32);
  __m256i pe = _mm256_mul_epi32(b, z);
  __m256i po = _mm256_mul_epi32(bo, zo);
  const __m256i te = _mm256_mul_epi32(_mm256_mul_epi32(b, zq), q);
  const __m256i to = _mm256_mul_epi32(_mm256_mul_epi32(bo, zqo), q);
  pe = _mm256_sub_epi64(pe, te);
  po = _mm256_sub_epi64(po, to);
  return _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
}
inline __m256i montmul(__m256i b, Twiddle t) {
  const __m256i z = splat(t.z), zq = splat(t.zq);
  return montmul(b, z, zq, z, zq);
}
inline __m256i montmul_lanes(__m256i b, const int32_t* z, const int32_t* zq) {
  const __m256i vz = _mm256_load_si256(reinterpret_cast<const __m256i*>(z));
  const __m256i vzq = _mm256_load_si256(reinterpret_cast<const __m256i*>(zq));
  return montmul(b, vz, vzq, _mm256_srli_epi64(vz, 32), _mm256_srli_epi64(vzq, 32));
}

// Forward butterfly: (a, b) -> (a + t, a - t), t = mont(zeta * b).
inline void fwd_bf(__m256i& a, __m256i& b, __m256i t) {
  b = _mm256_sub_epi32(a, t);
  a = _mm256_add_epi32(a, t);
}
// Inverse butterfly: (a, b) -> (a + b, mont(zeta' * (a - b))).
inline __m256i inv_diff(__m256i& a, __m256i b) {
  const __m256i d = _mm256_sub_epi32(a, b);
  a = _mm256_add_epi32(a, b);
  return d;
}

inline void transpose8(__m256i v[8]) {
  __m256i t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_epi32(v[2 * i], v[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_epi32(v[2 * i], v[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    u[4 * i + 0] = _mm256_unpacklo_epi64(t[4 * i + 0], t[4 * i + 2]);
    u[4 * i + 1] = _mm256_unpackhi_epi64(t[4 * i + 0], t[4 * i + 2]);
    u[4 * i + 2] = _mm256_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = _mm256_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  for (int i = 0; i < 4; ++i) {
    v[i] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x20);
    v[i + 4] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x31);
  }
}

inline __m256i load(const int32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
inline void store(int32_t* p, __m256i v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }

inline void ntt(mldsa::Poly* p) {
  int32_t* a = p->c;
  __m256i v[8];
  for (int j = 0; j < 32; j += 8) {  // layers 128, 64, 32
    for (int t = 0; t < 8; ++t) v[t] = load(a + j + 32 * t);
    for (int t = 0; t < 4; ++t) fwd_bf(v[t], v[t + 4], montmul(v[t + 4], fwd(1)));
    for (int h = 0; h < 2; ++h)
      for (int t = 0; t < 2; ++t) fwd_bf(v[4 * h + t], v[4 * h + t + 2], montmul(v[4 * h + t + 2], fwd(2 + h)));
    for (int h = 0; h < 4; ++h) fwd_bf(v[2 * h], v[2 * h + 1], montmul(v[2 * h + 1], fwd(4 + h)));
    for (int t = 0; t < 8; ++t) store(a + j + 32 * t, v[t]);
  }
  for (int g = 0; g < 4; ++g) {  // layers 16, 8, then 4, 2, 1 transposed
    int32_t* b = a + 64 * g;
    for (int r = 0; r < 8; ++r) v[r] = load(b + 8 * r);
    for (int h = 0; h < 2; ++h)
      for (int t = 0; t < 2; ++t) fwd_bf(v[4 * h + t], v[4 * h + t + 2], montmul(v[4 * h + t + 2], fwd(8 + 2 * g + h)));
    for (int h = 0; h < 4; ++h) fwd_bf(v[2 * h], v[2 * h + 1], montmul(v[2 * h + 1], fwd(16 + 4 * g + h)));
    transpose8(v);
    const int32_t* z = kFwdLanes.z[g];
    const int32_t* zq = kFwdLanes.zq[g];
    for (int c = 0; c < 4; ++c) fwd_bf(v[c], v[c + 4], montmul_lanes(v[c + 4], z, zq));
    for (int h = 0; h < 2; ++h)
      for (int c = 0; c < 2; ++c)
        fwd_bf(v[4 * h + c], v[4 * h + c + 2], montmul_lanes(v[4 * h + c + 2], z + 8 + 8 * h, zq + 8 + 8 * h));
    for (int pr = 0; pr < 4; ++pr)
      fwd_bf(v[2 * pr], v[2 * pr + 1], montmul_lanes(v[2 * pr + 1], z + 24 + 8 * pr, zq + 24 + 8 * pr));
    transpose8(v);
    for (int r = 0; r < 8; ++r) store(b + 8 * r, v[r]);
  }
}

inline void invntt_tomont(mldsa::Poly* p) {
  int32_t* a = p->c;
  __m256i v[8];
  for (int g = 0; g < 4; ++g) {  // layers 1, 2, 4 transposed, then 8, 16
    int32_t* b = a + 64 * g;
    for (int r = 0; r < 8; ++r) v[r] = load(b + 8 * r);
    transpose8(v);
    const int32_t* z = kInvLanes.z[g];
    const int32_t* zq = kInvLanes.zq[g];
    for (int pr = 0; pr < 4; ++pr)
      v[2 * pr + 1] = montmul_lanes(inv_diff(v[2 * pr], v[2 * pr + 1]), z + 24 + 8 * pr, zq + 24 + 8 * pr);
    for (int h = 0; h < 2; ++h)
      for (int c = 0; c < 2; ++c)
        v[4 * h + c + 2] = montmul_lanes(inv_diff(v[4 * h + c], v[4 * h + c + 2]), z + 8 + 8 * h, zq + 8 + 8 * h);
    for (int c = 0; c < 4; ++c) v[c + 4] = montmul_lanes(inv_diff(v[c], v[c + 4]), z, zq);
    transpose8(v);
    for (int h = 0; h < 4; ++h) v[2 * h + 1] = montmul(inv_diff(v[2 * h], v[2 * h + 1]), inv(31 - (4 * g + h)));
    for (int h = 0; h < 2; ++h)
      for (int t = 0; t < 2; ++t)
        v[4 * h + t + 2] = montmul(inv_diff(v[4 * h + t], v[4 * h + t + 2]), inv(15 - (2 * g + h)));
    for (int r = 0; r < 8; ++r) store(b + 8 * r, v[r]);
  }
  const Twiddle f{mldsa::kInvNMont, qinv_mul(mldsa::kInvNMont)};
  for (int j = 0; j < 32; j += 8) {  // layers 32, 64, 128, then the 2^64/256 factor
    for (int t = 0; t < 8; ++t) v[t] = load(a + j + 32 * t);
    for (int h = 0; h < 4; ++h) v[2 * h + 1] = montmul(inv_diff(v[2 * h], v[2 * h + 1]), inv(7 - h));
    for (int h = 0; h < 2; ++h)
      for (int t = 0; t < 2; ++t) v[4 * h + t + 2] = montmul(inv_diff(v[4 * h + t], v[4 * h + t + 2]), inv(3 - h));
    for (int t = 0; t < 4; ++t) v[t + 4] = montmul(inv_diff(v[t], v[t + 4]), inv(1));
    for (int t = 0; t < 8; ++t) store(a + j + 32 * t, montmul(v[t], f));
  }
}

// mont(a * b) lane by lane for arbitrary a, b.
inline __m256i montmul_vv(__m256i a, __m256i b) {
  const __m256i q = _mm256_set1_epi32(Q), qinv = _mm256_set1_epi32(mldsa::QINV);
  const __m256i ao = _mm256_srli_epi64(a, 32), bo = _mm256_srli_epi64(b, 32);
  __m256i pe = _mm256_mul_epi32(a, b);
  __m256i po = _mm256_mul_epi32(ao, bo);
  const __m256i te = _mm256_mul_epi32(_mm256_mul_epu32(pe, qinv), q);
  const __m256i to = _mm256_mul_epi32(_mm256_mul_epu32(po, qinv), q);
  pe = _mm256_sub_epi64(pe, te);
  po = _mm256_sub_epi64(po, to);
  return _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
}

// reduce32: a - round(a / 2^23) * q.
inline __m256i reduce32(__m256i a) {
  const __m256i t = _mm256_srai_epi32(_mm256_add_epi32(a, splat(1 << 22)), 23);
  return _mm256_sub_epi32(a, _mm256_mullo_epi32(t, splat(Q)));
}

inline void pointwise_acc(mldsa::Poly* c, const mldsa::Poly* a, const mldsa::Poly* b, unsigned n) {
  for (int j = 0; j < N; j += 8) {
    __m256i acc = montmul_vv(load(a[0].c + j), load(b[0].c + j));
    for (unsigned i = 1; i < n; ++i) acc = _mm256_add_epi32(acc, montmul_vv(load(a[i].c + j), load(b[i].c + j)));
    store(c->c + j, reduce32(acc));
  }
}

}  // namespace ntt8
}  // namespace
