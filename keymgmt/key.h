// key.h - the provider's ML-DSA key object (what EVP_PKEY holds as keydata).
#pragma once

#include "cpu/mldsa.h"
#include "provctx/provctx.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace mldsa::prov {

struct Key {
  ProvCtx* provctx = nullptr;
  const mldsa::Params* params = nullptr;
  // At most one of these is the source of the public part: a private key
  // carries its own public key (priv->public_key()).
  std::unique_ptr<mldsa::PrivateKey> priv;
  std::unique_ptr<mldsa::PublicKey> pub;  // only when there is no private key
  // Read from a SubjectPublicKeyInfo / PKCS#8 under a HashML-DSA OID (id-hash-ml-dsa-xx-with-sha512,
  // as some implementations write keys): the key signs and verifies HashML-DSA with SHA-512 only.
  bool hash_ml_dsa = false;

  bool has_public() const { return priv || pub; }
  bool has_private() const { return priv != nullptr; }
  const mldsa::PublicKey* public_key() const { return priv ? &priv->public_key() : pub.get(); }
};

// Algorithm names, OIDs and the parameter set, one row per parameter set
// (ML-DSA-44/65/87, then round-3 dilithium2/3/5).
struct Variant {
  mldsa::ParamSet set;
  const char* names;     // OSSL_ALGORITHM name list ("ML-DSA-44:MLDSA44:2.16.840.1.101.3.4.3.17:id-ml-dsa-44")
  const char* oid;       // "2.16.840.1.101.3.4.3.17"
  const char* sn;        // "id-ml-dsa-44"; "dilithium2"
  const char* name;      // "ML-DSA-44"; "dilithium2"
  const char* hash_oid;    // HashML-DSA with SHA-512's OID, "2.16.840.1.101.3.4.3.32"; nullptr for round 3
  const char* hash_names;  // its name list ("HASH-ML-DSA-44-WITH-SHA512:id-hash-ml-dsa-44-with-sha512:<oid>")
};
const Variant& variant(mldsa::ParamSet set);
// Looks a variant up by any of its names ("ML-DSA-65", "MLDSA65", "id-ml-dsa-65",
// "dilithium3", the dotted OID; case-insensitive); nullptr when none matches.
const Variant* variant_by_name(std::string_view name);

Key* key_new(ProvCtx* ctx, mldsa::ParamSet set);
// Decoders hand a decoded key to the keymgmt's load() as an object reference
// (OSSL_OBJECT_PARAM_REFERENCE): the bytes of a Key* (size sizeof(Key*)).
// load() takes ownership and clears the pointer.
void key_free(Key* k);
// Copies the parts of k that selection (OSSL_KEYMGMT_SELECT_*) names; the
// copy of a private key keeps its seed when k has one.
Key* key_dup(const Key* k, int selection);
// Drops every part of the key (the parameter set stays).
void key_reset(Key* k);

// Fills an empty key from the encodings import and the decoders receive; any
// part may be empty, not all of them. The rules (OpenSSL 3.5's):
//  - seed and priv both given: the seed wins (priv must match it, else
//    R_SEED_PRIV_MISMATCH) unless ml-dsa.prefer_seed is "no", in which case
//    priv is loaded and the seed is checked against it the same way;
//  - pub given with a private part: it must be the derived one, else
//    R_PUB_PRIV_MISMATCH;
//  - ml-dsa.retain_seed "no": the seed is not kept in the key.
// Wrong lengths raise R_BAD_SEED_LENGTH / R_BAD_PRIVATE_KEY_LENGTH /
// R_BAD_PUBLIC_KEY_LENGTH; a malformed sk the core's precise reason.
// On failure the provider error is raised, the key stays empty, false returns.
bool key_from_parts(Key* k, std::span<const uint8_t> seed, std::span<const uint8_t> priv,
                    std::span<const uint8_t> pub);

// Generates a fresh key pair into an empty key: from seed when it is not
// empty (32 bytes), else from a seed drawn from the provider's library
// context RNG (the OS source if that fails). Raises on failure.
bool key_generate(Key* k, std::span<const uint8_t> seed);

}  // namespace mldsa::prov
