// avx512_backend.cc - the AVX-512 backend: Keccak with vpternlogq (chi and the
// three-way xors in one instruction each) and vprolq rotations, 8 states per
// __m512i for ExpandA and for ExpandS / ExpandMask when more than four
// polynomials are wanted, 4 per __m256i otherwise, parsed 16 coefficients a
// step (sampling16.h); the 16-lane NTT of ntt16.h and the 32-lane NTT' (small
// products) of small_ntt32.h. Built with -mavx512f -mavx512bw -mavx512vl
// -mavx512dq (plus AVX2/BMI); chosen only when the CPU and OS support them.
// GCC 12's AVX-512 intrinsics use _mm512_undefined_*() internally, which it
// then reports as -Wuninitialized at every call (a false positive).
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifdef __clang__
#pragma clang diagnostic ignored "-Wunknown-warning-option"  // the MSan / fuzz builds
#endif
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "cpu/avx2/lanes4.h"
#include "cpu/avx2/poly8.h"
#include "cpu/avx512/lanes8.h"
#include "cpu/avx512/ntt16.h"
#include "cpu/avx512/packing16.h"
#include "cpu/avx512/rounding16.h"
#include "cpu/avx512/small_ntt32.h"
#include "cpu/avx512/sampling16.h"
#include "cpu/backend.h"
#include "cpu/keccak.h"
#include "cpu/keccak_lanes.h"
#include "cpu/packing.h"
#include "cpu/sampling_lanes.h"

namespace mldsa {
namespace {

#ifndef MLDSA_CT_MSAN
// vpternlogq truth tables over (a, b, c) = (0xF0, 0xCC, 0xAA).
constexpr int kXor3 = 0x96;     // a ^ b ^ c
constexpr int kChi = 0xD2;      // a ^ (~b & c)
#endif

// kStream: the streamed round (keccak_lanes::streamed_form), else the
// whole-state one in registers.
template <bool kStream>
struct Ymm4Ops {
  using V = __m256i;
  static constexpr unsigned kWays = 4;
  static constexpr unsigned kVectorRegisters = 32;
  static constexpr bool kStreamed = kStream;
  static V load(const uint64_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(uint64_t* p, V v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  static V splat(uint64_t v) { return _mm256_set1_epi64x(static_cast<long long>(v)); }
  static V xor2(V a, V b) { return _mm256_xor_si256(a, b); }
#ifndef MLDSA_CT_MSAN
  static V xor5(V a, V b, V c, V d, V e) {
    return _mm256_ternarylogic_epi64(_mm256_ternarylogic_epi64(a, b, c, kXor3), d, e, kXor3);
  }
  static V chi(V a, V b, V c) { return _mm256_ternarylogic_epi64(a, b, c, kChi); }
#else  // clang-14 MSan reports every vpternlogq: the same functions in plain xor / andnot
  static V xor5(V a, V b, V c, V d, V e) { return xor2(xor2(xor2(xor2(a, b), c), d), e); }
  static V chi(V a, V b, V c) { return xor2(a, _mm256_andnot_si256(b, c)); }
#endif
  static void transpose(V r[4]) { lanes4::transpose(r); }
  static void store_lanes(uint8_t* p, V v, unsigned m) { lanes4::store(p, v, m); }
  template <unsigned R>
  static V rol(V v) {
    if constexpr (R == 0)
      return v;
    else
      return _mm256_rol_epi64(v, R);
  }
};

template <bool kStream>
struct Zmm8Ops {
  using V = __m512i;
  static constexpr unsigned kWays = 8;
  static constexpr unsigned kVectorRegisters = 32;
  static constexpr bool kStreamed = kStream;
  static V load(const uint64_t* p) { return _mm512_load_si512(p); }
  static void store(uint64_t* p, V v) { _mm512_store_si512(p, v); }
  static V splat(uint64_t v) { return _mm512_set1_epi64(static_cast<long long>(v)); }
  static V xor2(V a, V b) { return _mm512_xor_si512(a, b); }
#ifndef MLDSA_CT_MSAN
  static V xor5(V a, V b, V c, V d, V e) {
    return _mm512_ternarylogic_epi64(_mm512_ternarylogic_epi64(a, b, c, kXor3), d, e, kXor3);
  }
  static V chi(V a, V b, V c) { return _mm512_ternarylogic_epi64(a, b, c, kChi); }
#else  // clang-14 MSan reports every vpternlogq: the same functions in plain xor / andnot
  static V xor5(V a, V b, V c, V d, V e) { return xor2(xor2(xor2(xor2(a, b), c), d), e); }
  static V chi(V a, V b, V c) { return xor2(a, _mm512_andnot_si512(b, c)); }
#endif
  static void transpose(V r[8]) { lanes8::transpose(r); }
  static void store_lanes(uint8_t* p, V v, unsigned m) { lanes8::store(p, v, m); }
  template <unsigned R>
  static V rol(V v) {
    if constexpr (R == 0)
      return v;
    else
      return _mm512_rol_epi64(v, R);
  }
};

void keccakf1600_avx512(uint64_t s[25]) { keccak_lanes::permute_scalar(s); }

// The functions below that run Keccak lanes come in two forms, S the
// streamed rounds or not (Ymm4Ops<S>, Zmm8Ops<S>).
template <bool S>
void keccakf1600x4_avx512(uint64_t s[4][25]) {
  __m256i A[25];
  for (int i = 0; i < 25; ++i) A[i] = _mm256_setr_epi64x(s[0][i], s[1][i], s[2][i], s[3][i]);
  keccak_lanes::permute<Ymm4Ops<S>>(A);
  for (int i = 0; i < 25; ++i) {
    alignas(32) uint64_t t[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(t), A[i]);
    for (int w = 0; w < 4; ++w) s[w][i] = t[w];
  }
}

void ntt_avx512(Poly* a) { ntt16::ntt(a); }
void invntt_tomont_avx512(Poly* a) { ntt16::invntt_tomont(a); }
void pointwise_acc_avx512(Poly* c, const Poly* a, const Poly* b, unsigned n) { ntt16::pointwise_acc(c, a, b, n); }

template <bool S>
void expand_a_avx512(Poly* A, const uint8_t rho[32], unsigned k, unsigned l) {
  keccak_lanes::expand_a<Zmm8Ops<S>>(A, rho, k, l, sampling16::rej_ntt);
}
// Four or fewer polynomials: the 4-way permutation costs less than half-empty 8-way.
template <bool S>
void expand_s_avx512(Poly* s, unsigned n, const uint8_t rhoprime[64], unsigned eta, uint16_t nonce) {
  if (n <= 4)
    keccak_lanes::expand_s<Ymm4Ops<S>>(s, n, rhoprime, eta, nonce, sampling16::rej_bounded);
  else
    keccak_lanes::expand_s<Zmm8Ops<S>>(s, n, rhoprime, eta, nonce, sampling16::rej_bounded);
}
template <bool S>
void expand_mask_avx512(Poly* y, unsigned l, const uint8_t rhopp[64], uint16_t kappa, unsigned gamma1_bits) {
  if (l <= 4)
    keccak_lanes::expand_mask<Ymm4Ops<S>>(y, l, rhopp, kappa, gamma1_bits, packing16::unpack_z);
  else
    keccak_lanes::expand_mask<Zmm8Ops<S>>(y, l, rhopp, kappa, gamma1_bits, packing16::unpack_z);
}
// The hashes in a lane of the 8: beside them (keccak_lanes::permute_beside)
// a single state costs 1.29x the 8-way permutation's time on Zen 5, in a lane
// 1/8 of it: verify 1.08-1.10x and keygen (65, 87) 1.04-1.06x the time
// beside.
template <bool S>
void expand_a_hash_avx512(Poly* A, const uint8_t rho[32], unsigned k, unsigned l, LaneHashes& hashes) {
  keccak_lanes::expand_a_hash<Zmm8Ops<S>>(A, rho, k, l, sampling16::rej_ntt, sampling16::rej_bounded, hashes);
}
template <bool S>
std::unique_ptr<MaskHash> mask_hash_avx512(const uint8_t rhopp[64], unsigned gamma1_bits) {
  return std::make_unique<keccak_lanes::MaskHashLanes<Ymm4Ops<S>>>(rhopp, gamma1_bits, packing16::unpack_z);
}

constexpr Backend kGeneric = {
    "avx512",
    keccakf1600_avx512,
    keccakf1600x4_avx512<false>,
    ntt_avx512,
    invntt_tomont_avx512,
    pointwise_acc_avx512,
    small_ntt32::ntt,
    small_ntt32::mul,
    expand_a_avx512<false>,
    expand_s_avx512<false>,
    expand_mask_avx512<false>,
    rounding16::decompose_w1,
    rounding16::use_hint_w1,
    packing16::pack_bits,
    packing16::unpack_bits,
    rounding16::exceeds,
    rounding16::add_reduce_exceeds,
    rounding16::sub_reduce_exceeds,
    rounding16::make_hint,
    rounding16::caddq,
    packing8::hint_positions,
    rounding16::power2round,
    {2, 3, 1},  // 44: -8..-15% at 2; 65: -7..-12% at 3; 87 within +-2% at 2
    // Hashes in ExpandA's lanes (measured on Zen 5, not on Intel, where an
    // 8-way permutation also costs about what a single one does): verify
    // from the encoded pk 0.82-0.84x the time without; keygen 65 0.94x, 87
    // 0.97x, but 44 1.06x (its 16 polynomials fill 8 lanes exactly, so the
    // hash costs a whole extra run), so 44 keygen hashes pk alone. ExpandS
    // in the lanes too (keygen 2): 65 0.94-0.98x the time, 87 1.00-1.04x, 44
    // 1.03-1.06x that of 44's plain path (Zen 5), so 65 only.
    expand_a_hash_avx512<false>,
    {1, 1, 1},
    {0, 2, 1},
    // expand_mask_avx512 is 4-way up to 4 polynomials and 8-way above: a draw
    // rounded up to 4 never runs more or wider permutations than the call
    // without look-ahead would (speed not measured on an AVX-512 machine).
    4,
    mask_hash_avx512<false>,  // 87 (one attempt at a time) signs in 0.97x the time (Zen 5)
    {1, 1, 1},
};

// AMD Zen 5: the streamed Keccak round (0.86x the cycles of the whole-state
// one in registers, 8 states; 0.83x for 4), and signing one attempt at a
// time with its challenge in the masks' lanes (0.97-0.99x the time of the
// groups above). keygen, sign and verify 0.93-0.99x the generic table's
// time (bench_paired, bench/RESULTS.md).
constexpr Backend zen5(Backend b) {
  b.tuning = "zen5";
  b.keccakf1600x4 = keccakf1600x4_avx512<true>;
  b.expand_a = expand_a_avx512<true>;
  b.expand_s = expand_s_avx512<true>;
  b.expand_mask = expand_mask_avx512<true>;
  b.expand_a_hash = expand_a_hash_avx512<true>;
  b.mask_hash = mask_hash_avx512<true>;
  for (auto& g : b.sign_group) g = 1;
  return b;
}

}  // namespace

extern const Backend kAvx512Backend = kGeneric;
extern const Backend kAvx512Zen5Backend = zen5(kGeneric);

}  // namespace mldsa
