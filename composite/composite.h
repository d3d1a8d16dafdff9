// composite.h - composite ML-DSA keys, signing and verification (draft-ietf-lamps-pq-composite-sigs-19):
// the ML-DSA half from this project's core, the traditional half from OpenSSL's EVP.
//
// The traditional algorithms (RSA, EC, Ed25519, Ed448) are fetched from the library context the
// caller names, with no property query: in an application that is OpenSSL's default provider (or
// any other provider of them that is loaded), never the composite provider itself. A library
// context without them fails with Error::traditional_unavailable.
#pragma once

#include "composite/algorithms.h"
#include "cpu/mldsa.h"

#include <openssl/evp.h>
#include <openssl/types.h>

#include <memory>
#include <span>
#include <vector>

namespace mldsa::composite {

// Why an operation failed; the provider maps each to an OpenSSL reason.
enum class Error : uint8_t {
  ok,
  bad_public_key,       // wrong length, or a traditional public key that does not parse
  bad_private_key,      // wrong length, or a traditional private key that does not parse
  wrong_trad_params,    // the traditional key is not of the algorithm's type, size or curve
  pub_priv_mismatch,    // a public key given with the private key differs from the derived one
  bad_signature_length, // shorter than the ML-DSA signature, or no traditional signature after it
  context_too_long,     // more than 255 bytes
  verify_failed,        // one half (or both) did not verify
  missing_key,          // the operation needs a part the key lacks
  traditional_unavailable,  // the library context offers no implementation of the traditional half
  traditional_failed,   // the traditional sign or key generation failed
  mldsa_failed,         // the ML-DSA half failed (status() says why)
};
const char* error_string(Error e);

// The ML-DSA half's sign and verify from mu: the core's, or a caller's that routes them (to a GPU
// batch). The same bytes whichever runs.
struct MldsaOps {
  mldsa::Status (*sign_mu)(void* arg, const mldsa::PrivateKey& key, const uint8_t mu[mldsa::MU_BYTES],
                           const uint8_t* rnd, uint8_t* sig) = nullptr;
  mldsa::Status (*verify_mu)(void* arg, const mldsa::PublicKey& key, const uint8_t mu[mldsa::MU_BYTES],
                             std::span<const uint8_t> sig) = nullptr;
  void* arg = nullptr;
};
// The core's own (no routing).
MldsaOps core_ops();

class Key {
 public:
  ~Key();
  Key(const Key&) = delete;
  Key& operator=(const Key&) = delete;

  // From the draft's encodings: mldsaPK || tradPK, and mldsaSeed || tradSK (the public key then
  // derived; a non-empty pub must equal it). The traditional key's type, RSA size or curve must
  // be the algorithm's.
  static Error from_public(OSSL_LIB_CTX* libctx, const Algorithm& alg, std::span<const uint8_t> pub,
                           std::unique_ptr<Key>& out);
  static Error from_private(OSSL_LIB_CTX* libctx, const Algorithm& alg, std::span<const uint8_t> priv,
                            std::span<const uint8_t> pub, std::unique_ptr<Key>& out);
  // A fresh key pair: the ML-DSA half from seed (32 bytes) when given, else the OS source; the
  // traditional half from the library context's generator.
  static Error generate(OSSL_LIB_CTX* libctx, const Algorithm& alg, std::span<const uint8_t> seed,
                        std::unique_ptr<Key>& out);
  // A copy with the private part (if with_private and present) or only the public one.
  std::unique_ptr<Key> dup(bool with_private) const;

  const Algorithm& algorithm() const { return *alg_; }
  bool has_private() const { return mldsa_priv_ != nullptr; }
  const mldsa::PublicKey& mldsa_public() const;
  const mldsa::PrivateKey* mldsa_private() const { return mldsa_priv_.get(); }
  EVP_PKEY* traditional() const { return trad_; }

  // The draft's encodings. private_encoding() is secret: the caller cleanses it.
  const std::vector<uint8_t>& public_encoding() const { return pub_enc_; }
  Error private_encoding(std::vector<uint8_t>& out) const;
  bool operator==(const Key& o) const;  // same algorithm and public key

  // The largest signature this key makes.
  size_t max_signature_bytes() const;

 private:
  Key() = default;
  Error finish_public(OSSL_LIB_CTX* libctx);  // fills pub_enc_ from both halves

  const Algorithm* alg_ = nullptr;
  OSSL_LIB_CTX* libctx_ = nullptr;  // where the traditional key lives (not owned)
  std::unique_ptr<mldsa::PrivateKey> mldsa_priv_;
  std::unique_ptr<mldsa::PublicKey> mldsa_pub_;  // only when there is no private key
  EVP_PKEY* trad_ = nullptr;
  std::vector<uint8_t> pub_enc_;
};

// PH(M), incrementally (SHA-256, SHA-512 or SHAKE256/64 from the library context).
class PreHasher {
 public:
  ~PreHasher();
  Error init(OSSL_LIB_CTX* libctx, PreHash ph);
  bool update(std::span<const uint8_t> data);
  // Writes prehash_bytes(ph) bytes; init() again before the next message.
  bool final(uint8_t* out);
  bool copy_from(const PreHasher& o);

 private:
  PreHash ph_{};
  EVP_MD_CTX* md_ = nullptr;
};

// M' = Prefix || Label || len(ctx) || ctx || PH(M).
Error message_representative(const Algorithm& alg, std::span<const uint8_t> ctx, std::span<const uint8_t> ph,
                             std::vector<uint8_t>& out);

// Composite-ML-DSA.Sign from PH(M): sig must hold key.max_signature_bytes(); *siglen gets the
// length written. rnd: ML-DSA's 32 bytes (nullptr for fresh OS randomness, zeros deterministic).
Error sign(OSSL_LIB_CTX* libctx, const Key& key, const MldsaOps& ops, std::span<const uint8_t> ph,
           std::span<const uint8_t> ctx, const uint8_t* rnd, uint8_t* sig, size_t* siglen,
           mldsa::Status* mldsa_status = nullptr);
// Composite-ML-DSA.Verify from PH(M): ok only when both halves verify.
Error verify(OSSL_LIB_CTX* libctx, const Key& key, const MldsaOps& ops, std::span<const uint8_t> ph,
             std::span<const uint8_t> ctx, std::span<const uint8_t> sig);

// The whole message at once: PH(M), then sign / verify.
Error sign_message(OSSL_LIB_CTX* libctx, const Key& key, const MldsaOps& ops, std::span<const uint8_t> msg,
                   std::span<const uint8_t> ctx, const uint8_t* rnd, uint8_t* sig, size_t* siglen);
Error verify_message(OSSL_LIB_CTX* libctx, const Key& key, const MldsaOps& ops, std::span<const uint8_t> msg,
                     std::span<const uint8_t> ctx, std::span<const uint8_t> sig);

}  // namespace mldsa::composite
