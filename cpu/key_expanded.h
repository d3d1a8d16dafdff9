// key_expanded.h - the expanded forms keys keep, so repeated signing or
// verification with one key skips ExpandA, the NTTs of the secrets, and H(pk).
#pragma once

#include <cstdint>

#include "cpu/mldsa.h"
#include "cpu/poly.h"

namespace mldsa {

struct PublicKey::Expanded {
  const Params* p;
  uint8_t pk[MAX_PK_BYTES];
  uint8_t rho[32];
  uint8_t tr[TR_BYTES];
  Poly A[MAX_K * MAX_L];  // A^[i*l + j], NTT domain, [0, q)
  Poly t1_hat[MAX_K];     // NTT(t1 * 2^d)
};

struct PrivateKey::Expanded {
  const Params* p;
  bool has_seed;
  uint8_t seed[SEED_BYTES];
  uint8_t sk[MAX_SK_BYTES];
  uint8_t K[32];
  uint8_t tr[TR_BYTES];
  Poly s1_hat[MAX_L];  // NTT domain
  Poly s2_hat[MAX_K];
  Poly t0_hat[MAX_K];
  // A^ and rho live in the public key.
};

// skDecode's vectors in normal form, wiped by the owner.
struct SigningKeyScratch {
  Poly s1[MAX_L], s2[MAX_K], t0[MAX_K];
};

// skDecode (Algorithm 25) with its range checks, ExpandA into A (k*l
// polynomials) and the NTTs of s1, s2, t0 into x: everything signing needs.
// It does not check that t0 and tr match the rest (PrivateKey::from_sk does).
Status decode_signing_key(const Params& p, std::span<const uint8_t> sk, PrivateKey::Expanded& x, uint8_t rho[32],
                          Poly* A, SigningKeyScratch& scratch);

// Algorithm 7 from line 7 on, for an expanded secret key and its A^.
Status sign_mu_expanded(const PrivateKey::Expanded& x, const Poly* A, std::span<const uint8_t> mu, const uint8_t* rnd,
                        uint8_t* sig);

}  // namespace mldsa
