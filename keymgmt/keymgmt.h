// keymgmt.h - the KEYMGMT operation: one algorithm per ML-DSA variant.
#pragma once

#include <openssl/core.h>

namespace mldsa::prov {

// ML-DSA-44, -65, -87 with property "provider=mldsa-accel"; {NULL} last.
extern const OSSL_ALGORITHM mldsa_keymgmt_algorithms[];

}  // namespace mldsa::prov
