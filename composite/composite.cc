// composite.cc - composite ML-DSA keys, M', Sign and Verify (draft-ietf-lamps-pq-composite-sigs-19
// Sections 4 and 5): the ML-DSA half through MldsaOps, the traditional half in traditional.cc.
#include "composite/composite.h"

#include "composite/traditional.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <cstring>

namespace mldsa::composite {

namespace {

mldsa::Status core_sign(void*, const mldsa::PrivateKey& key, const uint8_t mu[mldsa::MU_BYTES], const uint8_t* rnd,
                        uint8_t* sig) {
  return mldsa::sign_mu(key, {mu, mldsa::MU_BYTES}, rnd, sig);
}

mldsa::Status core_verify(void*, const mldsa::PublicKey& key, const uint8_t mu[mldsa::MU_BYTES],
                          std::span<const uint8_t> sig) {
  return mldsa::verify_mu(key, {mu, mldsa::MU_BYTES}, sig);
}

std::span<const uint8_t> label_bytes(const Algorithm& a) {
  return {reinterpret_cast<const uint8_t*>(a.label), std::strlen(a.label)};
}

// mu of ML-DSA.Sign(sk, M', ctx = Label): the pure interface with the label as its context.
void mldsa_mu(const Algorithm& a, const mldsa::PublicKey& pk, std::span<const uint8_t> mprime,
              uint8_t mu[mldsa::MU_BYTES]) {
  mldsa::MuBuilder b;
  (void)b.init_pure(pk.tr(), label_bytes(a));  // a label is far below 255 bytes
  b.update(mprime);
  b.final(mu);
}

}  // namespace

const char* error_string(Error e) {
  switch (e) {
    case Error::ok: return "ok";
    case Error::bad_public_key: return "malformed composite public key";
    case Error::bad_private_key: return "malformed composite private key";
    case Error::wrong_trad_params: return "traditional key of the wrong type, size or curve";
    case Error::pub_priv_mismatch: return "public key does not match the private key";
    case Error::bad_signature_length: return "composite signature of the wrong length";
    case Error::context_too_long: return "context string longer than 255 bytes";
    case Error::verify_failed: return "composite signature did not verify";
    case Error::missing_key: return "key lacks the part the operation needs";
    case Error::traditional_unavailable: return "no implementation of the traditional algorithm";
    case Error::traditional_failed: return "traditional operation failed";
    case Error::mldsa_failed: return "ML-DSA operation failed";
  }
  return "unknown";
}

MldsaOps core_ops() {
  MldsaOps ops;
  ops.sign_mu = core_sign;
  ops.verify_mu = core_verify;
  return ops;
}

// ---------------------------------------------------------------------------
// Keys

Key::~Key() { EVP_PKEY_free(trad_); }

const mldsa::PublicKey& Key::mldsa_public() const {
  return mldsa_priv_ != nullptr ? mldsa_priv_->public_key() : *mldsa_pub_;
}

Error Key::finish_public(OSSL_LIB_CTX*) {
  std::vector<uint8_t> trad;
  Error e = trad_public_encoding(*alg_, trad_, trad);
  if (e != Error::ok) return e;
  const auto pk = mldsa_public().encoded();
  pub_enc_.assign(pk.begin(), pk.end());
  pub_enc_.insert(pub_enc_.end(), trad.begin(), trad.end());
  return Error::ok;
}

Error Key::from_public(OSSL_LIB_CTX* libctx, const Algorithm& alg, std::span<const uint8_t> pub,
                       std::unique_ptr<Key>& out) {
  const mldsa::Params& p = mldsa::params(alg.mldsa);
  if (pub.size() <= p.pk_bytes) return Error::bad_public_key;
  std::unique_ptr<Key> k(new Key);
  k->alg_ = &alg;
  k->libctx_ = libctx;
  if (mldsa::PublicKey::decode(p, pub.first(p.pk_bytes), k->mldsa_pub_) != mldsa::Status::ok)
    return Error::bad_public_key;
  Error e = trad_from_public(libctx, alg, pub.subspan(p.pk_bytes), k->trad_);
  if (e != Error::ok) return e;
  k->pub_enc_.assign(pub.begin(), pub.end());
  out = std::move(k);
  return Error::ok;
}

Error Key::from_private(OSSL_LIB_CTX* libctx, const Algorithm& alg, std::span<const uint8_t> priv,
                        std::span<const uint8_t> pub, std::unique_ptr<Key>& out) {
  const mldsa::Params& p = mldsa::params(alg.mldsa);
  if (priv.size() <= mldsa::SEED_BYTES) return Error::bad_private_key;
  std::unique_ptr<Key> k(new Key);
  k->alg_ = &alg;
  k->libctx_ = libctx;
  if (mldsa::PrivateKey::from_seed(p, priv.first(mldsa::SEED_BYTES), k->mldsa_priv_) != mldsa::Status::ok)
    return Error::bad_private_key;
  Error e = trad_from_private(libctx, alg, priv.subspan(mldsa::SEED_BYTES), k->trad_);
  if (e == Error::ok) e = k->finish_public(libctx);
  if (e != Error::ok) return e;
  if (!pub.empty() && (pub.size() != k->pub_enc_.size() ||
                       CRYPTO_memcmp(pub.data(), k->pub_enc_.data(), pub.size()) != 0))
    return Error::pub_priv_mismatch;
  out = std::move(k);
  return Error::ok;
}

Error Key::generate(OSSL_LIB_CTX* libctx, const Algorithm& alg, std::span<const uint8_t> seed,
                    std::unique_ptr<Key>& out) {
  const mldsa::Params& p = mldsa::params(alg.mldsa);
  std::unique_ptr<Key> k(new Key);
  k->alg_ = &alg;
  k->libctx_ = libctx;
  const mldsa::Status st = seed.empty() ? mldsa::PrivateKey::generate(p, k->mldsa_priv_)
                                        : mldsa::PrivateKey::from_seed(p, seed, k->mldsa_priv_);
  if (st != mldsa::Status::ok) return seed.empty() ? Error::mldsa_failed : Error::bad_private_key;
  Error e = trad_generate(libctx, alg, k->trad_);
  if (e == Error::ok) e = k->finish_public(libctx);
  if (e != Error::ok) return e;
  out = std::move(k);
  return Error::ok;
}

std::unique_ptr<Key> Key::dup(bool with_private) const {
  std::unique_ptr<Key> k(new Key);
  k->alg_ = alg_;
  k->libctx_ = libctx_;
  k->pub_enc_ = pub_enc_;
  if (with_private && has_private()) {
    if (mldsa::PrivateKey::from_seed(mldsa_priv_->params(), mldsa_priv_->seed(), k->mldsa_priv_) != mldsa::Status::ok)
      return nullptr;
    k->trad_ = EVP_PKEY_dup(trad_);
  } else {
    const auto pk = mldsa_public().encoded();
    if (mldsa::PublicKey::decode(mldsa_public().params(), pk, k->mldsa_pub_) != mldsa::Status::ok) return nullptr;
    // A public-only copy of the traditional key: re-read from its own encoding.
    if (trad_from_public(libctx_, *alg_, std::span<const uint8_t>(pub_enc_).subspan(pk.size()), k->trad_) !=
        Error::ok)
      return nullptr;
  }
  if (k->trad_ == nullptr) return nullptr;
  return k;
}

Error Key::private_encoding(std::vector<uint8_t>& out) const {
  if (!has_private()) return Error::missing_key;
  std::vector<uint8_t> trad;
  Error e = trad_private_encoding(*alg_, trad_, trad);
  if (e != Error::ok) return e;
  const auto seed = mldsa_priv_->seed();
  out.clear();
  out.reserve(seed.size() + trad.size());
  out.assign(seed.begin(), seed.end());
  out.insert(out.end(), trad.begin(), trad.end());
  OPENSSL_cleanse(trad.data(), trad.size());
  return Error::ok;
}

bool Key::operator==(const Key& o) const {
  return alg_ == o.alg_ && pub_enc_.size() == o.pub_enc_.size() &&
         CRYPTO_memcmp(pub_enc_.data(), o.pub_enc_.data(), pub_enc_.size()) == 0;
}

size_t Key::max_signature_bytes() const {
  return mldsa::params(alg_->mldsa).sig_bytes + static_cast<size_t>(EVP_PKEY_get_size(trad_));
}

// ---------------------------------------------------------------------------
// PH(M)

PreHasher::~PreHasher() { EVP_MD_CTX_free(md_); }

Error PreHasher::init(OSSL_LIB_CTX* libctx, PreHash ph) {
  ph_ = ph;
  if (md_ == nullptr && (md_ = EVP_MD_CTX_new()) == nullptr) return Error::traditional_failed;
  EVP_MD* md = EVP_MD_fetch(libctx, prehash_name(ph), nullptr);
  const bool ok = md != nullptr && EVP_DigestInit_ex2(md_, md, nullptr) == 1;
  EVP_MD_free(md);
  return ok ? Error::ok : Error::traditional_unavailable;
}

bool PreHasher::update(std::span<const uint8_t> data) {
  return md_ != nullptr && (data.empty() || EVP_DigestUpdate(md_, data.data(), data.size()) == 1);
}

bool PreHasher::final(uint8_t* out) {
  if (md_ == nullptr) return false;
  if (ph_ == PreHash::shake256_64) return EVP_DigestFinalXOF(md_, out, prehash_bytes(ph_)) == 1;
  unsigned int n = 0;
  return EVP_DigestFinal_ex(md_, out, &n) == 1 && n == prehash_bytes(ph_);
}

bool PreHasher::copy_from(const PreHasher& o) {
  ph_ = o.ph_;
  if (o.md_ == nullptr) return true;
  if (md_ == nullptr && (md_ = EVP_MD_CTX_new()) == nullptr) return false;
  return EVP_MD_CTX_copy_ex(md_, o.md_) == 1;
}

// ---------------------------------------------------------------------------
// Sign and verify

Error message_representative(const Algorithm& a, std::span<const uint8_t> ctx, std::span<const uint8_t> ph,
                             std::vector<uint8_t>& out) {
  if (ctx.size() > 255) return Error::context_too_long;
  const auto pre = prefix();
  const auto label = label_bytes(a);
  out.clear();
  out.reserve(pre.size() + label.size() + 1 + ctx.size() + ph.size());
  out.insert(out.end(), pre.begin(), pre.end());
  out.insert(out.end(), label.begin(), label.end());
  out.push_back(static_cast<uint8_t>(ctx.size()));
  out.insert(out.end(), ctx.begin(), ctx.end());
  out.insert(out.end(), ph.begin(), ph.end());
  return Error::ok;
}

Error sign(OSSL_LIB_CTX* libctx, const Key& key, const MldsaOps& ops, std::span<const uint8_t> ph,
           std::span<const uint8_t> ctx, const uint8_t* rnd, uint8_t* sig, size_t* siglen,
           mldsa::Status* mldsa_status) {
  if (!key.has_private()) return Error::missing_key;
  const Algorithm& a = key.algorithm();
  std::vector<uint8_t> mprime;
  Error e = message_representative(a, ctx, ph, mprime);
  if (e != Error::ok) return e;
  const size_t mldsa_bytes = mldsa::params(a.mldsa).sig_bytes;
  uint8_t mu[mldsa::MU_BYTES];
  mldsa_mu(a, key.mldsa_public(), mprime, mu);
  const mldsa::Status st = ops.sign_mu(ops.arg, *key.mldsa_private(), mu, rnd, sig);
  OPENSSL_cleanse(mu, sizeof mu);
  if (mldsa_status != nullptr) *mldsa_status = st;
  if (st != mldsa::Status::ok) return Error::mldsa_failed;
  std::vector<uint8_t> trad;
  e = trad_sign(libctx, a, key.traditional(), mprime, trad);
  if (e != Error::ok) return e;
  if (mldsa_bytes + trad.size() > key.max_signature_bytes()) return Error::traditional_failed;
  std::memcpy(sig + mldsa_bytes, trad.data(), trad.size());
  *siglen = mldsa_bytes + trad.size();
  return Error::ok;
}

Error verify(OSSL_LIB_CTX* libctx, const Key& key, const MldsaOps& ops, std::span<const uint8_t> ph,
             std::span<const uint8_t> ctx, std::span<const uint8_t> sig) {
  const Algorithm& a = key.algorithm();
  std::vector<uint8_t> mprime;
  Error e = message_representative(a, ctx, ph, mprime);
  if (e != Error::ok) return e;
  const size_t mldsa_bytes = mldsa::params(a.mldsa).sig_bytes;
  if (sig.size() <= mldsa_bytes || sig.size() > key.max_signature_bytes()) return Error::bad_signature_length;
  uint8_t mu[mldsa::MU_BYTES];
  mldsa_mu(a, key.mldsa_public(), mprime, mu);
  if (ops.verify_mu(ops.arg, key.mldsa_public(), mu, sig.first(mldsa_bytes)) != mldsa::Status::ok)
    return Error::verify_failed;
  return trad_verify(libctx, a, key.traditional(), mprime, sig.subspan(mldsa_bytes));
}

namespace {
Error prehash_message(OSSL_LIB_CTX* libctx, PreHash ph, std::span<const uint8_t> msg, uint8_t* out) {
  PreHasher h;
  Error e = h.init(libctx, ph);
  if (e != Error::ok) return e;
  return h.update(msg) && h.final(out) ? Error::ok : Error::traditional_failed;
}
}  // namespace

Error sign_message(OSSL_LIB_CTX* libctx, const Key& key, const MldsaOps& ops, std::span<const uint8_t> msg,
                   std::span<const uint8_t> ctx, const uint8_t* rnd, uint8_t* sig, size_t* siglen) {
  uint8_t ph[MAX_PREHASH_BYTES];
  const PreHash h = key.algorithm().ph;
  Error e = prehash_message(libctx, h, msg, ph);
  return e != Error::ok ? e : sign(libctx, key, ops, {ph, prehash_bytes(h)}, ctx, rnd, sig, siglen);
}

Error verify_message(OSSL_LIB_CTX* libctx, const Key& key, const MldsaOps& ops, std::span<const uint8_t> msg,
                     std::span<const uint8_t> ctx, std::span<const uint8_t> sig) {
  uint8_t ph[MAX_PREHASH_BYTES];
  const PreHash h = key.algorithm().ph;
  Error e = prehash_message(libctx, h, msg, ph);
  return e != Error::ok ? e : verify(libctx, key, ops, {ph, prehash_bytes(h)}, ctx, sig);
}

}  // namespace mldsa::composite
