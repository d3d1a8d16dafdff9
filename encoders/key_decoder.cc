// key_decoder.cc - DECODER: DER SubjectPublicKeyInfo and PrivateKeyInfo to
// ML-DSA and round-3 Dilithium keys.
//
// Each decoder answers for one parameter set. Input that is not that
// parameter set's key (other DER, another OID, unparseable bytes) is "not
// mine": return 1 without a key, errors discarded, so the chain tries the
// next decoder. Input that carries our OID but bad content is an error: the
// provider reason is raised and 0 returned, which stops the chain with that
// message.
#include "encoders/codec.h"
#include "encoders/encoders.h"
#include "encoders/pkcs8_formats.h"
#include "encoders/private_key_info.h"
#include "keymgmt/key.h"
#include "provctx/errors.h"

#include <openssl/asn1.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/x509.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

namespace mldsa::prov {
namespace {

struct DecoderCtx {
  ProvCtx* provctx = nullptr;
  mldsa::ParamSet set{};
  Structure structure{};
};

enum class Outcome { not_mine, error, key };

// Is alg our parameter set's OID, or its HashML-DSA OID (keys some implementations write under
// id-hash-ml-dsa-xx-with-sha512; hash_bound is then set)? Also checks that parameters are absent,
// which RFC 9881 requires: present ones make our key malformed (an error).
Outcome check_algorithm(const DecoderCtx& ctx, const X509_ALGOR* alg, bool& hash_bound) {
  const ASN1_OBJECT* obj = nullptr;
  int ptype = 0;
  X509_ALGOR_get0(&obj, &ptype, nullptr, alg);
  ASN1_OBJECT* ours = variant_oid(ctx.provctx, ctx.set);
  if (ours == nullptr) return Outcome::error;
  const bool match = obj != nullptr && OBJ_cmp(obj, ours) == 0;
  ASN1_OBJECT_free(ours);
  hash_bound = false;
  if (!match && obj != nullptr && variant(ctx.set).hash_oid != nullptr) {
    ASN1_OBJECT* hash = OBJ_txt2obj(variant(ctx.set).hash_oid, 1);
    hash_bound = hash != nullptr && OBJ_cmp(obj, hash) == 0;
    ASN1_OBJECT_free(hash);
  }
  if (!match && !hash_bound) return Outcome::not_mine;
  if (ptype != V_ASN1_UNDEF) {
    MLDSA_RAISE_DETAIL(ctx.provctx, R_BAD_ENCODING, "AlgorithmIdentifier parameters must be absent");
    return Outcome::error;
  }
  return Outcome::key;
}

Outcome make_key(const DecoderCtx& ctx, std::span<const uint8_t> seed, std::span<const uint8_t> sk,
                 std::span<const uint8_t> pk, bool hash_bound, Key*& out) {
  Key* key = key_new(ctx.provctx, ctx.set);
  if (key == nullptr) return Outcome::error;
  key->hash_ml_dsa = hash_bound;
  if (!key_from_parts(key, seed, sk, pk)) {  // raised the precise reason
    key_free(key);
    return Outcome::error;
  }
  out = key;
  return Outcome::key;
}

// SubjectPublicKeyInfo (parse_spki, codec.h); a count of unused bits over 7 is no BIT STRING.
Outcome decode_spki(const DecoderCtx& ctx, std::span<const uint8_t> der, Key*& out) {
  X509_ALGOR* alg = nullptr;
  std::span<const uint8_t> bits;  // the BIT STRING's contents: unused-bits count, then the key
  const bool parsed = parse_spki(der, alg, bits) && bits[0] <= 7;

  bool hash_bound = false;
  Outcome o = parsed ? check_algorithm(ctx, alg, hash_bound) : Outcome::not_mine;
  if (o == Outcome::key) {
    // A public key is whole bytes: no unused bits in the BIT STRING.
    if (bits[0] != 0) {
      MLDSA_RAISE_DETAIL(ctx.provctx, R_BAD_ENCODING, "public key BIT STRING has unused bits");
      o = Outcome::error;
    } else {
      o = make_key(ctx, {}, {}, bits.subspan(1), hash_bound, out);
    }
  }
  X509_ALGOR_free(alg);
  return o;
}

// PrivateKeyInfo (RFC 5958 OneAsymmetricKey, v1 or v2): the privateKey
// OCTET STRING holds one of the layouts of pkcs8_formats.h, limited to
// ml-dsa.input_formats; a v2 key's publicKey [1] must be the key's own.
Outcome decode_pki(const DecoderCtx& ctx, std::span<const uint8_t> der, Key*& out) {
  ERR_set_mark();
  std::unique_ptr<PrivateKeyInfo> info(PrivateKeyInfo::parse(der));
  ERR_pop_to_mark();
  if (info == nullptr) return Outcome::not_mine;
  bool hash_bound = false;
  Outcome o = check_algorithm(ctx, info->algorithm(), hash_bound);
  if (o != Outcome::key) return o;

  const mldsa::Params& params = mldsa::params(ctx.set);
  std::span<const uint8_t> v2_pk;
  const long version = info->version();
  if (version != 0 && version != 1) {
    MLDSA_RAISE_DETAIL(ctx.provctx, R_BAD_ENCODING, "PrivateKeyInfo version must be 0 (v1) or 1 (v2)");
    return Outcome::error;
  }
  if (info->has_public_key()) {
    if (version != 1) {
      MLDSA_RAISE_DETAIL(ctx.provctx, R_BAD_ENCODING, "a publicKey [1] needs PrivateKeyInfo version 1 (v2)");
      return Outcome::error;
    }
    if (!info->public_key(v2_pk)) {
      MLDSA_RAISE_DETAIL(ctx.provctx, R_BAD_ENCODING, "publicKey [1] BIT STRING has unused bits");
      return Outcome::error;
    }
  }
  const std::span<const uint8_t> bytes = info->private_key();
  const bool round3 = params.scheme == mldsa::Scheme::dilithium_r3;
  P8FormatList allowed, all;
  P8Parts parts;
  if (round3) {
    all = allowed = p8_round3_inputs();  // oqs-provider's layouts; no settings
  } else {
    p8_parse_format_list("", all);
    if (!p8_parse_format_list(ctx.provctx ? ctx.provctx->settings.input_formats : std::string(), allowed)) {
      MLDSA_RAISE_DETAIL(ctx.provctx, R_UNKNOWN_FORMAT, "ml-dsa.input_formats names no known format");
      return Outcome::error;
    }
  }
  if (!p8_recognise(params, bytes, allowed.view(), parts)) {
    // Say whether the layout is known but switched off, or not a layout at all.
    char detail[160];
    if (round3) {
      std::snprintf(detail, sizeof(detail),
                    "a %s private key is an OCTET STRING of sk or of sk || pk; none has %zu bytes with this prefix",
                    variant(ctx.set).name, bytes.size());
      MLDSA_RAISE_DETAIL(ctx.provctx, R_BAD_ENCODING, detail);
    } else if (p8_recognise(params, bytes, all.view(), parts)) {
      std::snprintf(detail, sizeof(detail), "%s %s", params.name, p8_format_name(parts.format));
      MLDSA_RAISE_DETAIL(ctx.provctx, R_FORMAT_NOT_ALLOWED, detail);
    } else {
      std::snprintf(detail, sizeof(detail), "no %s private key layout has %zu bytes with this prefix", params.name,
                    bytes.size());
      MLDSA_RAISE_DETAIL(ctx.provctx, R_BAD_ENCODING, detail);
    }
    return Outcome::error;
  }
  // Both an oqskeypair's pk and a v2 publicKey: they must agree (each is
  // then checked against the private key by key_from_parts).
  if (!parts.pk.empty() && !v2_pk.empty() &&
      (parts.pk.size() != v2_pk.size() || std::memcmp(parts.pk.data(), v2_pk.data(), v2_pk.size()) != 0)) {
    MLDSA_RAISE_DETAIL(ctx.provctx, R_PUB_PRIV_MISMATCH, "publicKey [1] differs from the layout's public key");
    return Outcome::error;
  }
  return make_key(ctx, parts.seed, parts.sk, v2_pk.empty() ? parts.pk : v2_pk, hash_bound, out);
}

template <mldsa::ParamSet S, Structure T>
void* dec_newctx(void* provctx) {
  auto* ctx = new (std::nothrow) DecoderCtx;
  if (ctx == nullptr) return nullptr;
  ctx->provctx = static_cast<ProvCtx*>(provctx);
  ctx->set = S;
  ctx->structure = T;
  return ctx;
}

void dec_freectx(void* vctx) { delete static_cast<DecoderCtx*>(vctx); }

template <Structure T>
int dec_does_selection(void*, int selection) {
  return selection_fits(selection, structure_selection(T)) ? 1 : 0;
}

int dec_decode(void* vctx, OSSL_CORE_BIO* cin, int selection, OSSL_CALLBACK* data_cb, void* data_cbarg,
               OSSL_PASSPHRASE_CALLBACK*, void*) {
  auto* ctx = static_cast<DecoderCtx*>(vctx);
  if (!selection_fits(selection, structure_selection(ctx->structure))) return 1;  // not what was asked for

  BIO* in = bio_from_core(ctx->provctx, cin);
  if (in == nullptr) return 0;
  std::vector<uint8_t> der;
  const bool read = read_der_object(in, der);
  BIO_free(in);

  Key* key = nullptr;
  Outcome o = Outcome::not_mine;
  if (read) o = ctx->structure == Structure::spki ? decode_spki(*ctx, der, key) : decode_pki(*ctx, der, key);
  OPENSSL_cleanse(der.data(), der.size());
  if (o == Outcome::not_mine) return 1;
  if (o == Outcome::error) return 0;

  // The reference is the Key* itself; keymgmt load() takes it and nulls it (see encoders.h).
  const int ok = pass_key_object(variant(ctx->set).name, &key, sizeof(key), data_cb, data_cbarg);
  key_free(key);  // still ours if load() did not take it
  return ok;
}

template <mldsa::ParamSet S, Structure T>
const OSSL_DISPATCH decoder_functions[] = {
    {OSSL_FUNC_DECODER_NEWCTX, dispatch_fn(&dec_newctx<S, T>)},
    {OSSL_FUNC_DECODER_FREECTX, dispatch_fn(&dec_freectx)},
    {OSSL_FUNC_DECODER_DOES_SELECTION, dispatch_fn(&dec_does_selection<T>)},
    {OSSL_FUNC_DECODER_DECODE, dispatch_fn(&dec_decode)},
    {0, nullptr},
};

#define MLDSA_DECODERS(S)                                                                                      \
  {variant(S).names, "provider=mldsa-accel,input=der,structure=SubjectPublicKeyInfo",                         \
   decoder_functions<S, Structure::spki>, nullptr},                                                            \
  {variant(S).names, "provider=mldsa-accel,input=der,structure=PrivateKeyInfo",                               \
   decoder_functions<S, Structure::pki>, nullptr}

#define MLDSA_HASH_DECODERS(S)                                                                                 \
  {variant(S).hash_names, "provider=mldsa-accel,input=der,structure=SubjectPublicKeyInfo",                    \
   decoder_functions<S, Structure::spki>, nullptr},                                                            \
  {variant(S).hash_names, "provider=mldsa-accel,input=der,structure=PrivateKeyInfo",                          \
   decoder_functions<S, Structure::pki>, nullptr}

}  // namespace

const OSSL_ALGORITHM mldsa_decoder_algorithms[] = {
    MLDSA_DECODERS(mldsa::ParamSet::ML_DSA_44),
    MLDSA_DECODERS(mldsa::ParamSet::ML_DSA_65),
    MLDSA_DECODERS(mldsa::ParamSet::ML_DSA_87),
    MLDSA_DECODERS(mldsa::ParamSet::DILITHIUM2),
    MLDSA_DECODERS(mldsa::ParamSet::DILITHIUM3),
    MLDSA_DECODERS(mldsa::ParamSet::DILITHIUM5),
    // The same decoders under the HashML-DSA names: OpenSSL names the data by the key's OID.
    MLDSA_HASH_DECODERS(mldsa::ParamSet::ML_DSA_44),
    MLDSA_HASH_DECODERS(mldsa::ParamSet::ML_DSA_65),
    MLDSA_HASH_DECODERS(mldsa::ParamSet::ML_DSA_87),
    {nullptr, nullptr, nullptr, nullptr},
};

}  // namespace mldsa::prov
