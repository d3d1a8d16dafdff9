// rounding.cc - FIPS 204 Section 7.4 in branch-free arithmetic.
#include "cpu/rounding.h"

namespace mldsa {
namespace {

// Algorithm 36 (Decompose) for a in [0, q). The divisions by 2*gamma2 are
// done with multiply-shift constants exact over this range.
inline int32_t decompose(int32_t* a0, int32_t a, int32_t gamma2) {
  int32_t a1 = (a + 127) >> 7;
  if (gamma2 == (Q - 1) / 32) {
    a1 = (a1 * 1025 + (1 << 21)) >> 22;
    a1 &= 15;
  } else {  // (q-1)/88
    a1 = (a1 * 11275 + (1 << 23)) >> 24;
    a1 ^= ((43 - a1) >> 31) & a1;  // 44 wraps to 0
  }
  int32_t r0 = a - a1 * 2 * gamma2;
  r0 -= (((Q - 1) / 2 - r0) >> 31) & Q;  // centre around 0
  *a0 = r0;
  return a1;
}

}  // namespace

void poly_power2round(Poly* a1, Poly* a0, const Poly* t, const Poly* s2) {
  for (int i = 0; i < N; ++i) {
    const int32_t v = freeze(t->c[i] + s2->c[i]);
    const int32_t hi = (v + (1 << (D - 1)) - 1) >> D;
    a1->c[i] = hi;
    a0->c[i] = v - (hi << D);
  }
}

void poly_decompose(Poly* a1, Poly* a0, const Poly* a, int32_t gamma2) {
  for (int i = 0; i < N; ++i) a1->c[i] = decompose(&a0->c[i], a->c[i], gamma2);
}

unsigned poly_make_hint(Poly* h, const Poly* r0, const Poly* ct0, const Poly* w1, int32_t gamma2) {
  unsigned count = 0;
  for (int i = 0; i < N; ++i) {
    const int32_t lo = r0->c[i] + ct0->c[i];
    // Hint is 1 iff lo > gamma2, lo < -gamma2, or lo == -gamma2 with a1 != 0.
    const uint32_t above = static_cast<uint32_t>(gamma2 - lo) >> 31;
    const uint32_t below = static_cast<uint32_t>(lo + gamma2) >> 31;
    const int32_t d = lo + gamma2;
    const uint32_t at_edge = static_cast<uint32_t>(((d | -d) >> 31) + 1) & 1u;  // d == 0
    const uint32_t a1_nonzero = static_cast<uint32_t>(w1->c[i] | -w1->c[i]) >> 31;
    const uint32_t bit = above | below | (at_edge & a1_nonzero);
    h->c[i] = static_cast<int32_t>(bit);
    count += bit;
  }
  return count;
}

void poly_use_hint(Poly* out, const Poly* a, const Poly* h, int32_t gamma2) {
  for (int i = 0; i < N; ++i) {
    int32_t a0;
    int32_t a1 = decompose(&a0, a->c[i], gamma2);
    if (h->c[i] == 0) {
      out->c[i] = a1;
    } else if (gamma2 == (Q - 1) / 32) {
      out->c[i] = (a0 > 0 ? a1 + 1 : a1 - 1) & 15;
    } else {
      out->c[i] = a0 > 0 ? (a1 == 43 ? 0 : a1 + 1) : (a1 == 0 ? 43 : a1 - 1);
    }
  }
}

uint32_t poly_exceeds(const Poly* a, int32_t bound) {
  uint32_t any = 0;
  for (int i = 0; i < N; ++i) {
    int32_t v = a->c[i];
    v = v - ((v >> 31) & (2 * v));                       // |v| without a branch
    any |= static_cast<uint32_t>(bound - 1 - v) >> 31;   // 1 if |v| >= bound
  }
  return 0u - any;
}

uint32_t poly_add_reduce_exceeds(Poly* c, const Poly* a, const Poly* b, int32_t bound) {
  for (int i = 0; i < N; ++i) c->c[i] = reduce32(b ? a->c[i] + b->c[i] : a->c[i]);
  return poly_exceeds(c, bound);
}

uint32_t poly_sub_reduce_exceeds(Poly* c, const Poly* a, const Poly* b, int32_t bound) {
  for (int i = 0; i < N; ++i) c->c[i] = reduce32(a->c[i] - b->c[i]);
  return poly_exceeds(c, bound);
}

}  // namespace mldsa
