// traditional.h - the traditional half of a composite (RSA-PSS, RSA PKCS#1 v1.5, ECDSA, Ed25519,
// Ed448) through OpenSSL's EVP, in the encodings the draft prescribes (Section 5).
#pragma once

#include "composite/algorithms.h"
#include "composite/composite.h"

#include <openssl/evp.h>

#include <span>
#include <vector>

namespace mldsa::composite {

// Decoding checks the key's type, RSA size or curve against alg (Error::wrong_trad_params).
// RSA: RSAPublicKey / RSAPrivateKey DER; ECDSA: the uncompressed point / ECPrivateKey DER;
// EdDSA: the raw RFC 8032 bytes.
Error trad_from_public(OSSL_LIB_CTX* libctx, const Algorithm& alg, std::span<const uint8_t> in, EVP_PKEY*& out);
Error trad_from_private(OSSL_LIB_CTX* libctx, const Algorithm& alg, std::span<const uint8_t> in, EVP_PKEY*& out);
Error trad_generate(OSSL_LIB_CTX* libctx, const Algorithm& alg, EVP_PKEY*& out);
Error trad_public_encoding(const Algorithm& alg, EVP_PKEY* key, std::vector<uint8_t>& out);
// Secret bytes: the caller cleanses them. ECPrivateKey without its publicKey field.
Error trad_private_encoding(const Algorithm& alg, EVP_PKEY* key, std::vector<uint8_t>& out);
// Signs msg (M') as the algorithm says; appends the signature to out.
Error trad_sign(OSSL_LIB_CTX* libctx, const Algorithm& alg, EVP_PKEY* key, std::span<const uint8_t> msg,
                std::vector<uint8_t>& out);
Error trad_verify(OSSL_LIB_CTX* libctx, const Algorithm& alg, EVP_PKEY* key, std::span<const uint8_t> msg,
                  std::span<const uint8_t> sig);

}  // namespace mldsa::composite
