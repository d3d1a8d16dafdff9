// composite_key.h - the provider's composite ML-DSA key object (keydata of the 18 composite
// key types) and the mapping of composite/ errors to the provider's reasons.
#pragma once

#include "composite/composite.h"
#include "provctx/provctx.h"

#include <openssl/core.h>

#include <memory>

namespace mldsa::prov {

struct CompositeKeyData {
  ProvCtx* provctx = nullptr;
  const composite::Algorithm* alg = nullptr;
  std::unique_ptr<composite::Key> key;  // nullptr until generated, imported or decoded
};

// Decoders hand a decoded key to load() as an object reference whose octets are one
// CompositeKeyData* (as for ML-DSA keys, keymgmt/key.h); load() takes it and clears it.
CompositeKeyData* composite_key_new(ProvCtx* ctx, const composite::Algorithm& alg);
void composite_key_free(CompositeKeyData* k);

// Fills k from "priv" / "pub" (the draft's encodings), as the keymgmt's import does; raises.
bool composite_key_import(CompositeKeyData* k, int selection, const OSSL_PARAM params[]);

// Raises the reason for e (the ML-DSA status for Error::mldsa_failed); false.
bool raise_composite(const ProvCtx* ctx, composite::Error e, mldsa::Status st, const char* file, int line,
                     const char* func);
#define MLDSA_RAISE_COMPOSITE(ctx, e) \
  ::mldsa::prov::raise_composite((ctx), (e), ::mldsa::Status::ok, OPENSSL_FILE, OPENSSL_LINE, __func__)

// The name list of algorithm a ("MLDSA65-ECDSA-P256-SHA512:id-MLDSA65-ECDSA-P256-SHA512:1.3.6...").
const char* composite_names(const composite::Algorithm& a);

// The 18 key types, {NULL} last.
const OSSL_ALGORITHM* composite_keymgmt_algorithms();

}  // namespace mldsa::prov
