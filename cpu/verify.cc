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
namespace {

// Row i of w1' = UseHint(h, NTT^-1(A^ * z^ - c^ * t1^)), w1Encoded into out
// (Algorithm 8 lines 9-10; line 12's w1Encode); w and ct1 are scratch.
void w1_row(const Params& p, unsigned i, const Poly* A, const Poly* z_hat, const Poly& c_hat, const Poly* t1_hat,
            const Poly* h, uint8_t* out, Poly& w, Poly& ct1) {
  const Backend& be = backend();
  be.pointwise_acc(&w, &A[i * p.l], z_hat, p.l);
  be.pointwise_acc(&ct1, &c_hat, &t1_hat[i], 1);
  be.sub_reduce_exceeds(&w, &w, &ct1, Q);  // only the difference is wanted
  be.invntt_tomont(&w);
  be.caddq(&w);
  be.use_hint_w1(out, &w, &h[i], p.gamma2);
}

// Algorithm 8 lines 8 and 13 for both entry points: sigDecode, then ||z|| <
// gamma1 - beta, then z^ = NTT(z) in place.
Status decode_checked(const Params& p, const uint8_t* sig, const uint8_t** ctilde, Poly* z, Poly* h) {
  const Backend& be = backend();
  if (Status st = sig_decode(p, sig, ctilde, z, h); st != Status::ok) return st;
  uint32_t too_big = 0;
  for (unsigned j = 0; j < p.l; ++j) too_big |= be.exceeds(&z[j], p.gamma1 - static_cast<int32_t>(p.beta));
  if (too_big) return Status::verify_failed;
  for (unsigned j = 0; j < p.l; ++j) be.ntt(&z[j]);
  return Status::ok;
}

// The final comparison c~ == c~' (line 13's last part).
Status ctilde_matches(const Params& p, const uint8_t* ctilde, const uint8_t* ctilde2) {
  return std::memcmp(ctilde, ctilde2, p.ctilde_bytes) == 0 ? Status::ok : Status::verify_failed;
}

}  // namespace

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
  if (Status st = decode_checked(p, sig.data(), &ctilde, z, h); st != Status::ok) return st;

  const size_t ct_len = p.ctilde_bytes;
  sample_in_ball(&c_hat, ctilde, ct_len, p.tau);
  be.ntt(&c_hat);

  // w'_approx = NTT^-1(A^ * z^ - c^ * t1^); w1' = UseHint(h, w'_approx)  (lines 9-10)
  const size_t w1b = w1_bytes(p.gamma2);
  uint8_t w1enc[MAX_K * 192];
  for (unsigned i = 0; i < p.k; ++i) w1_row(p, i, px.A, z, c_hat, px.t1_hat, h, w1enc + i * w1b, w, ct1);
  // c~' = H(mu || w1Encode(w1'))  (line 12)
  uint8_t ctilde2[64];
  Keccak hc;
  hc.init(SHAKE256_RATE);
  hc.absorb(mu.data(), MU_BYTES);
  hc.absorb(w1enc, p.k * w1b);
  hc.finalize(DS_SHAKE);
  hc.squeeze(ctilde2, ct_len);
  return ctilde_matches(p, ctilde, ctilde2);
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

namespace {

// verify_encoded's scratch, sized for the parameter set (on the heap:
// OpenSSL's ASYNC jobs run on 32 KiB stacks). Public data only.
struct OneShotVerify {
  std::unique_ptr<Poly[]> polys;
  Poly *A, *t1_hat, *z, *h, *c_hat, *w, *ct1;
  uint8_t rho[32], tr[64], ball[SHAKE256_RATE], ctilde2[64];
  uint8_t hin[MU_BYTES + MAX_K * 192];  // mu || w1Encode(w1')
  explicit OneShotVerify(const Params& p)
      : polys(std::make_unique_for_overwrite<Poly[]>(p.k * p.l + 2 * p.k + p.l + 3)),  // each part written before use
        A(polys.get()),
        t1_hat(A + p.k * p.l),
        z(t1_hat + p.k),
        h(z + p.l),
        c_hat(h + p.k),
        w(c_hat + 1),
        ct1(w + 1) {}
};

// verify_encoded's three hashes beside ExpandA, in this order: SampleInBall's
// first block H(c~); tr = H(pk); c~' = H(mu || w1Encode(w1')). c is made
// when the first is done and mu when the second is; the rows of w1' as
// the rows of A^ are done (from the first on; A^'s rows take longer than the
// one permutation of H(c~)).
class VerifyHashes final : public LaneHashes {
 public:
  VerifyHashes(const Params& p, std::span<const uint8_t> pk, const uint8_t* ctilde, std::span<const uint8_t> msg,
               std::span<const uint8_t> ctx, OneShotVerify& v)
      : p_(p), pk_(pk), ctilde_(ctilde), msg_(msg), ctx_(ctx), v_(v), w1b_(w1_bytes(p.gamma2)) {}
  bool next(Job& job) override {
    switch (stage_++) {
      case 0:
        job = {ctilde_, p_.ctilde_bytes, v_.ball, sizeof v_.ball};
        return true;
      case 1:
        sample_in_ball(v_.c_hat, ctilde_, p_.ctilde_bytes, p_.tau, v_.ball);
        backend().ntt(v_.c_hat);
        have_c_ = true;
        write_rows();
        job = {pk_.data(), pk_.size(), v_.tr, p_.tr_bytes};
        return true;
      case 2: {
        MuBuilder b;  // the context was checked before
        b.init_message(p_, {v_.tr, p_.tr_bytes}, ctx_);
        b.update(msg_);
        b.final(v_.hin);
        job = {v_.hin, MU_BYTES + p_.k * w1b_, v_.ctilde2, p_.ctilde_bytes};
        return true;
      }
      default:
        return false;
    }
  }
  void rows_done(unsigned n) override {
    rows_final_ = n;
    write_rows();
  }
  size_t ready(const Job& job) override {
    if (job.msg != v_.hin) return job.msg_len;
    write_rows();
    return MU_BYTES + rows_written_ * w1b_;
  }

 private:
  void write_rows() {
    if (!have_c_) return;
    for (; rows_written_ < rows_final_; ++rows_written_)
      w1_row(p_, rows_written_, v_.A, v_.z, *v_.c_hat, v_.t1_hat, v_.h, v_.hin + MU_BYTES + rows_written_ * w1b_,
             *v_.w, *v_.ct1);
  }
  const Params& p_;
  std::span<const uint8_t> pk_;
  const uint8_t* ctilde_;
  std::span<const uint8_t> msg_, ctx_;
  OneShotVerify& v_;
  const size_t w1b_;
  unsigned stage_ = 0, rows_final_ = 0, rows_written_ = 0;
  bool have_c_ = false;
};

}  // namespace

Status verify_encoded(const Params& p, std::span<const uint8_t> pk, std::span<const uint8_t> msg,
                      std::span<const uint8_t> ctx, std::span<const uint8_t> sig) {
  const Backend& be = backend();
  if (!be.expand_a_hash || !be.verify_lanes_shapes[p.k / 2 - 2]) {  // decode (tr in the lanes, if any), then verify
    std::unique_ptr<PublicKey> key;
    if (Status st = PublicKey::decode(p, pk, key); st != Status::ok) return st;
    return verify(*key, msg, ctx, sig);
  }
  // The same checks, in the same order, as decode then verify.
  if (pk.size() != p.pk_bytes) return Status::bad_pk_length;
  if (ctx.size() > MAX_CONTEXT_BYTES) return Status::context_too_long;
  if (p.scheme == Scheme::dilithium_r3 && !ctx.empty()) return Status::context_unsupported;
  if (sig.size() != p.sig_bytes) return Status::bad_sig_length;
  auto v = std::make_unique<OneShotVerify>(p);
  const uint8_t* ctilde;
  if (Status st = decode_checked(p, sig.data(), &ctilde, v->z, v->h); st != Status::ok) return st;
  pk_decode(p, pk.data(), v->rho, v->t1_hat);
  t1_hat_of(p, v->t1_hat, v->t1_hat);
  VerifyHashes hashes(p, pk, ctilde, msg, ctx, *v);
  be.expand_a_hash(v->A, v->rho, p.k, p.l, hashes);
  return ctilde_matches(p, ctilde, v->ctilde2);
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
