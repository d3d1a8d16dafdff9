// key_expanded.h - the expanded forms keys keep, so repeated signing or
// verification with one key skips ExpandA, the NTTs of the secrets, and H(pk).
#pragma once

#include <cstdint>
#include <memory>

#include "cpu/mldsa.h"
#include "cpu/poly.h"
#include "cpu/small_ntt.h"

namespace mldsa {

// The polynomial vectors are sized for the parameter set, in one block each
// (a fixed MAX_K x MAX_L layout would more than triple ML-DSA-44's memory).
struct PublicKey::Expanded {
  const Params* p;
  uint8_t pk[MAX_PK_BYTES];
  uint8_t rho[32];
  uint8_t tr[TR_BYTES];
  std::unique_ptr<Poly[]> polys;
  Poly* A;       // A^[i*l + j], NTT domain, [0, q): k*l polynomials
  Poly* t1_hat;  // NTT(t1 * 2^d): k polynomials
  explicit Expanded(const Params& params)
      : p(&params), polys(std::make_unique_for_overwrite<Poly[]>(params.k * params.l + params.k)),
        A(polys.get()), t1_hat(A + params.k * params.l) {}
};

struct PrivateKey::Expanded {
  const Params* p;
  bool has_seed = false;
  uint8_t seed[SEED_BYTES];
  uint8_t sk[MAX_SK_BYTES];
  uint8_t K[32];
  uint8_t tr[TR_BYTES];
  std::unique_ptr<Poly[]> polys;
  Poly* t0_hat;  // NTT domain: k polynomials
  // s1 and s2 are small: signing multiplies them by c in the NTT' domain over
  // q' (cpu/small_ntt.h), in 16-bit lanes.
  std::unique_ptr<SmallPoly[]> small;
  SmallPoly* s1_small_hat;  // l
  SmallPoly* s2_small_hat;  // k
  // A^ and rho live in the public key.
  explicit Expanded(const Params& params)
      : p(&params), polys(std::make_unique_for_overwrite<Poly[]>(params.k)), t0_hat(polys.get()),
        small(std::make_unique_for_overwrite<SmallPoly[]>(params.l + params.k)), s1_small_hat(small.get()),
        s2_small_hat(s1_small_hat + params.l) {}
  ~Expanded() {
    secure_zero(polys.get(), sizeof(Poly) * p->k);
    secure_zero(small.get(), sizeof(SmallPoly) * (p->l + p->k));
    secure_zero(seed, sizeof seed);
    secure_zero(sk, sizeof sk);
    secure_zero(K, sizeof K);
  }
  Expanded(const Expanded&) = delete;
  Expanded& operator=(const Expanded&) = delete;
};

// skDecode's vectors in normal form, wiped by the owner.
struct SigningKeyScratch {
  Poly s1[MAX_L], s2[MAX_K], t0[MAX_K];
};

// skDecode (Algorithm 25) with its range checks, ExpandA into A (k*l
// polynomials) and the NTTs of s1, s2 (NTT') and t0 into x: everything signing needs.
// It does not check that t0 and tr match the rest (PrivateKey::from_sk does).
Status decode_signing_key(const Params& p, std::span<const uint8_t> sk, PrivateKey::Expanded& x, uint8_t rho[32],
                          Poly* A, SigningKeyScratch& scratch);

// Algorithm 7 from line 7 on, for an expanded secret key and its A^.
Status sign_mu_expanded(const PrivateKey::Expanded& x, const Poly* A, std::span<const uint8_t> mu, const uint8_t* rnd,
                        uint8_t* sig);

}  // namespace mldsa
