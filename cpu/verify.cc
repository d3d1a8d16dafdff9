// verify.cc - ML-DSA.Verify, HashML-DSA.Verify and Verify_internal (FIPS 204
// Algorithms 3, 5 and 8), and round 3's Verify, on an expanded public key.
// Everything is public.
#include <cstring>
#include <memory>

#include "cpu/backend.h"
#include "cpu/keccak.h"
#include "cpu/key_expanded.h"
#include "cpu/mldsa.h"
#include "cpu/packing.h"
#include "cpu/sampling.h"

namespace mldsa {

Status verify_mu(const PublicKey& key, std::span<const uint8_t> mu, std::span<const uint8_t> sig) {
  const PublicKey::Expanded& px = verify_form(key.expanded());
  const Params& p = *px.p;
  if (mu.size() != MU_BYTES) return Status::bad_mu_length;
  if (sig.size() != p.sig_bytes) return Status::bad_sig_length;
  const Backend& be = backend();

  const uint8_t* ctilde;
  // On the heap: OpenSSL's ASYNC jobs run on 32 KiB stacks.
  struct Scratch {
    Poly z[MAX_L], h[MAX_K], c_hat, w, ct1;
  };
  auto scratch = std::make_unique_for_overwrite<Scratch>();  // public data, each part written before use
  Poly *z = scratch->z, *h = scratch->h, &c_hat = scratch->c_hat, &w = scratch->w, &ct1 = scratch->ct1;
  if (Status st = sig_decode(p, sig.data(), &ctilde, z, h); st != Status::ok) return st;
  // ||z|| < gamma1 - beta  (line 13)
  uint32_t too_big = 0;
  for (unsigned j = 0; j < p.l; ++j) too_big |= be.exceeds(&z[j], p.gamma1 - static_cast<int32_t>(p.beta));
  if (too_big) return Status::verify_failed;

  const size_t ct_len = p.ctilde_bytes;
  sample_in_ball(&c_hat, ctilde, ct_len, p.tau);
  be.ntt(&c_hat);
  for (unsigned j = 0; j < p.l; ++j) be.ntt(&z[j]);

  // w'_approx = NTT^-1(A^ * z^ - c^ * t1^); w1' = UseHint(h, w'_approx)  (lines 9-10)
  const size_t w1b = w1_bytes(p.gamma2);
  uint8_t w1enc[MAX_K * 192];
  for (unsigned i = 0; i < p.k; ++i) {
    be.pointwise_acc(&w, &px.A[i * p.l], z, p.l);
    be.pointwise_acc(&ct1, &c_hat, &px.t1_hat[i], 1);
    be.sub_reduce_exceeds(&w, &w, &ct1, Q);  // only the difference is wanted
    be.invntt_tomont(&w);
    be.caddq(&w);
    be.use_hint_w1(w1enc + i * w1b, &w, &h[i], p.gamma2);
  }
  // c~' = H(mu || w1Encode(w1'))  (line 12)
  uint8_t ctilde2[64];
  Keccak hc;
  hc.init(SHAKE256_RATE);
  hc.absorb(mu.data(), MU_BYTES);
  hc.absorb(w1enc, p.k * w1b);
  hc.finalize(DS_SHAKE);
  hc.squeeze(ctilde2, ct_len);
  return std::memcmp(ctilde, ctilde2, ct_len) == 0 ? Status::ok : Status::verify_failed;
}

Status verify_internal(const PublicKey& key, std::span<const uint8_t> mprime, std::span<const uint8_t> sig) {
  MuBuilder b;
  uint8_t mu[MU_BYTES];
  b.init_internal(key.tr());
  b.update(mprime);
  b.final(mu);
  return verify_mu(key, mu, sig);
}

Status verify(const PublicKey& key, std::span<const uint8_t> msg, std::span<const uint8_t> ctx,
              std::span<const uint8_t> sig) {
  MuBuilder b;
  uint8_t mu[MU_BYTES];
  if (Status st = b.init_message(key.params(), key.tr(), ctx); st != Status::ok) return st;
  b.update(msg);
  b.final(mu);
  return verify_mu(key, mu, sig);
}

Status verify_prehash(const PublicKey& key, HashAlg h, std::span<const uint8_t> digest,
                      std::span<const uint8_t> ctx, std::span<const uint8_t> sig) {
  if (key.params().scheme != Scheme::ml_dsa) return Status::prehash_unsupported;
  MuBuilder b;
  uint8_t mu[MU_BYTES];
  if (Status st = b.init_prehash(key.tr(), ctx, h, digest); st != Status::ok) return st;
  b.final(mu);
  return verify_mu(key, mu, sig);
}

}  // namespace mldsa
