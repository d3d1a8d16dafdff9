// codec.h - what the encoders and the decoders share.
#pragma once

#include "cpu/mldsa.h"
#include "provctx/provctx.h"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/core.h>

namespace mldsa::prov {

// The outer container of an encoding (the "structure" property).
enum class Structure : uint8_t { spki, pki, epki, text };

// A libcrypto BIO reading or writing the core's BIO (BIO_new_from_core_bio
// needs the provider's child library context, which knows the core's BIO
// upcalls). Raises an error and returns nullptr on failure.
BIO* bio_from_core(void* provctx, OSSL_CORE_BIO* cbio);

// The parameter set's OID as an ASN1_OBJECT (the caller frees it); nullptr
// with an error raised (through ctx's instance) on failure.
ASN1_OBJECT* variant_oid(const ProvCtx* ctx, mldsa::ParamSet set);

// OpenSSL's selection "levels": private key, then public key, then domain
// parameters. The highest level the caller asks for decides whether a
// structure that carries the levels in `carried` fits; no selection fits all.
bool selection_fits(int selection, int carried);

// The selection bits a structure carries.
int structure_selection(Structure s);

// An OSSL_DISPATCH entry's function pointer.
template <typename F>
inline void (*dispatch_fn(F* f))() {
  return reinterpret_cast<void (*)()>(f);
}

}  // namespace mldsa::prov
