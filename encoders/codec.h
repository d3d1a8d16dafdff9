// codec.h - what the encoders and the decoders share.
#pragma once

#include "cpu/mldsa.h"
#include "provctx/provctx.h"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/core.h>
#include <openssl/x509.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mldsa::prov {

// The outer container of an encoding (the "structure" property).
enum class Structure : uint8_t { spki, pki, epki, text };

// A libcrypto BIO reading or writing the core's BIO (BIO_new_from_core_bio
// needs the provider's child library context, which knows the core's BIO
// upcalls). Raises an error and returns nullptr on failure.
BIO* bio_from_core(void* provctx, OSSL_CORE_BIO* cbio);

// The parameter set's OID as an ASN1_OBJECT (the caller frees it); nullptr
// with an error raised (through ctx's instance) on failure.
ASN1_OBJECT* variant_oid(const ProvCtx* ctx, mldsa::ParamSet set);

// Larger than any key container this provider reads (an ML-DSA-87 oqskeypair PrivateKeyInfo is
// about 7.5 KB, a composite with RSA-4096 about 3 KB): bigger input is someone else's.
inline constexpr size_t MAX_DER_BYTES = 16384;

// Reads one DER object (a one-byte tag, a definite length, the contents) and not a byte more:
// what follows stays for the caller, as OpenSSL's own decoders leave it. False if the input
// starts with no such header, or the object is longer than MAX_DER_BYTES or cut short.
bool read_der_object(BIO* in, std::vector<uint8_t>& out);

// SubjectPublicKeyInfo ::= SEQUENCE { AlgorithmIdentifier, BIT STRING }, the whole of der.
// Parsed with ASN1_get_object + d2i_X509_ALGOR rather than d2i_X509_PUBKEY: on 3.0 the latter
// decodes the key through the DECODER chain, which would call the decoder again, without end.
// The BIT STRING is read by hand (its first content byte counts the unused bits): OpenSSL 4.0
// makes ASN1_BIT_STRING opaque, and 3.0 has no accessor for the count. On success alg (the
// caller frees it, also on failure) and bits (the BIT STRING's contents, at least one byte);
// false, with no error left, when der is no SPKI.
bool parse_spki(std::span<const uint8_t> der, X509_ALGOR*& alg, std::span<const uint8_t>& bits);

// A decoder's answer: the key as an OSSL_OBJECT_PKEY of data_type whose reference is the key
// pointer itself (ref points at it, ref_size bytes). keymgmt load() takes the key and nulls
// the pointer (see encoders.h); the caller frees what is still non-null afterwards.
int pass_key_object(const char* data_type, void* ref, size_t ref_size, OSSL_CALLBACK* data_cb, void* data_cbarg);

// The OID a key is written under: its parameter set's, or for a key read under a HashML-DSA OID
// with ml-dsa.hash_ml_dsa_key_oid = yes, that HashML-DSA OID. nullptr with an error raised.
struct Key;
ASN1_OBJECT* key_oid(const Key& key);

// OpenSSL's selection "levels": private key, then public key, then domain
// parameters. The highest level the caller asks for decides whether a
// structure that carries the levels in `carried` fits; no selection fits all.
bool selection_fits(int selection, int carried);

// The selection bits a structure carries.
int structure_selection(Structure s);

// The encoders' cipher settings (OSSL_ENCODER_CTX_set_cipher): with a cipher, a PrivateKeyInfo
// is written encrypted, as an EncryptedPrivateKeyInfo.
struct CipherOptions {
  std::string cipher;  // empty: unencrypted
  std::string props;
};
const OSSL_PARAM* cipher_settable_params();
// Both UTF-8 strings; a NULL one clears the setting, an unknown cipher fails now.
bool set_cipher_params(ProvCtx* ctx, const OSSL_PARAM params[], CipherOptions& out);
// DER of an EncryptedPrivateKeyInfo (PBES2) of the v1 PrivateKeyInfo {oid, payload}, with the
// passphrase from cb. oid is taken over (nullptr fails). The caller frees *out
// (OPENSSL_free); returns the length, <= 0 with an error raised.
int encrypted_private_key_info_der(ProvCtx* ctx, const CipherOptions& opts, ASN1_OBJECT* oid,
                                   std::span<const uint8_t> payload, OSSL_PASSPHRASE_CALLBACK* cb, void* cbarg,
                                   unsigned char** out);

// "label:" then the bytes as colon-separated hex, 15 a line, indented 4 (`openssl pkey -text`).
bool print_hex_block(BIO* out, const char* label, std::span<const uint8_t> bytes);

// An OSSL_DISPATCH entry's function pointer.
template <typename F>
inline void (*dispatch_fn(F* f))() {
  return reinterpret_cast<void (*)()>(f);
}

}  // namespace mldsa::prov
