// composite_codec.cc - ENCODER and DECODER of the 18 composite ML-DSA key types:
// SubjectPublicKeyInfo (the BIT STRING holds mldsaPK || tradPK), PrivateKeyInfo (the OCTET
// STRING holds mldsaSeed || tradSK; draft-19 Section 6), EncryptedPrivateKeyInfo, DER / PEM, and
// text. AlgorithmIdentifier parameters are absent. Decoders answer "not mine" (1, no key) for
// another OID or unparseable input, and raise a named reason for bad content under their OID.
#include "encoders/codec.h"
#include "encoders/encoders.h"
#include "encoders/private_key_info.h"
#include "keymgmt/composite_key.h"
#include "provctx/errors.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/core_object.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <array>
#include <new>
#include <utility>
#include <vector>

namespace mldsa::prov {
namespace {

using composite::Algorithm;
using composite::Error;

enum class Output : uint8_t { der, pem, text };

struct CodecCtx {
  ProvCtx* provctx = nullptr;
  const Algorithm* alg = nullptr;
  Structure structure{};
  Output output{};
  CipherOptions cipher;
};

ASN1_OBJECT* oid_of(const CodecCtx& c) {
  ASN1_OBJECT* o = OBJ_txt2obj(c.alg->oid, 1);
  if (o == nullptr) MLDSA_RAISE(c.provctx, R_INTERNAL_ERROR);
  return o;
}

// --- encoders ---------------------------------------------------------------

// DER of the structure; secret bytes (PrivateKeyInfo) are cleansed when freed by the caller.
int encode_der(const CodecCtx& c, const composite::Key& key, Structure s, OSSL_PASSPHRASE_CALLBACK* cb, void* cbarg,
               unsigned char** out) {
  if (s == Structure::spki) {
    const auto& pk = key.public_encoding();
    X509_PUBKEY* xpk = X509_PUBKEY_new();
    ASN1_OBJECT* oid = oid_of(c);
    auto* penc = static_cast<unsigned char*>(OPENSSL_memdup(pk.data(), pk.size()));
    int len = 0;
    if (xpk != nullptr && oid != nullptr && penc != nullptr &&
        X509_PUBKEY_set0_param(xpk, oid, V_ASN1_UNDEF, nullptr, penc, static_cast<int>(pk.size())) == 1) {
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
  std::vector<uint8_t> priv;
  const Error e = key.private_encoding(priv);
  if (e != Error::ok) return MLDSA_RAISE_COMPOSITE(c.provctx, e), 0;
  int len = 0;
  if (s == Structure::pki) {
    ASN1_OBJECT* oid = oid_of(c);
    len = oid != nullptr ? private_key_info_der(oid, priv, {}, out) : 0;
    if (len <= 0) MLDSA_RAISE(c.provctx, R_INTERNAL_ERROR);
  } else {
    len = encrypted_private_key_info_der(c.provctx, c.cipher, oid_of(c), priv, cb, cbarg, out);
  }
  OPENSSL_cleanse(priv.data(), priv.size());
  return len;
}

const char* trad_description(const Algorithm& a) {
  switch (a.trad) {
    case composite::Trad::rsa_pss: return "RSASSA-PSS";
    case composite::Trad::rsa_pkcs15: return "RSASSA-PKCS1-v1_5";
    case composite::Trad::ecdsa: return "ECDSA";
    case composite::Trad::ed25519: return "Ed25519";
    case composite::Trad::ed448: return "Ed448";
  }
  return "";
}

// The algorithm, then each half: the ML-DSA seed (private) and public key, the traditional key's
// encodings as the draft writes them.
bool write_text(BIO* out, const CodecCtx& c, const composite::Key& key, int selection) {
  const Algorithm& a = *c.alg;
  const bool priv = (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0;
  if (priv && !key.has_private()) {
    MLDSA_RAISE(c.provctx, R_MISSING_KEY);
    return false;
  }
  const auto& pub = key.public_encoding();
  const size_t mldsa_pk = mldsa::params(a.mldsa).pk_bytes;
  if (BIO_printf(out, "%s %s-Key:\n", a.name, priv ? "Private" : "Public") <= 0 ||
      BIO_printf(out, "OID: %s\nML-DSA: %s\ntraditional: %s%s%s\n", a.oid, mldsa::params(a.mldsa).name,
                 trad_description(a), a.curve != nullptr ? " " : "", a.curve != nullptr ? a.curve : "") <= 0)
    return false;
  if (priv) {
    std::vector<uint8_t> sk;
    const Error e = key.private_encoding(sk);
    if (e != Error::ok) return MLDSA_RAISE_COMPOSITE(c.provctx, e);
    const std::span<const uint8_t> all(sk);
    const bool ok = print_hex_block(out, "ML-DSA seed:", all.first(mldsa::SEED_BYTES)) &&
                    print_hex_block(out, "traditional private key:", all.subspan(mldsa::SEED_BYTES));
    OPENSSL_cleanse(sk.data(), sk.size());
    if (!ok) return false;
  }
  const std::span<const uint8_t> p(pub);
  return print_hex_block(out, "ML-DSA public key:", p.first(mldsa_pk)) &&
         print_hex_block(out, "traditional public key:", p.subspan(mldsa_pk));
}

const char* pem_label(Structure s) {
  return s == Structure::spki ? PEM_STRING_PUBLIC : s == Structure::pki ? PEM_STRING_PKCS8INF : PEM_STRING_PKCS8;
}

int enc_encode(void* vctx, OSSL_CORE_BIO* cout, const void* obj, const OSSL_PARAM key_abstract[], int selection,
               OSSL_PASSPHRASE_CALLBACK* cb, void* cbarg) {
  auto* c = static_cast<CodecCtx*>(vctx);
  const auto* k = static_cast<const CompositeKeyData*>(obj);
  if (key_abstract != nullptr || k == nullptr || k->key == nullptr) {
    MLDSA_RAISE(c->provctx, R_MISSING_KEY);
    return 0;
  }
  if (k->alg != c->alg) {
    MLDSA_RAISE(c->provctx, R_WRONG_COMPOSITE);
    return 0;
  }
  BIO* out = bio_from_core(c->provctx, cout);
  if (out == nullptr) return 0;
  bool ok;
  if (c->output == Output::text) {
    ok = write_text(out, *c, *k->key, selection);
  } else {
    // PrivateKeyInfo with a cipher set means "encrypt it", as PEM_write_bio_PrivateKey asks.
    Structure s = c->structure;
    if (s == Structure::pki && !c->cipher.cipher.empty()) s = Structure::epki;
    unsigned char* der = nullptr;
    const int len = encode_der(*c, *k->key, s, cb, cbarg, &der);
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
  CompositeKeyData* k = composite_key_new(c->provctx, *c->alg);
  if (k == nullptr) return nullptr;
  if (composite_key_import(k, selection, params)) return k;
  composite_key_free(k);
  return nullptr;
}

void enc_free_object(void* obj) { composite_key_free(static_cast<CompositeKeyData*>(obj)); }

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

Outcome keep(const CodecCtx& c, Error e, std::unique_ptr<composite::Key>& key, CompositeKeyData*& out) {
  if (e != Error::ok) return MLDSA_RAISE_COMPOSITE(c.provctx, e), Outcome::error;
  out = composite_key_new(c.provctx, *c.alg);
  if (out == nullptr) return Outcome::error;
  out->key = std::move(key);
  return Outcome::key;
}

// SubjectPublicKeyInfo, parsed by hand (as key_decoder.cc does, and for the same reasons: no
// decoder recursion on 3.0, no opaque BIT STRING on 4.0).
Outcome decode_spki(const CodecCtx& c, std::span<const uint8_t> der, CompositeKeyData*& out) {
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
  Outcome o = parsed ? check_algorithm(c, alg) : Outcome::not_mine;
  X509_ALGOR_free(alg);
  if (o != Outcome::key) return o;
  if (bits[0] != 0) {
    MLDSA_RAISE_DETAIL(c.provctx, R_BAD_ENCODING, "public key BIT STRING has unused bits");
    return Outcome::error;
  }
  std::unique_ptr<composite::Key> key;
  return keep(c, composite::Key::from_public(libctx_of(c.provctx), *c.alg, bits.subspan(1), key), key, out);
}

// PrivateKeyInfo v1, or v2 whose publicKey [1] must be the derived composite public key.
Outcome decode_pki(const CodecCtx& c, std::span<const uint8_t> der, CompositeKeyData*& out) {
  ERR_set_mark();
  std::unique_ptr<PrivateKeyInfo> info(PrivateKeyInfo::parse(der));
  ERR_pop_to_mark();
  if (info == nullptr) return Outcome::not_mine;
  Outcome o = check_algorithm(c, info->algorithm());
  if (o != Outcome::key) return o;
  std::span<const uint8_t> pub;
  if (info->version() != 0 && info->version() != 1) {
    MLDSA_RAISE_DETAIL(c.provctx, R_BAD_ENCODING, "PrivateKeyInfo version must be 0 (v1) or 1 (v2)");
    return Outcome::error;
  }
  if (info->has_public_key() && (info->version() != 1 || !info->public_key(pub))) {
    MLDSA_RAISE_DETAIL(c.provctx, R_BAD_ENCODING, "malformed publicKey [1]");
    return Outcome::error;
  }
  std::unique_ptr<composite::Key> key;
  return keep(c, composite::Key::from_private(libctx_of(c.provctx), *c.alg, info->private_key(), pub, key), key, out);
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
  CompositeKeyData* key = nullptr;
  Outcome o = Outcome::not_mine;
  if (read) o = c->structure == Structure::spki ? decode_spki(*c, der, key) : decode_pki(*c, der, key);
  OPENSSL_cleanse(der.data(), der.size());
  if (o == Outcome::not_mine) return 1;
  if (o == Outcome::error) return 0;
  int object_type = OSSL_OBJECT_PKEY;
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_int(OSSL_OBJECT_PARAM_TYPE, &object_type),
      OSSL_PARAM_construct_utf8_string(OSSL_OBJECT_PARAM_DATA_TYPE, const_cast<char*>(c->alg->name), 0),
      OSSL_PARAM_construct_octet_string(OSSL_OBJECT_PARAM_REFERENCE, &key, sizeof(key)),
      OSSL_PARAM_construct_end(),
  };
  const int ok = data_cb(params, data_cbarg);
  composite_key_free(key);  // still ours if load() did not take it
  return ok;
}

// --- dispatch ---------------------------------------------------------------

template <size_t I, Structure T, Output O>
void* newctx(void* provctx) {
  auto* c = new (std::nothrow) CodecCtx;
  if (c == nullptr) return nullptr;
  c->provctx = static_cast<ProvCtx*>(provctx);
  c->alg = &composite::algorithms()[I];
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
  const char* n = composite_names(composite::algorithms()[I]);
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
  const char* n = composite_names(composite::algorithms()[I]);
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

const OSSL_ALGORITHM* composite_encoder_algorithms() {
  static const auto t = all(std::make_index_sequence<composite::ALGORITHM_COUNT>{}, true);
  return t.data();
}

const OSSL_ALGORITHM* composite_decoder_algorithms() {
  static const auto t = all(std::make_index_sequence<composite::ALGORITHM_COUNT>{}, false);
  return t.data();
}

}  // namespace mldsa::prov
