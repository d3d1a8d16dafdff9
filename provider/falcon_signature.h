// falcon_signature.h - the SIGNATURE operation of round-3 Falcon (falcon512,
// falconpadded512, falcon1024, falconpadded1024), on the CPU.
#pragma once

#include <openssl/core.h>

namespace mldsa::prov {

// One entry per variant, under its names and OID; {NULL} last.
const OSSL_ALGORITHM* falcon_signature_algorithms();

}  // namespace mldsa::prov
