// falcon.h - Falcon-512 / Falcon-1024 (round-3 specification v1.2): keygen,
// sign and verify on the CPU, no OpenSSL. Byte formats are the round-3 ones
// (and the "padded" fixed-length signature of PQClean / liboqs).
#pragma once

#include <cstddef>
#include <cstdint>

namespace falcon {

inline constexpr unsigned NONCE_BYTES = 40;
inline constexpr unsigned SEED_BYTES = 48;  // keygen seed and signing seed
inline constexpr uint32_t Q = 12289;

struct Params {
  const char* name;        // "Falcon-512"
  unsigned logn;           // 9 or 10
  unsigned n;              // 512 or 1024
  size_t pk_bytes;         // 1 + 14n/8
  size_t sk_bytes;         // 1 + 2 n fg_bits / 8 + n
  size_t sig_max_bytes;    // the compressed format's largest signature (header, nonce, value)
  size_t sig_padded_bytes; // the padded format's only length
  unsigned fg_bits;        // width of f and g in the private key
  uint32_t l2bound;        // floor(beta^2): bound on ||(s1, s2)||^2
  double sigma_min;        // sampler: sigma_min
  double inv_sigma;        // 1 / sigma
};

const Params& falcon512();
const Params& falcon1024();

enum class SigFormat { compressed, padded };

// Key pair from a 48-byte seed (SHAKE256(seed) drives the sampling, as the
// round-3 reference's keygen). pk: pk_bytes, sk: sk_bytes. Always succeeds.
void keygen(const Params& p, const uint8_t seed[SEED_BYTES], uint8_t* pk, uint8_t* sk);

// Signature of msg with the caller's randomness: nonce (40 bytes, hashed with
// the message) and seed (48 bytes, SHAKE256 of it seeds the sampler's PRNG).
// sig: sig_max_bytes (compressed) or sig_padded_bytes (padded). Returns false
// for a malformed private key (sig untouched), true otherwise.
bool sign(const Params& p, const uint8_t* sk, const uint8_t* msg, size_t msglen,
          const uint8_t nonce[NONCE_BYTES], const uint8_t seed[SEED_BYTES], SigFormat fmt,
          uint8_t* sig, size_t* siglen);

// True when sig is a valid signature of msg under pk. compressed: any length
// up to sig_max_bytes, or the padded length with zero padding (as liboqs
// accepts); padded: exactly sig_padded_bytes. Malformed input returns false.
bool verify(const Params& p, const uint8_t* pk, const uint8_t* msg, size_t msglen,
            const uint8_t* sig, size_t siglen, SigFormat fmt);

// The public key of a private key (h = g / f mod q). False for a malformed sk.
bool public_from_private(const Params& p, const uint8_t* sk, uint8_t* pk);

}  // namespace falcon
