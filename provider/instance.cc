// instance.cc - the signature path's way to the router.
#include "provider/instance.h"

namespace mldsa::prov {

mldsa::Status routed_sign(void* provctx, const mldsa::PrivateKey& key, const uint8_t mu[mldsa::MU_BYTES],
                          const uint8_t* rnd, uint8_t* sig) {
  Instance* in = instance_of(provctx);
  if (in == nullptr || in->router == nullptr) return mldsa::sign_mu(key, {mu, mldsa::MU_BYTES}, rnd, sig);
  return in->router->sign(key, mu, rnd, sig);
}

mldsa::Status routed_verify(void* provctx, const mldsa::PublicKey& key, const uint8_t mu[mldsa::MU_BYTES],
                            std::span<const uint8_t> sig) {
  Instance* in = instance_of(provctx);
  if (in == nullptr || in->router == nullptr) return mldsa::verify_mu(key, {mu, mldsa::MU_BYTES}, sig);
  return in->router->verify(key, mu, sig);
}

}  // namespace mldsa::prov
