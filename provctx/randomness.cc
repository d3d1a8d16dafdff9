// randomness.cc - secret randomness for key generation and hedged signing,
// from the DRBG of the provider's library context and nowhere else.
#include "provctx/provctx.h"

#include <openssl/rand.h>

namespace mldsa::prov {

bool private_random(const ProvCtx* ctx, uint8_t* out, size_t len) {
  OSSL_LIB_CTX* libctx = ctx != nullptr ? ctx->libctx : nullptr;
  // No generator at all (no active provider offers a DRBG, e.g. the default
  // provider left out of openssl.cnf): say what is missing rather than fall
  // back to another source, as OpenSSL's own algorithms fail there too.
  if (RAND_get0_private(libctx) == nullptr) {
    MLDSA_RAISE_DETAIL(ctx, R_NO_RANDOMNESS,
                       "activate = 1 in the default provider's openssl.cnf section (or -provider default), "
                       "or activate another provider that offers a DRBG");
    return false;
  }
  if (RAND_priv_bytes_ex(libctx, out, len, 0) <= 0) {
    MLDSA_RAISE(ctx, R_RNG_FAILURE);
    return false;
  }
  return true;
}

}  // namespace mldsa::prov
