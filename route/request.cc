// request.cc - operation names, and the request computed right here by the
// core: the CPU path and every fallback.
#include "route/request.h"

#include <cstring>
#include <memory>

namespace mldsa::route {

const char* batch_op_name(BatchOp op) {
  switch (op) {
    case BatchOp::sign: return "sign";
    case BatchOp::verify: return "verify";
    case BatchOp::keygen: return "keygen";
  }
  return "?";
}

// ---------------------------------------------------------------------------
// The CPU path

void run_on_cpu(Request& r) {
  switch (r.op) {
    case BatchOp::sign:
      r.status = mldsa::sign_mu(*r.priv, {r.mu, mldsa::MU_BYTES}, r.rnd, r.sig_out);
      return;
    case BatchOp::verify:
      r.status = mldsa::verify_mu(*r.pub, {r.mu, mldsa::MU_BYTES}, {r.sig, r.sig_len});
      return;
    case BatchOp::keygen: {
      std::unique_ptr<mldsa::PrivateKey> key;
      r.status = mldsa::PrivateKey::from_seed(*r.params, {r.seed, mldsa::SEED_BYTES}, key);
      if (r.status != mldsa::Status::ok) return;
      std::memcpy(r.pk_out, key->public_key().encoded().data(), r.params->pk_bytes);
      std::memcpy(r.sk_out, key->encoded().data(), r.params->sk_bytes);
      return;
    }
  }
  r.status = mldsa::Status::internal_error;
}

}  // namespace mldsa::route
