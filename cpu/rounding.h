// rounding.h - Power2Round, Decompose, MakeHint, UseHint and the infinity
// norm check (FIPS 204 Section 7.4), coefficient-wise over polynomials.
#pragma once

#include <cstdint>

#include "cpu/poly.h"

namespace mldsa {

// a in [0, q): a = a1 * 2^d + a0 with a0 in (-2^(d-1), 2^(d-1)].
void poly_power2round(Poly* a1, Poly* a0, const Poly* a);
// a in [0, q): a = a1 * 2*gamma2 + a0, a0 centred (Algorithm 36).
void poly_decompose(Poly* a1, Poly* a0, const Poly* a, int32_t gamma2);
// Hint bits from the low part a0 = (w - c s2 + c t0) low bits and w1 (the
// signer's shortcut for MakeHint, Algorithm 39); returns the number of ones.
// Constant time: a0 is secret until the signature is accepted.
unsigned poly_make_hint(Poly* h, const Poly* a0, const Poly* a1, int32_t gamma2);
// UseHint (Algorithm 40) on public data.
void poly_use_hint(Poly* out, const Poly* a, const Poly* h, int32_t gamma2);
// All-ones mask if some |a_i| >= bound, else 0 (a_i reduced, bound <= (q-1)/8).
// Constant time; the caller declassifies the verdict.
uint32_t poly_exceeds(const Poly* a, int32_t bound);

}  // namespace mldsa
