// composite_signature.cc - the SIGNATURE operation of the 18 composite ML-DSA algorithms
// (draft-ietf-lamps-pq-composite-sigs-19): the message streams into PH, and at the end
// composite/ signs or verifies M' with the ML-DSA half through the router (so bulk work can
// batch on a GPU) and the traditional half through the library context's EVP.
//
// Entry points: sign/verify (EVP_PKEY_sign: the input is the message, as for ML-DSA),
// digest_sign/verify (EVP_DigestSign, streaming and one-shot; no digest may be named: PH is the
// algorithm's), and the 3.4+ message API. Parameters: "context-string" (the application ctx of
// M'), "deterministic" (the ML-DSA half's rnd = 0; ECDSA and RSA-PSS stay randomized), and the
// "signature" of verify_message_final.
#include "provider/composite_signature.h"

#include "keymgmt/composite_key.h"
#include "provctx/errors.h"
#include "provctx/param_read.h"
#include "provider/instance.h"
#include "provider/signature_common.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <array>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>


namespace mldsa::prov {

namespace {

using composite::Error;

enum class Op : uint8_t { none, sign, verify };

struct SigCtx {
  ProvCtx* provctx = nullptr;
  const composite::Algorithm* alg = nullptr;
  const CompositeKeyData* key = nullptr;  // owned by the EVP_PKEY
  Op op = Op::none;
  uint8_t context[255] = {};
  size_t context_len = 0;
  bool deterministic = false;
  std::vector<uint8_t> signature;  // verify_message_final's
  composite::PreHasher ph;
  bool started = false;
};

SigCtx* ctx_of(void* v) { return static_cast<SigCtx*>(v); }

// The ML-DSA half through the instance's router (the core directly when it has none).
composite::MldsaOps routed_ops(ProvCtx* provctx) {
  composite::MldsaOps ops;
  ops.sign_mu = [](void* arg, const mldsa::PrivateKey& k, const uint8_t mu[mldsa::MU_BYTES], const uint8_t* rnd,
                   uint8_t* sig) { return routed_sign(arg, k, mu, rnd, sig); };
  ops.verify_mu = [](void* arg, const mldsa::PublicKey& k, const uint8_t mu[mldsa::MU_BYTES],
                     std::span<const uint8_t> sig) { return routed_verify(arg, k, mu, sig); };
  ops.arg = static_cast<void*>(provctx);
  return ops;
}

bool ready(SigCtx* c, Op op) {
  if (c == nullptr || c->key == nullptr || c->op != op) {
    MLDSA_RAISE(c != nullptr ? c->provctx : nullptr, R_OPERATION_NOT_INITIALIZED);
    return false;
  }
  return true;
}

bool begin(SigCtx* c) {
  if (c->started) return true;
  const Error e = c->ph.init(libctx_of(c->provctx), c->alg->ph);
  if (e != Error::ok) return MLDSA_RAISE_COMPOSITE(c->provctx, e);
  c->started = true;
  return true;
}

bool absorb(SigCtx* c, const uint8_t* data, size_t len) {
  if (!begin(c)) return false;
  if (!c->ph.update({data, len})) {
    MLDSA_RAISE(c->provctx, R_INTERNAL_ERROR);
    return false;
  }
  return true;
}

// PH(M) of the stream so far; the next update starts a new message.
bool finish(SigCtx* c, uint8_t ph[composite::MAX_PREHASH_BYTES]) {
  if (!begin(c)) return false;
  c->started = false;
  if (!c->ph.final(ph)) {
    MLDSA_RAISE(c->provctx, R_INTERNAL_ERROR);
    return false;
  }
  return true;
}

int sign_ph(SigCtx* c, const uint8_t* ph, uint8_t* sig, size_t* siglen) {
  uint8_t rnd[mldsa::RND_BYTES] = {};
  const uint8_t* r = rnd;
  if (!c->deterministic) {
    ERR_set_mark();
    if (RAND_priv_bytes_ex(libctx_of(c->provctx), rnd, sizeof rnd, 0) <= 0) r = nullptr;  // the OS source
    ERR_pop_to_mark();
  }
  mldsa::Status st = mldsa::Status::ok;
  const Error e = composite::sign(libctx_of(c->provctx), *c->key->key, routed_ops(c->provctx),
                                  {ph, composite::prehash_bytes(c->alg->ph)}, {c->context, c->context_len}, r, sig,
                                  siglen, &st);
  OPENSSL_cleanse(rnd, sizeof rnd);
  if (e != Error::ok) return raise_composite(c->provctx, e, st, OPENSSL_FILE, OPENSSL_LINE, __func__), 0;
  return 1;
}

int verify_ph(SigCtx* c, const uint8_t* ph, const uint8_t* sig, size_t siglen) {
  if (sig == nullptr) {
    MLDSA_RAISE(c->provctx, R_BAD_COMPOSITE_SIGNATURE_LENGTH);
    return 0;
  }
  const Error e = composite::verify(libctx_of(c->provctx), *c->key->key, routed_ops(c->provctx),
                                    {ph, composite::prehash_bytes(c->alg->ph)}, {c->context, c->context_len},
                                    {sig, siglen});
  return e == Error::ok ? 1 : (MLDSA_RAISE_COMPOSITE(c->provctx, e), 0);
}

// True with done set when the caller only asks for the length.
bool sign_output_ok(SigCtx* c, uint8_t* sig, size_t* siglen, size_t sigsize, bool& done) {
  done = false;
  if (!ready(c, Op::sign)) return false;
  const size_t need = c->key->key->max_signature_bytes();
  if (sig == nullptr) {
    *siglen = need;
    done = true;
    return true;
  }
  if (sigsize < need) {
    MLDSA_RAISE(c->provctx, R_BUFFER_TOO_SMALL);
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Parameters

const OSSL_PARAM kSettable[] = {
    OSSL_PARAM_octet_string(OSSL_SIGNATURE_PARAM_CONTEXT_STRING, nullptr, 0),
    OSSL_PARAM_int(OSSL_SIGNATURE_PARAM_DETERMINISTIC, nullptr),
    OSSL_PARAM_octet_string(OSSL_SIGNATURE_PARAM_SIGNATURE, nullptr, 0),
    OSSL_PARAM_END,
};
const OSSL_PARAM kGettable[] = {
    OSSL_PARAM_octet_string(OSSL_SIGNATURE_PARAM_ALGORITHM_ID, nullptr, 0),
    OSSL_PARAM_END,
};
const OSSL_PARAM* settable(void*, void*) { return kSettable; }
const OSSL_PARAM* gettable(void*, void*) { return kGettable; }

int set_params(void* vctx, const OSSL_PARAM params[]) {
  SigCtx* c = ctx_of(vctx);
  if (c == nullptr) return 0;
  if (params == nullptr) return 1;
  const OSSL_PARAM* p;
  if ((p = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_CONTEXT_STRING)) != nullptr) {
    if (c->started) {
      MLDSA_RAISE(c->provctx, R_PARAM_AFTER_UPDATE);
      return 0;
    }
    std::span<const uint8_t> v;
    if (!read_octets(c->provctx, p, v)) return 0;
    if (v.size() > sizeof c->context) {
      MLDSA_RAISE(c->provctx, R_CONTEXT_TOO_LONG);
      return 0;
    }
    if (!v.empty()) std::memcpy(c->context, v.data(), v.size());
    c->context_len = v.size();
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_DETERMINISTIC)) != nullptr) {
    int v = 0;
    if (!read_int(c->provctx, p, v)) return 0;
    c->deterministic = v != 0;
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_SIGNATURE)) != nullptr) {
    std::span<const uint8_t> v;
    if (!read_octets(c->provctx, p, v)) return 0;
    c->signature.assign(v.begin(), v.end());
  }
  return 1;
}

// AlgorithmIdentifier ::= SEQUENCE { OID } with the parameters absent (draft Section 7).
int get_params(void* vctx, OSSL_PARAM params[]) {
  SigCtx* c = ctx_of(vctx);
  if (c == nullptr) return 0;
  return get_algorithm_id_param(c->provctx, params, c->alg->oid);
}

// ---------------------------------------------------------------------------
// Life cycle

template <size_t I>
void* newctx(void* provctx, const char*) {
  SigCtx* c = new (std::nothrow) SigCtx;
  if (c == nullptr) return nullptr;
  c->provctx = static_cast<ProvCtx*>(provctx);
  c->alg = &composite::algorithms()[I];
  return c;
}

void freectx(void* vctx) {
  SigCtx* c = ctx_of(vctx);
  if (c != nullptr) OPENSSL_cleanse(c->context, sizeof c->context);
  delete c;
}

void* dupctx(void* vctx) {
  const SigCtx* c = ctx_of(vctx);
  if (c == nullptr) return nullptr;
  SigCtx* d = new (std::nothrow) SigCtx;
  if (d == nullptr) return nullptr;
  d->provctx = c->provctx;
  d->alg = c->alg;
  d->key = c->key;
  d->op = c->op;
  std::memcpy(d->context, c->context, sizeof d->context);
  d->context_len = c->context_len;
  d->deterministic = c->deterministic;
  d->signature = c->signature;
  d->started = c->started;
  if (!d->ph.copy_from(c->ph)) {
    delete d;
    return nullptr;
  }
  return d;
}

// A key of this very composite (a key of another one, or of ML-DSA, is refused), with the part
// the operation needs; NULL keeps the previous key.
int init(SigCtx* c, void* provkey, const OSSL_PARAM params[], Op op) {
  if (c == nullptr) return 0;
  if (provkey != nullptr) {
    const auto* k = static_cast<const CompositeKeyData*>(provkey);
    if (k->alg != c->alg) {
      MLDSA_RAISE(c->provctx, R_WRONG_COMPOSITE);
      return 0;
    }
    c->key = k;
  }
  if (c->key == nullptr || c->key->key == nullptr || (op == Op::sign && !c->key->key->has_private())) {
    MLDSA_RAISE(c->provctx, R_MISSING_KEY);
    return 0;
  }
  c->op = op;
  c->started = false;
  c->signature.clear();
  return set_params(c, params);
}

int sign_init(void* v, void* k, const OSSL_PARAM p[]) { return init(ctx_of(v), k, p, Op::sign); }
int verify_init(void* v, void* k, const OSSL_PARAM p[]) { return init(ctx_of(v), k, p, Op::verify); }

// PH is the algorithm's own: a digest named by the caller must be that one (CMS on OpenSSL 3.0
// names its SignerInfo digest, which the composite CMS draft makes PH); the message still
// passes whole. Any other digest is refused.
int digest_init(void* v, const char* mdname, void* k, const OSSL_PARAM p[], Op op) {
  SigCtx* c = ctx_of(v);
  if (c == nullptr) return 0;
  if (mdname != nullptr && *mdname != '\0') {
    ERR_set_mark();
    EVP_MD* md = EVP_MD_fetch(libctx_of(c->provctx), mdname, nullptr);
    const bool own = md != nullptr && EVP_MD_is_a(md, composite::prehash_name(c->alg->ph));
    EVP_MD_free(md);
    ERR_pop_to_mark();
    if (!own) {
      MLDSA_RAISE_DETAIL(c->provctx, R_UNSUPPORTED_DIGEST,
                         (std::string("a composite's pre-hash is its own: ") + composite::prehash_name(c->alg->ph))
                             .c_str());
      return 0;
    }
  }
  return init(c, k, p, op);
}
int digest_sign_init(void* v, const char* md, void* k, const OSSL_PARAM p[]) { return digest_init(v, md, k, p, Op::sign); }
int digest_verify_init(void* v, const char* md, void* k, const OSSL_PARAM p[]) {
  return digest_init(v, md, k, p, Op::verify);
}

int sign_oneshot(void* vctx, unsigned char* sig, size_t* siglen, size_t sigsize, const unsigned char* tbs,
                 size_t tbslen) {
  SigCtx* c = ctx_of(vctx);
  bool done;
  if (!sign_output_ok(c, sig, siglen, sigsize, done)) return 0;
  if (done) return 1;
  uint8_t ph[composite::MAX_PREHASH_BYTES];
  c->started = false;
  return absorb(c, tbs, tbslen) && finish(c, ph) ? sign_ph(c, ph, sig, siglen) : 0;
}

int verify_oneshot(void* vctx, const unsigned char* sig, size_t siglen, const unsigned char* tbs, size_t tbslen) {
  SigCtx* c = ctx_of(vctx);
  if (!ready(c, Op::verify)) return 0;
  uint8_t ph[composite::MAX_PREHASH_BYTES];
  c->started = false;
  return absorb(c, tbs, tbslen) && finish(c, ph) ? verify_ph(c, ph, sig, siglen) : 0;
}

int update(void* vctx, const unsigned char* data, size_t len) {
  SigCtx* c = ctx_of(vctx);
  if (c == nullptr || c->key == nullptr || c->op == Op::none) {
    MLDSA_RAISE(c != nullptr ? c->provctx : nullptr, R_OPERATION_NOT_INITIALIZED);
    return 0;
  }
  return absorb(c, data, len) ? 1 : 0;
}

int sign_final(void* vctx, unsigned char* sig, size_t* siglen, size_t sigsize) {
  SigCtx* c = ctx_of(vctx);
  bool done;
  if (!sign_output_ok(c, sig, siglen, sigsize, done)) return 0;
  if (done) return 1;
  uint8_t ph[composite::MAX_PREHASH_BYTES];
  return finish(c, ph) ? sign_ph(c, ph, sig, siglen) : 0;
}

int verify_final(void* vctx, const unsigned char* sig, size_t siglen) {
  SigCtx* c = ctx_of(vctx);
  if (!ready(c, Op::verify)) return 0;
  uint8_t ph[composite::MAX_PREHASH_BYTES];
  return finish(c, ph) ? verify_ph(c, ph, sig, siglen) : 0;
}

int verify_message_final(void* vctx) {
  SigCtx* c = ctx_of(vctx);
  if (!ready(c, Op::verify)) return 0;
  uint8_t ph[composite::MAX_PREHASH_BYTES];
  return finish(c, ph) ? verify_ph(c, ph, c->signature.data(), c->signature.size()) : 0;
}

template <size_t I>
const char** query_key_types() {
  static const char* types[] = {composite::algorithms()[I].name, nullptr};
  return types;
}

template <size_t I>
const OSSL_DISPATCH kFunctions[] = {
    MLDSA_SIGNATURE_FUNCTIONS(I),
    {0, nullptr},
};

template <size_t... I>
std::array<OSSL_ALGORITHM, sizeof...(I) + 1> table(std::index_sequence<I...>) {
  return {{{composite_names(composite::algorithms()[I]), "provider=mldsa-accel", kFunctions<I>,
            "composite ML-DSA (draft-ietf-lamps-pq-composite-sigs), mldsa-accel"}...,
           {nullptr, nullptr, nullptr, nullptr}}};
}

}  // namespace

const OSSL_ALGORITHM* composite_signature_algorithms() {
  static const auto t = table(std::make_index_sequence<composite::ALGORITHM_COUNT>{});
  return t.data();
}

}  // namespace mldsa::prov
