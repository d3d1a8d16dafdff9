// signature.h - the SIGNATURE operation: ML-DSA-44/65/87 (pure, and
// HashML-DSA with any FIPS 204 hash through the "hash-ml-dsa" parameter),
// HashML-DSA-44/65/87 with SHA-512, and round-3 dilithium2/3/5, one dispatch
// table each.
#pragma once

#include "cpu/mldsa.h"

#include <openssl/core.h>

#include <span>

namespace mldsa::prov {

// Property "provider=mldsa-accel"; {NULL} last.
extern const OSSL_ALGORITHM mldsa_signature_algorithms[];

// One signature OID for the core's object database: OBJ_create(oid, sn, ln)
// and the sigid (sn, no digest, key_sn) so X.509 verification maps it.
struct SignatureOid {
  const char* oid;     // "2.16.840.1.101.3.4.3.32"
  const char* sn;      // "id-hash-ml-dsa-44-with-sha512"
  const char* ln;      // "HASH-ML-DSA-44-WITH-SHA512"
  const char* key_sn;  // the key type's short name, "id-ml-dsa-44"
};
std::span<const SignatureOid> signature_oids();

}  // namespace mldsa::prov
