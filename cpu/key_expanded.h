// key_expanded.h - the expanded forms keys keep, so repeated signing or
// verification with one key skips ExpandA, the NTTs of the secrets, and H(pk).
// The parts only signing (NTT' of s1, s2; NTT of t0) or only verification
// (NTT of t1) needs are filled on first use, once, from the encoded key: a key
// generated or imported to be written out never pays for them.
#pragma once

#include <cstdint>
#include <atomic>
#include <memory>
#include <mutex>

#include "cpu/mldsa.h"
#include "cpu/poly.h"
#include "cpu/small_ntt.h"

namespace mldsa {

// Runs a fill function once; callers that race the first one wait for it.
// std::call_once would do, but glibc's makes a futex system call on every
// first use (~1.3k cycles for each fresh key); an uncontended mutex makes none.
class OnceFill {
 public:
  template <class F>
  void operator()(F&& fill) const {
    if (done_.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(m_);
    if (done_.load(std::memory_order_relaxed)) return;
    fill();
    done_.store(true, std::memory_order_release);
  }

 private:
  mutable std::atomic<bool> done_{false};
  mutable std::mutex m_;
};

// The polynomial vectors are sized for the parameter set, in one block each
// (a fixed MAX_K x MAX_L layout would more than triple ML-DSA-44's memory).
struct PublicKey::Expanded {
  const Params* p;
  uint8_t pk[MAX_PK_BYTES];
  uint8_t rho[32];
  uint8_t tr[TR_BYTES];
  std::unique_ptr<Poly[]> polys;
  Poly* A;       // A^[i*l + j], NTT domain, [0, q): k*l polynomials
  Poly* t1_hat;  // NTT(t1 * 2^d): k polynomials; see verify_form()
  OnceFill t1_hat_once;
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
  // The signing form (t0_hat, s1/s2_small_hat; see signing_form()), allocated
  // when it is filled: a key made to be stored or exported never pays for
  // it (two heap blocks and 8 KiB of wiping per ML-DSA-44 keygen).
  mutable std::unique_ptr<Poly[]> polys;
  mutable Poly* t0_hat = nullptr;  // NTT domain: k polynomials
  // s1 and s2 are small: signing multiplies them by c in the NTT' domain over
  // q' (cpu/small_ntt.h), in 16-bit lanes.
  mutable std::unique_ptr<SmallPoly[]> small;
  mutable SmallPoly* s1_small_hat = nullptr;  // l
  mutable SmallPoly* s2_small_hat = nullptr;  // k
  OnceFill signing_form_once;  // allocates and fills the three above
  // A^ and rho live in the public key.
  explicit Expanded(const Params& params) : p(&params) {}
  // Called once, inside signing_form_once; every part is written before use.
  void allocate_signing_form() const {
    polys = std::make_unique_for_overwrite<Poly[]>(p->k);
    t0_hat = polys.get();
    small = std::make_unique_for_overwrite<SmallPoly[]>(p->l + p->k);
    s1_small_hat = small.get();
    s2_small_hat = s1_small_hat + p->l;
  }
  ~Expanded() {
    if (polys) secure_zero(polys.get(), sizeof(Poly) * p->k);
    if (small) secure_zero(small.get(), sizeof(SmallPoly) * (p->l + p->k));
    secure_zero(seed, sizeof seed);
    secure_zero(sk, p->sk_bytes);
    secure_zero(K, sizeof K);
  }
  Expanded(const Expanded&) = delete;
  Expanded& operator=(const Expanded&) = delete;
};

// skDecode (Algorithm 25) with its range checks into x, s (s1 then s2: l + k
// polynomials) and t0 (k), and ExpandA into A (k*l polynomials; A null:
// the caller expands it). With
// expand_now, also x's signing form (else it is filled on first use). It does
// not check that t0 and tr match the rest (PrivateKey::from_sk does).
Status decode_signing_key(const Params& p, std::span<const uint8_t> sk, PrivateKey::Expanded& x, uint8_t rho[32],
                          Poly* A, Poly* s, Poly* t0, bool expand_now);

// The key's signing form (t0_hat, s1/s2_small_hat), filled from x.sk on the
// first call; thread-safe.
const PrivateKey::Expanded& signing_form(const PrivateKey::Expanded& x);
// t1_hat = NTT(t1 * 2^d), k polynomials (t1 and t1_hat may be the same).
void t1_hat_of(const Params& p, const Poly* t1, Poly* t1_hat);
// The key's t1_hat, filled from pk on the first call; thread-safe.
const PublicKey::Expanded& verify_form(const PublicKey::Expanded& x);

// FIPS 204 Appendix C lets Sign_internal stop after a number of attempts no
// lower than 814 (ML-DSA-44's bound, the largest of the three): reaching it
// has probability below 2^-256 for a valid key, so it only ends the endless
// loop a corrupt key (not checked by sign_encoded) could cause.
inline constexpr unsigned kMaxSignAttempts = 814;

// Algorithm 7 from line 7 on, for an expanded secret key and its A^;
// Status::sign_attempts_exhausted after max_attempts rejected attempts
// (lowered only by tests).
Status sign_mu_expanded(const PrivateKey::Expanded& x, const Poly* A, std::span<const uint8_t> mu, const uint8_t* rnd,
                        uint8_t* sig, unsigned max_attempts = kMaxSignAttempts);

}  // namespace mldsa
