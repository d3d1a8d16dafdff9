// family_codec.cc - the parts of family_codec.h that do not depend on the key family.
#include "encoders/family_codec.h"

#include <openssl/x509.h>

namespace mldsa::prov::family_codec {
namespace {

ASN1_OBJECT* oid_object(ProvCtx* ctx, const char* oid) {
  ASN1_OBJECT* o = OBJ_txt2obj(oid, 1);
  if (o == nullptr) MLDSA_RAISE(ctx, R_INTERNAL_ERROR);
  return o;
}

}  // namespace

int spki_der(ProvCtx* ctx, const char* oid_text, std::span<const uint8_t> pub, unsigned char** out) {
  X509_PUBKEY* xpk = X509_PUBKEY_new();
  ASN1_OBJECT* oid = oid_object(ctx, oid_text);
  auto* penc = static_cast<unsigned char*>(OPENSSL_memdup(pub.data(), pub.size()));
  int len = 0;
  if (xpk != nullptr && oid != nullptr && penc != nullptr &&
      X509_PUBKEY_set0_param(xpk, oid, V_ASN1_UNDEF, nullptr, penc, static_cast<int>(pub.size())) == 1) {
    oid = nullptr;
    penc = nullptr;
    len = i2d_X509_PUBKEY(xpk, out);
  }
  OPENSSL_free(penc);
  ASN1_OBJECT_free(oid);
  X509_PUBKEY_free(xpk);
  if (len <= 0) MLDSA_RAISE(ctx, R_INTERNAL_ERROR);
  return len;
}

int private_der(ProvCtx* ctx, const CipherOptions& cipher, const char* oid_text, Structure s,
                std::span<const uint8_t> payload, OSSL_PASSPHRASE_CALLBACK* cb, void* cbarg, unsigned char** out) {
  if (s == Structure::pki) {
    ASN1_OBJECT* oid = oid_object(ctx, oid_text);
    const int len = oid != nullptr ? private_key_info_der(oid, payload, {}, out) : 0;
    if (len <= 0) MLDSA_RAISE(ctx, R_INTERNAL_ERROR);
    return len;
  }
  return encrypted_private_key_info_der(ctx, cipher, oid_object(ctx, oid_text), payload, cb, cbarg, out);
}

const char* pem_label(Structure s) {
  return s == Structure::spki ? PEM_STRING_PUBLIC : s == Structure::pki ? PEM_STRING_PKCS8INF : PEM_STRING_PKCS8;
}

Outcome check_algorithm(ProvCtx* ctx, const char* oid, const X509_ALGOR* alg) {
  const ASN1_OBJECT* obj = nullptr;
  int ptype = 0;
  X509_ALGOR_get0(&obj, &ptype, nullptr, alg);
  ASN1_OBJECT* ours = oid_object(ctx, oid);
  if (ours == nullptr) return Outcome::error;
  const bool match = obj != nullptr && OBJ_cmp(obj, ours) == 0;
  ASN1_OBJECT_free(ours);
  if (!match) return Outcome::not_mine;
  if (ptype != V_ASN1_UNDEF) {
    MLDSA_RAISE_DETAIL(ctx, R_BAD_ENCODING, "AlgorithmIdentifier parameters must be absent");
    return Outcome::error;
  }
  return Outcome::key;
}

Outcome check_private_key_info(ProvCtx* ctx, const char* oid, const PrivateKeyInfo& info,
                               std::span<const uint8_t>& v2pub) {
  const Outcome o = check_algorithm(ctx, oid, info.algorithm());
  if (o != Outcome::key) return o;
  if (info.version() != 0 && info.version() != 1) {
    MLDSA_RAISE_DETAIL(ctx, R_BAD_ENCODING, "PrivateKeyInfo version must be 0 (v1) or 1 (v2)");
    return Outcome::error;
  }
  if (info.has_public_key() && (info.version() != 1 || !info.public_key(v2pub))) {
    MLDSA_RAISE_DETAIL(ctx, R_BAD_ENCODING, "malformed publicKey [1]");
    return Outcome::error;
  }
  return Outcome::key;
}

}  // namespace mldsa::prov::family_codec
