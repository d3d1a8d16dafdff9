// poly.h - polynomials of R_q = Z_q[X]/(X^256+1); the arithmetic on one
// coefficient is in cpu/scalar.h (shared with the GPU task code).
#pragma once

#include <cstdint>

#include "cpu/scalar.h"

namespace mldsa {

struct alignas(64) Poly {
  int32_t c[N];
};

}  // namespace mldsa
