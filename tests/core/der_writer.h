// der_writer.h - a minimal DER writer for the tests' own expected encodings
// of ML-DSA keys: SubjectPublicKeyInfo, PrivateKeyInfo (v1 and v2) and the
// six private key layouts, built from their parts independently of
// encoders/ (the codec tests and the differential fuzzer use it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace mldsa::test::der {

using Bytes = std::vector<uint8_t>;

inline Bytes len(size_t n) {
  if (n < 0x80) return {static_cast<uint8_t>(n)};
  Bytes b;
  for (size_t v = n; v != 0; v >>= 8) b.insert(b.begin(), static_cast<uint8_t>(v));
  b.insert(b.begin(), static_cast<uint8_t>(0x80 | b.size()));
  return b;
}
inline Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
inline Bytes tlv(uint8_t tag, const Bytes& body) { return cat({{tag}, len(body.size()), body}); }
// id-ml-dsa-44/65/87: 2.16.840.1.101.3.4.3.{17,18,19}
inline Bytes mldsa_oid(int i) {
  return tlv(0x06, {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, static_cast<uint8_t>(0x11 + i)});
}
inline Bytes pkcs8(const Bytes& oid, const Bytes& payload, const Bytes& alg_params = {}) {
  return tlv(0x30, cat({tlv(0x02, {0x00}), tlv(0x30, cat({oid, alg_params})), tlv(0x04, payload)}));
}
// RFC 5958 OneAsymmetricKey v2: publicKey [1] IMPLICIT BIT STRING after the key.
inline Bytes pkcs8_v2(const Bytes& oid, const Bytes& payload, const Bytes& pk, uint8_t version = 1,
                      uint8_t unused_bits = 0) {
  return tlv(0x30, cat({tlv(0x02, {version}), tlv(0x30, oid), tlv(0x04, payload), tlv(0x81, cat({{unused_bits}, pk}))}));
}
inline Bytes spki(const Bytes& oid, const Bytes& pk, uint8_t unused_bits = 0) {
  return tlv(0x30, cat({tlv(0x30, oid), tlv(0x03, cat({{unused_bits}, pk}))}));
}

// The six private key layouts (RFC 9881 and OpenSSL 3.5's extra ones);
// empty for an unknown name.
inline constexpr const char* kFormats[] = {"seed-priv", "priv-only", "oqskeypair", "seed-only", "bare-priv", "bare-seed"};
inline Bytes layout(const std::string& fmt, const Bytes& seed, const Bytes& sk, const Bytes& pk) {
  if (fmt == "seed-priv") return tlv(0x30, cat({tlv(0x04, seed), tlv(0x04, sk)}));
  if (fmt == "priv-only") return tlv(0x04, sk);
  if (fmt == "oqskeypair") return tlv(0x04, cat({sk, pk}));
  if (fmt == "seed-only") return tlv(0x80, seed);
  if (fmt == "bare-priv") return sk;
  if (fmt == "bare-seed") return seed;
  return {};
}
inline bool has_seed(const std::string& fmt) { return fmt == "seed-priv" || fmt == "seed-only" || fmt == "bare-seed"; }

}  // namespace mldsa::test::der
