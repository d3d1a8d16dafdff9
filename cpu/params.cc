// params.cc - FIPS 204 Tables 1 and 2, the round-3 Dilithium parameter sets
// (specification v3.1, Table 2), and the status strings.
#include <string_view>

#include "cpu/mldsa.h"

namespace mldsa {
namespace {

constexpr int32_t kQ = 8380417;

constexpr Scheme kFips = Scheme::ml_dsa, kR3 = Scheme::dilithium_r3;

// The round-3 sets have FIPS 204's shapes, bounds and norms; only c~, tr and
// the signing randomness differ in size (so sk and sig are shorter).
constexpr Params kParams[PARAM_SET_COUNT] = {
    // id, name, scheme, k, l, eta, tau, beta, gamma1_bits, gamma1, gamma2, omega, lambda, category,
    // ctilde, tr, rnd, pk, sk, sig
    {ParamSet::ML_DSA_44, "ML-DSA-44", kFips, 4, 4, 2, 39, 78, 17, 1 << 17, (kQ - 1) / 88, 80, 128, 2,
     32, 64, 32, 1312, 2560, 2420},
    {ParamSet::ML_DSA_65, "ML-DSA-65", kFips, 6, 5, 4, 49, 196, 19, 1 << 19, (kQ - 1) / 32, 55, 192, 3,
     48, 64, 32, 1952, 4032, 3309},
    {ParamSet::ML_DSA_87, "ML-DSA-87", kFips, 8, 7, 2, 60, 120, 19, 1 << 19, (kQ - 1) / 32, 75, 256, 5,
     64, 64, 32, 2592, 4896, 4627},
    {ParamSet::DILITHIUM2, "Dilithium2", kR3, 4, 4, 2, 39, 78, 17, 1 << 17, (kQ - 1) / 88, 80, 128, 2,
     32, 32, 64, 1312, 2528, 2420},
    {ParamSet::DILITHIUM3, "Dilithium3", kR3, 6, 5, 4, 49, 196, 19, 1 << 19, (kQ - 1) / 32, 55, 192, 3,
     32, 32, 64, 1952, 4000, 3293},
    {ParamSet::DILITHIUM5, "Dilithium5", kR3, 8, 7, 2, 60, 120, 19, 1 << 19, (kQ - 1) / 32, 75, 256, 5,
     32, 32, 64, 2592, 4864, 4595},
};

// The sizes follow from the rest (FIPS 204 Section 7.2; round 3 Section 5.4).
constexpr bool sizes_consistent(const Params& p) {
  const size_t eta_bytes = p.eta == 2 ? 96 : 128, z_bytes = 32 * (p.gamma1_bits + 1);
  return p.pk_bytes == 32 + 320 * p.k && p.sk_bytes == 64 + p.tr_bytes + (p.l + p.k) * eta_bytes + 416 * p.k &&
         p.sig_bytes == p.ctilde_bytes + p.l * z_bytes + p.omega + p.k &&
         p.ctilde_bytes == (p.scheme == Scheme::ml_dsa ? p.lambda / 4 : 32);
}
static_assert(sizes_consistent(kParams[0]) && sizes_consistent(kParams[1]) && sizes_consistent(kParams[2]) &&
              sizes_consistent(kParams[3]) && sizes_consistent(kParams[4]) && sizes_consistent(kParams[5]));

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
    case Status::context_unsupported: return "round-3 Dilithium has no context string";
    case Status::prehash_unsupported: return "HashML-DSA needs an ML-DSA key (round-3 Dilithium has no pre-hash variant)";
    case Status::rng_failure: return "random number source failed";
    case Status::sign_attempts_exhausted: return "no signature within the loop limit (814 attempts)";
    case Status::internal_error: return "internal error";
  }
  return "unknown status";
}

}  // namespace mldsa
