// composite_signature.h - the SIGNATURE operation of the 18 composite ML-DSA algorithms.
#pragma once

#include <openssl/core.h>

namespace mldsa::prov {

// One entry per composite, under its names and OID; {NULL} last.
const OSSL_ALGORITHM* composite_signature_algorithms();

}  // namespace mldsa::prov
