// private_key_info.h - PKCS#8 PrivateKeyInfo as RFC 5958 OneAsymmetricKey,
// version 1 (v1) and 2 (v2, with the optional publicKey [1] that OpenSSL
// 3.0's PKCS8_PRIV_KEY_INFO does not know), through OpenSSL's ASN.1 templates:
//
//   OneAsymmetricKey ::= SEQUENCE {
//     version                   INTEGER { v1(0), v2(1) },
//     privateKeyAlgorithm       AlgorithmIdentifier,
//     privateKey                OCTET STRING,
//     attributes            [0] IMPLICIT SET OF Attribute OPTIONAL,
//     publicKey             [1] IMPLICIT BIT STRING OPTIONAL }
#pragma once

#include <openssl/asn1.h>
#include <openssl/core.h>
#include <openssl/types.h>
#include <openssl/x509.h>

#include <cstdint>
#include <span>

namespace mldsa::prov {

// A parsed OneAsymmetricKey (views into it live as long as it does); the
// private key bytes are cleansed when it is freed.
class PrivateKeyInfo {
 public:
  PrivateKeyInfo(const PrivateKeyInfo&) = delete;
  PrivateKeyInfo& operator=(const PrivateKeyInfo&) = delete;
  ~PrivateKeyInfo();

  // The whole of der, or nullptr (not a OneAsymmetricKey, or bytes after it);
  // raises nothing.
  static PrivateKeyInfo* parse(std::span<const uint8_t> der);

  long version() const;  // 0: v1, 1: v2; -1 when not a small integer
  const X509_ALGOR* algorithm() const;
  std::span<const uint8_t> private_key() const;
  bool has_public_key() const;
  // The publicKey [1] bytes; false when its BIT STRING has unused bits.
  bool public_key(std::span<const uint8_t>& out) const;

 private:
  explicit PrivateKeyInfo(void* oak) : oak_(oak) {}
  void* oak_;
};

// DER of a OneAsymmetricKey: v1 without pk, v2 with pk as publicKey [1].
// The algorithm's OID is taken over (freed on every path). The caller
// cleanses and frees *out (OPENSSL_clear_free). Returns the length, <= 0 on error.
int private_key_info_der(ASN1_OBJECT* oid, std::span<const uint8_t> private_key, std::span<const uint8_t> pk,
                         unsigned char** out);

// EncryptedPrivateKeyInfo (an X509_SIG) of the same OneAsymmetricKey, PBES2
// with the cipher and OpenSSL's default PBKDF2 settings (PKCS8_encrypt_ex's
// with pbe_nid -1). nullptr on error.
X509_SIG* private_key_info_encrypt(ASN1_OBJECT* oid, std::span<const uint8_t> private_key,
                                   std::span<const uint8_t> pk, const EVP_CIPHER* cipher, const char* pass,
                                   int pass_len, OSSL_LIB_CTX* libctx, const char* props);

}  // namespace mldsa::prov
