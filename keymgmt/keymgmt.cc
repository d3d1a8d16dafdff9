// keymgmt.cc - the KEYMGMT dispatch tables: new, gen, load, has, match,
// validate, dup, import / export and the key's parameters.
#include "keymgmt/keymgmt.h"

#include "keymgmt/key.h"
#include "keymgmt/keymgmt_common.h"
#include "provctx/dispatch.h"
#include "provctx/errors.h"
#include "provctx/param_read.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include <cstring>
#include <new>
#include <string>

// Names OpenSSL 3.5 added; the 3.0 headers lack them.
#ifndef OSSL_PKEY_PARAM_ML_DSA_SEED
#define OSSL_PKEY_PARAM_ML_DSA_SEED "seed"
#endif
#ifndef OSSL_PKEY_PARAM_SECURITY_CATEGORY
#define OSSL_PKEY_PARAM_SECURITY_CATEGORY "security-category"
#endif

namespace mldsa::prov {

namespace {

// An octet-string parameter (empty if absent). One of another type, or
// with NULL data, raises a reason naming it and clears ok.
std::span<const uint8_t> octets(const ProvCtx* ctx, const OSSL_PARAM* p, bool& ok) {
  std::span<const uint8_t> out;
  if (p != nullptr && !read_octets(ctx, p, out)) ok = false;
  return out;
}

// ---------------------------------------------------------------------------
// Key objects

template <mldsa::ParamSet S>
void* km_new(void* provctx) {
  return key_new(static_cast<ProvCtx*>(provctx), S);
}

void km_free(void* keydata) { key_free(static_cast<Key*>(keydata)); }

void* km_dup(const void* keydata, int selection) { return key_dup(static_cast<const Key*>(keydata), selection); }

// The decoders' object reference: see key.h.
template <mldsa::ParamSet S>
void* km_load(const void* reference, size_t reference_sz) {
  return take_loaded_key<Key>(
      reference, reference_sz, [](const Key& k) { return k.params->id == S; }, R_WRONG_KEY_TYPE, key_free);
}

const char* km_query_operation_name(int operation_id, mldsa::ParamSet set) {
  return operation_id == OSSL_OP_SIGNATURE ? variant(set).name : nullptr;
}
template <mldsa::ParamSet S>
const char* km_query_operation_name(int operation_id) {
  return km_query_operation_name(operation_id, S);
}

int km_has(const void* keydata, int selection) {
  const Key* k = static_cast<const Key*>(keydata);
  if (k == nullptr) return 0;
  if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0 && !k->has_private()) return 0;
  if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) != 0 && !k->has_public()) return 0;
  return 1;
}

int km_match(const void* keydata1, const void* keydata2, int selection) {
  const Key* a = static_cast<const Key*>(keydata1);
  const Key* b = static_cast<const Key*>(keydata2);
  if (a == nullptr || b == nullptr || a->params != b->params) return 0;
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return 1;
  if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) == 0) {
    // Private part only.
    if (!a->has_private() || !b->has_private()) return 0;
    auto x = a->priv->encoded(), y = b->priv->encoded();
    return x.size() == y.size() && CRYPTO_memcmp(x.data(), y.data(), x.size()) == 0;
  }
  // The public key is a function of the private one: comparing it suffices.
  if (!a->has_public() || !b->has_public()) return 0;
  return *a->public_key() == *b->public_key();
}

// Pairwise test: a signature made with the private key verifies under the
// public key the key carries.
int km_validate(const void* keydata, int selection, int /*checktype*/) {
  const Key* k = static_cast<const Key*>(keydata);
  if (!km_has(k, selection)) {
    MLDSA_RAISE(k != nullptr ? k->provctx : nullptr, R_MISSING_KEY);
    return 0;
  }
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != OSSL_KEYMGMT_SELECT_KEYPAIR) return 1;
  uint8_t mu[mldsa::MU_BYTES] = {'m', 'l', 'd', 's', 'a', '-', 'p', 'c', 't'};
  const uint8_t rnd[mldsa::MAX_RND_BYTES] = {};  // deterministic, either scheme
  uint8_t sig[mldsa::MAX_SIG_BYTES];
  std::span<const uint8_t> sig_view(sig, k->params->sig_bytes);
  mldsa::Status st = mldsa::sign_mu(*k->priv, mu, rnd, sig);
  if (st == mldsa::Status::ok) st = mldsa::verify_mu(*k->public_key(), mu, sig_view);
  if (st != mldsa::Status::ok) {
    MLDSA_RAISE(k->provctx, R_PUB_PRIV_MISMATCH);
    return 0;
  }
  return 1;
}

// ---------------------------------------------------------------------------
// Import / export: seed, priv, pub

const OSSL_PARAM kKeyTypes[] = {
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ML_DSA_SEED, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, nullptr, 0),
    OSSL_PARAM_END,
};

const OSSL_PARAM* km_imexport_types(int selection) {
  return (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0 ? kKeyTypes : nullptr;
}

int km_import(void* keydata, int selection, const OSSL_PARAM params[]) {
  Key* k = static_cast<Key*>(keydata);
  if (k == nullptr) return 0;
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) {
    MLDSA_RAISE_DETAIL(k->provctx, R_NOT_SUPPORTED,
                       "import: the selection names no key part (these keys have no domain parameters)");
    return 0;
  }
  const bool with_private = (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0;
  bool ok = true;
  std::span<const uint8_t> seed, priv, pub;
  if (with_private) {
    seed = octets(k->provctx, OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_ML_DSA_SEED), ok);
    if (ok) priv = octets(k->provctx, OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY), ok);
  }
  if (ok) pub = octets(k->provctx, OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PUB_KEY), ok);
  if (!ok) return 0;
  return key_from_parts(k, seed, priv, pub) ? 1 : 0;
}

int km_export(void* keydata, int selection, OSSL_CALLBACK* cb, void* cbarg) {
  const Key* k = static_cast<const Key*>(keydata);
  if (k == nullptr || cb == nullptr || (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return 0;
  std::span<const uint8_t> seed, priv, pub;
  if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0 && k->has_private()) {
    // Both forms when the seed is known: the receiver picks (prefer_seed).
    if (k->priv->has_seed()) seed = k->priv->seed();
    priv = k->priv->encoded();
  }
  if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) != 0 && k->has_public()) pub = k->public_key()->encoded();
  return export_key_parts(k->provctx,
                          {{OSSL_PKEY_PARAM_ML_DSA_SEED, seed},
                           {OSSL_PKEY_PARAM_PRIV_KEY, priv},
                           {OSSL_PKEY_PARAM_PUB_KEY, pub}},
                          cb, cbarg);
}

// ---------------------------------------------------------------------------
// Key parameters

const OSSL_PARAM kGettable[] = {
    OSSL_PARAM_int(OSSL_PKEY_PARAM_BITS, nullptr),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_BITS, nullptr),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_CATEGORY, nullptr),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_MAX_SIZE, nullptr),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_MANDATORY_DIGEST, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ML_DSA_SEED, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, nullptr, 0),
    OSSL_PARAM_END,
};

const OSSL_PARAM* km_gettable_params(void* /*provctx*/) { return kGettable; }

int km_get_params(void* keydata, OSSL_PARAM params[]) {
  const Key* k = static_cast<const Key*>(keydata);
  if (k == nullptr) return 0;
  const mldsa::Params& p = *k->params;
  OSSL_PARAM* q;
  // Sizes as OpenSSL 3.5 reports them: bits = public key bits, security
  // bits = the collision strength lambda, max-size = the signature size.
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_BITS)) != nullptr &&
      !OSSL_PARAM_set_size_t(q, 8 * p.pk_bytes))
    return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_SECURITY_BITS)) != nullptr &&
      !OSSL_PARAM_set_size_t(q, p.lambda))
    return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_SECURITY_CATEGORY)) != nullptr &&
      !OSSL_PARAM_set_int(q, static_cast<int>(p.security_category)))
    return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MAX_SIZE)) != nullptr &&
      !OSSL_PARAM_set_size_t(q, p.sig_bytes))
    return 0;
  // "" tells EVP_DigestSignInit that no digest goes with ML-DSA.
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MANDATORY_DIGEST)) != nullptr &&
      !OSSL_PARAM_set_utf8_string(q, ""))
    return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_ML_DSA_SEED)) != nullptr && k->has_private() &&
      k->priv->has_seed() && !OSSL_PARAM_set_octet_string(q, k->priv->seed().data(), k->priv->seed().size()))
    return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_PRIV_KEY)) != nullptr && k->has_private() &&
      !OSSL_PARAM_set_octet_string(q, k->priv->encoded().data(), k->priv->encoded().size()))
    return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_PUB_KEY)) != nullptr && k->has_public() &&
      !OSSL_PARAM_set_octet_string(q, k->public_key()->encoded().data(), k->public_key()->encoded().size()))
    return 0;
  return 1;
}

// ---------------------------------------------------------------------------
// Generation

struct GenCtx {
  ProvCtx* provctx = nullptr;
  mldsa::ParamSet set{};
  uint8_t seed[mldsa::SEED_BYTES] = {};
  size_t seed_len = 0;
  std::string propq;  // accepted for OpenSSL compatibility; the core needs no fetches

  ~GenCtx() { OPENSSL_cleanse(seed, sizeof seed); }
};

const OSSL_PARAM kGenSettable[] = {
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ML_DSA_SEED, nullptr, 0),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_PROPERTIES, nullptr, 0),
    OSSL_PARAM_END,
};

const OSSL_PARAM* km_gen_settable_params(void* /*genctx*/, void* /*provctx*/) { return kGenSettable; }

int km_gen_set_params(void* genctx, const OSSL_PARAM params[]) {
  GenCtx* g = static_cast<GenCtx*>(genctx);
  if (g == nullptr) return 0;
  const OSSL_PARAM* p;
  if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_ML_DSA_SEED)) != nullptr) {
    bool ok = true;
    std::span<const uint8_t> seed = octets(g->provctx, p, ok);
    if (!ok) return 0;
    if (seed.size() != mldsa::SEED_BYTES) {
      MLDSA_RAISE(g->provctx, R_BAD_SEED_LENGTH);
      return 0;
    }
    std::memcpy(g->seed, seed.data(), seed.size());
    g->seed_len = seed.size();
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PROPERTIES)) != nullptr) {
    if (!read_utf8(g->provctx, p, g->propq)) return 0;
  }
  return 1;
}

template <mldsa::ParamSet S>
void* km_gen_init(void* provctx, int selection, const OSSL_PARAM params[]) {
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return nullptr;
  GenCtx* g = new (std::nothrow) GenCtx;
  if (g == nullptr) return nullptr;
  g->provctx = static_cast<ProvCtx*>(provctx);
  g->set = S;
  if (!km_gen_set_params(g, params)) {
    delete g;
    return nullptr;
  }
  return g;
}

void* km_gen(void* genctx, OSSL_CALLBACK* /*cb*/, void* /*cbarg*/) {
  GenCtx* g = static_cast<GenCtx*>(genctx);
  if (g == nullptr) return nullptr;
  Key* k = key_new(g->provctx, g->set);
  if (k == nullptr) return nullptr;
  if (!key_generate(k, {g->seed, g->seed_len})) {
    key_free(k);
    return nullptr;
  }
  return k;
}

void km_gen_cleanup(void* genctx) { delete static_cast<GenCtx*>(genctx); }

// ---------------------------------------------------------------------------
// Dispatch tables

template <mldsa::ParamSet S>
const OSSL_DISPATCH kFunctions[] = {
    MLDSA_KEYMGMT_FUNCTIONS(S, km_imexport_types),
    {0, nullptr},
};

// Keys under a HashML-DSA OID (id-hash-ml-dsa-xx-with-sha512). Decoded keys are ML-DSA-xx keys
// marked hash_ml_dsa (so certificates whose signature maps to id-ml-dsa-xx verify); this key
// type exists under the HashML-DSA names so that OpenSSL's decoder chain, which reaches a
// decoder only through a key manager of its name, tries ours for those OIDs. Keys made through
// it directly (EVP_PKEY_fromdata) are bound the same way and sign with HashML-DSA.
template <mldsa::ParamSet S>
void* km_hash_new(void* provctx) {
  Key* k = key_new(static_cast<ProvCtx*>(provctx), S);
  if (k != nullptr) k->hash_ml_dsa = true;
  return k;
}

template <mldsa::ParamSet S>
const char* km_hash_query_operation_name(int operation_id) {
  return operation_id == OSSL_OP_SIGNATURE ? variant(S).hash_oid : nullptr;
}

template <mldsa::ParamSet S>
const OSSL_DISPATCH kHashFunctions[] = {
    MLDSA_FN(OSSL_FUNC_KEYMGMT_NEW, km_hash_new<S>),
    MLDSA_FN(OSSL_FUNC_KEYMGMT_FREE, km_free),
    MLDSA_FN(OSSL_FUNC_KEYMGMT_DUP, km_dup),
    MLDSA_FN(OSSL_FUNC_KEYMGMT_LOAD, km_load<S>),
    MLDSA_FN(OSSL_FUNC_KEYMGMT_QUERY_OPERATION_NAME, km_hash_query_operation_name<S>),
    MLDSA_FN(OSSL_FUNC_KEYMGMT_HAS, km_has),
    MLDSA_FN(OSSL_FUNC_KEYMGMT_MATCH, km_match),
    MLDSA_FN(OSSL_FUNC_KEYMGMT_VALIDATE, km_validate),
    MLDSA_FN(OSSL_FUNC_KEYMGMT_IMPORT, km_import),
    MLDSA_FN(OSSL_FUNC_KEYMGMT_IMPORT_TYPES, km_imexport_types),
    MLDSA_FN(OSSL_FUNC_KEYMGMT_EXPORT, km_export),
    MLDSA_FN(OSSL_FUNC_KEYMGMT_EXPORT_TYPES, km_imexport_types),
    MLDSA_FN(OSSL_FUNC_KEYMGMT_GET_PARAMS, km_get_params),
    MLDSA_FN(OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS, km_gettable_params),
    {0, nullptr},
};

}  // namespace

const OSSL_ALGORITHM mldsa_keymgmt_algorithms[] = {
    {variant(mldsa::ParamSet::ML_DSA_44).names, "provider=mldsa-accel", kFunctions<mldsa::ParamSet::ML_DSA_44>,
     "ML-DSA-44 (FIPS 204), mldsa-accel"},
    {variant(mldsa::ParamSet::ML_DSA_65).names, "provider=mldsa-accel", kFunctions<mldsa::ParamSet::ML_DSA_65>,
     "ML-DSA-65 (FIPS 204), mldsa-accel"},
    {variant(mldsa::ParamSet::ML_DSA_87).names, "provider=mldsa-accel", kFunctions<mldsa::ParamSet::ML_DSA_87>,
     "ML-DSA-87 (FIPS 204), mldsa-accel"},
    {variant(mldsa::ParamSet::DILITHIUM2).names, "provider=mldsa-accel", kFunctions<mldsa::ParamSet::DILITHIUM2>,
     "Dilithium2 (CRYSTALS-Dilithium round 3), mldsa-accel"},
    {variant(mldsa::ParamSet::DILITHIUM3).names, "provider=mldsa-accel", kFunctions<mldsa::ParamSet::DILITHIUM3>,
     "Dilithium3 (CRYSTALS-Dilithium round 3), mldsa-accel"},
    {variant(mldsa::ParamSet::DILITHIUM5).names, "provider=mldsa-accel", kFunctions<mldsa::ParamSet::DILITHIUM5>,
     "Dilithium5 (CRYSTALS-Dilithium round 3), mldsa-accel"},
    {variant(mldsa::ParamSet::ML_DSA_44).hash_names, "provider=mldsa-accel", kHashFunctions<mldsa::ParamSet::ML_DSA_44>,
     "ML-DSA-44 key bound to HashML-DSA with SHA-512, mldsa-accel"},
    {variant(mldsa::ParamSet::ML_DSA_65).hash_names, "provider=mldsa-accel", kHashFunctions<mldsa::ParamSet::ML_DSA_65>,
     "ML-DSA-65 key bound to HashML-DSA with SHA-512, mldsa-accel"},
    {variant(mldsa::ParamSet::ML_DSA_87).hash_names, "provider=mldsa-accel", kHashFunctions<mldsa::ParamSet::ML_DSA_87>,
     "ML-DSA-87 key bound to HashML-DSA with SHA-512, mldsa-accel"},
    {nullptr, nullptr, nullptr, nullptr},
};

}  // namespace mldsa::prov
