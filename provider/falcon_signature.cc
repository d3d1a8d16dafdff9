// falcon_signature.cc - the SIGNATURE operation of round-3 Falcon (falcon512,
// falconpadded512, falcon1024, falconpadded1024), on the CPU (the GPU router is
// ML-DSA only).
//
// Entry points: sign/verify (EVP_PKEY_sign: the input is the message, as for
// ML-DSA), digest_sign/verify (EVP_DigestSign, one-shot and streaming; no digest
// may be named: Falcon hashes the message itself) and the 3.4+ message API.
// Falcon hashes nonce || message with SHAKE256 and the nonce comes first, so a
// streamed message is kept until the final call. Each signature draws its
// 40-byte nonce and 48-byte sampler seed from the provider's DRBG; its bytes are
// liboqs's OQS_SIG_sign ones: header 0x30 + logn, nonce, compressed s2 (padded
// to 666 / 1280 bytes for the padded variants).
#include "provider/falcon_signature.h"

#include "keymgmt/falcon_key.h"
#include "provctx/errors.h"
#include "provctx/param_read.h"
#include "provider/signature_common.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include <array>
#include <new>
#include <utility>
#include <vector>


namespace mldsa::prov {

namespace {

enum class Op : uint8_t { none, sign, verify };

struct SigCtx {
  ProvCtx* provctx = nullptr;
  const FalconVariant* variant = nullptr;
  const FalconKey* key = nullptr;  // owned by the EVP_PKEY
  Op op = Op::none;
  std::vector<uint8_t> message;    // the streamed message so far
  std::vector<uint8_t> signature;  // verify_message_final's
  ~SigCtx() { OPENSSL_cleanse(message.data(), message.size()); }
};

SigCtx* ctx_of(void* v) { return static_cast<SigCtx*>(v); }

bool ready(SigCtx* c, Op op) {
  if (c == nullptr || c->key == nullptr || c->op != op) {
    MLDSA_RAISE(c != nullptr ? c->provctx : nullptr, R_OPERATION_NOT_INITIALIZED);
    return false;
  }
  return true;
}

// True with done set when the caller only asks for the length.
bool sign_output_ok(SigCtx* c, uint8_t* sig, size_t* siglen, size_t sigsize, bool& done) {
  done = false;
  if (!ready(c, Op::sign)) return false;
  const size_t need = c->variant->max_signature_bytes();
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

int sign_message(SigCtx* c, const uint8_t* msg, size_t len, uint8_t* sig, size_t* siglen) {
  uint8_t rnd[falcon::NONCE_BYTES + falcon::SEED_BYTES];
  if (!private_random(c->provctx, rnd, sizeof rnd)) return 0;
  const bool ok = falcon::sign(c->variant->params(), c->key->priv.data(), msg, len, rnd, rnd + falcon::NONCE_BYTES,
                               c->variant->format(), sig, siglen);
  OPENSSL_cleanse(rnd, sizeof rnd);
  if (!ok) MLDSA_RAISE_DETAIL(c->provctx, R_BAD_FALCON_KEY, "the private key does not decode");
  return ok ? 1 : 0;
}

// The signature's structure first, so that a malformed one gets its own reason.
int verify_message(SigCtx* c, const uint8_t* msg, size_t len, const uint8_t* sig, size_t siglen) {
  const falcon::Params& p = c->variant->params();
  switch (falcon::check_signature(p, sig, siglen, c->variant->format())) {
    case falcon::Problem::none: break;
    case falcon::Problem::bad_length: MLDSA_RAISE(c->provctx, R_BAD_FALCON_SIGNATURE_LENGTH); return 0;
    case falcon::Problem::bad_header: MLDSA_RAISE(c->provctx, R_BAD_FALCON_SIGNATURE_HEADER); return 0;
    case falcon::Problem::trailing_bytes: MLDSA_RAISE(c->provctx, R_FALCON_SIGNATURE_TRAILING_BYTES); return 0;
    default: MLDSA_RAISE(c->provctx, R_MALFORMED_FALCON_SIGNATURE); return 0;
  }
  if (!falcon::verify(p, c->key->pub.data(), msg, len, sig, siglen, c->variant->format())) {
    MLDSA_RAISE(c->provctx, R_VERIFY_FAILED);
    return 0;
  }
  return 1;
}

// ---------------------------------------------------------------------------
// Parameters

const OSSL_PARAM kSettable[] = {
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
  const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_SIGNATURE);
  if (p != nullptr) {
    std::span<const uint8_t> v;
    if (!read_octets(c->provctx, p, v)) return 0;
    c->signature.assign(v.begin(), v.end());
  }
  return 1;
}

// AlgorithmIdentifier ::= SEQUENCE { OID } with the parameters absent, as oqs-provider
// writes it in certificates.
int get_params(void* vctx, OSSL_PARAM params[]) {
  SigCtx* c = ctx_of(vctx);
  if (c == nullptr) return 0;
  return get_algorithm_id_param(c->provctx, params, c->variant->oid);
}

// ---------------------------------------------------------------------------
// Life cycle

template <size_t I>
void* newctx(void* provctx, const char*) {
  SigCtx* c = new (std::nothrow) SigCtx;
  if (c == nullptr) return nullptr;
  c->provctx = static_cast<ProvCtx*>(provctx);
  c->variant = &falcon_variants()[I];
  return c;
}

void freectx(void* vctx) { delete ctx_of(vctx); }

void* dupctx(void* vctx) {
  const SigCtx* c = ctx_of(vctx);
  if (c == nullptr) return nullptr;
  SigCtx* d = new (std::nothrow) SigCtx;
  if (d == nullptr) return nullptr;
  d->provctx = c->provctx;
  d->variant = c->variant;
  d->key = c->key;
  d->op = c->op;
  d->message = c->message;
  d->signature = c->signature;
  return d;
}

// A key of this very variant, with the part the operation needs; NULL keeps the previous key.
int init(SigCtx* c, void* provkey, const OSSL_PARAM params[], Op op) {
  if (c == nullptr) return 0;
  if (provkey != nullptr) {
    const auto* k = static_cast<const FalconKey*>(provkey);
    if (k->variant != c->variant) {
      MLDSA_RAISE(c->provctx, R_WRONG_FALCON_KEY);
      return 0;
    }
    c->key = k;
  }
  if (c->key == nullptr || !c->key->has_public() || (op == Op::sign && !c->key->has_private())) {
    MLDSA_RAISE(c->provctx, R_MISSING_KEY);
    return 0;
  }
  c->op = op;
  OPENSSL_cleanse(c->message.data(), c->message.size());
  c->message.clear();
  c->signature.clear();
  return set_params(c, params);
}

int sign_init(void* v, void* k, const OSSL_PARAM p[]) { return init(ctx_of(v), k, p, Op::sign); }
int verify_init(void* v, void* k, const OSSL_PARAM p[]) { return init(ctx_of(v), k, p, Op::verify); }

// Falcon hashes the message itself (SHAKE256): a digest named by the caller is refused.
int digest_init(void* v, const char* mdname, void* k, const OSSL_PARAM p[], Op op) {
  SigCtx* c = ctx_of(v);
  if (c == nullptr) return 0;
  if (mdname != nullptr && *mdname != '\0') {
    MLDSA_RAISE_DETAIL(c->provctx, R_UNSUPPORTED_DIGEST, "Falcon signs the message itself: name no digest");
    return 0;
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
  return sign_message(c, tbs, tbslen, sig, siglen);
}

int verify_oneshot(void* vctx, const unsigned char* sig, size_t siglen, const unsigned char* tbs, size_t tbslen) {
  SigCtx* c = ctx_of(vctx);
  if (!ready(c, Op::verify)) return 0;
  return verify_message(c, tbs, tbslen, sig, siglen);
}

int update(void* vctx, const unsigned char* data, size_t len) {
  SigCtx* c = ctx_of(vctx);
  if (c == nullptr || c->key == nullptr || c->op == Op::none) {
    MLDSA_RAISE(c != nullptr ? c->provctx : nullptr, R_OPERATION_NOT_INITIALIZED);
    return 0;
  }
  if (len > 0) c->message.insert(c->message.end(), data, data + len);
  return 1;
}

// The streamed message is signed or verified, then forgotten: the next update starts anew.
std::vector<uint8_t> take_message(SigCtx* c) {
  std::vector<uint8_t> m = std::move(c->message);
  c->message.clear();
  return m;
}

int sign_final(void* vctx, unsigned char* sig, size_t* siglen, size_t sigsize) {
  SigCtx* c = ctx_of(vctx);
  bool done;
  if (!sign_output_ok(c, sig, siglen, sigsize, done)) return 0;
  if (done) return 1;
  std::vector<uint8_t> m = take_message(c);
  const int ok = sign_message(c, m.data(), m.size(), sig, siglen);
  OPENSSL_cleanse(m.data(), m.size());
  return ok;
}

int verify_final(void* vctx, const unsigned char* sig, size_t siglen) {
  SigCtx* c = ctx_of(vctx);
  if (!ready(c, Op::verify)) return 0;
  const std::vector<uint8_t> m = take_message(c);
  return verify_message(c, m.data(), m.size(), sig, siglen);
}

int verify_message_final(void* vctx) {
  SigCtx* c = ctx_of(vctx);
  if (!ready(c, Op::verify)) return 0;
  const std::vector<uint8_t> m = take_message(c);
  return verify_message(c, m.data(), m.size(), c->signature.data(), c->signature.size());
}

template <size_t I>
const char** query_key_types() {
  static const char* types[] = {falcon_variants()[I].name, nullptr};
  return types;
}

template <size_t I>
const OSSL_DISPATCH kFunctions[] = {
    MLDSA_SIGNATURE_FUNCTIONS(I),
    {0, nullptr},
};

template <size_t... I>
std::array<OSSL_ALGORITHM, sizeof...(I) + 1> table(std::index_sequence<I...>) {
  return {{{falcon_variants()[I].names, "provider=mldsa-accel", kFunctions<I>, falcon_variants()[I].description}...,
           {nullptr, nullptr, nullptr, nullptr}}};
}

}  // namespace

const OSSL_ALGORITHM* falcon_signature_algorithms() {
  static const auto t = table(std::make_index_sequence<FALCON_VARIANT_COUNT>{});
  return t.data();
}

}  // namespace mldsa::prov
