// codec.cc - helpers shared by the encoders and the decoders.
#include "encoders/codec.h"

#include "encoders/private_key_info.h"
#include "keymgmt/key.h"
#include "provctx/errors.h"
#include "provctx/param_read.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/core_object.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/objects.h>

#include <vector>

namespace mldsa::prov {

BIO* bio_from_core(void* provctx, OSSL_CORE_BIO* cbio) {
  BIO* bio = BIO_new_from_core_bio(libctx_of(provctx), cbio);
  if (bio == nullptr) MLDSA_RAISE(static_cast<const ProvCtx*>(provctx), R_INTERNAL_ERROR);
  return bio;
}

ASN1_OBJECT* variant_oid(const ProvCtx* ctx, mldsa::ParamSet set) {
  // no_name = 1: parse the dotted form even where the core does not know it.
  ASN1_OBJECT* obj = OBJ_txt2obj(variant(set).oid, 1);
  if (obj == nullptr) MLDSA_RAISE(ctx, R_INTERNAL_ERROR);
  return obj;
}

bool parse_spki(std::span<const uint8_t> der, X509_ALGOR*& alg, std::span<const uint8_t>& bits) {
  const unsigned char* p = der.data();
  const unsigned char* const end = der.data() + der.size();
  long len = 0;
  int tag = 0, cls = 0;
  alg = nullptr;
  ERR_set_mark();  // parse failures mean "not an SPKI": no error for the caller
  const int r = ASN1_get_object(&p, &len, &tag, &cls, static_cast<long>(der.size()));
  // 0x20 exactly: constructed, definite length, no error bit.
  bool parsed = r == V_ASN1_CONSTRUCTED && tag == V_ASN1_SEQUENCE && cls == V_ASN1_UNIVERSAL && len == end - p;
  if (parsed) parsed = (alg = d2i_X509_ALGOR(nullptr, &p, end - p)) != nullptr;
  if (parsed) {
    long blen = 0;
    const int rb = ASN1_get_object(&p, &blen, &tag, &cls, end - p);
    parsed = rb == 0 && tag == V_ASN1_BIT_STRING && cls == V_ASN1_UNIVERSAL && blen >= 1 && blen == end - p;
    if (parsed) bits = {p, static_cast<size_t>(blen)};
  }
  ERR_pop_to_mark();
  return parsed;
}

int pass_key_object(const char* data_type, void* ref, size_t ref_size, OSSL_CALLBACK* data_cb, void* data_cbarg) {
  int object_type = OSSL_OBJECT_PKEY;
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_int(OSSL_OBJECT_PARAM_TYPE, &object_type),
      OSSL_PARAM_construct_utf8_string(OSSL_OBJECT_PARAM_DATA_TYPE, const_cast<char*>(data_type), 0),
      OSSL_PARAM_construct_octet_string(OSSL_OBJECT_PARAM_REFERENCE, ref, ref_size),
      OSSL_PARAM_construct_end(),
  };
  return data_cb(params, data_cbarg);
}

ASN1_OBJECT* key_oid(const Key& key) {
  const Variant& v = variant(key.params->id);
  const bool hash = key.hash_ml_dsa && v.hash_oid != nullptr && key.provctx != nullptr &&
                    key.provctx->settings.hash_ml_dsa_key_oid;
  ASN1_OBJECT* obj = OBJ_txt2obj(hash ? v.hash_oid : v.oid, 1);
  if (obj == nullptr) MLDSA_RAISE(key.provctx, R_INTERNAL_ERROR);
  return obj;
}

namespace {

// Appends exactly n bytes of the input to out (fewer only at its end).
bool read_exactly(BIO* in, std::vector<uint8_t>& out, size_t n) {
  const size_t at = out.size();
  out.resize(at + n);
  size_t got = 0;
  for (size_t r = 0; got < n && BIO_read_ex(in, out.data() + at + got, n - got, &r) == 1 && r > 0;) got += r;
  out.resize(at + got);
  return got == n;
}

}  // namespace

// OSSL_DECODER_from_data reports what follows as unread. Capacity is reserved up front so the vector
// never reallocates: no stray copy of key bytes is left behind.
bool read_der_object(BIO* in, std::vector<uint8_t>& out) {
  out.reserve(MAX_DER_BYTES);
  if (!read_exactly(in, out, 2) || (out[0] & 0x1f) == 0x1f || out[1] == 0x80) return false;
  size_t len = out[1];
  if (len > 0x80) {
    const size_t count = len & 0x7f;
    if (count > 2 || !read_exactly(in, out, count)) return false;  // 3 length bytes are past MAX_DER_BYTES
    len = 0;
    for (size_t i = 0; i < count; ++i) len = len << 8 | out[2 + i];
  }
  return out.size() + len <= MAX_DER_BYTES && read_exactly(in, out, len);
}

bool selection_fits(int selection, int carried) {
  constexpr int levels[] = {OSSL_KEYMGMT_SELECT_PRIVATE_KEY, OSSL_KEYMGMT_SELECT_PUBLIC_KEY,
                            OSSL_KEYMGMT_SELECT_ALL_PARAMETERS};
  for (int level : levels)
    if ((selection & level) != 0) return (carried & level) != 0;
  return selection == 0;
}

const OSSL_PARAM* cipher_settable_params() {
  static const OSSL_PARAM settable[] = {
      OSSL_PARAM_utf8_string(OSSL_ENCODER_PARAM_CIPHER, nullptr, 0),
      OSSL_PARAM_utf8_string(OSSL_ENCODER_PARAM_PROPERTIES, nullptr, 0),
      OSSL_PARAM_END,
  };
  return settable;
}

bool set_cipher_params(ProvCtx* ctx, const OSSL_PARAM params[], CipherOptions& out) {
  if (params == nullptr) return true;
  const OSSL_PARAM* props = OSSL_PARAM_locate_const(params, OSSL_ENCODER_PARAM_PROPERTIES);
  if (props != nullptr && !read_utf8(ctx, props, out.props)) return false;
  const OSSL_PARAM* cipher = OSSL_PARAM_locate_const(params, OSSL_ENCODER_PARAM_CIPHER);
  if (cipher != nullptr) {
    if (!read_utf8(ctx, cipher, out.cipher)) return false;
    if (!out.cipher.empty()) {
      // Fail now on an unknown cipher rather than at encode time.
      EVP_CIPHER* c =
          EVP_CIPHER_fetch(libctx_of(ctx), out.cipher.c_str(), out.props.empty() ? nullptr : out.props.c_str());
      if (c == nullptr) return false;
      EVP_CIPHER_free(c);
    }
  }
  return true;
}

int encrypted_private_key_info_der(ProvCtx* ctx, const CipherOptions& opts, ASN1_OBJECT* oid,
                                   std::span<const uint8_t> payload, OSSL_PASSPHRASE_CALLBACK* cb, void* cbarg,
                                   unsigned char** out) {
  if (oid == nullptr) return 0;
  if (opts.cipher.empty()) {
    ASN1_OBJECT_free(oid);
    MLDSA_RAISE_DETAIL(ctx, R_NOT_SUPPORTED, "EncryptedPrivateKeyInfo needs a cipher");
    return 0;
  }
  OSSL_LIB_CTX* libctx = libctx_of(ctx);
  const char* props = opts.props.empty() ? nullptr : opts.props.c_str();
  EVP_CIPHER* cipher = EVP_CIPHER_fetch(libctx, opts.cipher.c_str(), props);
  if (cipher == nullptr) {
    ASN1_OBJECT_free(oid);
    return 0;  // the fetch raised the error
  }
  char pass[1024];
  size_t pass_len = 0;
  int len = 0;
  if (cb == nullptr || cb(pass, sizeof(pass), &pass_len, nullptr, cbarg) == 0) {
    ASN1_OBJECT_free(oid);
    // The core's callback raises its own reason ("No password method specified").
    if (ERR_peek_last_error() == 0) MLDSA_RAISE(ctx, R_NOT_SUPPORTED);
  } else {
    // Always v1 inside: OpenSSL 3.0 decrypts through the default provider,
    // whose PKCS8_PRIV_KEY_INFO cannot hold a v2 key's publicKey [1].
    X509_SIG* sig =
        private_key_info_encrypt(oid, payload, {}, cipher, pass, static_cast<int>(pass_len), libctx, props);
    if (sig != nullptr) {
      len = i2d_X509_SIG(sig, out);
      X509_SIG_free(sig);
    }
  }
  OPENSSL_cleanse(pass, sizeof(pass));
  EVP_CIPHER_free(cipher);
  return len;
}

bool print_hex_block(BIO* out, const char* label, std::span<const uint8_t> bytes) {
  constexpr size_t per_line = 15;
  if (BIO_printf(out, "%s\n", label) <= 0) return false;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const bool line_start = i % per_line == 0;
    const bool last = i + 1 == bytes.size();
    if (BIO_printf(out, "%s%02x%s%s", line_start ? "    " : "", bytes[i], last ? "" : ":",
                   last || (i + 1) % per_line == 0 ? "\n" : "") <= 0)
      return false;
  }
  return true;
}

int structure_selection(Structure s) {
  switch (s) {
    case Structure::spki: return OSSL_KEYMGMT_SELECT_PUBLIC_KEY;
    case Structure::pki:
    case Structure::epki: return OSSL_KEYMGMT_SELECT_PRIVATE_KEY;
    case Structure::text: return OSSL_KEYMGMT_SELECT_KEYPAIR;  // prints whichever parts there are
  }
  return 0;
}

}  // namespace mldsa::prov
