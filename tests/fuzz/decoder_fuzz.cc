// decoder_fuzz.cc - the key decoders through OSSL_DECODER: DER or PEM,
// SubjectPublicKeyInfo, PrivateKeyInfo, EncryptedPrivateKeyInfo (passphrase
// "fuzz") or any structure, one parameter set or none. A key that decodes
// must re-encode and decode to the same key, survive export/import, and (a
// private one) sign what its public key verifies.
//
// Input: one selector byte (bit 0: PEM; bits 1-2: structure; bits 3-5:
// parameter set: none, ML-DSA-44/65/87, dilithium2/3/5, none), then the
// encoding.
#include "tests/fuzz/provider_env.h"

#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/params.h>

#include <cstdint>
#include <cstring>

namespace {

using mldsa::fuzz::fail;
using mldsa::fuzz::libctx;

EVP_PKEY* decode(const uint8_t* data, size_t size, const char* input, const char* structure, const char* keytype) {
  EVP_PKEY* pkey = nullptr;
  OSSL_DECODER_CTX* dctx = OSSL_DECODER_CTX_new_for_pkey(&pkey, input, structure, keytype, 0, libctx(), nullptr);
  if (dctx == nullptr) return nullptr;
  OSSL_DECODER_CTX_set_passphrase(dctx, reinterpret_cast<const unsigned char*>("fuzz"), 4);
  OSSL_DECODER_from_data(dctx, &data, &size);
  OSSL_DECODER_CTX_free(dctx);
  return pkey;
}

// DER in the given structure; decoded back, it must be the same key.
void round_trip(EVP_PKEY* pkey, int selection, const char* structure) {
  OSSL_ENCODER_CTX* ectx = OSSL_ENCODER_CTX_new_for_pkey(pkey, selection, "DER", structure, nullptr);
  unsigned char* der = nullptr;
  size_t len = 0;
  if (ectx == nullptr || OSSL_ENCODER_to_data(ectx, &der, &len) != 1) fail("a decoded key does not encode");
  OSSL_ENCODER_CTX_free(ectx);
  EVP_PKEY* again = decode(der, len, "DER", structure, EVP_PKEY_get0_type_name(pkey));
  OPENSSL_clear_free(der, len);
  if (again == nullptr || EVP_PKEY_eq(pkey, again) != 1) fail("re-encoded key does not decode to the same key");
  EVP_PKEY_free(again);
}

void export_import(EVP_PKEY* pkey, int selection) {
  OSSL_PARAM* params = nullptr;
  if (EVP_PKEY_todata(pkey, selection, &params) != 1) fail("export");
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx(), EVP_PKEY_get0_type_name(pkey), nullptr);
  EVP_PKEY* copy = nullptr;
  if (ctx == nullptr || EVP_PKEY_fromdata_init(ctx) != 1 || EVP_PKEY_fromdata(ctx, &copy, selection, params) != 1 ||
      EVP_PKEY_eq(pkey, copy) != 1)
    fail("export / import does not give the same key");
  EVP_PKEY_free(copy);
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
}

void sign_verify(EVP_PKEY* pkey) {
  const unsigned char msg[] = "fuzz";
  unsigned char sig[5000];
  size_t len = sizeof sig;
  int det = 1;
  OSSL_PARAM p[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_END};
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  if (md == nullptr || EVP_DigestSignInit_ex(md, nullptr, nullptr, libctx(), nullptr, pkey, p) != 1 ||
      EVP_DigestSign(md, sig, &len, msg, sizeof msg) != 1)
    fail("a decoded private key does not sign");
  EVP_MD_CTX_reset(md);
  if (EVP_DigestVerifyInit_ex(md, nullptr, nullptr, libctx(), nullptr, pkey, nullptr) != 1 ||
      EVP_DigestVerify(md, sig, len, msg, sizeof msg) != 1)
    fail("a decoded key's signature does not verify");
  EVP_MD_CTX_free(md);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t sel = data[0];
  const char* const structures[] = {nullptr, "SubjectPublicKeyInfo", "PrivateKeyInfo", "EncryptedPrivateKeyInfo"};
  const char* const keytypes[] = {nullptr,      "ML-DSA-44",  "ML-DSA-65",  "ML-DSA-87",
                                  "dilithium2", "dilithium3", "dilithium5", nullptr};
  EVP_PKEY* pkey = decode(data + 1, size - 1, (sel & 1) ? "PEM" : "DER", structures[(sel >> 1) & 3],
                          keytypes[(sel >> 3) & 7]);
  if (pkey != nullptr && mldsa::fuzz::is_mldsa(pkey)) {
    round_trip(pkey, EVP_PKEY_PUBLIC_KEY, "SubjectPublicKeyInfo");
    export_import(pkey, EVP_PKEY_PUBLIC_KEY);
    // A private key, whichever structure it came in.
    OSSL_PARAM* priv = nullptr;
    if (EVP_PKEY_todata(pkey, EVP_PKEY_KEYPAIR, &priv) == 1 &&
        OSSL_PARAM_locate(priv, OSSL_PKEY_PARAM_PRIV_KEY) != nullptr) {
      round_trip(pkey, EVP_PKEY_KEYPAIR, "PrivateKeyInfo");
      export_import(pkey, EVP_PKEY_KEYPAIR);
      sign_verify(pkey);
    }
    OSSL_PARAM_free(priv);
  }
  EVP_PKEY_free(pkey);
  ERR_clear_error();
  return 0;
}
