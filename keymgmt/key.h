// key.h - the provider's ML-DSA key object (what EVP_PKEY holds as keydata).
#pragma once

#include "cpu/mldsa.h"
#include "provider/provctx.h"

#include <memory>

namespace mldsa::prov {

struct Key {
  ProvCtx* provctx = nullptr;
  const mldsa::Params* params = nullptr;
  // At most one of these is the source of the public part: a private key
  // carries its own public key (priv->public_key()).
  std::unique_ptr<mldsa::PrivateKey> priv;
  std::unique_ptr<mldsa::PublicKey> pub;  // only when there is no private key

  bool has_public() const { return priv || pub; }
  bool has_private() const { return priv != nullptr; }
  const mldsa::PublicKey* public_key() const { return priv ? &priv->public_key() : pub.get(); }
};

// Algorithm names, OIDs and the parameter set, one row per ML-DSA variant.
struct Variant {
  mldsa::ParamSet set;
  const char* names;     // OSSL_ALGORITHM name list ("ML-DSA-44:MLDSA44:2.16.840.1.101.3.4.3.17:id-ml-dsa-44")
  const char* oid;       // "2.16.840.1.101.3.4.3.17"
  const char* sn;        // "id-ml-dsa-44"
  const char* name;      // "ML-DSA-44"
};
const Variant& variant(mldsa::ParamSet set);

Key* key_new(ProvCtx* ctx, mldsa::ParamSet set);
void key_free(Key* k);

}  // namespace mldsa::prov
