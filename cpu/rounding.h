// rounding.h - Power2Round, Decompose, MakeHint, UseHint and the infinity
// norm check (FIPS 204 Section 7.4), coefficient-wise over polynomials.
#pragma once

#include <cstdint>

#include "cpu/poly.h"

namespace mldsa {

// a = freeze(t + s2) in [0, q): a = a1 * 2^d + a0 with a0 in (-2^(d-1), 2^(d-1)].
void poly_power2round(Poly* a1, Poly* a0, const Poly* t, const Poly* s2);
// a in [0, q): a = a1 * 2*gamma2 + a0, a0 centred (Algorithm 36).
void poly_decompose(Poly* a1, Poly* a0, const Poly* a, int32_t gamma2);
// Hint bits from the low part a0 = r0 + ct0 (r0 = LowBits(w - c s2)) and w1
// (the signer's shortcut for MakeHint, Algorithm 39); returns the number of
// ones. Constant time: a0 is secret until the signature is accepted.
unsigned poly_make_hint(Poly* h, const Poly* r0, const Poly* ct0, const Poly* w1, int32_t gamma2);
// UseHint (Algorithm 40) on public data.
void poly_use_hint(Poly* out, const Poly* a, const Poly* h, int32_t gamma2);
// All-ones mask if some |a_i| >= bound, else 0 (|a_i| < 2^31 - q, 0 < bound <= q).
// Constant time; the caller declassifies the verdict.
uint32_t poly_exceeds(const Poly* a, int32_t bound);
// c = reduce32(a + b) (reduce32(a) if b is null) or reduce32(a - b), then
// poly_exceeds(c, bound). c may alias a or b.
uint32_t poly_add_reduce_exceeds(Poly* c, const Poly* a, const Poly* b, int32_t bound);
uint32_t poly_sub_reduce_exceeds(Poly* c, const Poly* a, const Poly* b, int32_t bound);

}  // namespace mldsa
