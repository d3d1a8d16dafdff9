// signature.cc - ML-DSA, HashML-DSA and round-3 Dilithium signing and
// verification.
//
// One context type serves every entry point OpenSSL has had for signatures:
// sign/verify (EVP_PKEY_sign), digest_sign/verify (EVP_DigestSign, streaming
// and one-shot) and, for cores from 3.4 on, sign_message/verify_message.
// A message is absorbed into mu = H(tr || M', 64) as it streams in, so no
// copy of it is kept; signing then runs the core from mu (mldsa::sign_mu).
//
// HashML-DSA (FIPS 204 Section 5.4) is asked for by name: the parameter
// "hash-ml-dsa" (a hash name, any of FIPS 204's twelve) on an ML-DSA
// context, which works with every EVP entry point on every OpenSSL 3
// version, or the HASH-ML-DSA-xx-WITH-SHA512 algorithms (3.4+ fetch them).
// A digest named anywhere else (EVP_DigestSignInit's md, pkeyutl -digest)
// never switches a pure ML-DSA request to it: that is refused.
#include "provider/signature.h"

#include "keymgmt/key.h"
#include "provctx/dispatch.h"
#include "provctx/errors.h"
#include "provctx/param_read.h"
#include "provctx/provctx.h"
#include "provider/instance.h"
#include "provider/signature_common.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/params.h>

#include <array>
#include <cstring>
#include <new>
#include <string>
#include <vector>

// Parameter names from OpenSSL 3.5 that the 3.0 headers lack (the others: signature_common.h).
#ifndef OSSL_SIGNATURE_PARAM_TEST_ENTROPY
#define OSSL_SIGNATURE_PARAM_TEST_ENTROPY "test-entropy"
#endif
#ifndef OSSL_SIGNATURE_PARAM_MU
#define OSSL_SIGNATURE_PARAM_MU "mu"
#endif
#ifndef OSSL_SIGNATURE_PARAM_MESSAGE_ENCODING
#define OSSL_SIGNATURE_PARAM_MESSAGE_ENCODING "message-encoding"
#endif
// This provider's own: HashML-DSA with the named hash ("SHA2-256", "SHA256",
// "SHA3-512", "SHAKE-128", ...).
#define MLDSA_SIGNATURE_PARAM_HASH_ML_DSA "hash-ml-dsa"

namespace mldsa::prov {

namespace {

// What one dispatch table implements.
struct Algorithm {
  mldsa::ParamSet set;
  bool prehash;       // HashML-DSA with SHA-512 (FIPS 204 Algorithms 4/5)
  const char* names;  // OSSL_ALGORITHM name list
  const char* oid;
  const char* sn;
  const char* ln;
  const char* description;
};

// Pure ML-DSA (and round-3 Dilithium) signs with the key type's own names and OID.
Algorithm pure(mldsa::ParamSet set, const char* description) {
  const Variant& v = variant(set);
  return {set, false, v.names, v.oid, v.sn, v.name, description};
}

// HashML-DSA with SHA-512: the names and OID the key table holds for it
// (names: "HASH-ML-DSA-44-WITH-SHA512:id-hash-ml-dsa-44-with-sha512:<oid>").
Algorithm hashed(mldsa::ParamSet set, const char* description) {
  static const char* const sn[] = {"id-hash-ml-dsa-44-with-sha512", "id-hash-ml-dsa-65-with-sha512",
                                   "id-hash-ml-dsa-87-with-sha512"};
  static const char* const ln[] = {"HASH-ML-DSA-44-WITH-SHA512", "HASH-ML-DSA-65-WITH-SHA512",
                                   "HASH-ML-DSA-87-WITH-SHA512"};
  const Variant& v = variant(set);
  const size_t i = static_cast<size_t>(set);
  return {set, true, v.hash_names, v.hash_oid, sn[i], ln[i], description};
}

constexpr size_t kHashAlgorithms = 3;  // kAlgorithms[3 + i]: the SHA-512 HashML-DSA of kAlgorithms[i]
const Algorithm kAlgorithms[] = {
    pure(mldsa::ParamSet::ML_DSA_44, "ML-DSA-44 (FIPS 204), mldsa-accel"),
    pure(mldsa::ParamSet::ML_DSA_65, "ML-DSA-65 (FIPS 204), mldsa-accel"),
    pure(mldsa::ParamSet::ML_DSA_87, "ML-DSA-87 (FIPS 204), mldsa-accel"),
    hashed(mldsa::ParamSet::ML_DSA_44, "HashML-DSA-44 with SHA-512 (FIPS 204), mldsa-accel"),
    hashed(mldsa::ParamSet::ML_DSA_65, "HashML-DSA-65 with SHA-512 (FIPS 204), mldsa-accel"),
    hashed(mldsa::ParamSet::ML_DSA_87, "HashML-DSA-87 with SHA-512 (FIPS 204), mldsa-accel"),
    pure(mldsa::ParamSet::DILITHIUM2, "Dilithium2 (CRYSTALS-Dilithium round 3), mldsa-accel"),
    pure(mldsa::ParamSet::DILITHIUM3, "Dilithium3 (CRYSTALS-Dilithium round 3), mldsa-accel"),
    pure(mldsa::ParamSet::DILITHIUM5, "Dilithium5 (CRYSTALS-Dilithium round 3), mldsa-accel"),
};
constexpr size_t kAlgorithmCount = sizeof(kAlgorithms) / sizeof(kAlgorithms[0]);

bool is_round3(const Algorithm* a) { return mldsa::params(a->set).scheme == mldsa::Scheme::dilithium_r3; }

enum class Op : uint8_t { none, sign, verify };

// HashML-DSA's running digest: the fetched hash (fetched on first use) and its
// context, owned. Copying makes a deep copy (EVP_MD_CTX_copy_ex); a failed
// one leaves `failed` set, for dupctx to report.
struct Digest {
  EVP_MD* alg = nullptr;
  EVP_MD_CTX* ctx = nullptr;
  bool failed = false;

  Digest() = default;
  Digest(const Digest& o) : alg(o.alg) {
    if (alg != nullptr && EVP_MD_up_ref(alg) != 1) {
      alg = nullptr;
      failed = true;
    }
    if (o.ctx != nullptr && ((ctx = EVP_MD_CTX_new()) == nullptr || EVP_MD_CTX_copy_ex(ctx, o.ctx) != 1)) failed = true;
  }
  Digest& operator=(const Digest&) = delete;
  ~Digest() {
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(alg);
  }
};

struct SigCtx {
  ProvCtx* provctx = nullptr;
  const Algorithm* alg = nullptr;
  std::string propq;
  const Key* key = nullptr;  // owned by the EVP_PKEY, which outlives the operation
  Op op = Op::none;
  // sign_init / verify_init: HashML-DSA's input is the digest (as RSA's is
  // a digest); every other init passes the message itself.
  bool digest_input = false;

  // Parameters (OpenSSL 3.5's names).
  uint8_t context[mldsa::MAX_CONTEXT_BYTES] = {};
  size_t context_len = 0;
  bool deterministic = false;
  bool has_entropy = false;
  uint8_t entropy[mldsa::RND_BYTES] = {};
  bool mu_input = false;  // "mu" = 1: the input is mu itself (external mu)
  int encoding = 1;       // "message-encoding": 1 pure (M' = 0 || |ctx| || ctx || M), 0 raw (M' = M)
  std::vector<uint8_t> signature;  // "signature", for verify_message_final
  // HashML-DSA: the algorithm's SHA-512, or the hash "hash-ml-dsa" named.
  bool prehash = false;
  bool prehash_by_param = false;
  mldsa::HashAlg hash = mldsa::HashAlg::SHA2_512;

  // Streaming state.
  bool started = false;
  mldsa::MuBuilder mu;
  Digest digest;                             // HashML-DSA: the digest of the message
  uint8_t mu_buf[mldsa::MU_BYTES] = {};      // mu_input: the 64 bytes as they arrive
  size_t mu_len = 0;

  SigCtx() = default;
  // dupctx: a copy of every field by value (digest: a deep copy).
  SigCtx(const SigCtx&) = default;
  SigCtx& operator=(const SigCtx&) = delete;
  ~SigCtx() {
    OPENSSL_cleanse(entropy, sizeof entropy);
    OPENSSL_cleanse(mu_buf, sizeof mu_buf);
  }
};

SigCtx* ctx_of(void* vctx) { return static_cast<SigCtx*>(vctx); }

bool require_key(const SigCtx* c) {
  if (c == nullptr || c->key == nullptr || c->op == Op::none) {
    MLDSA_RAISE(c != nullptr ? c->provctx : nullptr, R_OPERATION_NOT_INITIALIZED);
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// mu, incrementally

// The pre-hash from the providers of the application's library context
// (OpenSSL's names are FIPS 204's: "SHA2-512/256", "SHAKE-128", ...). The
// operation's property query often just names this provider (which has no
// digests), so an unqualified fetch follows when it finds nothing.
EVP_MD* fetch_hash(const SigCtx* c) {
  const char* name = mldsa::hash_name(c->hash);
  EVP_MD* md = nullptr;
  if (!c->propq.empty()) {
    ERR_set_mark();
    md = EVP_MD_fetch(c->provctx->libctx, name, c->propq.c_str());
    ERR_pop_to_mark();
  }
  return md != nullptr ? md : EVP_MD_fetch(c->provctx->libctx, name, nullptr);
}

bool is_xof(mldsa::HashAlg h) { return h == mldsa::HashAlg::SHAKE128 || h == mldsa::HashAlg::SHAKE256; }

// What the options say the input is must make sense for the key: round 3 has
// no context string, and a HashML-DSA request cannot also say that the
// input is mu or M' (which would leave the hash unused).
bool options_fit(SigCtx* c) {
  if (c->key->hash_ml_dsa && (c->mu_input || c->encoding == 0)) {
    MLDSA_RAISE_DETAIL(c->provctx, R_HASH_ML_DSA_KEY, "mu = 1 and message-encoding = 0 sign without the pre-hash");
    return false;
  }
  if (is_round3(c->alg) && c->context_len > 0) {
    MLDSA_RAISE(c->provctx, R_CONTEXT_UNSUPPORTED);
    return false;
  }
  if (c->prehash_by_param && (c->mu_input || c->encoding == 0)) {
    MLDSA_RAISE_DETAIL(c->provctx, R_NOT_SUPPORTED,
                       "hash-ml-dsa cannot be combined with mu = 1 or message-encoding = 0");
    return false;
  }
  return true;
}

bool begin_stream(SigCtx* c) {
  if (c->started) return true;
  if (!options_fit(c)) return false;
  const std::span<const uint8_t> tr = c->key->public_key()->tr();
  if (c->mu_input) {
    c->mu_len = 0;
  } else if (c->prehash) {
    if (c->digest.ctx == nullptr && (c->digest.ctx = EVP_MD_CTX_new()) == nullptr) {
      MLDSA_RAISE(c->provctx, R_INTERNAL_ERROR);
      return false;
    }
    if (c->digest.alg == nullptr) c->digest.alg = fetch_hash(c);
    if (c->digest.alg == nullptr || EVP_DigestInit_ex2(c->digest.ctx, c->digest.alg, nullptr) != 1) {
      MLDSA_RAISE_DETAIL(c->provctx, R_UNSUPPORTED_DIGEST, mldsa::hash_name(c->hash));
      return false;
    }
  } else if (c->encoding == 0) {
    c->mu.init_internal(tr);
  } else {
    mldsa::Status st = c->mu.init_message(*c->key->params, tr, {c->context, c->context_len});
    if (st != mldsa::Status::ok) {
      MLDSA_RAISE_STATUS(c->provctx, st);
      return false;
    }
  }
  c->started = true;
  return true;
}

bool absorb(SigCtx* c, const uint8_t* data, size_t len) {
  if (!begin_stream(c)) return false;
  if (len == 0) return true;
  if (c->mu_input) {
    if (len > sizeof c->mu_buf - c->mu_len) {
      MLDSA_RAISE(c->provctx, R_BAD_MU_LENGTH);
      return false;
    }
    std::memcpy(c->mu_buf + c->mu_len, data, len);
    c->mu_len += len;
  } else if (c->prehash) {
    if (EVP_DigestUpdate(c->digest.ctx, data, len) != 1) {
      MLDSA_RAISE(c->provctx, R_INTERNAL_ERROR);
      return false;
    }
  } else {
    c->mu.update({data, len});
  }
  return true;
}

// HashML-DSA: mu from the digest of the message.
bool prehash_mu(SigCtx* c, std::span<const uint8_t> digest, uint8_t mu[mldsa::MU_BYTES]) {
  mldsa::MuBuilder b;
  mldsa::Status st = b.init_prehash(c->key->public_key()->tr(), {c->context, c->context_len}, c->hash, digest);
  if (st != mldsa::Status::ok) {
    MLDSA_RAISE_STATUS(c->provctx, st);
    return false;
  }
  b.final(mu);
  return true;
}

// Ends the stream; the next update starts a new message.
bool finish_mu(SigCtx* c, uint8_t mu[mldsa::MU_BYTES]) {
  if (!begin_stream(c)) return false;
  c->started = false;
  if (c->mu_input) {
    if (c->mu_len != mldsa::MU_BYTES) {
      MLDSA_RAISE(c->provctx, R_BAD_MU_LENGTH);
      return false;
    }
    std::memcpy(mu, c->mu_buf, mldsa::MU_BYTES);
    return true;
  }
  if (c->prehash) {
    // SHAKE-128 and SHAKE-256 give 32 and 64 bytes here (FIPS 204 Section 5.4).
    uint8_t digest[64];
    const size_t want = mldsa::hash_digest_bytes(c->hash);
    unsigned int n = 0;
    const bool ok = is_xof(c->hash) ? EVP_DigestFinalXOF(c->digest.ctx, digest, want) == 1
                                    : EVP_DigestFinal_ex(c->digest.ctx, digest, &n) == 1 && n == want;
    if (!ok) {
      MLDSA_RAISE(c->provctx, R_INTERNAL_ERROR);
      return false;
    }
    return prehash_mu(c, {digest, want}, mu);
  }
  c->mu.final(mu);
  return true;
}

// mu of a whole input given at once (sign / verify / digest_sign one-shot).
bool oneshot_mu(SigCtx* c, const uint8_t* tbs, size_t tbslen, uint8_t mu[mldsa::MU_BYTES]) {
  c->started = false;
  if (c->digest_input && c->prehash && !c->mu_input) return options_fit(c) && prehash_mu(c, {tbs, tbslen}, mu);
  return absorb(c, tbs, tbslen) && finish_mu(c, mu);
}

// ---------------------------------------------------------------------------
// Sign and verify from mu

// The randomness is the key's rnd_bytes (mldsa::sign_mu): FIPS 204's rnd, or
// round 3's rho'' itself.
int sign_from_mu(SigCtx* c, const uint8_t mu[mldsa::MU_BYTES], uint8_t* sig, size_t* siglen) {
  uint8_t rnd[mldsa::MAX_RND_BYTES] = {};
  const uint8_t* r = rnd;  // deterministic: zero bytes
  if (c->has_entropy) {
    r = c->entropy;
  } else if (!c->deterministic) {
    // Hedged: the application's DRBG (a named error when there is none).
    if (!private_random(c->provctx, rnd, c->key->params->rnd_bytes)) return 0;
  }
  // CPU now or a GPU batch (route/router.h); the same bytes either way.
  mldsa::Status st = routed_sign(c->provctx, *c->key->priv, mu, r, sig);
  OPENSSL_cleanse(rnd, sizeof rnd);
  if (st != mldsa::Status::ok) {
    MLDSA_RAISE_STATUS(c->provctx, st);
    return 0;
  }
  *siglen = c->key->params->sig_bytes;
  return 1;
}

// Checks the output buffer; true with *siglen set and done = true when the
// caller only asked for the length.
bool sign_output_ok(SigCtx* c, uint8_t* sig, size_t* siglen, size_t sigsize, bool& done) {
  done = false;
  if (!require_key(c)) return false;
  if (c->op != Op::sign) {
    MLDSA_RAISE(c->provctx, R_OPERATION_NOT_INITIALIZED);
    return false;
  }
  const size_t need = c->key->params->sig_bytes;
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

int verify_from_mu(SigCtx* c, const uint8_t mu[mldsa::MU_BYTES], const uint8_t* sig, size_t siglen) {
  if (sig == nullptr || siglen != c->key->params->sig_bytes) {
    MLDSA_RAISE(c->provctx, R_BAD_SIGNATURE_LENGTH);
    return 0;
  }
  mldsa::Status st = routed_verify(c->provctx, *c->key->public_key(), mu, {sig, siglen});
  if (st != mldsa::Status::ok) {
    MLDSA_RAISE_STATUS(c->provctx, st);
    return 0;
  }
  return 1;
}

bool verify_ready(SigCtx* c) {
  if (!require_key(c)) return false;
  if (c->op != Op::verify) {
    MLDSA_RAISE(c->provctx, R_OPERATION_NOT_INITIALIZED);
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Parameters

const OSSL_PARAM kGettable[] = {
    OSSL_PARAM_octet_string(OSSL_SIGNATURE_PARAM_ALGORITHM_ID, nullptr, 0),
    OSSL_PARAM_END,
};

const OSSL_PARAM* sig_gettable_ctx_params(void* /*vctx*/, void* /*provctx*/) { return kGettable; }

// Typed readers of one parameter: a parameter of another type, or with NULL
// data, raises a reason with its name (provctx/param_read.h).
bool octet_param(const SigCtx* c, const OSSL_PARAM* p, std::span<const uint8_t>& out) {
  return read_octets(c->provctx, p, out);
}

bool int_param(const SigCtx* c, const OSSL_PARAM* p, int& out) { return read_int(c->provctx, p, out); }

// A context string is part of M' only for pure ML-DSA and HashML-DSA with
// message-encoding 1: with message-encoding 0 (the input is M' itself) or
// mu 1 (the input is mu) it is accepted and not used, as OpenSSL 3.5 does.
// The settable parameters, one setter each (OpenSSL 3.5's names).
bool set_context(SigCtx* c, const OSSL_PARAM* p) {
  std::span<const uint8_t> v;
  if (!octet_param(c, p, v)) return false;
  if (v.size() > mldsa::MAX_CONTEXT_BYTES) {
    MLDSA_RAISE(c->provctx, R_CONTEXT_TOO_LONG);
    return false;
  }
  if (!v.empty()) std::memcpy(c->context, v.data(), v.size());
  c->context_len = v.size();
  return true;
}

bool set_deterministic(SigCtx* c, const OSSL_PARAM* p) {
  int v = 0;
  if (!int_param(c, p, v)) return false;
  c->deterministic = v != 0;
  return true;
}

bool set_test_entropy(SigCtx* c, const OSSL_PARAM* p) {
  std::span<const uint8_t> v;
  if (!octet_param(c, p, v)) return false;
  if (is_round3(c->alg)) {
    // Round 3 would use it as rho'' itself, the same for every message,
    // which reveals the key.
    MLDSA_RAISE_DETAIL(c->provctx, R_NOT_SUPPORTED,
                       "test-entropy: round-3 Dilithium takes deterministic or fresh randomness only");
    return false;
  }
  if (v.size() != mldsa::RND_BYTES) {
    MLDSA_RAISE(c->provctx, R_BAD_ENTROPY_LENGTH);
    return false;
  }
  std::memcpy(c->entropy, v.data(), v.size());
  c->has_entropy = true;
  return true;
}

bool set_mu(SigCtx* c, const OSSL_PARAM* p) {
  int v = 0;
  if (!int_param(c, p, v)) return false;
  c->mu_input = v != 0;
  return true;
}

bool set_message_encoding(SigCtx* c, const OSSL_PARAM* p) {
  int v = 0;
  if (!int_param(c, p, v)) return false;
  if (v != 0 && v != 1) {
    MLDSA_RAISE(c->provctx, R_BAD_MESSAGE_ENCODING);
    return false;
  }
  c->encoding = v;
  return true;
}

bool set_signature(SigCtx* c, const OSSL_PARAM* p) {
  std::span<const uint8_t> v;
  if (!octet_param(c, p, v)) return false;
  c->signature.assign(v.begin(), v.end());
  return true;
}

bool set_hash_ml_dsa(SigCtx* c, const OSSL_PARAM* p) {
  std::string name;
  mldsa::HashAlg h;
  if (!read_utf8(c->provctx, p, name)) return false;
  if (is_round3(c->alg)) {
    MLDSA_RAISE(c->provctx, R_PREHASH_UNSUPPORTED);
    return false;
  }
  if (!mldsa::hash_from_name(name.c_str(), h)) {
    MLDSA_RAISE_DETAIL(c->provctx, R_UNSUPPORTED_DIGEST,
                       ("hash-ml-dsa: '" + name +
                        "' is none of FIPS 204's hashes (SHA2-224, SHA2-256, SHA2-384, SHA2-512, SHA2-512/224, "
                        "SHA2-512/256, SHA3-224, SHA3-256, SHA3-384, SHA3-512, SHAKE-128, SHAKE-256)")
                           .c_str());
    return false;
  }
  if ((c->alg->prehash || (c->key != nullptr && c->key->hash_ml_dsa)) && h != mldsa::HashAlg::SHA2_512) {
    MLDSA_RAISE_DETAIL(c->provctx, R_UNSUPPORTED_DIGEST, "hash-ml-dsa: this algorithm's hash is SHA2-512");
    return false;
  }
  if (h != c->hash) {
    EVP_MD_free(c->digest.alg);
    c->digest.alg = nullptr;
    c->hash = h;
  }
  c->prehash = true;
  c->prehash_by_param = !c->alg->prehash;
  return true;
}

// Every settable parameter, once: set_ctx_params applies them in this order,
// settable_ctx_params lists them from here.
struct SigParam {
  const char* name;
  unsigned int data_type;  // OSSL_PARAM_*
  bool shapes_message;     // part of M' (or what the input is): fixed once data has arrived
  bool (*set)(SigCtx* c, const OSSL_PARAM* p);
};
const SigParam kSigParams[] = {
    {OSSL_SIGNATURE_PARAM_CONTEXT_STRING, OSSL_PARAM_OCTET_STRING, true, set_context},
    {OSSL_SIGNATURE_PARAM_DETERMINISTIC, OSSL_PARAM_INTEGER, false, set_deterministic},
    {OSSL_SIGNATURE_PARAM_TEST_ENTROPY, OSSL_PARAM_OCTET_STRING, false, set_test_entropy},
    {OSSL_SIGNATURE_PARAM_MU, OSSL_PARAM_INTEGER, true, set_mu},
    {OSSL_SIGNATURE_PARAM_MESSAGE_ENCODING, OSSL_PARAM_INTEGER, true, set_message_encoding},
    {OSSL_SIGNATURE_PARAM_SIGNATURE, OSSL_PARAM_OCTET_STRING, false, set_signature},
    {MLDSA_SIGNATURE_PARAM_HASH_ML_DSA, OSSL_PARAM_UTF8_STRING, true, set_hash_ml_dsa},
};

const OSSL_PARAM* sig_settable_ctx_params(void* /*vctx*/, void* /*provctx*/) {
  static const auto settable = [] {
    std::array<OSSL_PARAM, std::size(kSigParams) + 1> out{};
    for (size_t i = 0; i < std::size(kSigParams); ++i) {
      const SigParam& row = kSigParams[i];
      // An int's size is part of its description, as OSSL_PARAM_int() gives it.
      out[i] = {row.name, row.data_type, nullptr, row.data_type == OSSL_PARAM_INTEGER ? sizeof(int) : 0,
                OSSL_PARAM_UNMODIFIED};
    }
    out.back() = OSSL_PARAM_construct_end();
    return out;
  }();
  return settable.data();
}

int sig_set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
  SigCtx* c = ctx_of(vctx);
  if (c == nullptr) return 0;
  if (params == nullptr) return 1;
  if (c->started) {
    for (const SigParam& row : kSigParams) {
      if (row.shapes_message && OSSL_PARAM_locate_const(params, row.name) != nullptr) {
        MLDSA_RAISE(c->provctx, R_PARAM_AFTER_UPDATE);
        return 0;
      }
    }
  }
  for (const SigParam& row : kSigParams) {
    const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, row.name);
    if (p != nullptr && !row.set(c, p)) return 0;
  }
  return 1;
}

// The AlgorithmIdentifier of what the context signs: the algorithm's own, or
// for hash-ml-dsa with SHA2-512 RFC 9881's id-hash-ml-dsa-xx-with-sha512.
// HashML-DSA with another hash has no OID, so no certificate can say it.
int sig_get_ctx_params(void* vctx, OSSL_PARAM params[]) {
  SigCtx* c = ctx_of(vctx);
  if (c == nullptr) return 0;
  OSSL_PARAM* p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_ALGORITHM_ID);
  if (p != nullptr) {
    const Algorithm* a = c->alg;
    if (c->key != nullptr && c->key->hash_ml_dsa && !a->prehash) {
      a = &kAlgorithms[kHashAlgorithms + static_cast<size_t>(a->set)];
    } else if (c->prehash_by_param) {
      if (c->hash != mldsa::HashAlg::SHA2_512) {
        MLDSA_RAISE_DETAIL(c->provctx, R_NOT_SUPPORTED,
                           (std::string("no AlgorithmIdentifier for HashML-DSA with ") + mldsa::hash_name(c->hash))
                               .c_str());
        return 0;
      }
      a = &kAlgorithms[kHashAlgorithms + static_cast<size_t>(a->set)];
    }
    std::vector<uint8_t> aid;
    if (!algorithm_id_der(a->oid, aid)) {
      MLDSA_RAISE(c->provctx, R_INTERNAL_ERROR);
      return 0;
    }
    if (!OSSL_PARAM_set_octet_string(p, aid.data(), aid.size())) return 0;
  }
  return 1;
}

// ---------------------------------------------------------------------------
// Context life cycle

template <size_t A>
void* sig_newctx(void* provctx, const char* propq) {
  SigCtx* c = new (std::nothrow) SigCtx;
  if (c == nullptr) return nullptr;
  c->provctx = static_cast<ProvCtx*>(provctx);
  c->alg = &kAlgorithms[A];
  c->prehash = c->alg->prehash;
  if (propq != nullptr) c->propq = propq;
  return c;
}

void sig_freectx(void* vctx) { delete ctx_of(vctx); }

void* sig_dupctx(void* vctx) {
  const SigCtx* c = ctx_of(vctx);
  if (c == nullptr) return nullptr;
  SigCtx* d = new (std::nothrow) SigCtx(*c);
  if (d != nullptr && d->digest.failed) {
    delete d;
    return nullptr;
  }
  return d;
}

// Every init: the key (NULL keeps the previous one, as EVP's re-init does),
// the operation, then the parameters. A key read under a HashML-DSA OID makes
// the operation HashML-DSA with SHA-512, as the HASH-ML-DSA-xx-WITH-SHA512
// algorithm is; asked for as pure ML-DSA by name (the 3.4+ message API with
// an ML-DSA algorithm), it is refused.
int init(SigCtx* c, void* provkey, const OSSL_PARAM params[], Op op, bool digest_input, bool by_name = false) {
  if (c == nullptr) return 0;
  if (provkey != nullptr) {
    const Key* k = static_cast<const Key*>(provkey);
    if (k->params == nullptr || k->params->id != c->alg->set) {
      MLDSA_RAISE(c->provctx, R_WRONG_KEY_TYPE);
      return 0;
    }
    c->key = k;
  }
  if (c->key == nullptr || (op == Op::sign ? !c->key->has_private() : !c->key->has_public())) {
    MLDSA_RAISE(c->provctx, R_MISSING_KEY);
    return 0;
  }
  if (c->key->hash_ml_dsa && !c->alg->prehash) {
    if (by_name) {
      MLDSA_RAISE_DETAIL(c->provctx, R_HASH_ML_DSA_KEY, "use HASH-ML-DSA-xx-WITH-SHA512 with this key");
      return 0;
    }
    c->prehash = true;
    c->hash = mldsa::HashAlg::SHA2_512;
  } else if (!c->prehash_by_param) {
    c->prehash = c->alg->prehash;
  }
  c->op = op;
  c->digest_input = digest_input;
  c->started = false;
  c->signature.clear();
  return sig_set_ctx_params(c, params);
}

// EVP_DigestSign*: ML-DSA takes the message whole, so no digest may be
// named (not even for hash-ml-dsa, which names its own); the SHA-512
// HashML-DSA algorithms accept a name for their SHA-512.
bool digest_name_ok(SigCtx* c, const char* mdname) {
  if (mdname == nullptr || *mdname == '\0') return true;
  if (c->alg->prehash) {
    ERR_set_mark();
    EVP_MD* md = EVP_MD_fetch(c->provctx->libctx, mdname, nullptr);
    const bool sha512 = md != nullptr && EVP_MD_is_a(md, "SHA2-512");
    EVP_MD_free(md);
    ERR_pop_to_mark();
    if (sha512) return true;
  }
  MLDSA_RAISE(c->provctx, R_UNSUPPORTED_DIGEST);
  return false;
}

// ---------------------------------------------------------------------------
// Entry points

int sig_sign_init(void* vctx, void* provkey, const OSSL_PARAM params[]) {
  return init(ctx_of(vctx), provkey, params, Op::sign, true);
}
int sig_verify_init(void* vctx, void* provkey, const OSSL_PARAM params[]) {
  return init(ctx_of(vctx), provkey, params, Op::verify, true);
}
int sig_message_sign_init(void* vctx, void* provkey, const OSSL_PARAM params[]) {
  return init(ctx_of(vctx), provkey, params, Op::sign, false, true);
}
int sig_message_verify_init(void* vctx, void* provkey, const OSSL_PARAM params[]) {
  return init(ctx_of(vctx), provkey, params, Op::verify, false, true);
}
int sig_digest_sign_init(void* vctx, const char* mdname, void* provkey, const OSSL_PARAM params[]) {
  SigCtx* c = ctx_of(vctx);
  if (c == nullptr || !digest_name_ok(c, mdname)) return 0;
  return init(c, provkey, params, Op::sign, false);
}
int sig_digest_verify_init(void* vctx, const char* mdname, void* provkey, const OSSL_PARAM params[]) {
  SigCtx* c = ctx_of(vctx);
  if (c == nullptr || !digest_name_ok(c, mdname)) return 0;
  return init(c, provkey, params, Op::verify, false);
}

// One-shot sign of tbs: sign, digest_sign.
int sig_sign(void* vctx, unsigned char* sig, size_t* siglen, size_t sigsize, const unsigned char* tbs,
             size_t tbslen) {
  SigCtx* c = ctx_of(vctx);
  bool done;
  if (!sign_output_ok(c, sig, siglen, sigsize, done)) return 0;
  if (done) return 1;
  uint8_t mu[mldsa::MU_BYTES];
  const int ok = oneshot_mu(c, tbs, tbslen, mu) && sign_from_mu(c, mu, sig, siglen);
  OPENSSL_cleanse(mu, sizeof mu);
  return ok;
}

int sig_verify(void* vctx, const unsigned char* sig, size_t siglen, const unsigned char* tbs, size_t tbslen) {
  SigCtx* c = ctx_of(vctx);
  if (!verify_ready(c)) return 0;
  uint8_t mu[mldsa::MU_BYTES];
  return oneshot_mu(c, tbs, tbslen, mu) && verify_from_mu(c, mu, sig, siglen);
}

int sig_update(void* vctx, const unsigned char* data, size_t len) {
  SigCtx* c = ctx_of(vctx);
  if (!require_key(c)) return 0;
  return absorb(c, data, len) ? 1 : 0;
}

int sig_sign_final(void* vctx, unsigned char* sig, size_t* siglen, size_t sigsize) {
  SigCtx* c = ctx_of(vctx);
  bool done;
  if (!sign_output_ok(c, sig, siglen, sigsize, done)) return 0;
  if (done) return 1;
  uint8_t mu[mldsa::MU_BYTES];
  const int ok = finish_mu(c, mu) && sign_from_mu(c, mu, sig, siglen);
  OPENSSL_cleanse(mu, sizeof mu);
  return ok;
}

int sig_digest_verify_final(void* vctx, const unsigned char* sig, size_t siglen) {
  SigCtx* c = ctx_of(vctx);
  if (!verify_ready(c)) return 0;
  uint8_t mu[mldsa::MU_BYTES];
  return finish_mu(c, mu) && verify_from_mu(c, mu, sig, siglen);
}

// verify_message_final: the signature came through the "signature" parameter.
int sig_verify_message_final(void* vctx) {
  SigCtx* c = ctx_of(vctx);
  if (!verify_ready(c)) return 0;
  uint8_t mu[mldsa::MU_BYTES];
  return finish_mu(c, mu) && verify_from_mu(c, mu, c->signature.data(), c->signature.size());
}

template <size_t A>
const char** sig_query_key_types() {
  static const char* types[] = {variant(kAlgorithms[A].set).name, nullptr};
  return types;
}

template <size_t A>
const OSSL_DISPATCH kFunctions[] = {
    MLDSA_FN(OSSL_FUNC_SIGNATURE_NEWCTX, sig_newctx<A>),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_FREECTX, sig_freectx),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_DUPCTX, sig_dupctx),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_SIGN_INIT, sig_sign_init),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_SIGN, sig_sign),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_VERIFY_INIT, sig_verify_init),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_VERIFY, sig_verify),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT, sig_digest_sign_init),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_SIGN_UPDATE, sig_update),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_SIGN_FINAL, sig_sign_final),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_SIGN, sig_sign),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_INIT, sig_digest_verify_init),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE, sig_update),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_FINAL, sig_digest_verify_final),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_DIGEST_VERIFY, sig_verify),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS, sig_get_ctx_params),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS, sig_gettable_ctx_params),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS, sig_set_ctx_params),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS, sig_settable_ctx_params),
    // OpenSSL 3.4+ (ignored by older cores).
    MLDSA_FN(OSSL_FUNC_SIGNATURE_QUERY_KEY_TYPES, sig_query_key_types<A>),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_INIT, sig_message_sign_init),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_UPDATE, sig_update),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_FINAL, sig_sign_final),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_INIT, sig_message_verify_init),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_UPDATE, sig_update),
    MLDSA_FN(OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_FINAL, sig_verify_message_final),
    {0, nullptr},
};

template <size_t A>
OSSL_ALGORITHM entry() {
  return {kAlgorithms[A].names, "provider=mldsa-accel", kFunctions<A>, kAlgorithms[A].description};
}

}  // namespace

const OSSL_ALGORITHM mldsa_signature_algorithms[] = {
    entry<0>(), entry<1>(), entry<2>(), entry<3>(), entry<4>(), entry<5>(), entry<6>(), entry<7>(), entry<8>(),
    {nullptr, nullptr, nullptr, nullptr},
};
static_assert(kAlgorithmCount == 9);

std::span<const SignatureOid> signature_oids() {
  static const auto oids = [] {
    std::array<SignatureOid, kAlgorithmCount> out{};
    for (size_t i = 0; i < kAlgorithmCount; ++i) {
      const Algorithm& a = kAlgorithms[i];
      out[i] = {a.oid, a.sn, a.ln, variant(a.set).sn};
    }
    return out;
  }();
  return oids;
}

}  // namespace mldsa::prov
