// sign.cc - ML-DSA.Sign, HashML-DSA.Sign and Sign_internal (FIPS 204
// Algorithms 2, 4 and 7), and round 3's Sign, on an expanded private key.
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

// Attempts run in groups (FIPS 204 Algorithm 7's loop, several kappa at a
// time): their masks come from one ExpandMask call and their challenges
// c~ = H(mu || w1Encode(w1)) from one 4-way SHAKE256. The attempts are then
// checked in kappa order and the first valid one is the signature, exactly as
// in the one-at-a-time loop. A group's attempts after the accepted one are
// wasted work, so grouping pays only where a 4-way (or 8-way) Keccak
// permutation costs about what a single one does: the avx512 backend.
// Group sizes (Backend::sign_group) were measured by interleaved A/B against
// one at a time, mean signing time over 1000 messages on Zen 5: avx512
// ML-DSA-44 -8..-15% at 2 (4 is no better, 3 worse), ML-DSA-65 -7..-12% at 3
// (2 and 4 gain less), ML-DSA-87 (the costliest attempts) within +-2% at 2, so
// 1 (the generic avx512 table). With the challenges hashed in a lane of the
// masks' permutations (mask_hash), one at a time is 0.97-0.99x the time of
// those groups there (bench_paired, Zen 5): the avx512 table for Zen 5 takes
// 1 everywhere. The portable backend's 4-way permutation is four single ones
// and saves nothing. avx2 takes 1 everywhere: with the masks drawn ahead (draw_masks)
// it signs ML-DSA-65 6-9% faster than at 2 without them, and 2 with them is
// 4-6% slower than 1 (Zen 3, 2000-3000 sign_encoded calls per configuration,
// blocks of 16 alternating; 44 and 87 lose 5-20% at 2).
// A round-3 set has its ML-DSA twin's shape and attempt cost, so it takes the
// twin's group size.
// One attempt at a time, a backend with Backend::mask_hash draws the masks
// from a stream whose lanes also hash each attempt's challenge (the hash's
// 7-9 permutations then draw the next attempt's masks beside it); the
// masks are the same, nonce for nonce, so are the signatures.
constexpr unsigned kMaxGroup = 3;
unsigned attempts_per_group(const Backend& be, const Params& p) {
  const unsigned g = be.sign_group[p.k / 2 - 2];  // k = 4, 6, 8
  return g < 1 ? 1 : g > kMaxGroup ? kMaxGroup : g;
}

// Whether signing draws masks and hashes challenges on shared lanes
// (Backend::mask_hash): one attempt at a time only.
bool uses_mask_hash(const Backend& be, const Params& p) {
  return be.mask_hash != nullptr && be.mask_hash_shapes[p.k / 2 - 2] != 0 && attempts_per_group(be, p) == 1;
}
// And SampleInBall's first block there too.
bool uses_lane_ball(const Backend& be, const Params& p) {
  return uses_mask_hash(be, p) && be.mask_hash_shapes[p.k / 2 - 2] == 2;
}

// True iff the n bytes are all zero, without a branch on them; only the
// verdict (deterministic signing or not, which is no secret) is declassified.
bool all_zero(const uint8_t* b, size_t n) {
  uint32_t any = 0;
  for (size_t i = 0; i < n; ++i) any |= b[i];
  return declassify(ct_mask_nonzero(any)) == 0;
}

// rho'': FIPS 204 Algorithm 7 line 7, H(K || rnd || mu, 64); round 3,
// H(K || mu, 64) when deterministic (rnd all zero), else rnd itself.
void derive_rhopp(const Params& p, const uint8_t K[32], const uint8_t* rnd, std::span<const uint8_t> mu,
                  uint8_t rhopp[64]) {
  if (p.scheme == Scheme::dilithium_r3 && !all_zero(rnd, p.rnd_bytes)) {
    std::memcpy(rhopp, rnd, 64);
    return;
  }
  Keccak hk;
  hk.init(SHAKE256_RATE);
  hk.absorb(K, 32);
  if (p.scheme == Scheme::ml_dsa) hk.absorb(rnd, RND_BYTES);
  hk.absorb(mu.data(), MU_BYTES);
  hk.finalize(DS_SHAKE);
  hk.squeeze(rhopp, 64);
  hk.wipe();
}

// The signing loop's intermediates: on the heap, since OpenSSL runs ASYNC
// jobs on small (32 KiB) stacks; wiped on every exit.
// Not value-initialised (every part is written before it is read). The
// vectors are sized for the parameter set and group (y, w0 and w1 for each
// attempt of the group; z and h for the one being checked; y is followed by
// ahead, room for up to mask_ways - 1 masks drawn past the group's, see
// draw_masks), and so is hin. Size matters: when a call frees more than
// glibc's trim threshold (128 KiB), the heap goes back to the OS and the next
// call faults its pages in again. One-shot signing of ML-DSA-87 at 148 KiB
// (before sign_encoded put skDecode's vectors here) took 6,500 page faults
// and 1.4x the time in a bench run of all three sets; at 125 KiB, none.
struct SignScratch {
  unsigned g, ways;  // attempts per group; masks per permutation (Backend::mask_ways, at least 1)
  size_t npolys, hin_stride;
  std::unique_ptr<Poly[]> polys;
  std::unique_ptr<uint8_t[]> hin_bytes;  // mu || w1Encode(w1), one per attempt of the group
  Poly *y, *ahead, *z, *w0, *w1, *h;
  unsigned ahead_n = 0;  // masks in ahead, for kappa = ahead_kappa onwards
  uint16_t ahead_kappa = 0;
  Poly tmp, c_hat;
  SmallPoly c_small_hat;  // c in the NTT' domain, for c*s1 and c*s2
  uint8_t rhopp[64];
  SignScratch(unsigned group, unsigned l, unsigned k, unsigned ways, size_t hin_len)
      : g(group),
        ways(ways),
        npolys(group * l + (ways - 1) + l + 2 * group * k + k),
        hin_stride(hin_len),
        polys(std::make_unique_for_overwrite<Poly[]>(npolys)),
        hin_bytes(std::make_unique_for_overwrite<uint8_t[]>(group * hin_len)) {
    y = polys.get();
    ahead = y + group * l;
    z = ahead + (ways - 1);
    w0 = z + l;
    w1 = w0 + group * k;
    h = w1 + group * k;
  }
  uint8_t* hin(unsigned a) { return hin_bytes.get() + a * hin_stride; }
  static std::unique_ptr<SignScratch> make(const Backend& be, const Params& p) {
    // The shared lanes' stream keeps its own masks: no room ahead.
    const unsigned ways = uses_mask_hash(be, p) || be.mask_ways < 1 ? 1 : be.mask_ways;
    return std::make_unique<SignScratch>(attempts_per_group(be, p), p.l, p.k, ways, MU_BYTES + p.k * w1_bytes(p.gamma2));
  }
  ~SignScratch() {
    secure_zero(polys.get(), sizeof(Poly) * npolys);
    secure_zero(hin_bytes.get(), g * hin_stride);
    secure_zero(&tmp, sizeof tmp);
    secure_zero(&c_hat, sizeof c_hat);
    secure_zero(&c_small_hat, sizeof c_small_hat);
    secure_zero(rhopp, sizeof rhopp);
  }
};

// y = ExpandMask(rho'', kappa + r) for r < n (Algorithm 7 line 11, for the
// group's attempts, whose nonces are back to back). The backend's
// permutations make mask_ways polynomials at a time, so a count that is not a
// multiple of it (l = 5 and 7 on 4 ways) would leave lanes empty: the
// polynomials drawn past n land in ahead, right after y, and are the next
// call's first ones; an attempt costs about l / mask_ways permutation runs,
// not their round-up.
void draw_masks(const Backend& be, SignScratch& s, unsigned n, uint16_t kappa, unsigned gamma1_bits) {
  if (s.ahead_kappa != kappa) s.ahead_n = 0;  // not the next nonces (never in the loop below)
  const unsigned have = s.ahead_n < n ? s.ahead_n : n;
  std::memcpy(s.y, s.ahead, sizeof(Poly) * have);
  s.ahead_n -= have;
  s.ahead_kappa = static_cast<uint16_t>(kappa + n);
  if (s.ahead_n) {  // more in stock than asked for: keep the rest, in order
    std::memmove(s.ahead, s.ahead + have, sizeof(Poly) * s.ahead_n);
    return;
  }
  const unsigned need = n - have;
  if (!need) return;
  const unsigned W = s.ways;
  const unsigned draw = (need + W - 1) / W * W;  // y + n + (draw - need) ends within ahead's room
  be.expand_mask(s.y + have, draw, s.rhopp, static_cast<uint16_t>(kappa + have), gamma1_bits);
  s.ahead_n = draw - need;
  if (s.y + n != s.ahead) std::memmove(s.ahead, s.y + n, sizeof(Poly) * s.ahead_n);  // a short last group
}

// Algorithm 7 from line 7 on, in s (made by SignScratch::make for be and x's
// parameter set).
Status sign_in(SignScratch& s, const Backend& be, const PrivateKey::Expanded& x, const Poly* A,
               std::span<const uint8_t> mu, const uint8_t* rnd, uint8_t* sig, unsigned max_attempts) {
  const Params& p = *x.p;
  uint8_t fresh[MAX_RND_BYTES];
  if (!rnd) {
    if (!os_random(fresh, p.rnd_bytes)) return Status::rng_failure;
    rnd = fresh;
  }
  const unsigned G = s.g;
  const size_t ct_len = p.ctilde_bytes;
  const size_t w1b = w1_bytes(p.gamma2);
  const size_t hin_len = s.hin_stride;
  derive_rhopp(p, x.K, rnd, mu, s.rhopp);  // (line 7)
  secure_zero(fresh, sizeof fresh);
  const std::unique_ptr<MaskHash> lanes = uses_mask_hash(be, p) ? be.mask_hash(s.rhopp, p.gamma1_bits) : nullptr;
  uint8_t ball_block[SHAKE256_RATE];  // SampleInBall's first block from the lanes
  uint8_t* const ball = uses_lane_ball(be, p) ? ball_block : nullptr;

  uint8_t ctilde[kMaxGroup][64];
  uint8_t* const ct_out[kMaxGroup] = {ctilde[0], ctilde[1], ctilde[2]};
  uint8_t* hin[kMaxGroup];
  for (unsigned a = 0; a < G; ++a) {
    hin[a] = s.hin(a);
    std::memcpy(hin[a], mu.data(), MU_BYTES);
  }
  Poly& c_hat = s.c_hat;

  for (uint32_t attempt = 0;;) {
    if (attempt == max_attempts) return Status::sign_attempts_exhausted;
    // The group never runs past the attempt limit.
    const unsigned g = max_attempts - attempt < G ? max_attempts - attempt : G;
    // y = ExpandMask(rho'', kappa) for each attempt  (line 11)
    if (lanes)
      lanes->take(s.y, p.l);  // g = 1; kappa = attempt * l is the stream's count
    else
      draw_masks(be, s, g * p.l, static_cast<uint16_t>(attempt * p.l), p.gamma1_bits);
    // w = A^ * NTT(y)  (line 12)
    Poly* y_hat = s.z;  // z is not needed until y_hat is used up
    for (unsigned a = 0; a < g; ++a) {
      std::memcpy(y_hat, &s.y[a * p.l], sizeof(Poly) * p.l);
      for (unsigned j = 0; j < p.l; ++j) be.ntt(&y_hat[j]);
      for (unsigned i = 0; i < p.k; ++i) {
        be.pointwise_acc(&s.tmp, &A[i * p.l], y_hat, p.l);
        be.invntt_tomont(&s.tmp);
        be.caddq(&s.tmp);
        const unsigned wi = a * p.k + i;
        be.decompose_w1(&s.w1[wi], &s.w0[wi], hin[a] + MU_BYTES + i * w1b, &s.tmp, p.gamma2);  // lines 13, 15
      }
    }
    // c~ = H(mu || w1Encode(w1))  (line 15); alone, beside the next masks or
    // through the single sponge
    if (lanes)
      lanes->hash(hin[0], hin_len, ctilde[0], ct_len, ball);
    else if (g == 1)
      shake256(ctilde[0], ct_len, hin[0], hin_len);
    else
      shake256_x4(ct_out, ct_len, hin, hin_len, g);

    for (unsigned a = 0; a < g; ++a) {
      ++attempt;
      const Poly* y = &s.y[a * p.l];
      Poly* w0 = &s.w0[a * p.k];
      const Poly* w1 = &s.w1[a * p.k];
      // The challenge is public: it is published with the signature, and a
      // rejected one reveals nothing the scheme's proof does not already
      // grant (see ct.h). A group's attempts after the accepted one are never
      // looked at.
      declassify_bytes(ctilde[a], ct_len);
      if (ball) declassify_bytes(ball, sizeof ball_block);  // H(c~): as public as c~ (g = 1)
      sample_in_ball(&c_hat, ctilde[a], ct_len, p.tau, ball);
      be.small_ntt(&s.c_small_hat, &c_hat);

      // r0 = w0 - c*s2; reject if ||r0|| >= gamma2 - beta  (lines 18-23).
      // This check first: it rejects more often than the one on z in every
      // parameter set (accepts with probability about exp(-256 k beta /
      // gamma2): 0.43, 0.32, 0.39 against exp(-256 l beta / gamma1): 0.54,
      // 0.62, 0.66), so fewer attempts compute both products.
      uint32_t reject = 0;
      for (unsigned i = 0; i < p.k; ++i) {
        be.small_mul(&s.tmp, &s.c_small_hat, &x.s2_small_hat[i]);  // exact c*s2
        reject |= be.sub_reduce_exceeds(&w0[i], &w0[i], &s.tmp, p.gamma2 - static_cast<int32_t>(p.beta));
      }
      if (declassify(reject)) continue;

      // z = y + c*s1; reject if ||z|| >= gamma1 - beta
      for (unsigned j = 0; j < p.l; ++j) {
        be.small_mul(&s.tmp, &s.c_small_hat, &x.s1_small_hat[j]);  // exact c*s1
        reject |= be.add_reduce_exceeds(&s.z[j], &y[j], &s.tmp, p.gamma1 - static_cast<int32_t>(p.beta));
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
        ones += be.make_hint(&s.h[i], &w0[i], &s.tmp, &w1[i], p.gamma2);
      }
      if (declassify(reject) || declassify(ones > p.omega)) continue;

      // Accepted: z and h are the signature, public from here on.
      declassify_bytes(s.z, sizeof(Poly) * p.l);
      declassify_bytes(s.h, sizeof(Poly) * p.k);
      sig_encode(sig, p, ctilde[a], s.z, s.h);
      return Status::ok;
    }
  }
}

}  // namespace

Status sign_mu_expanded(const PrivateKey::Expanded& x, const Poly* A, std::span<const uint8_t> mu, const uint8_t* rnd,
                        uint8_t* sig, unsigned max_attempts) {
  if (mu.size() != MU_BYTES) return Status::bad_mu_length;
  const Backend& be = backend();
  auto s = SignScratch::make(be, *x.p);
  return sign_in(*s, be, x, A, mu, rnd, sig, max_attempts);
}

Status sign_mu(const PrivateKey& key, std::span<const uint8_t> mu, const uint8_t* rnd, uint8_t* sig) {
  return sign_mu_expanded(signing_form(key.expanded()), key.public_key().expanded().A, mu, rnd, sig);
}

namespace {

// What one-shot signing decodes an encoded secret key into: sized for the
// parameter set, on the heap (ASYNC stacks), wiped on every exit.
struct OneShotKey {
  PrivateKey::Expanded x;  // wipes itself
  uint8_t rho[32];
  std::unique_ptr<Poly[]> A;  // public: not wiped
  explicit OneShotKey(const Params& p) : x(p), A(std::make_unique_for_overwrite<Poly[]>(p.k * p.l)) {}
};

}  // namespace

Status sign_encoded(const Params& p, std::span<const uint8_t> sk, std::span<const uint8_t> msg,
                    std::span<const uint8_t> ctx, const uint8_t* rnd, uint8_t* sig) {
  if (sk.size() != p.sk_bytes) return Status::bad_sk_length;
  if (ctx.size() > MAX_CONTEXT_BYTES) return Status::context_too_long;
  if (p.scheme == Scheme::dilithium_r3 && !ctx.empty()) return Status::context_unsupported;
  auto k = std::make_unique<OneShotKey>(p);
  // skDecode's s1, s2 and t0 (l + 2k polynomials) go where signing's vectors
  // (2l + 3k at least) will be: ML-DSA-87's one-shot signature then needs
  // 125 KiB of heap, not 148 (see SignScratch). Wiped with the scratch.
  const Backend& be = backend();
  auto s = SignScratch::make(be, p);
  Poly* const s12 = s->polys.get();
  if (Status st = decode_signing_key(p, sk, k->x, k->rho, k->A.get(), s12, s12 + p.l + p.k, true); st != Status::ok)
    return st;
  MuBuilder b;
  uint8_t mu[MU_BYTES];
  if (Status st = b.init_message(p, {k->x.tr, p.tr_bytes}, ctx); st != Status::ok) return st;
  b.update(msg);
  b.final(mu);
  return sign_in(*s, be, k->x, k->A.get(), mu, rnd, sig, kMaxSignAttempts);
}

Status sign_internal(const PrivateKey& key, std::span<const uint8_t> mprime, const uint8_t* rnd, uint8_t* sig) {
  MuBuilder b;
  uint8_t mu[MU_BYTES];
  b.init_internal(key.public_key().tr());
  b.update(mprime);
  b.final(mu);
  return sign_mu(key, mu, rnd, sig);
}

Status sign(const PrivateKey& key, std::span<const uint8_t> msg, std::span<const uint8_t> ctx, const uint8_t* rnd,
            uint8_t* sig) {
  MuBuilder b;
  uint8_t mu[MU_BYTES];
  if (Status st = b.init_message(key.params(), key.public_key().tr(), ctx); st != Status::ok) return st;
  b.update(msg);
  b.final(mu);
  return sign_mu(key, mu, rnd, sig);
}

Status sign_prehash(const PrivateKey& key, HashAlg h, std::span<const uint8_t> digest,
                    std::span<const uint8_t> ctx, const uint8_t* rnd, uint8_t* sig) {
  if (key.params().scheme != Scheme::ml_dsa) return Status::prehash_unsupported;
  MuBuilder b;
  uint8_t mu[MU_BYTES];
  if (Status st = b.init_prehash(key.public_key().tr(), ctx, h, digest); st != Status::ok) return st;
  b.final(mu);
  return sign_mu(key, mu, rnd, sig);
}

}  // namespace mldsa
