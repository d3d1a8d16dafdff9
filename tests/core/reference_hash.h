// reference_hash.h - digests from OpenSSL's libcrypto, an implementation
// independent of the core, for HashML-DSA pre-hashes (the core leaves SHA-2 to
// its caller) and for cross-checking the core's own Keccak.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cpu/mldsa.h"

namespace mldsa::test {

// OpenSSL's name for h ("SHA512-224", "SHA3-256", "SHAKE128", ...).
const char* openssl_md_name(HashAlg h);

// The HashML-DSA digest of msg under h (SHAKE128: 32 bytes, SHAKE256: 64 bytes),
// computed by OpenSSL. Empty on an OpenSSL failure.
std::vector<uint8_t> openssl_digest(HashAlg h, std::span<const uint8_t> msg);

// SHAKE256(data, out_len) by OpenSSL: FIPS 204's H.
std::vector<uint8_t> openssl_shake256(std::span<const uint8_t> data, size_t out_len);
// SHAKE128(data, out_len) by OpenSSL: FIPS 204's G.
std::vector<uint8_t> openssl_shake128(std::span<const uint8_t> data, size_t out_len);

}  // namespace mldsa::test
