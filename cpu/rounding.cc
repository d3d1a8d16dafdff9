// rounding.cc - FIPS 204 Section 7.4 over polynomials, on the
// coefficient functions of cpu/scalar.h.
#include "cpu/rounding.h"

namespace mldsa {

void poly_power2round(Poly* a1, Poly* a0, const Poly* t, const Poly* s2) {
  for (int i = 0; i < N; ++i) a1->c[i] = power2round(&a0->c[i], freeze(t->c[i] + s2->c[i]));
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
  for (int i = 0; i < N; ++i) out->c[i] = use_hint(a->c[i], h->c[i], gamma2);
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
