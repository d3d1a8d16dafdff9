// nist_drbg.h - the AES-256 CTR DRBG of the NIST PQC known-answer generators
// (no derivation function, no reseeding, no personalisation), over OpenSSL's
// AES: what turns a KAT file's 48-byte `seed` into the bytes the scheme drew.
// Test code only; written from NIST SP 800-90A's CTR_DRBG description and the
// KAT generator's documented use of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace mldsa::test {

class NistKatDrbg {
 public:
  // Instantiate: Key = 0^32, V = 0^16, then Update(entropy).
  explicit NistKatDrbg(std::span<const uint8_t, 48> entropy);
  ~NistKatDrbg();
  // Generate: n bytes of AES-256(Key, ++V) blocks, then Update(nothing).
  void generate(uint8_t* out, size_t n);

 private:
  void update(const uint8_t* provided);  // provided: 48 bytes or nullptr
  void next_block(uint8_t out[16]);      // ++V (big-endian), AES-256-ECB(Key, V)
  uint8_t key_[32] = {};
  uint8_t v_[16] = {};
};

}  // namespace mldsa::test
