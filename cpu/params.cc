// params.cc - FIPS 204 Tables 1 and 2, and the status strings.
#include <string_view>

#include "cpu/mldsa.h"

namespace mldsa {
namespace {

constexpr int32_t kQ = 8380417;

constexpr Params kParams[3] = {
    {ParamSet::ML_DSA_44, "ML-DSA-44", 4, 4, 2, 39, 78, 17, 1 << 17, (kQ - 1) / 88, 80, 128, 2, 1312, 2560, 2420},
    {ParamSet::ML_DSA_65, "ML-DSA-65", 6, 5, 4, 49, 196, 19, 1 << 19, (kQ - 1) / 32, 55, 192, 3, 1952, 4032, 3309},
    {ParamSet::ML_DSA_87, "ML-DSA-87", 8, 7, 2, 60, 120, 19, 1 << 19, (kQ - 1) / 32, 75, 256, 5, 2592, 4896, 4627},
};

}  // namespace

const Params& params(ParamSet p) { return kParams[static_cast<int>(p)]; }

const Params* params_by_name(std::string_view name) {
  for (const Params& p : kParams)
    if (name == p.name) return &p;
  return nullptr;
}

const char* status_string(Status s) {
  switch (s) {
    case Status::ok: return "success";
    case Status::verify_failed: return "signature verification failed";
    case Status::bad_pk_length: return "wrong public key length";
    case Status::bad_sk_length: return "wrong private key length";
    case Status::bad_sig_length: return "wrong signature length";
    case Status::bad_seed_length: return "wrong seed length";
    case Status::bad_mu_length: return "wrong mu length (must be 64 bytes)";
    case Status::bad_digest_length: return "pre-hash digest length does not match the hash";
    case Status::context_too_long: return "context string longer than 255 bytes";
    case Status::sk_s1_out_of_range: return "private key s1 coefficient out of range";
    case Status::sk_s2_out_of_range: return "private key s2 coefficient out of range";
    case Status::sk_t0_mismatch: return "private key t0 does not match s1 and s2";
    case Status::sk_tr_mismatch: return "private key tr does not match the public key";
    case Status::sig_malformed_hint: return "signature hint is malformed";
    case Status::unsupported_hash: return "hash not computed by the core";
    case Status::rng_failure: return "random number source failed";
    case Status::sign_attempts_exhausted: return "no signature within the loop limit (814 attempts)";
    case Status::internal_error: return "internal error";
  }
  return "unknown status";
}

}  // namespace mldsa
