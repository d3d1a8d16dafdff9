// packing.h - SimpleBitPack / BitPack and their inverses (FIPS 204 Algorithms
// 16-19), and HintBitUnpack's checks (Algorithm 21), for one polynomial.
#pragma once

#include "kernels/thread/params.h"

namespace mldsa::gpu {

// The widest packing is z's, 20 bits (gamma1 = 2^19): a coefficient takes
// or gives at most 3 bytes.
inline constexpr int kMaxBytesPerCoeff = 3;

// Packs v_i = (negate ? offset - a_i : a_i + offset) in `bits` bits each
// (bits <= 20), little-endian bit order: 32 * bits bytes. T: int32_t, or
// uint8_t for w1 (sign.h keeps HighBits(w) as bytes).
template <typename T>
MLDSA_HD inline void pack_bits(uint8_t* out, const T a[kN], uint32_t bits, int32_t offset, bool negate) {
  uint64_t acc = 0;
  uint32_t have = 0;
  const uint32_t mask = (1u << bits) - 1;
  for (int i = 0; i < kN; ++i) {
    const int32_t v = negate ? offset - static_cast<int32_t>(a[i]) : static_cast<int32_t>(a[i]) + offset;
    acc |= static_cast<uint64_t>(static_cast<uint32_t>(v) & mask) << have;
    have += bits;
    // At most 3 whole bytes are ready (have < 8 + 20): a fixed count of
    // guarded steps instead of a while loop, so the loop over i is the only
    // loop (counted by bench/sass_count.py) and a warp's lanes stay together.
    for (int k = 0; k < kMaxBytesPerCoeff; ++k) {
      if (have >= 8) {
        *out++ = static_cast<uint8_t>(acc);
        acc >>= 8;
        have -= 8;
      }
    }
  }
}

// The inverse: a_i = negate ? offset - v_i : v_i - offset.
MLDSA_HD inline void unpack_bits(int32_t a[kN], const uint8_t* in, uint32_t bits, int32_t offset, bool negate) {
  uint64_t acc = 0;
  uint32_t have = 0;
  const uint32_t mask = (1u << bits) - 1;
  for (int i = 0; i < kN; ++i) {
    for (int k = 0; k < kMaxBytesPerCoeff; ++k) {  // ceil(bits / 8) <= 3 bytes (see pack_bits)
      if (have < bits) {
        acc |= static_cast<uint64_t>(*in++) << have;
        have += 8;
      }
    }
    const int32_t v = static_cast<int32_t>(acc & mask);
    acc >>= bits;
    have -= bits;
    a[i] = negate ? offset - v : v - offset;
  }
}

// Coefficient i (unsigned, `bits` <= 20 bits) of a packed polynomial at a
// 4-byte-aligned address: the two 32-bit words that hold its bits and one
// funnel shift (SHF on the GPU), so any coefficient can be read alone, in
// any order. Bits sit in bytes little-endian and bytes in words too (the
// device's and the host's order), so word k holds bits 32k..32k+31.
MLDSA_HD inline uint32_t packed_coeff(const uint8_t* in, uint32_t i, uint32_t bits) {
  const uint32_t bit = i * bits, lw = bit >> 5, hw = (bit + bits - 1) >> 5;
#if defined(__CUDA_ARCH__)
  const uint32_t* w = reinterpret_cast<const uint32_t*>(in);
  const uint32_t v = __funnelshift_r(w[lw], w[hw], bit & 31);
#else
  uint32_t lo, hi;
  __builtin_memcpy(&lo, in + 4 * lw, 4);
  __builtin_memcpy(&hi, in + 4 * hw, 4);
  const uint32_t v = static_cast<uint32_t>(((uint64_t{hi} << 32) | lo) >> (bit & 31));
#endif
  return v & ((1u << bits) - 1);
}

// HintBitUnpack's well-formedness checks (Algorithm 21 lines 4-5, 9-11, 16-18)
// on the omega + k hint bytes of a signature: each polynomial's end index
// within [previous end, omega], indices strictly increasing within a
// polynomial, unused index bytes zero.
MLDSA_HD inline bool hints_well_formed(const uint8_t* hint, uint32_t omega, uint32_t k) {
  uint32_t idx = 0;
  for (uint32_t i = 0; i < k; ++i) {
    const uint32_t end = hint[omega + i];
    if (end < idx || end > omega) return false;
    for (uint32_t t = idx + 1; t < end; ++t)
      if (hint[t - 1] >= hint[t]) return false;
    idx = end;
  }
  for (uint32_t t = idx; t < omega; ++t)
    if (hint[t] != 0) return false;
  return true;
}

}  // namespace mldsa::gpu
