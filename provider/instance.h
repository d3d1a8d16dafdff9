// instance.h - one loaded instance of the module: the provider context that
// keymgmt/ and encoders/ see (provctx/provctx.h), and what the provider glue
// adds to it, the router (route/router.h). OpenSSL hands the dispatch
// functions the ProvCtx*; the signature code finds the router from it here.
#pragma once

#include "provctx/provctx.h"
#include "route/router.h"

#include <memory>

namespace mldsa::prov {

struct Instance : ProvCtx {
  std::unique_ptr<route::Router> router;  // nullptr: every request runs on the core directly
};

// The instance behind a provctx the module handed out (nullptr stays nullptr).
inline Instance* instance_of(void* provctx) {
  return static_cast<Instance*>(static_cast<ProvCtx*>(provctx));
}

// The signature path's entry points: through the instance's router, or the
// core directly when it has none.
mldsa::Status routed_sign(void* provctx, const mldsa::PrivateKey& key, const uint8_t mu[mldsa::MU_BYTES],
                          const uint8_t* rnd, uint8_t* sig);
mldsa::Status routed_verify(void* provctx, const mldsa::PublicKey& key, const uint8_t mu[mldsa::MU_BYTES],
                            std::span<const uint8_t> sig);

}  // namespace mldsa::prov
