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

// Two checkers share these points: valgrind memcheck (MLDSA_CT_TESTING), and
// MemorySanitizer (MLDSA_CT_TESTING with MLDSA_CT_MSAN, a clang -fsanitize=memory
// build of the core alone), both with the secrets marked uninitialised.
#ifdef MLDSA_CT_TESTING
#ifdef MLDSA_CT_MSAN
#include <sanitizer/msan_interface.h>
#else
#include <valgrind/memcheck.h>
#endif
#endif

namespace mldsa {

#ifdef MLDSA_CT_TESTING
// The checks' own control: with this set, nothing is declassified, so the
// public-by-design branches on secret-derived values must be reported.
inline bool ct_declassify_disabled = false;
#endif

inline void declassify_bytes(const void* p, size_t n) {
#if defined(MLDSA_CT_TESTING) && defined(MLDSA_CT_MSAN)
  if (!ct_declassify_disabled) __msan_unpoison(p, n);
#elif defined(MLDSA_CT_TESTING)
  if (!ct_declassify_disabled) VALGRIND_MAKE_MEM_DEFINED(p, n);
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
// into a branch. MemorySanitizer checks inline asm operands (the barrier is
// no use of the value): the check build carries the value's taint across it.
template <class T>
inline T value_barrier_impl(T x) {
#if defined(MLDSA_CT_TESTING) && defined(MLDSA_CT_MSAN)
  const bool tainted = __msan_test_shadow(&x, sizeof x) != -1;
  __msan_unpoison(&x, sizeof x);
  __asm__("" : "+r"(x));
  if (tainted) __msan_poison(&x, sizeof x);
#else
  __asm__("" : "+r"(x));
#endif
  return x;
}
inline uint32_t value_barrier(uint32_t x) { return value_barrier_impl(x); }
inline int32_t value_barrier(int32_t x) { return value_barrier_impl(x); }

// All-ones if x != 0, else 0, without a branch.
inline uint32_t ct_mask_nonzero(uint32_t x) {
  return value_barrier(static_cast<uint32_t>(-static_cast<int64_t>((static_cast<uint64_t>(x) | (0ull - x)) >> 63)));
}

}  // namespace mldsa
