// avx2_backend.cc - the AVX2 backend: 4-way Keccak (one state per 64-bit
// lane), ExpandA / ExpandS / ExpandMask four polynomials at a time, the
// 8 x int32 NTT, and an unrolled BMI1/BMI2 single-state Keccak. Built with
// -mavx2 -mbmi -mbmi2; chosen only when the CPU and OS support them (see
// backend.cc).
#include <immintrin.h>

#include "cpu/avx2/lanes4.h"
#include "cpu/avx2/packing8.h"
#include "cpu/avx2/ntt8.h"
#include "cpu/avx2/poly8.h"
#include "cpu/avx2/rounding8.h"
#include "cpu/avx2/small_ntt16.h"
#include "cpu/backend.h"
#include "cpu/keccak.h"
#include "cpu/keccak_lanes.h"
#include "cpu/packing.h"
#include "cpu/sampling_lanes.h"

namespace mldsa {
namespace {

struct Avx2Ops {
  using V = __m256i;
  static constexpr unsigned kWays = 4;
  static constexpr unsigned kVectorRegisters = 16;
  static V load(const uint64_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(uint64_t* p, V v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  static V splat(uint64_t v) { return _mm256_set1_epi64x(static_cast<long long>(v)); }
  static V xor2(V a, V b) { return _mm256_xor_si256(a, b); }
  static V xor5(V a, V b, V c, V d, V e) { return xor2(xor2(xor2(a, b), xor2(c, d)), e); }
  static V chi(V a, V b, V c) { return xor2(a, _mm256_andnot_si256(b, c)); }  // a ^ (~b & c)
  static void transpose(V r[4]) { lanes4::transpose(r); }
  static void store_lanes(uint8_t* p, V v, unsigned m) { lanes4::store(p, v, m); }
  template <unsigned R>
  static V rol(V v) {
    if constexpr (R == 0) {
      return v;
    } else if constexpr (R == 8 || R == 56) {  // whole-byte rotations: one shuffle
      const __m256i idx = R == 8 ? _mm256_setr_epi8(7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14, 7, 0, 1, 2,
                                                    3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14)
                                 : _mm256_setr_epi8(1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8, 1, 2, 3, 4,
                                                    5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8);
      return _mm256_shuffle_epi8(v, idx);
    } else {
      return _mm256_or_si256(_mm256_slli_epi64(v, R), _mm256_srli_epi64(v, 64 - R));
    }
  }
};

void keccakf1600_bmi(uint64_t s[25]) { keccak_lanes::permute_scalar(s); }

void keccakf1600x4_avx2(uint64_t s[4][25]) {
  __m256i A[25];
  for (int i = 0; i < 25; ++i) A[i] = _mm256_setr_epi64x(s[0][i], s[1][i], s[2][i], s[3][i]);
  keccak_lanes::permute<Avx2Ops>(A);
  for (int i = 0; i < 25; ++i) {
    alignas(32) uint64_t t[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(t), A[i]);
    for (int w = 0; w < 4; ++w) s[w][i] = t[w];
  }
}

void ntt_avx2(Poly* a) { ntt8::ntt(a); }
void invntt_tomont_avx2(Poly* a) { ntt8::invntt_tomont(a); }
void pointwise_acc_avx2(Poly* c, const Poly* a, const Poly* b, unsigned n) { ntt8::pointwise_acc(c, a, b, n); }

void expand_a_avx2(Poly* A, const uint8_t rho[32], unsigned k, unsigned l) {
  keccak_lanes::expand_a<Avx2Ops>(A, rho, k, l, poly8::rej_ntt);
}
void expand_a_hash_avx2(Poly* A, const uint8_t rho[32], unsigned k, unsigned l, LaneHashes& hashes) {
  keccak_lanes::expand_a_hash<Avx2Ops>(A, rho, k, l, poly8::rej_ntt, poly8::rej_bounded, hashes);
}
void expand_a_hash_beside_avx2(Poly* A, const uint8_t rho[32], unsigned k, unsigned l, LaneHashes& hashes) {
  keccak_lanes::expand_a_hash<Avx2Ops, true>(A, rho, k, l, poly8::rej_ntt, poly8::rej_bounded, hashes);
}
void expand_s_avx2(Poly* s, unsigned n, const uint8_t rhoprime[64], unsigned eta, uint16_t nonce) {
  keccak_lanes::expand_s<Avx2Ops>(s, n, rhoprime, eta, nonce, poly8::rej_bounded);
}
void expand_mask_avx2(Poly* y, unsigned l, const uint8_t rhopp[64], uint16_t kappa, unsigned gamma1_bits) {
  keccak_lanes::expand_mask<Avx2Ops>(y, l, rhopp, kappa, gamma1_bits, poly8::unpack_z);
}

std::unique_ptr<MaskHash> mask_hash_avx2(const uint8_t rhopp[64], unsigned gamma1_bits) {
  return std::make_unique<keccak_lanes::MaskHashLanes<Avx2Ops>>(rhopp, gamma1_bits, poly8::unpack_z);
}

// Measured on Zen 3 (the generic table).
constexpr Backend kGeneric = {
    "avx2",
    keccakf1600_bmi,
    keccakf1600x4_avx2,
    ntt_avx2,
    invntt_tomont_avx2,
    pointwise_acc_avx2,
    small_ntt16::ntt,
    small_ntt16::mul,
    expand_a_avx2,
    expand_s_avx2,
    expand_mask_avx2,
    poly8::decompose_w1,
    poly8::use_hint_w1,
    packing8::pack_bits,
    packing8::unpack_bits,
    rounding8::exceeds,
    rounding8::add_reduce_exceeds,
    rounding8::sub_reduce_exceeds,
    rounding8::make_hint,
    rounding8::caddq,
    packing8::hint_positions,
    rounding8::power2round,
    {1, 1, 1},  // groups lose once masks are drawn ahead (cpu/sign.cc)
    expand_a_hash_avx2,
    // verify_encoded with all its hashes in the lanes, against decode (tr in
    // the lanes) then verify, same signatures alternating: 44 0.95x, 65 0.98x,
    // 87 1.00-1.02x the time (Zen 3), so 87 decodes then verifies.
    {1, 1, 0},
    // KeyGen with pk hashed in the lanes: 44 0.98-1.00x, 65 1.06x, 87 1.01x
    // the time without (Zen 3). ExpandS in the lanes too: 65 0.97-0.98x the
    // time of that, 44 0.97-1.00x, 87 1.00-1.01x (Zen 5, avx2@zen5), so 65 only.
    {1, 2, 1},
    4,  // ML-DSA-65 signs 8-9% faster (87: 0-1%) than with the lanes left empty (Zen 3)
    mask_hash_avx2,
    // Sign 0.97x (44), 0.93-0.97x (65) the time without (Zen 3). SampleInBall's
    // block on the lanes: 65 0.975-0.994x, 87 0.967-0.994x (with it, 87 now
    // gains from the shared lanes), 44 1.009-1.016x (its mask lanes keep up
    // with the hash lane, so one more permutation there costs a whole one):
    // deterministic A/B, 3200 signatures a run, five runs.
    {1, 2, 2},
};

// AMD Zen 5: a vector operation takes 2 cycles there, and the 4-way AVX2
// permutation (about 57 cycles a round) leaves the integer pipes idle: a
// single-state permutation beside it (keccak_lanes::permute_beside) costs
// 1.05x its time alone, where a lane costs a quarter. So ExpandA's hashes
// run beside its four lanes: keygen 0.93-0.94x (44), 0.98-1.01x (65, 87),
// verify 0.92-0.94x (44), 0.96-0.98x (65, 87) the generic table's time,
// and 87 verifies from the encoded pk in one pass (0.99x). Signing's
// challenges beside the mask lanes measured no faster (0.99-1.02x): they
// stay in a lane.
constexpr Backend zen5(Backend b) {
  b.tuning = "zen5";
  b.expand_a_hash = expand_a_hash_beside_avx2;
  b.verify_lanes_shapes[2] = 1;
  return b;
}

}  // namespace

extern const Backend kAvx2Backend = kGeneric;
extern const Backend kAvx2Zen5Backend = zen5(kGeneric);

}  // namespace mldsa
