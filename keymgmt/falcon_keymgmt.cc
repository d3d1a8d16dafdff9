// falcon_keymgmt.cc - the Falcon key object and the KEYMGMT of falcon512,
// falconpadded512, falcon1024 and falconpadded1024: new, gen (seed from the
// provider's DRBG), load, has, match, validate, dup, import / export ("priv",
// "pub": the round-3 encodings) and parameters. Falcon runs on the CPU only.
#include "keymgmt/falcon_key.h"
#include "keymgmt/keymgmt_common.h"

#include "provctx/errors.h"
#include "provctx/param_read.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include <array>
#include <new>
#include <string>
#include <utility>

#ifndef OSSL_PKEY_PARAM_SECURITY_CATEGORY
#define OSSL_PKEY_PARAM_SECURITY_CATEGORY "security-category"
#endif

namespace mldsa::prov {

namespace {

// oqs-provider's names, OIDs and code points (its oqs-template/generate.yml).
const FalconVariant kVariants[FALCON_VARIANT_COUNT] = {
    {"falcon512", "falcon512:1.3.9999.3.11", "1.3.9999.3.11", false, 9, 128, 1, 0xfed7,
     "Falcon-512 (round 3), mldsa-accel"},
    {"falconpadded512", "falconpadded512:1.3.9999.3.16", "1.3.9999.3.16", true, 9, 128, 1, 0xfedc,
     "Falcon-padded-512 (round 3), mldsa-accel"},
    {"falcon1024", "falcon1024:1.3.9999.3.14", "1.3.9999.3.14", false, 10, 256, 5, 0xfeda,
     "Falcon-1024 (round 3), mldsa-accel"},
    {"falconpadded1024", "falconpadded1024:1.3.9999.3.19", "1.3.9999.3.19", true, 10, 256, 5, 0xfedf,
     "Falcon-padded-1024 (round 3), mldsa-accel"},
};

bool same_bytes(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::span<const FalconVariant> falcon_variants() { return kVariants; }

FalconKey::~FalconKey() { OPENSSL_cleanse(priv.data(), priv.size()); }

FalconKey* falcon_key_new(ProvCtx* ctx, const FalconVariant& v) {
  auto* k = new (std::nothrow) FalconKey;
  if (k == nullptr) return nullptr;
  k->provctx = ctx;
  k->variant = &v;
  return k;
}

void falcon_key_free(FalconKey* k) { delete k; }

bool raise_falcon_key_problem(const ProvCtx* ctx, const FalconVariant& v, falcon::Problem p, bool private_key) {
  const falcon::Params& fp = v.params();
  std::string detail = std::string(v.name) + (private_key ? " private key: " : " public key: ");
  int reason = R_BAD_FALCON_KEY;
  switch (p) {
    case falcon::Problem::none: return true;
    case falcon::Problem::bad_length:
      reason = R_BAD_FALCON_KEY_LENGTH;
      detail += "must be " + std::to_string(private_key ? fp.sk_bytes : fp.pk_bytes) + " bytes";
      break;
    case falcon::Problem::ntru_mismatch: reason = R_FALCON_F_MISMATCH; detail.clear(); break;
    default: detail += falcon::problem_string(p); break;
  }
  raise_error(ctx, reason, OPENSSL_FILE, OPENSSL_LINE, __func__, detail.empty() ? nullptr : detail.c_str());
  return false;
}

bool falcon_key_from_parts(FalconKey* k, std::span<const uint8_t> priv, std::span<const uint8_t> pub) {
  const FalconVariant& v = *k->variant;
  const falcon::Params& p = v.params();
  k->priv.clear();
  k->pub.clear();
  if (priv.empty() && pub.empty()) {
    MLDSA_RAISE(k->provctx, R_MISSING_KEY);
    return false;
  }
  if (!pub.empty()) {
    const falcon::Problem pr = falcon::check_public_key(p, pub.data(), pub.size());
    if (pr != falcon::Problem::none) return raise_falcon_key_problem(k->provctx, v, pr, false);
  }
  if (priv.empty()) {
    k->pub.assign(pub.begin(), pub.end());
    return true;
  }
  const falcon::Problem pr = falcon::check_private_key(p, priv.data(), priv.size());
  if (pr != falcon::Problem::none) return raise_falcon_key_problem(k->provctx, v, pr, true);
  std::vector<uint8_t> derived(p.pk_bytes);
  if (!falcon::public_from_private(p, priv.data(), derived.data())) {
    MLDSA_RAISE_DETAIL(k->provctx, R_BAD_FALCON_KEY, "f is not invertible mod q");
    return false;
  }
  if (!pub.empty() && !same_bytes(derived, pub)) {
    MLDSA_RAISE(k->provctx, R_PUB_PRIV_MISMATCH);
    return false;
  }
  k->priv.assign(priv.begin(), priv.end());
  k->pub = std::move(derived);
  return true;
}

namespace {

FalconKey* data_of(void* p) { return static_cast<FalconKey*>(p); }
const FalconKey* data_of(const void* p) { return static_cast<const FalconKey*>(p); }

template <size_t I>
void* km_new(void* provctx) {
  return falcon_key_new(static_cast<ProvCtx*>(provctx), kVariants[I]);
}

void km_free(void* keydata) { falcon_key_free(data_of(keydata)); }

void* km_dup(const void* keydata, int selection) {
  const FalconKey* k = data_of(keydata);
  if (k == nullptr) return nullptr;
  FalconKey* d = falcon_key_new(k->provctx, *k->variant);
  if (d == nullptr) return nullptr;
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0) d->pub = k->pub;
  if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0) d->priv = k->priv;
  return d;
}

template <size_t I>
void* km_load(const void* reference, size_t reference_sz) {
  return take_loaded_key<FalconKey>(
      reference, reference_sz, [](const FalconKey& k) { return k.variant == &kVariants[I]; }, R_WRONG_FALCON_KEY,
      falcon_key_free);
}

template <size_t I>
const char* km_query_operation_name(int operation_id) {
  return operation_id == OSSL_OP_SIGNATURE ? kVariants[I].name : nullptr;
}

int km_has(const void* keydata, int selection) {
  const FalconKey* k = data_of(keydata);
  if (k == nullptr) return 0;
  if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0 && !k->has_private()) return 0;
  if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) != 0 && !k->has_public()) return 0;
  return 1;
}

// The public key is a function of the private one: comparing it suffices, unless only
// the private part is asked for.
int km_match(const void* a, const void* b, int selection) {
  const FalconKey* x = data_of(a);
  const FalconKey* y = data_of(b);
  if (x == nullptr || y == nullptr || x->variant != y->variant) return 0;
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return 1;
  if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) == 0)
    return x->has_private() && y->has_private() && same_bytes(x->priv, y->priv) ? 1 : 0;
  return x->has_public() && y->has_public() && same_bytes(x->pub, y->pub) ? 1 : 0;
}

// Pairwise test: a signature by the private key verifies under the public key.
int km_validate(const void* keydata, int selection, int /*checktype*/) {
  const FalconKey* k = data_of(keydata);
  if (!km_has(k, selection)) {
    MLDSA_RAISE(k != nullptr ? k->provctx : nullptr, R_MISSING_KEY);
    return 0;
  }
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != OSSL_KEYMGMT_SELECT_KEYPAIR) return 1;
  const falcon::Params& p = k->variant->params();
  static const uint8_t msg[] = "falcon pairwise test";
  const uint8_t nonce[falcon::NONCE_BYTES] = {}, seed[falcon::SEED_BYTES] = {};  // public data only
  std::vector<uint8_t> sig(k->variant->max_signature_bytes());
  size_t len = 0;
  const bool ok = falcon::sign(p, k->priv.data(), msg, sizeof msg, nonce, seed, k->variant->format(), sig.data(),
                               &len) &&
                  falcon::verify(p, k->pub.data(), msg, sizeof msg, sig.data(), len, k->variant->format());
  if (!ok) MLDSA_RAISE(k->provctx, R_PUB_PRIV_MISMATCH);
  return ok ? 1 : 0;
}

int km_import(void* keydata, int selection, const OSSL_PARAM params[]) {
  FalconKey* k = data_of(keydata);
  if (k == nullptr) return 0;
  std::span<const uint8_t> priv, pub;
  return import_priv_pub(k->provctx, selection, params, priv, pub) && falcon_key_from_parts(k, priv, pub) ? 1 : 0;
}

int km_export(void* keydata, int selection, OSSL_CALLBACK* cb, void* cbarg) {
  const FalconKey* k = data_of(keydata);
  if (k == nullptr || cb == nullptr || (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return 0;
  using Bytes = std::span<const uint8_t>;
  const bool priv = (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0;
  const bool pub = (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) != 0;
  return export_key_parts(k->provctx,
                          {{OSSL_PKEY_PARAM_PRIV_KEY, priv ? Bytes(k->priv) : Bytes()},
                           {OSSL_PKEY_PARAM_PUB_KEY, pub ? Bytes(k->pub) : Bytes()}},
                          cb, cbarg);
}

const OSSL_PARAM kGettable[] = {
    OSSL_PARAM_int(OSSL_PKEY_PARAM_BITS, nullptr),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_BITS, nullptr),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_CATEGORY, nullptr),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_MAX_SIZE, nullptr),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_MANDATORY_DIGEST, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, nullptr, 0),
    OSSL_PARAM_END,
};

const OSSL_PARAM* km_gettable_params(void*) { return kGettable; }

// bits: the public key's, as for ML-DSA; security bits: the NIST category's; max-size:
// the longest signature of the variant's format.
int km_get_params(void* keydata, OSSL_PARAM params[]) {
  const FalconKey* k = data_of(keydata);
  if (k == nullptr) return 0;
  const FalconVariant& v = *k->variant;
  OSSL_PARAM* q;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_BITS)) != nullptr &&
      !OSSL_PARAM_set_size_t(q, 8 * v.params().pk_bytes))
    return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_SECURITY_BITS)) != nullptr &&
      !OSSL_PARAM_set_size_t(q, v.security_bits))
    return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_SECURITY_CATEGORY)) != nullptr &&
      !OSSL_PARAM_set_int(q, v.security_category))
    return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MAX_SIZE)) != nullptr &&
      !OSSL_PARAM_set_size_t(q, v.max_signature_bytes()))
    return 0;
  // "": EVP_DigestSignInit takes no digest (Falcon hashes the message itself).
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MANDATORY_DIGEST)) != nullptr && !OSSL_PARAM_set_utf8_string(q, ""))
    return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_PRIV_KEY)) != nullptr && k->has_private() &&
      !OSSL_PARAM_set_octet_string(q, k->priv.data(), k->priv.size()))
    return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_PUB_KEY)) != nullptr && k->has_public() &&
      !OSSL_PARAM_set_octet_string(q, k->pub.data(), k->pub.size()))
    return 0;
  return 1;
}

// Generation: the 48-byte keygen seed from the provider's DRBG.
struct GenCtx {
  ProvCtx* provctx = nullptr;
  const FalconVariant* variant = nullptr;
};

const OSSL_PARAM kGenSettable[] = {
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_PROPERTIES, nullptr, 0),
    OSSL_PARAM_END,
};
const OSSL_PARAM* km_gen_settable_params(void*, void*) { return kGenSettable; }

// "properties" is accepted for OpenSSL compatibility; the core fetches nothing.
int km_gen_set_params(void* genctx, const OSSL_PARAM params[]) {
  auto* g = static_cast<GenCtx*>(genctx);
  if (g == nullptr) return 0;
  const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PROPERTIES);
  std::string props;
  return p == nullptr || read_utf8(g->provctx, p, props) ? 1 : 0;
}

template <size_t I>
void* km_gen_init(void* provctx, int selection, const OSSL_PARAM params[]) {
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return nullptr;
  auto* g = new (std::nothrow) GenCtx;
  if (g == nullptr) return nullptr;
  g->provctx = static_cast<ProvCtx*>(provctx);
  g->variant = &kVariants[I];
  if (!km_gen_set_params(g, params)) {
    delete g;
    return nullptr;
  }
  return g;
}

void* km_gen(void* genctx, OSSL_CALLBACK*, void*) {
  auto* g = static_cast<GenCtx*>(genctx);
  if (g == nullptr) return nullptr;
  FalconKey* k = falcon_key_new(g->provctx, *g->variant);
  if (k == nullptr) return nullptr;
  const falcon::Params& p = g->variant->params();
  uint8_t seed[falcon::SEED_BYTES];
  if (!private_random(g->provctx, seed, sizeof seed)) {
    falcon_key_free(k);
    return nullptr;
  }
  k->pub.resize(p.pk_bytes);
  k->priv.resize(p.sk_bytes);
  falcon::keygen(p, seed, k->pub.data(), k->priv.data());
  OPENSSL_cleanse(seed, sizeof seed);
  return k;
}

void km_gen_cleanup(void* genctx) { delete static_cast<GenCtx*>(genctx); }

template <size_t I>
const OSSL_DISPATCH kFunctions[] = {
    MLDSA_KEYMGMT_FUNCTIONS(I, priv_pub_types),
    {0, nullptr},
};

template <size_t... I>
std::array<OSSL_ALGORITHM, sizeof...(I) + 1> table(std::index_sequence<I...>) {
  return {{{kVariants[I].names, "provider=mldsa-accel", kFunctions<I>, kVariants[I].description}...,
           {nullptr, nullptr, nullptr, nullptr}}};
}

}  // namespace

const OSSL_ALGORITHM* falcon_keymgmt_algorithms() {
  static const auto t = table(std::make_index_sequence<FALCON_VARIANT_COUNT>{});
  return t.data();
}

}  // namespace mldsa::prov
