// sign.cc - ML-DSA.Sign, HashML-DSA.Sign and Sign_internal (FIPS 204
// Algorithms 2, 4 and 7), on an expanded private key.
#include <cstring>
#include <memory>

#include "cpu/backend.h"
#include "cpu/ct.h"
#include "cpu/keccak.h"
#include "cpu/key_expanded.h"
#include "cpu/mldsa.h"
#include "cpu/packing.h"
#include "cpu/sampling.h"

namespace mldsa {
namespace {

// The signing loop's intermediates: on the heap, since OpenSSL runs ASYNC
// jobs on small (32 KiB) stacks; wiped on every exit.
// Not value-initialised (every part is written before it is read), and only
// the first l or k entries of each vector are used and wiped: zeroing all of
// it twice per signature cost ~4% of signing.
struct SignScratch {
  unsigned l = 0, k = 0;
  uint8_t rhopp[64];
  Poly y[MAX_L], z[MAX_L], w0[MAX_K], w1[MAX_K], h[MAX_K], tmp, c_hat;
  SmallPoly c_small_hat;  // c in the NTT' domain, for c*s1 and c*s2
  uint8_t w1enc[MAX_K * 192];
  ~SignScratch() {
    secure_zero(rhopp, sizeof rhopp);
    for (Poly* v : {y, z}) secure_zero(v, sizeof(Poly) * l);
    for (Poly* v : {w0, w1, h}) secure_zero(v, sizeof(Poly) * k);
    secure_zero(&tmp, sizeof tmp);
    secure_zero(&c_hat, sizeof c_hat);
    secure_zero(&c_small_hat, sizeof c_small_hat);
    secure_zero(w1enc, sizeof w1enc);
  }
};

}  // namespace

Status sign_mu_expanded(const PrivateKey::Expanded& x, const Poly* A, std::span<const uint8_t> mu, const uint8_t* rnd,
                        uint8_t* sig, unsigned max_attempts) {
  if (mu.size() != MU_BYTES) return Status::bad_mu_length;
  const Params& p = *x.p;
  const Backend& be = backend();

  uint8_t fresh[RND_BYTES];
  if (!rnd) {
    if (!os_random(fresh, sizeof fresh)) return Status::rng_failure;
    rnd = fresh;
  }
  auto scratch = std::make_unique_for_overwrite<SignScratch>();
  SignScratch& s = *scratch;
  s.l = p.l;
  s.k = p.k;
  {  // rho'' = H(K || rnd || mu, 64)  (line 7)
    Keccak hk;
    hk.init(SHAKE256_RATE);
    hk.absorb(x.K, 32);
    hk.absorb(rnd, RND_BYTES);
    hk.absorb(mu.data(), MU_BYTES);
    hk.finalize(DS_SHAKE);
    hk.squeeze(s.rhopp, sizeof s.rhopp);
    hk.wipe();
  }
  secure_zero(fresh, sizeof fresh);

  const size_t ct_len = p.lambda / 4;
  const size_t w1b = w1_bytes(p.gamma2);
  uint8_t ctilde[64];
  uint8_t* w1enc = s.w1enc;
  Poly& c_hat = s.c_hat;

  for (uint32_t kappa = 0, attempt = 0;; kappa += p.l) {
    if (attempt++ == max_attempts) return Status::sign_attempts_exhausted;
    // y = ExpandMask(rho'', kappa); w = A^ * NTT(y)  (lines 11-12)
    be.expand_mask(s.y, p.l, s.rhopp, static_cast<uint16_t>(kappa), p.gamma1_bits);
    Poly* y_hat = s.z;  // z is not needed until y_hat is used up
    std::memcpy(y_hat, s.y, sizeof(Poly) * p.l);
    for (unsigned j = 0; j < p.l; ++j) be.ntt(&y_hat[j]);
    for (unsigned i = 0; i < p.k; ++i) {
      be.pointwise_acc(&s.tmp, &A[i * p.l], y_hat, p.l);
      be.invntt_tomont(&s.tmp);
      be.caddq(&s.tmp);
      be.decompose_w1(&s.w1[i], &s.w0[i], w1enc + i * w1b, &s.tmp, p.gamma2);  // lines 13, 15
    }
    // c~ = H(mu || w1Encode(w1))  (line 15). The challenge is public: it is
    // published with the signature, and a rejected one reveals nothing the
    // scheme's proof does not already grant (see ct.h).
    {
      Keccak hc;
      hc.init(SHAKE256_RATE);
      hc.absorb(mu.data(), MU_BYTES);
      hc.absorb(w1enc, p.k * w1b);
      hc.finalize(DS_SHAKE);
      hc.squeeze(ctilde, ct_len);
    }
    declassify_bytes(ctilde, ct_len);
    sample_in_ball(&c_hat, ctilde, ct_len, p.tau);
    be.small_ntt(&s.c_small_hat, &c_hat);

    // z = y + c*s1; reject if ||z|| >= gamma1 - beta  (lines 18-23)
    uint32_t reject = 0;
    for (unsigned j = 0; j < p.l; ++j) {
      be.small_mul(&s.tmp, &s.c_small_hat, &x.s1_small_hat[j]);  // exact c*s1
      reject |= be.add_reduce_exceeds(&s.z[j], &s.y[j], &s.tmp, p.gamma1 - static_cast<int32_t>(p.beta));
    }
    if (declassify(reject)) continue;

    // r0 = w0 - c*s2; reject if ||r0|| >= gamma2 - beta
    for (unsigned i = 0; i < p.k; ++i) {
      be.small_mul(&s.tmp, &s.c_small_hat, &x.s2_small_hat[i]);  // exact c*s2
      reject |= be.sub_reduce_exceeds(&s.w0[i], &s.w0[i], &s.tmp, p.gamma2 - static_cast<int32_t>(p.beta));
    }
    if (declassify(reject)) continue;

    // c*t0: reject if ||c t0|| >= gamma2; hints from w0 - c s2 + c t0  (lines 25-28).
    // t0 is not small: the product goes through the NTT over q, only for
    // attempts that got this far.
    be.ntt(&c_hat);
    unsigned ones = 0;
    for (unsigned i = 0; i < p.k; ++i) {
      be.pointwise_acc(&s.tmp, &c_hat, &x.t0_hat[i], 1);
      be.invntt_tomont(&s.tmp);
      reject |= be.add_reduce_exceeds(&s.tmp, &s.tmp, nullptr, p.gamma2);
      ones += be.make_hint(&s.h[i], &s.w0[i], &s.tmp, &s.w1[i], p.gamma2);
    }
    if (declassify(reject) || declassify(ones > p.omega)) continue;

    // Accepted: z and h are the signature, public from here on.
    declassify_bytes(s.z, sizeof(Poly) * p.l);
    declassify_bytes(s.h, sizeof(Poly) * p.k);
    sig_encode(sig, p, ctilde, s.z, s.h);
    return Status::ok;
  }
}

Status sign_mu(const PrivateKey& key, std::span<const uint8_t> mu, const uint8_t* rnd, uint8_t* sig) {
  return sign_mu_expanded(signing_form(key.expanded()), key.public_key().expanded().A, mu, rnd, sig);
}

namespace {

// What one-shot signing decodes an encoded secret key into: sized for the
// parameter set, on the heap (ASYNC stacks), wiped on every exit.
struct OneShotKey {
  PrivateKey::Expanded x;  // wipes itself
  SigningKeyScratch scratch;
  uint8_t rho[32];
  std::unique_ptr<Poly[]> A;  // public: not wiped
  explicit OneShotKey(const Params& p) : x(p), A(std::make_unique_for_overwrite<Poly[]>(p.k * p.l)) {}
  ~OneShotKey() { secure_zero(&scratch, sizeof scratch); }
};

}  // namespace

Status sign_encoded(const Params& p, std::span<const uint8_t> sk, std::span<const uint8_t> msg,
                    std::span<const uint8_t> ctx, const uint8_t* rnd, uint8_t* sig) {
  if (sk.size() != p.sk_bytes) return Status::bad_sk_length;
  if (ctx.size() > MAX_CONTEXT_BYTES) return Status::context_too_long;
  auto k = std::make_unique<OneShotKey>(p);
  if (Status st = decode_signing_key(p, sk, k->x, k->rho, k->A.get(), k->scratch, true); st != Status::ok) return st;
  MuBuilder b;
  uint8_t mu[MU_BYTES];
  if (Status st = b.init_pure(k->x.tr, ctx); st != Status::ok) return st;
  b.update(msg);
  b.final(mu);
  return sign_mu_expanded(k->x, k->A.get(), mu, rnd, sig);
}

Status sign_internal(const PrivateKey& key, std::span<const uint8_t> mprime, const uint8_t* rnd, uint8_t* sig) {
  MuBuilder b;
  uint8_t mu[MU_BYTES];
  b.init_internal(key.expanded().tr);
  b.update(mprime);
  b.final(mu);
  return sign_mu(key, mu, rnd, sig);
}

Status sign(const PrivateKey& key, std::span<const uint8_t> msg, std::span<const uint8_t> ctx, const uint8_t* rnd,
            uint8_t* sig) {
  MuBuilder b;
  uint8_t mu[MU_BYTES];
  if (Status st = b.init_pure(key.expanded().tr, ctx); st != Status::ok) return st;
  b.update(msg);
  b.final(mu);
  return sign_mu(key, mu, rnd, sig);
}

Status sign_prehash(const PrivateKey& key, HashAlg h, std::span<const uint8_t> digest,
                    std::span<const uint8_t> ctx, const uint8_t* rnd, uint8_t* sig) {
  MuBuilder b;
  uint8_t mu[MU_BYTES];
  if (Status st = b.init_prehash(key.expanded().tr, ctx, h, digest); st != Status::ok) return st;
  b.final(mu);
  return sign_mu(key, mu, rnd, sig);
}

}  // namespace mldsa
