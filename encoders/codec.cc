// codec.cc - helpers shared by the encoders and the decoders.
#include "encoders/codec.h"

#include "keymgmt/key.h"
#include "provctx/errors.h"

#include <openssl/core_dispatch.h>
#include <openssl/objects.h>

namespace mldsa::prov {

BIO* bio_from_core(void* provctx, OSSL_CORE_BIO* cbio) {
  BIO* bio = BIO_new_from_core_bio(libctx_of(provctx), cbio);
  if (bio == nullptr) MLDSA_RAISE(static_cast<const ProvCtx*>(provctx), R_INTERNAL_ERROR);
  return bio;
}

ASN1_OBJECT* variant_oid(const ProvCtx* ctx, mldsa::ParamSet set) {
  // no_name = 1: parse the dotted form even where the core does not know it.
  ASN1_OBJECT* obj = OBJ_txt2obj(variant(set).oid, 1);
  if (obj == nullptr) MLDSA_RAISE(ctx, R_INTERNAL_ERROR);
  return obj;
}

bool selection_fits(int selection, int carried) {
  constexpr int levels[] = {OSSL_KEYMGMT_SELECT_PRIVATE_KEY, OSSL_KEYMGMT_SELECT_PUBLIC_KEY,
                            OSSL_KEYMGMT_SELECT_ALL_PARAMETERS};
  for (int level : levels)
    if ((selection & level) != 0) return (carried & level) != 0;
  return selection == 0;
}

int structure_selection(Structure s) {
  switch (s) {
    case Structure::spki: return OSSL_KEYMGMT_SELECT_PUBLIC_KEY;
    case Structure::pki:
    case Structure::epki: return OSSL_KEYMGMT_SELECT_PRIVATE_KEY;
    case Structure::text: return OSSL_KEYMGMT_SELECT_KEYPAIR;  // prints whichever parts there are
  }
  return 0;
}

}  // namespace mldsa::prov
