// packing.h - bit packing and the pk / sk / signature encodings
// (FIPS 204 Section 7.1 and 7.2; round 3 has the same layouts with its own tr
// and c~ sizes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cpu/mldsa.h"
#include "cpu/poly.h"

namespace mldsa {

// SimpleBitPack / BitPack with a fixed offset: out gets (offset - a_i) or
// (a_i) in `bits` bits each, little-endian bit order (Algorithms 16-17).
void pack_bits(uint8_t* out, const Poly* a, unsigned bits, int32_t offset, bool negate);
void unpack_bits(Poly* a, const uint8_t* in, unsigned bits, int32_t offset, bool negate);

// The widths FIPS 204 packs (3, 4: s1, s2; 6 and 4: w1; 10: t1; 13: t0; 18,
// 20: z), for the vector backends' codecs, which take the width as a
// template argument: calls f(std::integral_constant<unsigned, bits>{}) and
// returns true, or returns false for any other width (then the portable
// pack_bits / unpack_bits above).
template <class F>
[[gnu::always_inline]] inline bool with_packed_width(unsigned bits, F&& f) {
  switch (bits) {
    case 3: f(std::integral_constant<unsigned, 3>{}); return true;
    case 4: f(std::integral_constant<unsigned, 4>{}); return true;
    case 6: f(std::integral_constant<unsigned, 6>{}); return true;
    case 10: f(std::integral_constant<unsigned, 10>{}); return true;
    case 13: f(std::integral_constant<unsigned, 13>{}); return true;
    case 18: f(std::integral_constant<unsigned, 18>{}); return true;
    case 20: f(std::integral_constant<unsigned, 20>{}); return true;
    default: return false;
  }
}

inline size_t eta_bytes(unsigned eta) { return eta == 2 ? 96 : 128; }
inline size_t z_bytes(unsigned gamma1_bits) { return 32 * (gamma1_bits + 1); }
inline size_t w1_bytes(int32_t gamma2) { return gamma2 == (Q - 1) / 88 ? 192 : 128; }
inline constexpr size_t T1_BYTES = 320, T0_BYTES = 416;

void unpack_z(Poly* z, const uint8_t* in, unsigned gamma1_bits);
// The indices j with h_j != 0, ascending, into pos; returns their number.
unsigned hint_positions(uint8_t* pos, const Poly* h);

// The same for the SIMD backends, 8 coefficients at a time: mask8(h->c + j)
// gives bit i set for each non-zero lane i, a table (h is public) gives those
// lanes' indices packed to the front; 8 bytes are stored, the count added.
// pos needs N + 8 bytes of room.
struct HintLanes {
  uint64_t idx[256];
  uint8_t count[256];
};
inline constexpr HintLanes kHintLanes = [] {
  HintLanes t{};
  for (unsigned m = 0; m < 256; ++m) {
    unsigned n = 0;
    for (unsigned i = 0; i < 8; ++i)
      if (m & (1u << i)) t.idx[m] |= uint64_t{i} << (8 * n++);
    t.count[m] = static_cast<uint8_t>(n);
  }
  return t;
}();
template <class Mask8>
[[gnu::always_inline]] inline unsigned hint_positions_by8(uint8_t* pos, const Poly* h, Mask8 mask8) {
  unsigned n = 0;
  for (int j = 0; j < N; j += 8) {
    const unsigned m = mask8(h->c + j);
    const uint64_t idx = kHintLanes.idx[m] + 0x0101010101010101ull * static_cast<unsigned>(j);  // j + 7 < 256
    __builtin_memcpy(pos + n, &idx, 8);
    n += kHintLanes.count[m];
  }
  return n;
}
void pack_w1(uint8_t* out, const Poly* w1, int32_t gamma2);

// The encodings. Vectors are arrays of k or l polynomials.
void pk_encode(uint8_t* pk, const Params& p, const uint8_t rho[32], const Poly* t1);
// Row i of pk's t1 alone (pkEncode's line 3 for one i).
void pk_encode_t1_row(uint8_t* pk, unsigned i, const Poly* t1_i);
void pk_decode(const Params& p, const uint8_t* pk, uint8_t rho[32], Poly* t1);

// tr has p.tr_bytes bytes.
void sk_encode(uint8_t* sk, const Params& p, const uint8_t rho[32], const uint8_t K[32], const uint8_t* tr,
               const Poly* s1, const Poly* s2, const Poly* t0);
// Returns ok, sk_s1_out_of_range or sk_s2_out_of_range (checked without
// secret-dependent branches; only the verdict is declassified).
Status sk_decode(const Params& p, const uint8_t* sk, uint8_t rho[32], uint8_t K[32], uint8_t* tr, Poly* s1,
                 Poly* s2, Poly* t0);

void sig_encode(uint8_t* sig, const Params& p, const uint8_t* ctilde, const Poly* z, const Poly* h);
// Returns ok or sig_malformed_hint (Algorithm 21's checks).
Status sig_decode(const Params& p, const uint8_t* sig, const uint8_t** ctilde, Poly* z, Poly* h);

}  // namespace mldsa
