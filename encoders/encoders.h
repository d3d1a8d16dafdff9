// encoders.h - the provider's ENCODER and DECODER algorithm tables (target
// mldsa_encoders, an OBJECT library linked into the provider module).
//
// Namespace: both tables live in mldsa::prov (C++ linkage). The provider's
// query_operation returns them for OSSL_OP_ENCODER / OSSL_OP_DECODER; each is
// terminated by an all-NULL row.
//
// Encoders, for each of ML-DSA-44/65/87:
//   output=der|pem, structure=SubjectPublicKeyInfo | PrivateKeyInfo |
//   EncryptedPrivateKeyInfo, and output=text. PrivateKeyInfo with a cipher set
//   (OSSL_ENCODER_CTX_set_cipher, as PEM_write_bio_PrivateKey does) writes an
//   EncryptedPrivateKeyInfo, like OpenSSL's own encoders.
// Decoders, for each variant: input=der, structure=SubjectPublicKeyInfo |
//   PrivateKeyInfo. PEM and EncryptedPrivateKeyInfo are unwrapped by the
//   default provider's decoders earlier in the chain.
//
// Contract with keymgmt (OSSL_FUNC_keymgmt_load): a decoder passes the new key
// as OSSL_OBJECT_PARAM_REFERENCE whose octets are one `mldsa::prov::Key*`
// (reference_sz == sizeof(Key*)). load() takes ownership by reading that
// pointer and setting it to nullptr in place; whatever is still non-null after
// the callback returns is freed by the decoder with key_free().
#pragma once

#include <openssl/core.h>

namespace mldsa::prov {

extern const OSSL_ALGORITHM mldsa_encoder_algorithms[];
extern const OSSL_ALGORITHM mldsa_decoder_algorithms[];

// The same for the 18 composite ML-DSA key types (composite_codec.cc): the draft's
// SubjectPublicKeyInfo and PrivateKeyInfo, EncryptedPrivateKeyInfo, text; {NULL} last.
const OSSL_ALGORITHM* composite_encoder_algorithms();
const OSSL_ALGORITHM* composite_decoder_algorithms();

// The same for the four round-3 Falcon key types (falcon_codec.cc): oqs-provider's
// SubjectPublicKeyInfo and PrivateKeyInfo, EncryptedPrivateKeyInfo, text; {NULL} last.
const OSSL_ALGORITHM* falcon_encoder_algorithms();
const OSSL_ALGORITHM* falcon_decoder_algorithms();

}  // namespace mldsa::prov
