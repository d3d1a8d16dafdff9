// ct.h - constant-time helpers, in one place with the reasoning.
//
// Secret data never decides a branch or a memory index. Where an algorithm
// must branch on something derived from secrets, the value branched on is
// public by FIPS 204's design (the signature loop's accept/reject decision,
// the challenge c~ that becomes part of the signature, rho which is part of
// pk, the accept bit of a rejection-sampling candidate, which says nothing
// about the accepted values). Those values pass through declassify(), which
// under MLDSA_CT_TESTING tells valgrind they are public; the valgrind test
// marks every real secret undefined and fails on any other secret-dependent
// branch or address.
#pragma once

#include <cstddef>
#include <cstdint>

#ifdef MLDSA_CT_TESTING
#include <valgrind/memcheck.h>
#endif

namespace mldsa {

inline void declassify_bytes(const void* p, size_t n) {
#ifdef MLDSA_CT_TESTING
  VALGRIND_MAKE_MEM_DEFINED(p, n);
#else
  (void)p;
  (void)n;
#endif
}

template <class T>
inline T declassify(T v) {
  declassify_bytes(&v, sizeof v);
  return v;
}

// Hides a value from the optimiser so it cannot turn mask arithmetic back
// into a branch.
inline uint32_t value_barrier(uint32_t x) {
  __asm__("" : "+r"(x));
  return x;
}
inline int32_t value_barrier(int32_t x) {
  __asm__("" : "+r"(x));
  return x;
}

// All-ones if x != 0, else 0, without a branch.
inline uint32_t ct_mask_nonzero(uint32_t x) {
  return value_barrier(static_cast<uint32_t>(-static_cast<int64_t>((static_cast<uint64_t>(x) | (0ull - x)) >> 63)));
}

}  // namespace mldsa
