// key_encoder.cc - ENCODER: ML-DSA and round-3 Dilithium keys to SubjectPublicKeyInfo,
// PrivateKeyInfo and EncryptedPrivateKeyInfo (DER or PEM), and to text.
//
// One algorithm per (parameter set, structure, output); the context records
// which, so the functions below are shared and only newctx and
// does_selection are stamped out per algorithm.
#include "encoders/codec.h"
#include "encoders/encoders.h"
#include "encoders/pkcs8_formats.h"
#include "encoders/private_key_info.h"
#include "keymgmt/key.h"
#include "provctx/errors.h"
#include "provctx/param_read.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>

#include <new>
#include <string>
#include <vector>

#ifndef OSSL_PKEY_PARAM_ML_DSA_SEED
#define OSSL_PKEY_PARAM_ML_DSA_SEED "seed"  // OpenSSL 3.5's name; the 3.0 headers lack it
#endif

namespace mldsa::prov {
namespace {

enum class Output : uint8_t { der, pem, text };

struct EncoderCtx {
  ProvCtx* provctx = nullptr;
  mldsa::ParamSet set{};
  Structure structure{};
  Output output{};
  CipherOptions cipher;      // cipher empty: write the private key unencrypted
};

// DER bytes from an i2d call; secret ones are cleansed when freed.
struct Der {
  unsigned char* data = nullptr;
  int len = 0;
  bool secret = false;
  Der() = default;
  Der(const Der&) = delete;
  Der& operator=(const Der&) = delete;
  ~Der() {
    if (secret)
      OPENSSL_clear_free(data, static_cast<size_t>(len > 0 ? len : 0));
    else
      OPENSSL_free(data);
  }
};

// --- SubjectPublicKeyInfo ---------------------------------------------------

bool spki_der(const Key& key, Der& out) {
  const mldsa::PublicKey* pub = key.public_key();
  if (pub == nullptr) {
    MLDSA_RAISE(key.provctx, R_MISSING_KEY);
    return false;
  }
  const auto pk = pub->encoded();
  X509_PUBKEY* xpk = X509_PUBKEY_new();
  ASN1_OBJECT* oid = key_oid(key);
  auto* penc = static_cast<unsigned char*>(OPENSSL_memdup(pk.data(), pk.size()));
  bool ok = xpk != nullptr && oid != nullptr && penc != nullptr &&
            X509_PUBKEY_set0_param(xpk, oid, V_ASN1_UNDEF, nullptr, penc, static_cast<int>(pk.size())) == 1;
  if (ok) {
    oid = nullptr;  // owned by xpk now
    penc = nullptr;
    out.len = i2d_X509_PUBKEY(xpk, &out.data);
    ok = out.len > 0;
  }
  if (!ok) MLDSA_RAISE(key.provctx, R_INTERNAL_ERROR);
  OPENSSL_free(penc);
  ASN1_OBJECT_free(oid);
  X509_PUBKEY_free(xpk);
  return ok;
}

// --- PrivateKeyInfo ---------------------------------------------------------

// The first format of ml-dsa.output_formats the key can produce (a key loaded
// without its seed cannot write a seed format).
bool choose_output_format(const EncoderCtx& ctx, const mldsa::PrivateKey& priv, P8Format& out) {
  if (priv.params().scheme == mldsa::Scheme::dilithium_r3) {
    out = P8_ROUND3_OUTPUT;  // oqs-provider's sk || pk; the ml-dsa.* settings do not apply
    return true;
  }
  P8FormatList formats;
  if (!p8_parse_format_list(ctx.provctx ? ctx.provctx->settings.output_formats : std::string(), formats)) {
    MLDSA_RAISE_DETAIL(ctx.provctx, R_UNKNOWN_FORMAT, "ml-dsa.output_formats names no known format");
    return false;
  }
  for (P8Format f : formats.view()) {
    if (!p8_format_has_seed(f) || priv.has_seed()) {
      out = f;
      return true;
    }
  }
  MLDSA_RAISE_DETAIL(ctx.provctx, R_MISSING_KEY, "every format in ml-dsa.output_formats needs the seed, which this key lacks");
  return false;
}

// The privateKey OCTET STRING's content in the chosen layout, and the
// publicKey [1] to write (pkcs8_public_key = yes: PKCS#8 v2, else none).
// The caller cleanses payload.
bool p8_parts(const EncoderCtx& ctx, const Key& key, std::vector<uint8_t>& payload,
              std::span<const uint8_t>& pk) {
  if (!key.has_private()) {
    MLDSA_RAISE(ctx.provctx, R_MISSING_KEY);
    return false;
  }
  const mldsa::PrivateKey& priv = *key.priv;
  P8Format format;
  if (!choose_output_format(ctx, priv, format)) return false;
  if (!p8_write(*key.params, format, priv.seed(), priv.encoded(), priv.public_key().encoded(), payload)) {
    MLDSA_RAISE(ctx.provctx, R_INTERNAL_ERROR);
    return false;
  }
  const bool v2 = ctx.provctx != nullptr && ctx.provctx->settings.pkcs8_public_key;
  pk = v2 ? priv.public_key().encoded() : std::span<const uint8_t>{};
  return true;
}

// Version 0 (1 with a public key) and absent AlgorithmIdentifier parameters (RFC 9881).
bool pki_der(const EncoderCtx& ctx, const Key& key, Der& out) {
  std::vector<uint8_t> payload;
  std::span<const uint8_t> pk;
  if (!p8_parts(ctx, key, payload, pk)) return false;
  ASN1_OBJECT* oid = key_oid(key);
  out.secret = true;
  out.len = oid != nullptr ? private_key_info_der(oid, payload, pk, &out.data) : 0;
  OPENSSL_cleanse(payload.data(), payload.size());
  if (out.len <= 0) MLDSA_RAISE(ctx.provctx, R_INTERNAL_ERROR);
  return out.len > 0;
}

// --- EncryptedPrivateKeyInfo ------------------------------------------------

// PKCS#5 v2 (PBES2, PBKDF2) encryption of the PrivateKeyInfo with the cipher
// set on the context and the caller's passphrase, as OpenSSL's own encoders do.
bool epki_der(const EncoderCtx& ctx, const Key& key, OSSL_PASSPHRASE_CALLBACK* cb, void* cbarg, Der& out) {
  std::vector<uint8_t> payload;
  std::span<const uint8_t> pk;
  if (!p8_parts(ctx, key, payload, pk)) return false;
  out.len = encrypted_private_key_info_der(ctx.provctx, ctx.cipher, key_oid(key), payload,
                                           cb, cbarg, &out.data);
  OPENSSL_cleanse(payload.data(), payload.size());
  return out.len > 0;
}

// --- text -------------------------------------------------------------------

bool write_text(BIO* out, const Key& key, int selection) {
  const mldsa::PublicKey* pub = key.public_key();
  if (pub == nullptr) {
    MLDSA_RAISE(key.provctx, R_MISSING_KEY);
    return false;
  }
  const char* name = key.params->name;
  if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0) {
    if (!key.has_private()) {
      MLDSA_RAISE(key.provctx, R_MISSING_KEY);
      return false;
    }
    if (BIO_printf(out, "%s Private-Key:\n", name) <= 0) return false;
    if (key.priv->has_seed() && !print_hex_block(out, "seed:", key.priv->seed())) return false;
    if (!print_hex_block(out, "priv:", key.priv->encoded())) return false;
  } else if (BIO_printf(out, "%s Public-Key:\n", name) <= 0) {
    return false;
  }
  return print_hex_block(out, "pub:", pub->encoded());
}

// --- dispatch ---------------------------------------------------------------

const char* pem_label(Structure s) {
  switch (s) {
    case Structure::spki: return PEM_STRING_PUBLIC;
    case Structure::pki: return PEM_STRING_PKCS8INF;
    case Structure::epki: return PEM_STRING_PKCS8;
    case Structure::text: break;
  }
  return nullptr;
}

bool write_der_or_pem(const EncoderCtx& ctx, BIO* out, const Key& key, OSSL_PASSPHRASE_CALLBACK* cb, void* cbarg) {
  // PrivateKeyInfo with a cipher set means "encrypt it", as PEM_write_bio_PrivateKey asks.
  Structure s = ctx.structure;
  if (s == Structure::pki && !ctx.cipher.cipher.empty()) s = Structure::epki;

  Der der;
  bool ok = false;
  switch (s) {
    case Structure::spki: ok = spki_der(key, der); break;
    case Structure::pki: ok = pki_der(ctx, key, der); break;
    case Structure::epki: ok = epki_der(ctx, key, cb, cbarg, der); break;
    case Structure::text: break;
  }
  if (!ok) return false;
  if (ctx.output == Output::der) return BIO_write(out, der.data, der.len) == der.len;
  return PEM_write_bio(out, pem_label(s), "", der.data, der.len) > 0;
}

template <mldsa::ParamSet S, Structure T, Output O>
void* enc_newctx(void* provctx) {
  auto* ctx = new (std::nothrow) EncoderCtx;
  if (ctx == nullptr) return nullptr;
  ctx->provctx = static_cast<ProvCtx*>(provctx);
  ctx->set = S;
  ctx->structure = T;
  ctx->output = O;
  return ctx;
}

void enc_freectx(void* vctx) { delete static_cast<EncoderCtx*>(vctx); }

const OSSL_PARAM* enc_settable_ctx_params(void*) { return cipher_settable_params(); }

int enc_set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
  auto* ctx = static_cast<EncoderCtx*>(vctx);
  return set_cipher_params(ctx->provctx, params, ctx->cipher) ? 1 : 0;
}

template <Structure T>
int enc_does_selection(void*, int selection) {
  return selection_fits(selection, structure_selection(T)) ? 1 : 0;
}

int enc_encode(void* vctx, OSSL_CORE_BIO* cout, const void* obj, const OSSL_PARAM key_abstract[], int selection,
               OSSL_PASSPHRASE_CALLBACK* cb, void* cbarg) {
  auto* ctx = static_cast<EncoderCtx*>(vctx);
  // Only our own key objects (direct, or through import_object) are encoded.
  if (key_abstract != nullptr || obj == nullptr) {
    MLDSA_RAISE(ctx->provctx, R_MISSING_KEY);
    return 0;
  }
  const auto* key = static_cast<const Key*>(obj);
  if (key->params == nullptr || key->params->id != ctx->set) {
    MLDSA_RAISE(ctx->provctx, R_WRONG_KEY_TYPE);
    return 0;
  }
  BIO* out = bio_from_core(ctx->provctx, cout);
  if (out == nullptr) return 0;
  const bool ok = ctx->output == Output::text ? write_text(out, *key, selection)
                                              : write_der_or_pem(*ctx, out, *key, cb, cbarg);
  BIO_free(out);
  return ok ? 1 : 0;
}

// The core calls import_object when the key lives in another provider: the
// key's exported parameters (seed / priv / pub) become one of our keys.
void* enc_import_object(void* vctx, int selection, const OSSL_PARAM params[]) {
  auto* ctx = static_cast<EncoderCtx*>(vctx);
  bool ok = true;
  auto octets = [&](const char* name) -> std::span<const uint8_t> {
    const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, name);
    std::span<const uint8_t> out;
    if (p != nullptr && !read_octets(ctx->provctx, p, out)) ok = false;
    return out;
  };
  const bool want_priv = (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0;
  const auto seed = want_priv ? octets(OSSL_PKEY_PARAM_ML_DSA_SEED) : std::span<const uint8_t>{};
  const auto priv = want_priv ? octets(OSSL_PKEY_PARAM_PRIV_KEY) : std::span<const uint8_t>{};
  const auto pub = octets(OSSL_PKEY_PARAM_PUB_KEY);
  if (!ok) return nullptr;
  Key* key = key_new(ctx->provctx, ctx->set);
  if (key == nullptr) return nullptr;
  if (!key_from_parts(key, seed, priv, pub)) {
    key_free(key);
    return nullptr;
  }
  return key;
}

void enc_free_object(void* obj) { key_free(static_cast<Key*>(obj)); }

template <mldsa::ParamSet S, Structure T, Output O>
const OSSL_DISPATCH encoder_functions[] = {
    {OSSL_FUNC_ENCODER_NEWCTX, dispatch_fn(&enc_newctx<S, T, O>)},
    {OSSL_FUNC_ENCODER_FREECTX, dispatch_fn(&enc_freectx)},
    {OSSL_FUNC_ENCODER_SET_CTX_PARAMS, dispatch_fn(&enc_set_ctx_params)},
    {OSSL_FUNC_ENCODER_SETTABLE_CTX_PARAMS, dispatch_fn(&enc_settable_ctx_params)},
    {OSSL_FUNC_ENCODER_DOES_SELECTION, dispatch_fn(&enc_does_selection<T>)},
    {OSSL_FUNC_ENCODER_ENCODE, dispatch_fn(&enc_encode)},
    {OSSL_FUNC_ENCODER_IMPORT_OBJECT, dispatch_fn(&enc_import_object)},
    {OSSL_FUNC_ENCODER_FREE_OBJECT, dispatch_fn(&enc_free_object)},
    {0, nullptr},
};

#define MLDSA_PROPS(rest) "provider=mldsa-accel," rest

// Seven encoders per parameter set.
#define MLDSA_ENCODERS(S)                                                                                   \
  {variant(S).names, MLDSA_PROPS("output=der,structure=SubjectPublicKeyInfo"),                            \
   encoder_functions<S, Structure::spki, Output::der>, nullptr},                                            \
  {variant(S).names, MLDSA_PROPS("output=pem,structure=SubjectPublicKeyInfo"),                            \
   encoder_functions<S, Structure::spki, Output::pem>, nullptr},                                            \
  {variant(S).names, MLDSA_PROPS("output=der,structure=PrivateKeyInfo"),                                  \
   encoder_functions<S, Structure::pki, Output::der>, nullptr},                                             \
  {variant(S).names, MLDSA_PROPS("output=pem,structure=PrivateKeyInfo"),                                  \
   encoder_functions<S, Structure::pki, Output::pem>, nullptr},                                             \
  {variant(S).names, MLDSA_PROPS("output=der,structure=EncryptedPrivateKeyInfo"),                         \
   encoder_functions<S, Structure::epki, Output::der>, nullptr},                                            \
  {variant(S).names, MLDSA_PROPS("output=pem,structure=EncryptedPrivateKeyInfo"),                         \
   encoder_functions<S, Structure::epki, Output::pem>, nullptr},                                            \
  {variant(S).names, MLDSA_PROPS("output=text"), encoder_functions<S, Structure::text, Output::text>, nullptr}

}  // namespace

// Names come from the keymgmt's variant table (constant data, initialised
// before this dynamic initialiser runs).
const OSSL_ALGORITHM mldsa_encoder_algorithms[] = {
    MLDSA_ENCODERS(mldsa::ParamSet::ML_DSA_44),
    MLDSA_ENCODERS(mldsa::ParamSet::ML_DSA_65),
    MLDSA_ENCODERS(mldsa::ParamSet::ML_DSA_87),
    MLDSA_ENCODERS(mldsa::ParamSet::DILITHIUM2),
    MLDSA_ENCODERS(mldsa::ParamSet::DILITHIUM3),
    MLDSA_ENCODERS(mldsa::ParamSet::DILITHIUM5),
    {nullptr, nullptr, nullptr, nullptr},
};

}  // namespace mldsa::prov
