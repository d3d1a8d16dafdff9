// family_codec.h - the ENCODER / DECODER glue that key families with one OID per algorithm
// and absent AlgorithmIdentifier parameters share (composite ML-DSA, Falcon): the context,
// DER / PEM / text output, SubjectPublicKeyInfo and PrivateKeyInfo reading, and the dispatch
// and algorithm tables. A family states what is its own in a traits struct F:
//
//   using Alg;  using KeyObj;  static constexpr size_t count;
//   static const Alg& alg(size_t i);  static const char* names(const Alg&);  // OSSL_ALGORITHM names
//   static const char* name(const Alg&);  static const char* oid(const Alg&);
//   static constexpr Reason wrong_key;                  // a key of another algorithm given
//   static bool has_key(const KeyObj&);                 // holds at least a public key
//   static bool has_private(const KeyObj&);
//   static const Alg* alg_of(const KeyObj&);
//   static std::span<const uint8_t> public_encoding(const KeyObj&);   // the SPKI BIT STRING
//   static bool private_encoding(ProvCtx*, const KeyObj&, std::vector<uint8_t>&);  // raises
//   static bool write_text(BIO*, ProvCtx*, const Alg&, const KeyObj&, bool priv);  // after the header line
//   static KeyObj* import(ProvCtx*, const Alg&, int selection, const OSSL_PARAM[]);
//   static void free(KeyObj*);
//   static Outcome from_public(ProvCtx*, const Alg&, std::span<const uint8_t>, KeyObj*&);
//   static Outcome from_private(ProvCtx*, const Alg&, std::span<const uint8_t> priv,
//                               std::span<const uint8_t> v2pub, KeyObj*&);  // raise on bad content
//
// Decoders answer "not mine" (1, no key) for another OID or unparseable input, and raise a
// named reason for bad content under their OID.
#pragma once

#include "encoders/codec.h"
#include "encoders/private_key_info.h"
#include "provctx/errors.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include <array>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace mldsa::prov::family_codec {

enum class Output : uint8_t { der, pem, text };
enum class Outcome { not_mine, error, key };

// family_codec.cc: the parts that do not depend on the family.
// DER of the SubjectPublicKeyInfo {oid, parameters absent} holding pub; <= 0 with an error raised.
int spki_der(ProvCtx* ctx, const char* oid, std::span<const uint8_t> pub, unsigned char** out);
// DER of the PrivateKeyInfo v1 (s == pki) or EncryptedPrivateKeyInfo (epki) of payload under oid.
int private_der(ProvCtx* ctx, const CipherOptions& cipher, const char* oid, Structure s,
                std::span<const uint8_t> payload, OSSL_PASSPHRASE_CALLBACK* cb, void* cbarg, unsigned char** out);
const char* pem_label(Structure s);
// Our OID with absent parameters: a key; another OID: not ours; parameters present: an error.
Outcome check_algorithm(ProvCtx* ctx, const char* oid, const X509_ALGOR* alg);
// A PrivateKeyInfo under oid: v1, or v2 whose publicKey [1] (if any) goes to v2pub.
Outcome check_private_key_info(ProvCtx* ctx, const char* oid, const PrivateKeyInfo& info,
                               std::span<const uint8_t>& v2pub);

template <class F>
struct Ctx {
  ProvCtx* provctx = nullptr;
  const typename F::Alg* alg = nullptr;
  Structure structure{};
  Output output{};
  CipherOptions cipher;
};

// --- encoders ---------------------------------------------------------------

template <class F>
int encode_der(const Ctx<F>& c, const typename F::KeyObj& key, Structure s, OSSL_PASSPHRASE_CALLBACK* cb,
               void* cbarg, unsigned char** out) {
  if (s == Structure::spki) return spki_der(c.provctx, F::oid(*c.alg), F::public_encoding(key), out);
  std::vector<uint8_t> payload;
  if (!F::private_encoding(c.provctx, key, payload)) return 0;
  const int len = private_der(c.provctx, c.cipher, F::oid(*c.alg), s, payload, cb, cbarg, out);
  OPENSSL_cleanse(payload.data(), payload.size());
  return len;
}

// "<name> Private-Key:" or "Public-Key:", then the family's lines.
template <class F>
bool write_text(BIO* out, const Ctx<F>& c, const typename F::KeyObj& key, int selection) {
  const bool priv = (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0;
  if (priv && !F::has_private(key)) {
    MLDSA_RAISE(c.provctx, R_MISSING_KEY);
    return false;
  }
  return BIO_printf(out, "%s %s-Key:\n", F::name(*c.alg), priv ? "Private" : "Public") > 0 &&
         F::write_text(out, c.provctx, *c.alg, key, priv);
}

template <class F>
int enc_encode(void* vctx, OSSL_CORE_BIO* cout, const void* obj, const OSSL_PARAM key_abstract[], int selection,
               OSSL_PASSPHRASE_CALLBACK* cb, void* cbarg) {
  auto* c = static_cast<Ctx<F>*>(vctx);
  const auto* k = static_cast<const typename F::KeyObj*>(obj);
  if (key_abstract != nullptr || k == nullptr || !F::has_key(*k)) {
    MLDSA_RAISE(c->provctx, R_MISSING_KEY);
    return 0;
  }
  if (F::alg_of(*k) != c->alg) {
    MLDSA_RAISE(c->provctx, F::wrong_key);
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
template <class F>
void* enc_import_object(void* vctx, int selection, const OSSL_PARAM params[]) {
  auto* c = static_cast<Ctx<F>*>(vctx);
  return F::import(c->provctx, *c->alg, selection, params);
}

template <class F>
void enc_free_object(void* obj) {
  F::free(static_cast<typename F::KeyObj*>(obj));
}

inline const OSSL_PARAM* enc_settable(void*) { return cipher_settable_params(); }
template <class F>
int enc_set_params(void* vctx, const OSSL_PARAM params[]) {
  auto* c = static_cast<Ctx<F>*>(vctx);
  return set_cipher_params(c->provctx, params, c->cipher) ? 1 : 0;
}

// --- decoders ---------------------------------------------------------------

template <class F>
Outcome decode_spki(const Ctx<F>& c, std::span<const uint8_t> der, typename F::KeyObj*& out) {
  X509_ALGOR* alg = nullptr;
  std::span<const uint8_t> bits;
  const Outcome o = parse_spki(der, alg, bits) ? check_algorithm(c.provctx, F::oid(*c.alg), alg) : Outcome::not_mine;
  X509_ALGOR_free(alg);
  if (o != Outcome::key) return o;
  if (bits[0] != 0) {
    MLDSA_RAISE_DETAIL(c.provctx, R_BAD_ENCODING, "public key BIT STRING has unused bits");
    return Outcome::error;
  }
  return F::from_public(c.provctx, *c.alg, bits.subspan(1), out);
}

template <class F>
Outcome decode_pki(const Ctx<F>& c, std::span<const uint8_t> der, typename F::KeyObj*& out) {
  ERR_set_mark();
  std::unique_ptr<PrivateKeyInfo> info(PrivateKeyInfo::parse(der));
  ERR_pop_to_mark();
  if (info == nullptr) return Outcome::not_mine;
  std::span<const uint8_t> v2pub;
  const Outcome o = check_private_key_info(c.provctx, F::oid(*c.alg), *info, v2pub);
  if (o != Outcome::key) return o;
  return F::from_private(c.provctx, *c.alg, info->private_key(), v2pub, out);
}

template <class F>
int dec_decode(void* vctx, OSSL_CORE_BIO* cin, int selection, OSSL_CALLBACK* data_cb, void* data_cbarg,
               OSSL_PASSPHRASE_CALLBACK*, void*) {
  auto* c = static_cast<Ctx<F>*>(vctx);
  if (!selection_fits(selection, structure_selection(c->structure))) return 1;
  BIO* in = bio_from_core(c->provctx, cin);
  if (in == nullptr) return 0;
  std::vector<uint8_t> der;
  const bool read = read_der_object(in, der);
  BIO_free(in);
  typename F::KeyObj* key = nullptr;
  Outcome o = Outcome::not_mine;
  if (read) o = c->structure == Structure::spki ? decode_spki(*c, der, key) : decode_pki(*c, der, key);
  OPENSSL_cleanse(der.data(), der.size());
  if (o == Outcome::not_mine) return 1;
  if (o == Outcome::error) return 0;
  const int ok = pass_key_object(F::name(*c->alg), &key, sizeof(key), data_cb, data_cbarg);
  F::free(key);  // still ours if load() did not take it
  return ok;
}

// --- dispatch ---------------------------------------------------------------

template <class F, size_t I, Structure T, Output O>
void* newctx(void* provctx) {
  auto* c = new (std::nothrow) Ctx<F>;
  if (c == nullptr) return nullptr;
  c->provctx = static_cast<ProvCtx*>(provctx);
  c->alg = &F::alg(I);
  c->structure = T;
  c->output = O;
  return c;
}

template <class F>
void freectx(void* vctx) {
  delete static_cast<Ctx<F>*>(vctx);
}

template <Structure T>
int does_selection(void*, int selection) {
  return selection_fits(selection, structure_selection(T)) ? 1 : 0;
}

template <class F, size_t I, Structure T, Output O>
const OSSL_DISPATCH kEncoder[] = {
    {OSSL_FUNC_ENCODER_NEWCTX, dispatch_fn(&newctx<F, I, T, O>)},
    {OSSL_FUNC_ENCODER_FREECTX, dispatch_fn(&freectx<F>)},
    {OSSL_FUNC_ENCODER_SET_CTX_PARAMS, dispatch_fn(&enc_set_params<F>)},
    {OSSL_FUNC_ENCODER_SETTABLE_CTX_PARAMS, dispatch_fn(&enc_settable)},
    {OSSL_FUNC_ENCODER_DOES_SELECTION, dispatch_fn(&does_selection<T>)},
    {OSSL_FUNC_ENCODER_ENCODE, dispatch_fn(&enc_encode<F>)},
    {OSSL_FUNC_ENCODER_IMPORT_OBJECT, dispatch_fn(&enc_import_object<F>)},
    {OSSL_FUNC_ENCODER_FREE_OBJECT, dispatch_fn(&enc_free_object<F>)},
    {0, nullptr},
};

template <class F, size_t I, Structure T>
const OSSL_DISPATCH kDecoder[] = {
    {OSSL_FUNC_DECODER_NEWCTX, dispatch_fn(&newctx<F, I, T, Output::der>)},
    {OSSL_FUNC_DECODER_FREECTX, dispatch_fn(&freectx<F>)},
    {OSSL_FUNC_DECODER_DOES_SELECTION, dispatch_fn(&does_selection<T>)},
    {OSSL_FUNC_DECODER_DECODE, dispatch_fn(&dec_decode<F>)},
    {0, nullptr},
};

#define MLDSA_FAMILY_PROPS(rest) "provider=mldsa-accel," rest

template <class F, size_t I>
std::array<OSSL_ALGORITHM, 7> encoders_of() {
  using S = Structure;
  const char* n = F::names(F::alg(I));
  return {{
      {n, MLDSA_FAMILY_PROPS("output=der,structure=SubjectPublicKeyInfo"), kEncoder<F, I, S::spki, Output::der>,
       nullptr},
      {n, MLDSA_FAMILY_PROPS("output=pem,structure=SubjectPublicKeyInfo"), kEncoder<F, I, S::spki, Output::pem>,
       nullptr},
      {n, MLDSA_FAMILY_PROPS("output=der,structure=PrivateKeyInfo"), kEncoder<F, I, S::pki, Output::der>, nullptr},
      {n, MLDSA_FAMILY_PROPS("output=pem,structure=PrivateKeyInfo"), kEncoder<F, I, S::pki, Output::pem>, nullptr},
      {n, MLDSA_FAMILY_PROPS("output=der,structure=EncryptedPrivateKeyInfo"), kEncoder<F, I, S::epki, Output::der>,
       nullptr},
      {n, MLDSA_FAMILY_PROPS("output=pem,structure=EncryptedPrivateKeyInfo"), kEncoder<F, I, S::epki, Output::pem>,
       nullptr},
      {n, MLDSA_FAMILY_PROPS("output=text"), kEncoder<F, I, S::text, Output::text>, nullptr},
  }};
}

template <class F, size_t I>
std::array<OSSL_ALGORITHM, 2> decoders_of() {
  const char* n = F::names(F::alg(I));
  return {{
      {n, MLDSA_FAMILY_PROPS("input=der,structure=SubjectPublicKeyInfo"), kDecoder<F, I, Structure::spki>, nullptr},
      {n, MLDSA_FAMILY_PROPS("input=der,structure=PrivateKeyInfo"), kDecoder<F, I, Structure::pki>, nullptr},
  }};
}

#undef MLDSA_FAMILY_PROPS

template <class F, size_t... I>
std::vector<OSSL_ALGORITHM> table(std::index_sequence<I...>, bool encoders) {
  std::vector<OSSL_ALGORITHM> out;
  auto add = [&](const auto& rows) { out.insert(out.end(), rows.begin(), rows.end()); };
  if (encoders)
    (add(encoders_of<F, I>()), ...);
  else
    (add(decoders_of<F, I>()), ...);
  out.push_back({nullptr, nullptr, nullptr, nullptr});
  return out;
}

// The family's ENCODER (encoders = true) or DECODER table, {NULL} last.
template <class F>
std::vector<OSSL_ALGORITHM> algorithms(bool encoders) {
  return table<F>(std::make_index_sequence<F::count>{}, encoders);
}

}  // namespace mldsa::prov::family_codec
