// falcon_codec.cc - ENCODER and DECODER of the round-3 Falcon key types (falcon512,
// falconpadded512, falcon1024, falconpadded1024), in oqs-provider's layouts:
//   SubjectPublicKeyInfo: { OID, parameters absent }, BIT STRING = the encoded public key
//   PrivateKeyInfo v1:    { OID, parameters absent }, privateKey OCTET STRING holding the
//                         DER OCTET STRING of sk || pk
// plus EncryptedPrivateKeyInfo, DER / PEM, and text. The decoders also read the inner OCTET
// STRING of sk alone, and sk || pk or sk without it (older oqs-provider), and a v2
// publicKey [1], which must be the key's. Decoders answer "not mine" (1, no key) for
// another OID or unparseable input, and raise a named reason for bad content under their OID.
#include "encoders/codec.h"
#include "encoders/encoders.h"
#include "encoders/falcon_codec.h"
#include "encoders/private_key_info.h"
#include "keymgmt/falcon_key.h"
#include "provctx/errors.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/core_object.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <array>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace mldsa::prov {

// The privateKey OCTET STRING content: 04 82 LL LL || sk || pk (what oqs-provider writes).
std::vector<uint8_t> falcon_private_payload(std::span<const uint8_t> sk, std::span<const uint8_t> pk) {
  const size_t n = sk.size() + pk.size();
  std::vector<uint8_t> out(4 + n);
  out[0] = 0x04;
  out[1] = 0x82;
  out[2] = static_cast<uint8_t>(n >> 8);
  out[3] = static_cast<uint8_t>(n);
  std::copy(sk.begin(), sk.end(), out.begin() + 4);
  std::copy(pk.begin(), pk.end(), out.begin() + 4 + static_cast<std::ptrdiff_t>(sk.size()));
  return out;
}

// Splits a privateKey OCTET STRING content into sk and pk (empty when absent): the wrapped
// or bare sk || pk or sk, recognised by exact length and prefix. False when none fits.
bool falcon_private_parts(const falcon::Params& p, std::span<const uint8_t> in, std::span<const uint8_t>& sk,
                          std::span<const uint8_t>& pk) {
  std::span<const uint8_t> body = in;
  for (const size_t n : {p.sk_bytes + p.pk_bytes, p.sk_bytes}) {
    if (in.size() == 4 + n && in[0] == 0x04 && in[1] == 0x82 && in[2] == (n >> 8) && in[3] == (n & 0xff)) {
      body = in.subspan(4);
      break;
    }
  }
  if (body.size() != p.sk_bytes + p.pk_bytes && body.size() != p.sk_bytes) return false;
  sk = body.first(p.sk_bytes);
  pk = body.subspan(p.sk_bytes);
  return true;
}

namespace {

enum class Output : uint8_t { der, pem, text };

struct CodecCtx {
  ProvCtx* provctx = nullptr;
  const FalconVariant* variant = nullptr;
  Structure structure{};
  Output output{};
  CipherOptions cipher;
};

ASN1_OBJECT* oid_of(const CodecCtx& c) {
  ASN1_OBJECT* o = OBJ_txt2obj(c.variant->oid, 1);
  if (o == nullptr) MLDSA_RAISE(c.provctx, R_INTERNAL_ERROR);
  return o;
}

// --- encoders ---------------------------------------------------------------

int encode_der(const CodecCtx& c, const FalconKey& key, Structure s, OSSL_PASSPHRASE_CALLBACK* cb, void* cbarg,
               unsigned char** out) {
  if (s == Structure::spki) {
    X509_PUBKEY* xpk = X509_PUBKEY_new();
    ASN1_OBJECT* oid = oid_of(c);
    auto* penc = static_cast<unsigned char*>(OPENSSL_memdup(key.pub.data(), key.pub.size()));
    int len = 0;
    if (xpk != nullptr && oid != nullptr && penc != nullptr &&
        X509_PUBKEY_set0_param(xpk, oid, V_ASN1_UNDEF, nullptr, penc, static_cast<int>(key.pub.size())) == 1) {
      oid = nullptr;
      penc = nullptr;
      len = i2d_X509_PUBKEY(xpk, out);
    }
    OPENSSL_free(penc);
    ASN1_OBJECT_free(oid);
    X509_PUBKEY_free(xpk);
    if (len <= 0) MLDSA_RAISE(c.provctx, R_INTERNAL_ERROR);
    return len;
  }
  if (!key.has_private()) {
    MLDSA_RAISE(c.provctx, R_MISSING_KEY);
    return 0;
  }
  std::vector<uint8_t> payload = falcon_private_payload(key.priv, key.pub);
  int len = 0;
  if (s == Structure::pki) {
    ASN1_OBJECT* oid = oid_of(c);
    len = oid != nullptr ? private_key_info_der(oid, payload, {}, out) : 0;
    if (len <= 0) MLDSA_RAISE(c.provctx, R_INTERNAL_ERROR);
  } else {
    len = encrypted_private_key_info_der(c.provctx, c.cipher, oid_of(c), payload, cb, cbarg, out);
  }
  OPENSSL_cleanse(payload.data(), payload.size());
  return len;
}

bool write_text(BIO* out, const CodecCtx& c, const FalconKey& key, int selection) {
  const bool priv = (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0;
  if (priv && !key.has_private()) {
    MLDSA_RAISE(c.provctx, R_MISSING_KEY);
    return false;
  }
  if (BIO_printf(out, "%s %s-Key:\n", c.variant->name, priv ? "Private" : "Public") <= 0 ||
      BIO_printf(out, "OID: %s\nFalcon (round 3): %s, %s signatures\n", c.variant->oid, c.variant->params().name,
                 c.variant->padded ? "padded" : "compressed") <= 0)
    return false;
  if (priv && !print_hex_block(out, "priv:", key.priv)) return false;
  return print_hex_block(out, "pub:", key.pub);
}

const char* pem_label(Structure s) {
  return s == Structure::spki ? PEM_STRING_PUBLIC : s == Structure::pki ? PEM_STRING_PKCS8INF : PEM_STRING_PKCS8;
}

int enc_encode(void* vctx, OSSL_CORE_BIO* cout, const void* obj, const OSSL_PARAM key_abstract[], int selection,
               OSSL_PASSPHRASE_CALLBACK* cb, void* cbarg) {
  auto* c = static_cast<CodecCtx*>(vctx);
  const auto* k = static_cast<const FalconKey*>(obj);
  if (key_abstract != nullptr || k == nullptr || !k->has_public()) {
    MLDSA_RAISE(c->provctx, R_MISSING_KEY);
    return 0;
  }
  if (k->variant != c->variant) {
    MLDSA_RAISE(c->provctx, R_WRONG_FALCON_KEY);
    return 0;
  }
  BIO* out = bio_from_core(c->provctx, cout);
  if (out == nullptr) return 0;
  bool ok;
  if (c->output == Output::text) {
    ok = write_text(out, *c, *k, selection);
  } else {
    // PrivateKeyInfo with a cipher set means "encrypt it", as PEM_write_bio_PrivateKey asks.
    Structure s = c->structure;
    if (s == Structure::pki && !c->cipher.cipher.empty()) s = Structure::epki;
    unsigned char* der = nullptr;
    const int len = encode_der(*c, *k, s, cb, cbarg, &der);
    ok = len > 0 && (c->output == Output::der ? BIO_write(out, der, len) == len
                                              : PEM_write_bio(out, pem_label(s), "", der, len) > 0);
    OPENSSL_clear_free(der, len > 0 ? static_cast<size_t>(len) : 0);
  }
  BIO_free(out);
  return ok ? 1 : 0;
}

// A key held by another provider: its exported "priv" / "pub" become one of ours.
void* enc_import_object(void* vctx, int selection, const OSSL_PARAM params[]) {
  auto* c = static_cast<CodecCtx*>(vctx);
  FalconKey* k = falcon_key_new(c->provctx, *c->variant);
  if (k == nullptr) return nullptr;
  std::span<const uint8_t> priv, pub;
  const OSSL_PARAM* p;
  const void* data = nullptr;
  size_t len = 0;
  if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0 &&
      (p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY)) != nullptr &&
      OSSL_PARAM_get_octet_string_ptr(p, &data, &len) == 1)
    priv = {static_cast<const uint8_t*>(data), len};
  if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PUB_KEY)) != nullptr &&
      OSSL_PARAM_get_octet_string_ptr(p, &data, &len) == 1)
    pub = {static_cast<const uint8_t*>(data), len};
  if (falcon_key_from_parts(k, priv, pub)) return k;
  falcon_key_free(k);
  return nullptr;
}

void enc_free_object(void* obj) { falcon_key_free(static_cast<FalconKey*>(obj)); }

const OSSL_PARAM* enc_settable(void*) { return cipher_settable_params(); }
int enc_set_params(void* vctx, const OSSL_PARAM params[]) {
  auto* c = static_cast<CodecCtx*>(vctx);
  return set_cipher_params(c->provctx, params, c->cipher) ? 1 : 0;
}

// --- decoders ---------------------------------------------------------------

enum class Outcome { not_mine, error, key };

// Our OID with absent parameters: a key; another OID: not ours; parameters present: an error.
Outcome check_algorithm(const CodecCtx& c, const X509_ALGOR* alg) {
  const ASN1_OBJECT* obj = nullptr;
  int ptype = 0;
  X509_ALGOR_get0(&obj, &ptype, nullptr, alg);
  ASN1_OBJECT* ours = oid_of(c);
  if (ours == nullptr) return Outcome::error;
  const bool match = obj != nullptr && OBJ_cmp(obj, ours) == 0;
  ASN1_OBJECT_free(ours);
  if (!match) return Outcome::not_mine;
  if (ptype != V_ASN1_UNDEF) {
    MLDSA_RAISE_DETAIL(c.provctx, R_BAD_ENCODING, "AlgorithmIdentifier parameters must be absent");
    return Outcome::error;
  }
  return Outcome::key;
}

Outcome make_key(const CodecCtx& c, std::span<const uint8_t> sk, std::span<const uint8_t> pk, FalconKey*& out) {
  FalconKey* k = falcon_key_new(c.provctx, *c.variant);
  if (k == nullptr) return Outcome::error;
  if (!falcon_key_from_parts(k, sk, pk)) {  // raised the precise reason
    falcon_key_free(k);
    return Outcome::error;
  }
  out = k;
  return Outcome::key;
}

// SubjectPublicKeyInfo, parsed by hand (as key_decoder.cc does, and for the same reasons: no
// decoder recursion on 3.0, no opaque BIT STRING on 4.0).
Outcome decode_spki(const CodecCtx& c, std::span<const uint8_t> der, FalconKey*& out) {
  const unsigned char* p = der.data();
  const unsigned char* const end = der.data() + der.size();
  long len = 0;
  int tag = 0, cls = 0;
  X509_ALGOR* alg = nullptr;
  std::span<const uint8_t> bits;
  ERR_set_mark();
  bool parsed = ASN1_get_object(&p, &len, &tag, &cls, static_cast<long>(der.size())) == V_ASN1_CONSTRUCTED &&
                tag == V_ASN1_SEQUENCE && cls == V_ASN1_UNIVERSAL && len == end - p;
  if (parsed) parsed = (alg = d2i_X509_ALGOR(nullptr, &p, end - p)) != nullptr;
  if (parsed) {
    long blen = 0;
    parsed = ASN1_get_object(&p, &blen, &tag, &cls, end - p) == 0 && tag == V_ASN1_BIT_STRING &&
             cls == V_ASN1_UNIVERSAL && blen >= 1 && blen == end - p;
    if (parsed) bits = {p, static_cast<size_t>(blen)};
  }
  ERR_pop_to_mark();
  const Outcome o = parsed ? check_algorithm(c, alg) : Outcome::not_mine;
  X509_ALGOR_free(alg);
  if (o != Outcome::key) return o;
  if (bits[0] != 0) {
    MLDSA_RAISE_DETAIL(c.provctx, R_BAD_ENCODING, "public key BIT STRING has unused bits");
    return Outcome::error;
  }
  return make_key(c, {}, bits.subspan(1), out);
}

Outcome decode_pki(const CodecCtx& c, std::span<const uint8_t> der, FalconKey*& out) {
  ERR_set_mark();
  std::unique_ptr<PrivateKeyInfo> info(PrivateKeyInfo::parse(der));
  ERR_pop_to_mark();
  if (info == nullptr) return Outcome::not_mine;
  const Outcome o = check_algorithm(c, info->algorithm());
  if (o != Outcome::key) return o;
  if (info->version() != 0 && info->version() != 1) {
    MLDSA_RAISE_DETAIL(c.provctx, R_BAD_ENCODING, "PrivateKeyInfo version must be 0 (v1) or 1 (v2)");
    return Outcome::error;
  }
  std::span<const uint8_t> v2pub, sk, pk;
  if (info->has_public_key() && (info->version() != 1 || !info->public_key(v2pub))) {
    MLDSA_RAISE_DETAIL(c.provctx, R_BAD_ENCODING, "malformed publicKey [1]");
    return Outcome::error;
  }
  const falcon::Params& p = c.variant->params();
  if (!falcon_private_parts(p, info->private_key(), sk, pk)) {
    const std::string detail = std::string(c.variant->name) + " private key: PKCS#8 privateKey is not " +
                               std::to_string(p.sk_bytes) + " bytes (sk) or " +
                               std::to_string(p.sk_bytes + p.pk_bytes) + " (sk || pk), bare or in an OCTET STRING";
    MLDSA_RAISE_DETAIL(c.provctx, R_BAD_FALCON_KEY_LENGTH, detail.c_str());
    return Outcome::error;
  }
  // Both the pk after sk and a v2 publicKey: they must agree (each is checked against sk).
  if (!pk.empty() && !v2pub.empty() &&
      (pk.size() != v2pub.size() || CRYPTO_memcmp(pk.data(), v2pub.data(), pk.size()) != 0)) {
    MLDSA_RAISE(c.provctx, R_PUB_PRIV_MISMATCH);
    return Outcome::error;
  }
  return make_key(c, sk, pk.empty() ? v2pub : pk, out);
}

int dec_decode(void* vctx, OSSL_CORE_BIO* cin, int selection, OSSL_CALLBACK* data_cb, void* data_cbarg,
               OSSL_PASSPHRASE_CALLBACK*, void*) {
  auto* c = static_cast<CodecCtx*>(vctx);
  if (!selection_fits(selection, structure_selection(c->structure))) return 1;
  BIO* in = bio_from_core(c->provctx, cin);
  if (in == nullptr) return 0;
  std::vector<uint8_t> der;
  const bool read = read_der_object(in, der);
  BIO_free(in);
  FalconKey* key = nullptr;
  Outcome o = Outcome::not_mine;
  if (read) o = c->structure == Structure::spki ? decode_spki(*c, der, key) : decode_pki(*c, der, key);
  OPENSSL_cleanse(der.data(), der.size());
  if (o == Outcome::not_mine) return 1;
  if (o == Outcome::error) return 0;
  int object_type = OSSL_OBJECT_PKEY;
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_int(OSSL_OBJECT_PARAM_TYPE, &object_type),
      OSSL_PARAM_construct_utf8_string(OSSL_OBJECT_PARAM_DATA_TYPE, const_cast<char*>(c->variant->name), 0),
      OSSL_PARAM_construct_octet_string(OSSL_OBJECT_PARAM_REFERENCE, &key, sizeof(key)),
      OSSL_PARAM_construct_end(),
  };
  const int ok = data_cb(params, data_cbarg);
  falcon_key_free(key);  // still ours if load() did not take it
  return ok;
}

// --- dispatch ---------------------------------------------------------------

template <size_t I, Structure T, Output O>
void* newctx(void* provctx) {
  auto* c = new (std::nothrow) CodecCtx;
  if (c == nullptr) return nullptr;
  c->provctx = static_cast<ProvCtx*>(provctx);
  c->variant = &falcon_variants()[I];
  c->structure = T;
  c->output = O;
  return c;
}

void freectx(void* vctx) { delete static_cast<CodecCtx*>(vctx); }

template <Structure T>
int does_selection(void*, int selection) {
  return selection_fits(selection, structure_selection(T)) ? 1 : 0;
}

template <size_t I, Structure T, Output O>
const OSSL_DISPATCH kEncoder[] = {
    {OSSL_FUNC_ENCODER_NEWCTX, dispatch_fn(&newctx<I, T, O>)},
    {OSSL_FUNC_ENCODER_FREECTX, dispatch_fn(&freectx)},
    {OSSL_FUNC_ENCODER_SET_CTX_PARAMS, dispatch_fn(&enc_set_params)},
    {OSSL_FUNC_ENCODER_SETTABLE_CTX_PARAMS, dispatch_fn(&enc_settable)},
    {OSSL_FUNC_ENCODER_DOES_SELECTION, dispatch_fn(&does_selection<T>)},
    {OSSL_FUNC_ENCODER_ENCODE, dispatch_fn(&enc_encode)},
    {OSSL_FUNC_ENCODER_IMPORT_OBJECT, dispatch_fn(&enc_import_object)},
    {OSSL_FUNC_ENCODER_FREE_OBJECT, dispatch_fn(&enc_free_object)},
    {0, nullptr},
};

template <size_t I, Structure T>
const OSSL_DISPATCH kDecoder[] = {
    {OSSL_FUNC_DECODER_NEWCTX, dispatch_fn(&newctx<I, T, Output::der>)},
    {OSSL_FUNC_DECODER_FREECTX, dispatch_fn(&freectx)},
    {OSSL_FUNC_DECODER_DOES_SELECTION, dispatch_fn(&does_selection<T>)},
    {OSSL_FUNC_DECODER_DECODE, dispatch_fn(&dec_decode)},
    {0, nullptr},
};

#define MLDSA_PROPS(rest) "provider=mldsa-accel," rest

template <size_t I>
std::array<OSSL_ALGORITHM, 7> encoders_of() {
  const char* n = falcon_variants()[I].names;
  return {{
      {n, MLDSA_PROPS("output=der,structure=SubjectPublicKeyInfo"), kEncoder<I, Structure::spki, Output::der>, nullptr},
      {n, MLDSA_PROPS("output=pem,structure=SubjectPublicKeyInfo"), kEncoder<I, Structure::spki, Output::pem>, nullptr},
      {n, MLDSA_PROPS("output=der,structure=PrivateKeyInfo"), kEncoder<I, Structure::pki, Output::der>, nullptr},
      {n, MLDSA_PROPS("output=pem,structure=PrivateKeyInfo"), kEncoder<I, Structure::pki, Output::pem>, nullptr},
      {n, MLDSA_PROPS("output=der,structure=EncryptedPrivateKeyInfo"), kEncoder<I, Structure::epki, Output::der>,
       nullptr},
      {n, MLDSA_PROPS("output=pem,structure=EncryptedPrivateKeyInfo"), kEncoder<I, Structure::epki, Output::pem>,
       nullptr},
      {n, MLDSA_PROPS("output=text"), kEncoder<I, Structure::text, Output::text>, nullptr},
  }};
}

template <size_t I>
std::array<OSSL_ALGORITHM, 2> decoders_of() {
  const char* n = falcon_variants()[I].names;
  return {{
      {n, MLDSA_PROPS("input=der,structure=SubjectPublicKeyInfo"), kDecoder<I, Structure::spki>, nullptr},
      {n, MLDSA_PROPS("input=der,structure=PrivateKeyInfo"), kDecoder<I, Structure::pki>, nullptr},
  }};
}

template <size_t... I>
std::vector<OSSL_ALGORITHM> all(std::index_sequence<I...>, bool encoders) {
  std::vector<OSSL_ALGORITHM> out;
  auto add = [&](const auto& rows) { out.insert(out.end(), rows.begin(), rows.end()); };
  if (encoders)
    (add(encoders_of<I>()), ...);
  else
    (add(decoders_of<I>()), ...);
  out.push_back({nullptr, nullptr, nullptr, nullptr});
  return out;
}

}  // namespace

const OSSL_ALGORITHM* falcon_encoder_algorithms() {
  static const auto t = all(std::make_index_sequence<FALCON_VARIANT_COUNT>{}, true);
  return t.data();
}

const OSSL_ALGORITHM* falcon_decoder_algorithms() {
  static const auto t = all(std::make_index_sequence<FALCON_VARIANT_COUNT>{}, false);
  return t.data();
}

}  // namespace mldsa::prov
