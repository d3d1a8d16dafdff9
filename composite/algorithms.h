// algorithms.h - the 18 composite ML-DSA algorithms of draft-ietf-lamps-pq-composite-sigs-19, one table.
#pragma once

#include "cpu/mldsa.h"

#include <cstddef>
#include <span>
#include <string_view>

namespace mldsa::composite {

// The traditional half's kind.
enum class Trad : uint8_t { rsa_pss, rsa_pkcs15, ecdsa, ed25519, ed448 };

// The pre-hash PH of M' (draft Section 2.4): SHA-256, SHA-512 or SHAKE256 to 64 bytes.
enum class PreHash : uint8_t { sha256, sha512, shake256_64 };

struct Algorithm {
  const char* name;     // "MLDSA65-ECDSA-P256-SHA512" (the draft's, without "id-")
  const char* sn;       // "id-MLDSA65-ECDSA-P256-SHA512"
  const char* oid;      // "1.3.6.1.5.5.7.6.45"
  const char* label;    // "COMPSIG-MLDSA65-ECDSA-P256-SHA512", the ML-DSA context and part of M'
  mldsa::ParamSet mldsa;
  Trad trad;
  PreHash ph;
  const char* trad_hash;  // the traditional signature's digest ("SHA256"...), nullptr for EdDSA
  int rsa_bits;           // RSA: the modulus size the key must have
  int pss_salt;           // RSA-PSS: the salt length (the MGF1 hash is trad_hash)
  const char* curve;      // ECDSA: the group's short name, as OpenSSL reports it ("prime256v1")
  size_t trad_field;      // ECDSA: bytes of the private scalar; EdDSA: raw key bytes
};

// The 18, in OID order (.37 ... .54).
std::span<const Algorithm> algorithms();
inline constexpr size_t ALGORITHM_COUNT = 18;
// By name, with or without "id-", case-insensitive, or by dotted OID; nullptr if none.
const Algorithm* algorithm_by_name(std::string_view name);

// The domain separator every M' starts with (the ASCII bytes of "CompositeAlgorithmSignatures2025").
std::span<const uint8_t> prefix();

// The OpenSSL names of PH and its output length.
const char* prehash_name(PreHash ph);  // "SHA256", "SHA512", "SHAKE256"
size_t prehash_bytes(PreHash ph);      // 32, 64, 64
inline constexpr size_t MAX_PREHASH_BYTES = 64;

}  // namespace mldsa::composite
