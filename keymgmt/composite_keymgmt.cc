// composite_keymgmt.cc - the KEYMGMT of the 18 composite ML-DSA key types: new, gen, load, has,
// match, validate, dup, import / export ("pub", "priv": the draft's encodings) and parameters.
#include "keymgmt/composite_key.h"
#include "keymgmt/keymgmt_common.h"

#include "provctx/errors.h"
#include "provctx/param_read.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include <array>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#ifndef OSSL_PKEY_PARAM_ML_DSA_SEED
#define OSSL_PKEY_PARAM_ML_DSA_SEED "seed"
#endif

namespace mldsa::prov {

CompositeKeyData* composite_key_new(ProvCtx* ctx, const composite::Algorithm& alg) {
  auto* k = new (std::nothrow) CompositeKeyData;
  if (k == nullptr) return nullptr;
  k->provctx = ctx;
  k->alg = &alg;
  return k;
}

void composite_key_free(CompositeKeyData* k) { delete k; }

bool raise_composite(const ProvCtx* ctx, composite::Error e, mldsa::Status st, const char* file, int line,
                     const char* func) {
  using composite::Error;
  int reason = R_INTERNAL_ERROR;
  const char* detail = nullptr;
  switch (e) {
    case Error::ok: return true;
    case Error::bad_public_key:
    case Error::bad_private_key: reason = R_BAD_COMPOSITE_KEY; detail = composite::error_string(e); break;
    case Error::wrong_trad_params: reason = R_WRONG_TRADITIONAL_KEY; break;
    case Error::pub_priv_mismatch: reason = R_PUB_PRIV_MISMATCH; break;
    case Error::bad_signature_length: reason = R_BAD_COMPOSITE_SIGNATURE_LENGTH; break;
    case Error::context_too_long: reason = R_CONTEXT_TOO_LONG; break;
    case Error::verify_failed: reason = R_VERIFY_FAILED; break;
    case Error::missing_key: reason = R_MISSING_KEY; break;
    case Error::traditional_unavailable: reason = R_TRADITIONAL_UNAVAILABLE; break;
    case Error::traditional_failed: reason = R_TRADITIONAL_FAILED; break;
    case Error::mldsa_failed:
      if (st != mldsa::Status::ok) {
        raise_status(ctx, st, file, line, func);
        return false;
      }
      break;
  }
  raise_error(ctx, reason, file, line, func, detail);
  return false;
}

const char* composite_names(const composite::Algorithm& a) {
  static const auto names = [] {
    std::array<std::string, composite::ALGORITHM_COUNT> out;
    for (size_t i = 0; i < out.size(); ++i) {
      const composite::Algorithm& x = composite::algorithms()[i];
      out[i] = std::string(x.name) + ":" + x.sn + ":" + x.oid;
    }
    return out;
  }();
  return names[static_cast<size_t>(&a - composite::algorithms().data())].c_str();
}

namespace {

using composite::Error;

CompositeKeyData* data_of(void* p) { return static_cast<CompositeKeyData*>(p); }
const CompositeKeyData* data_of(const void* p) { return static_cast<const CompositeKeyData*>(p); }

template <size_t I>
void* km_new(void* provctx) {
  return composite_key_new(static_cast<ProvCtx*>(provctx), composite::algorithms()[I]);
}

void km_free(void* keydata) { composite_key_free(data_of(keydata)); }

void* km_dup(const void* keydata, int selection) {
  const CompositeKeyData* k = data_of(keydata);
  if (k == nullptr) return nullptr;
  CompositeKeyData* d = composite_key_new(k->provctx, *k->alg);
  if (d == nullptr) return nullptr;
  if (k->key != nullptr && (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) != 0) {
    d->key = k->key->dup((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0);
    if (d->key == nullptr) {
      composite_key_free(d);
      return nullptr;
    }
  }
  return d;
}

template <size_t I>
void* km_load(const void* reference, size_t reference_sz) {
  return take_loaded_key<CompositeKeyData>(
      reference, reference_sz, [](const CompositeKeyData& k) { return k.alg == &composite::algorithms()[I]; },
      R_WRONG_COMPOSITE, composite_key_free);
}

template <size_t I>
const char* km_query_operation_name(int operation_id) {
  return operation_id == OSSL_OP_SIGNATURE ? composite::algorithms()[I].name : nullptr;
}

int km_has(const void* keydata, int selection) {
  const CompositeKeyData* k = data_of(keydata);
  if (k == nullptr) return 0;
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return 1;
  if (k->key == nullptr) return 0;
  return (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) == 0 || k->key->has_private() ? 1 : 0;
}

// The public key follows from the private one: comparing it suffices.
int km_match(const void* a, const void* b, int selection) {
  const CompositeKeyData* x = data_of(a);
  const CompositeKeyData* y = data_of(b);
  if (x == nullptr || y == nullptr || x->alg != y->alg) return 0;
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return 1;
  return x->key != nullptr && y->key != nullptr && *x->key == *y->key ? 1 : 0;
}

// Pairwise test: a signature by the private key verifies under the public key.
int km_validate(const void* keydata, int selection, int /*checktype*/) {
  const CompositeKeyData* k = data_of(keydata);
  if (!km_has(k, selection)) {
    MLDSA_RAISE(k != nullptr ? k->provctx : nullptr, R_MISSING_KEY);
    return 0;
  }
  if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) == 0) return 1;
  static const uint8_t msg[] = "composite pairwise test";
  std::vector<uint8_t> sig(k->key->max_signature_bytes());
  size_t len = 0;
  OSSL_LIB_CTX* libctx = libctx_of(k->provctx);
  const auto ops = composite::core_ops();
  Error e = composite::sign_message(libctx, *k->key, ops, msg, {}, nullptr, sig.data(), &len);
  if (e == Error::ok) e = composite::verify_message(libctx, *k->key, ops, msg, {}, {sig.data(), len});
  if (e == Error::verify_failed) e = Error::pub_priv_mismatch;
  return e == Error::ok ? 1 : (MLDSA_RAISE_COMPOSITE(k->provctx, e), 0);
}

}  // namespace

bool composite_key_import(CompositeKeyData* k, int selection, const OSSL_PARAM params[]) {
  if (k == nullptr) return false;
  std::span<const uint8_t> priv, pub;
  if (!import_priv_pub(k->provctx, selection, params, priv, pub)) return false;
  OSSL_LIB_CTX* libctx = libctx_of(k->provctx);
  std::unique_ptr<composite::Key> key;
  Error e = Error::missing_key;
  if (!priv.empty())
    e = composite::Key::from_private(libctx, *k->alg, priv, pub, key);
  else if (!pub.empty())
    e = composite::Key::from_public(libctx, *k->alg, pub, key);
  if (e != Error::ok) return MLDSA_RAISE_COMPOSITE(k->provctx, e);
  k->key = std::move(key);
  return true;
}

namespace {

// "priv": mldsaSeed || tradSK; "pub": mldsaPK || tradPK (with priv: must be the derived one).
int km_import(void* keydata, int selection, const OSSL_PARAM params[]) {
  return composite_key_import(data_of(keydata), selection, params) ? 1 : 0;
}

int km_export(void* keydata, int selection, OSSL_CALLBACK* cb, void* cbarg) {
  const CompositeKeyData* k = data_of(keydata);
  if (k == nullptr || k->key == nullptr || cb == nullptr || (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return 0;
  std::vector<uint8_t> priv;
  if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) != 0 && k->key->has_private()) {
    const Error e = k->key->private_encoding(priv);
    if (e != Error::ok) return MLDSA_RAISE_COMPOSITE(k->provctx, e), 0;
  }
  // The public key always: a composite key holds one.
  const int ok = export_key_parts(
      k->provctx, {{OSSL_PKEY_PARAM_PRIV_KEY, priv}, {OSSL_PKEY_PARAM_PUB_KEY, k->key->public_encoding()}}, cb, cbarg);
  OPENSSL_cleanse(priv.data(), priv.size());
  return ok;
}

const OSSL_PARAM kGettable[] = {
    OSSL_PARAM_int(OSSL_PKEY_PARAM_BITS, nullptr),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_BITS, nullptr),
    OSSL_PARAM_int(OSSL_PKEY_PARAM_MAX_SIZE, nullptr),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_MANDATORY_DIGEST, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, nullptr, 0),
    OSSL_PARAM_END,
};

const OSSL_PARAM* km_gettable_params(void*) { return kGettable; }

// bits: the public key's; security bits: the weaker half's; max-size: the longest signature.
int km_get_params(void* keydata, OSSL_PARAM params[]) {
  const CompositeKeyData* k = data_of(keydata);
  if (k == nullptr) return 0;
  if (k->key == nullptr) return 1;
  const composite::Key& key = *k->key;
  OSSL_PARAM* q;
  const int trad_bits = EVP_PKEY_get_security_bits(key.traditional());
  const int mldsa_bits = static_cast<int>(mldsa::params(k->alg->mldsa).lambda);
  const size_t bits = 8 * key.public_encoding().size();
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_BITS)) != nullptr && !OSSL_PARAM_set_size_t(q, bits)) return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_SECURITY_BITS)) != nullptr &&
      !OSSL_PARAM_set_int(q, trad_bits > 0 && trad_bits < mldsa_bits ? trad_bits : mldsa_bits))
    return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MAX_SIZE)) != nullptr &&
      !OSSL_PARAM_set_size_t(q, key.max_signature_bytes()))
    return 0;
  // "": EVP_DigestSignInit takes no digest (PH is the algorithm's own).
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MANDATORY_DIGEST)) != nullptr && !OSSL_PARAM_set_utf8_string(q, ""))
    return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_PUB_KEY)) != nullptr &&
      !OSSL_PARAM_set_octet_string(q, key.public_encoding().data(), key.public_encoding().size()))
    return 0;
  if ((q = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_PRIV_KEY)) != nullptr && key.has_private()) {
    std::vector<uint8_t> priv;
    const Error e = key.private_encoding(priv);
    const bool ok = e == Error::ok && OSSL_PARAM_set_octet_string(q, priv.data(), priv.size());
    OPENSSL_cleanse(priv.data(), priv.size());
    if (!ok) return e == Error::ok ? 0 : (MLDSA_RAISE_COMPOSITE(k->provctx, e), 0);
  }
  return 1;
}

// Generation: the ML-DSA half from "seed" when given (tests), the traditional half fresh.
struct GenCtx {
  ProvCtx* provctx = nullptr;
  const composite::Algorithm* alg = nullptr;
  uint8_t seed[mldsa::SEED_BYTES] = {};
  size_t seed_len = 0;
  ~GenCtx() { OPENSSL_cleanse(seed, sizeof seed); }
};

const OSSL_PARAM kGenSettable[] = {
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_ML_DSA_SEED, nullptr, 0),
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_PROPERTIES, nullptr, 0),
    OSSL_PARAM_END,
};
const OSSL_PARAM* km_gen_settable_params(void*, void*) { return kGenSettable; }

int km_gen_set_params(void* genctx, const OSSL_PARAM params[]) {
  auto* g = static_cast<GenCtx*>(genctx);
  if (g == nullptr) return 0;
  const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_ML_DSA_SEED);
  if (p != nullptr) {
    std::span<const uint8_t> seed;
    if (!read_octets(g->provctx, p, seed)) return 0;
    if (seed.size() != mldsa::SEED_BYTES) {
      MLDSA_RAISE(g->provctx, R_BAD_SEED_LENGTH);
      return 0;
    }
    std::memcpy(g->seed, seed.data(), seed.size());
    g->seed_len = seed.size();
  }
  return 1;
}

template <size_t I>
void* km_gen_init(void* provctx, int selection, const OSSL_PARAM params[]) {
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) == 0) return nullptr;
  auto* g = new (std::nothrow) GenCtx;
  if (g == nullptr) return nullptr;
  g->provctx = static_cast<ProvCtx*>(provctx);
  g->alg = &composite::algorithms()[I];
  if (!km_gen_set_params(g, params)) {
    delete g;
    return nullptr;
  }
  return g;
}

void* km_gen(void* genctx, OSSL_CALLBACK*, void*) {
  auto* g = static_cast<GenCtx*>(genctx);
  if (g == nullptr) return nullptr;
  CompositeKeyData* k = composite_key_new(g->provctx, *g->alg);
  if (k == nullptr) return nullptr;
  const Error e = composite::Key::generate(libctx_of(g->provctx), *g->alg, {g->seed, g->seed_len}, k->key);
  if (e != Error::ok) {
    MLDSA_RAISE_COMPOSITE(g->provctx, e);
    composite_key_free(k);
    return nullptr;
  }
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
  return {{{composite_names(composite::algorithms()[I]), "provider=mldsa-accel", kFunctions<I>,
            "composite ML-DSA (draft-ietf-lamps-pq-composite-sigs), mldsa-accel"}...,
           {nullptr, nullptr, nullptr, nullptr}}};
}

}  // namespace

const OSSL_ALGORITHM* composite_keymgmt_algorithms() {
  static const auto t = table(std::make_index_sequence<composite::ALGORITHM_COUNT>{});
  return t.data();
}

}  // namespace mldsa::prov
