// key.cc - the key object: variants, creation from seed / sk / pk with
// OpenSSL 3.5's import rules, generation, duplication.
#include "keymgmt/key.h"

#include "provctx/errors.h"

#include <openssl/core_dispatch.h>
#include <openssl/crypto.h>
#include <openssl/err.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <new>

namespace mldsa::prov {

namespace {

const Variant kVariants[] = {
    {mldsa::ParamSet::ML_DSA_44, "ML-DSA-44:MLDSA44:2.16.840.1.101.3.4.3.17:id-ml-dsa-44",
     "2.16.840.1.101.3.4.3.17", "id-ml-dsa-44", "ML-DSA-44", "2.16.840.1.101.3.4.3.32",
     "HASH-ML-DSA-44-WITH-SHA512:id-hash-ml-dsa-44-with-sha512:2.16.840.1.101.3.4.3.32"},
    {mldsa::ParamSet::ML_DSA_65, "ML-DSA-65:MLDSA65:2.16.840.1.101.3.4.3.18:id-ml-dsa-65",
     "2.16.840.1.101.3.4.3.18", "id-ml-dsa-65", "ML-DSA-65", "2.16.840.1.101.3.4.3.33",
     "HASH-ML-DSA-65-WITH-SHA512:id-hash-ml-dsa-65-with-sha512:2.16.840.1.101.3.4.3.33"},
    {mldsa::ParamSet::ML_DSA_87, "ML-DSA-87:MLDSA87:2.16.840.1.101.3.4.3.19:id-ml-dsa-87",
     "2.16.840.1.101.3.4.3.19", "id-ml-dsa-87", "ML-DSA-87", "2.16.840.1.101.3.4.3.34",
     "HASH-ML-DSA-87-WITH-SHA512:id-hash-ml-dsa-87-with-sha512:2.16.840.1.101.3.4.3.34"},
    // CRYSTALS-Dilithium round 3: oqs-provider's names and OIDs (IBM's arc),
    // which its keys and certificates carry.
    {mldsa::ParamSet::DILITHIUM2, "dilithium2:CRYSTALS-Dilithium2:1.3.6.1.4.1.2.267.7.4.4", "1.3.6.1.4.1.2.267.7.4.4",
     "dilithium2", "dilithium2", nullptr, nullptr},
    {mldsa::ParamSet::DILITHIUM3, "dilithium3:CRYSTALS-Dilithium3:1.3.6.1.4.1.2.267.7.6.5", "1.3.6.1.4.1.2.267.7.6.5",
     "dilithium3", "dilithium3", nullptr, nullptr},
    {mldsa::ParamSet::DILITHIUM5, "dilithium5:CRYSTALS-Dilithium5:1.3.6.1.4.1.2.267.7.8.7", "1.3.6.1.4.1.2.267.7.8.7",
     "dilithium5", "dilithium5", nullptr, nullptr},
};
static_assert(sizeof(kVariants) / sizeof(kVariants[0]) == mldsa::PARAM_SET_COUNT);

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool same_bytes(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

// Re-creates a private key without its seed (ml-dsa.retain_seed = no): the
// core keeps xi in keys made from a seed, so reload from the expanded form.
bool drop_seed(Key* k) {
  std::unique_ptr<mldsa::PrivateKey> plain;
  mldsa::Status st = mldsa::PrivateKey::from_sk(*k->params, k->priv->encoded(), plain);
  if (st != mldsa::Status::ok) {
    MLDSA_RAISE_STATUS(k->provctx, st);
    return false;
  }
  k->priv = std::move(plain);
  return true;
}

bool retain_seed(const Key* k) { return k->provctx == nullptr || k->provctx->settings.retain_seed; }
bool prefer_seed(const Key* k) { return k->provctx == nullptr || k->provctx->settings.prefer_seed; }

}  // namespace

const Variant& variant(mldsa::ParamSet set) { return kVariants[static_cast<int>(set)]; }

const Variant* variant_by_name(std::string_view name) {
  for (const Variant& v : kVariants) {
    std::string_view list = v.names;
    while (!list.empty()) {
      size_t colon = list.find(':');
      if (iequal(list.substr(0, colon), name)) return &v;
      if (colon == std::string_view::npos) break;
      list.remove_prefix(colon + 1);
    }
  }
  return nullptr;
}

Key* key_new(ProvCtx* ctx, mldsa::ParamSet set) {
  Key* k = new (std::nothrow) Key;
  if (k == nullptr) return nullptr;
  k->provctx = ctx;
  k->params = &mldsa::params(set);
  return k;
}

void key_free(Key* k) { delete k; }  // the core's key objects zeroize their secrets

void key_reset(Key* k) {
  k->priv.reset();
  k->pub.reset();
}

Key* key_dup(const Key* k, int selection) {
  if (k == nullptr) return nullptr;
  Key* d = key_new(k->provctx, k->params->id);
  if (d == nullptr) return nullptr;
  d->hash_ml_dsa = k->hash_ml_dsa;
  mldsa::Status st = mldsa::Status::ok;
  if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0 && k->priv) {
    // The core's keys are immutable and not copyable: rebuild from the
    // smallest faithful encoding.
    st = k->priv->has_seed() ? mldsa::PrivateKey::from_seed(*k->params, k->priv->seed(), d->priv)
                             : mldsa::PrivateKey::from_sk(*k->params, k->priv->encoded(), d->priv);
  } else if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) != 0 && k->has_public()) {
    st = mldsa::PublicKey::decode(*k->params, k->public_key()->encoded(), d->pub);
  }
  if (st != mldsa::Status::ok) {
    MLDSA_RAISE_STATUS(k->provctx, st);
    key_free(d);
    return nullptr;
  }
  return d;
}

bool key_from_parts(Key* k, std::span<const uint8_t> seed, std::span<const uint8_t> priv,
                    std::span<const uint8_t> pub) {
  const mldsa::Params& p = *k->params;
  if (!seed.empty() && seed.size() != mldsa::SEED_BYTES) {
    MLDSA_RAISE(k->provctx, R_BAD_SEED_LENGTH);
    return false;
  }
  if (!priv.empty() && priv.size() != p.sk_bytes) {
    MLDSA_RAISE(k->provctx, R_BAD_PRIVATE_KEY_LENGTH);
    return false;
  }
  if (!pub.empty() && pub.size() != p.pk_bytes) {
    MLDSA_RAISE(k->provctx, R_BAD_PUBLIC_KEY_LENGTH);
    return false;
  }
  if (seed.empty() && priv.empty() && pub.empty()) {
    MLDSA_RAISE(k->provctx, R_MISSING_KEY);
    return false;
  }
  key_reset(k);

  mldsa::Status st = mldsa::Status::ok;
  if (!seed.empty() && (priv.empty() || prefer_seed(k))) {
    st = mldsa::PrivateKey::from_seed(p, seed, k->priv);
    if (st == mldsa::Status::ok && !priv.empty() && !same_bytes(k->priv->encoded(), priv)) {
      key_reset(k);
      MLDSA_RAISE(k->provctx, R_SEED_PRIV_MISMATCH);
      return false;
    }
  } else if (!priv.empty()) {
    st = mldsa::PrivateKey::from_sk(p, priv, k->priv);
    if (st == mldsa::Status::ok && !seed.empty()) {
      // prefer_seed = no: the expanded key is loaded, the seed must still agree.
      std::unique_ptr<mldsa::PrivateKey> from_seed;
      st = mldsa::PrivateKey::from_seed(p, seed, from_seed);
      if (st == mldsa::Status::ok && !same_bytes(from_seed->encoded(), priv)) {
        key_reset(k);
        MLDSA_RAISE(k->provctx, R_SEED_PRIV_MISMATCH);
        return false;
      }
      if (st == mldsa::Status::ok) k->priv = std::move(from_seed);  // keeps the seed, same key
    }
  } else {
    st = mldsa::PublicKey::decode(p, pub, k->pub);
  }
  if (st != mldsa::Status::ok) {
    key_reset(k);
    MLDSA_RAISE_STATUS(k->provctx, st);
    return false;
  }
  if (k->priv && !pub.empty() && !same_bytes(k->priv->public_key().encoded(), pub)) {
    key_reset(k);
    MLDSA_RAISE(k->provctx, R_PUB_PRIV_MISMATCH);
    return false;
  }
  if (k->priv && k->priv->has_seed() && !retain_seed(k) && !drop_seed(k)) {
    key_reset(k);
    return false;
  }
  return true;
}

bool key_generate(Key* k, std::span<const uint8_t> seed) {
  const mldsa::Params& p = *k->params;
  key_reset(k);
  mldsa::Status st;
  if (!seed.empty()) {
    if (seed.size() != mldsa::SEED_BYTES) {
      MLDSA_RAISE(k->provctx, R_BAD_SEED_LENGTH);
      return false;
    }
    st = mldsa::PrivateKey::from_seed(p, seed, k->priv);
  } else {
    uint8_t xi[mldsa::SEED_BYTES];
    if (!private_random(k->provctx, xi, sizeof xi)) return false;
    st = mldsa::PrivateKey::from_seed(p, xi, k->priv);
    OPENSSL_cleanse(xi, sizeof xi);
  }
  if (st != mldsa::Status::ok) {
    key_reset(k);
    MLDSA_RAISE_STATUS(k->provctx, st);
    return false;
  }
  if (!retain_seed(k) && !drop_seed(k)) {
    key_reset(k);
    return false;
  }
  return true;
}

}  // namespace mldsa::prov
