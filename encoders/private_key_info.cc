// private_key_info.cc - OneAsymmetricKey (RFC 5958) through an OpenSSL ASN.1
// template of our own: OpenSSL 3.0's PKCS8_PRIV_KEY_INFO stops at [0]
// attributes and refuses a v2 key's publicKey [1].
#include "encoders/private_key_info.h"

#include <openssl/asn1t.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pkcs12.h>

namespace mldsa::prov {

namespace {

struct MLDSA_ONE_ASYMMETRIC_KEY {
  ASN1_INTEGER* version;
  X509_ALGOR* algorithm;
  ASN1_OCTET_STRING* private_key;
  STACK_OF(X509_ATTRIBUTE)* attributes;
  ASN1_BIT_STRING* public_key;
};
using Oak = MLDSA_ONE_ASYMMETRIC_KEY;

// The private key bytes are cleansed before they are freed.
int cleanse_cb(int operation, ASN1_VALUE** pval, const ASN1_ITEM*, void*) {
  if (operation == ASN1_OP_FREE_PRE) {
    Oak* k = reinterpret_cast<Oak*>(*pval);
    if (k->private_key != nullptr)  // ASN1_STRING is opaque from OpenSSL 4.0: its accessors only.
      OPENSSL_cleanse(const_cast<unsigned char*>(ASN1_STRING_get0_data(k->private_key)),
                      static_cast<size_t>(ASN1_STRING_length(k->private_key)));
  }
  return 1;
}

}  // namespace

DECLARE_ASN1_FUNCTIONS(MLDSA_ONE_ASYMMETRIC_KEY)

ASN1_SEQUENCE_cb(MLDSA_ONE_ASYMMETRIC_KEY, cleanse_cb) = {
    ASN1_SIMPLE(MLDSA_ONE_ASYMMETRIC_KEY, version, ASN1_INTEGER),
    ASN1_SIMPLE(MLDSA_ONE_ASYMMETRIC_KEY, algorithm, X509_ALGOR),
    ASN1_SIMPLE(MLDSA_ONE_ASYMMETRIC_KEY, private_key, ASN1_OCTET_STRING),
    ASN1_IMP_SET_OF_OPT(MLDSA_ONE_ASYMMETRIC_KEY, attributes, X509_ATTRIBUTE, 0),
    ASN1_IMP_OPT(MLDSA_ONE_ASYMMETRIC_KEY, public_key, ASN1_BIT_STRING, 1),
} ASN1_SEQUENCE_END_cb(MLDSA_ONE_ASYMMETRIC_KEY, MLDSA_ONE_ASYMMETRIC_KEY)

IMPLEMENT_ASN1_FUNCTIONS(MLDSA_ONE_ASYMMETRIC_KEY)

namespace {

Oak* oak(void* p) { return static_cast<Oak*>(p); }

// A new OneAsymmetricKey holding the parts; takes oid over.
Oak* build(ASN1_OBJECT* oid, std::span<const uint8_t> private_key, std::span<const uint8_t> pk) {
  Oak* k = MLDSA_ONE_ASYMMETRIC_KEY_new();
  bool ok = k != nullptr && X509_ALGOR_set0(k->algorithm, oid, V_ASN1_UNDEF, nullptr) == 1;
  if (!ok) {
    ASN1_OBJECT_free(oid);
    MLDSA_ONE_ASYMMETRIC_KEY_free(k);
    return nullptr;
  }
  ok = ASN1_INTEGER_set(k->version, pk.empty() ? 0 : 1) == 1 &&
       ASN1_OCTET_STRING_set(k->private_key, private_key.data(), static_cast<int>(private_key.size())) == 1;
  if (ok && !pk.empty()) {
    k->public_key = ASN1_BIT_STRING_new();
    // Whole bytes: no unused bits (else i2d would trim trailing zero bytes).
#if OPENSSL_VERSION_MAJOR >= 4
    ok = k->public_key != nullptr && ASN1_BIT_STRING_set1(k->public_key, pk.data(), pk.size(), 0) == 1;
#else
    ok = k->public_key != nullptr &&
         ASN1_BIT_STRING_set(k->public_key, const_cast<uint8_t*>(pk.data()), static_cast<int>(pk.size())) == 1;
    if (ok) k->public_key->flags = (k->public_key->flags & ~0x07) | ASN1_STRING_FLAG_BITS_LEFT;
#endif
  }
  if (!ok) {
    MLDSA_ONE_ASYMMETRIC_KEY_free(k);
    return nullptr;
  }
  return k;
}

}  // namespace

PrivateKeyInfo::~PrivateKeyInfo() { MLDSA_ONE_ASYMMETRIC_KEY_free(oak(oak_)); }

PrivateKeyInfo* PrivateKeyInfo::parse(std::span<const uint8_t> der) {
  const unsigned char* p = der.data();
  Oak* k = d2i_MLDSA_ONE_ASYMMETRIC_KEY(nullptr, &p, static_cast<long>(der.size()));
  if (k != nullptr && p != der.data() + der.size()) {
    MLDSA_ONE_ASYMMETRIC_KEY_free(k);
    return nullptr;
  }
  return k != nullptr ? new PrivateKeyInfo(k) : nullptr;
}

long PrivateKeyInfo::version() const {
  int64_t v = -1;
  return ASN1_INTEGER_get_int64(&v, oak(oak_)->version) == 1 && v >= 0 && v <= 1000 ? static_cast<long>(v) : -1;
}

const X509_ALGOR* PrivateKeyInfo::algorithm() const { return oak(oak_)->algorithm; }

std::span<const uint8_t> PrivateKeyInfo::private_key() const {
  const ASN1_OCTET_STRING* s = oak(oak_)->private_key;
  return {ASN1_STRING_get0_data(s), static_cast<size_t>(ASN1_STRING_length(s))};
}

bool PrivateKeyInfo::has_public_key() const { return oak(oak_)->public_key != nullptr; }

bool PrivateKeyInfo::public_key(std::span<const uint8_t>& out) const {
  const ASN1_BIT_STRING* b = oak(oak_)->public_key;
  if (b == nullptr) return false;
#if OPENSSL_VERSION_MAJOR >= 4
  size_t length = 0;
  int unused_bits = 0;
  if (ASN1_BIT_STRING_get_length(b, &length, &unused_bits) != 1 || unused_bits != 0) return false;
#else
  if ((b->flags & ASN1_STRING_FLAG_BITS_LEFT) != 0 && (b->flags & 0x07) != 0) return false;
#endif
  out = {ASN1_STRING_get0_data(b), static_cast<size_t>(ASN1_STRING_length(b))};
  return true;
}

int private_key_info_der(ASN1_OBJECT* oid, std::span<const uint8_t> private_key, std::span<const uint8_t> pk,
                         unsigned char** out) {
  Oak* k = build(oid, private_key, pk);
  if (k == nullptr) return 0;
  *out = nullptr;
  const int len = i2d_MLDSA_ONE_ASYMMETRIC_KEY(k, out);
  MLDSA_ONE_ASYMMETRIC_KEY_free(k);
  return len;
}

X509_SIG* private_key_info_encrypt(ASN1_OBJECT* oid, std::span<const uint8_t> private_key,
                                   std::span<const uint8_t> pk, const EVP_CIPHER* cipher, const char* pass,
                                   int pass_len, OSSL_LIB_CTX* libctx, const char* props) {
  Oak* k = build(oid, private_key, pk);
  if (k == nullptr) return nullptr;
  // iter 0: PKCS5_DEFAULT_ITER; random salt and IV; prf -1: the default PRF.
  X509_ALGOR* pbe = PKCS5_pbe2_set_iv_ex(cipher, 0, nullptr, 0, nullptr, -1, libctx);
  // zbuf 1: the plaintext DER is cleansed after encryption.
  ASN1_OCTET_STRING* enc =
      pbe != nullptr ? PKCS12_item_i2d_encrypt_ex(pbe, ASN1_ITEM_rptr(MLDSA_ONE_ASYMMETRIC_KEY), pass, pass_len,
                                                  k, 1, libctx, props)
                     : nullptr;
  MLDSA_ONE_ASYMMETRIC_KEY_free(k);
  X509_SIG* sig = enc != nullptr ? X509_SIG_new() : nullptr;
  if (sig != nullptr) {
    X509_ALGOR* alg = nullptr;
    ASN1_OCTET_STRING* data = nullptr;
    X509_SIG_getm(sig, &alg, &data);
    if (X509_ALGOR_copy(alg, pbe) != 1 || ASN1_OCTET_STRING_set(data, ASN1_STRING_get0_data(enc), ASN1_STRING_length(enc)) != 1) {
      X509_SIG_free(sig);
      sig = nullptr;
    }
  }
  ASN1_OCTET_STRING_free(enc);
  X509_ALGOR_free(pbe);
  return sig;
}

}  // namespace mldsa::prov
