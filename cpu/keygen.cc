// keygen.cc - key generation (FIPS 204 Algorithms 1 and 6; round 3's KeyGen),
// key decoding and the expanded key forms.
#include <cstring>

#include "cpu/backend.h"
#include "cpu/ct.h"
#include "cpu/keccak.h"
#include "cpu/key_expanded.h"
#include "cpu/mldsa.h"
#include "cpu/packing.h"
#include "cpu/rounding.h"

namespace mldsa {
namespace {

// Row i of t = NTT^-1(A^ o s1^) + s2, then Power2Round (Algorithm 6 lines
// 5-6); t is scratch.
void t1_t0_row(const Params& p, unsigned i, const Poly* A, const Poly* s1_hat, const Poly* s2, Poly* t1, Poly* t0,
               Poly& t) {
  const Backend& be = backend();
  be.pointwise_acc(&t, &A[i * p.l], s1_hat, p.l);
  be.invntt_tomont(&t);
  be.power2round(&t1[i], &t0[i], &t, &s2[i]);
}

// Fills the public expansion from rho (A^ already expanded) and t1: pk (unless
// the caller has it), tr = H(pk, tr_bytes) (unless the caller made it), and
// t1_hat now (eager) or on first use.
void finish_public(PublicKey::Expanded& x, Poly* t1, bool eager, bool have_pk = false, bool have_tr = false) {
  const Params& p = *x.p;
  declassify_bytes(t1, sizeof(Poly) * p.k);  // t1 is part of pk
  if (!have_pk) pk_encode(x.pk, p, x.rho, t1);
  if (!have_tr) shake256(x.tr, p.tr_bytes, x.pk, p.pk_bytes);
  if (eager) x.t1_hat_once([&] { t1_hat_of(*x.p, t1, x.t1_hat); });
}

void ntt_vec(Poly* v, unsigned n) {
  const Backend& be = backend();
  for (unsigned i = 0; i < n; ++i) be.ntt(&v[i]);
}

// s1^ = NTT(s1) over q, for t = A s1 + s2.
void s1_hat_of(const Params& p, const Poly* s1, Poly* s1_hat) {
  std::memcpy(s1_hat, s1, sizeof(Poly) * p.l);
  ntt_vec(s1_hat, p.l);
}

// tr = H(pk) beside ExpandA, pk = rho || t1 made row by row as
// expand_a_hash finishes the rows of A^, with t0 beside it; with draw,
// ExpandS's s = (s1, s2) in the same lanes (s1^ from s1 once row 0 is
// done, which needs all of s1).
class PublicFromRows final : public LaneHashes {
 public:
  PublicFromRows(PublicKey::Expanded& x, Poly* s, Poly* s1_hat, Poly* t1, Poly* t0, const Secrets* draw)
      : x_(x), s_(s), s1_hat_(s1_hat), t1_(t1), t0_(t0), draw_(draw) {
    std::memcpy(x_.pk, x_.rho, 32);
  }
  ~PublicFromRows() override { secure_zero(&t_, sizeof t_); }
  bool next(Job& job) override {
    if (given_) return false;
    given_ = true;
    job = {x_.pk, x_.p->pk_bytes, x_.tr, x_.p->tr_bytes};
    return true;
  }
  void rows_done(unsigned n) override {
    const unsigned i = n - 1;
    if (i == 0) s1_hat_of(*x_.p, s_, s1_hat_);
    t1_t0_row(*x_.p, i, x_.A, s1_hat_, s_ + x_.p->l, t1_, t0_, t_);
    declassify_bytes(&t1_[i], sizeof(Poly));  // t1 is part of pk
    pk_encode_t1_row(x_.pk, i, &t1_[i]);
    rows_ = n;
  }
  size_t ready(const Job&) override { return 32 + rows_ * T1_BYTES; }
  const Secrets* secrets() override { return draw_; }

 private:
  PublicKey::Expanded& x_;
  Poly *s_, *s1_hat_;
  Poly *t1_, *t0_;
  const Secrets* draw_;
  Poly t_;
  unsigned rows_ = 0;
  bool given_ = false;
};

// A^ from rho, t1 and t0 from s = (s1, s2), pk and tr = H(pk) (Algorithm 6
// lines 3-9), s drawn first (ExpandS, line 4) where draw is given: where the
// backend shares lanes between ExpandA and a hash, s is drawn in them too,
// each row of t1 is made as soon as its row of A^ (and s) is, and pk is
// hashed beside the rest of A^ (ML-DSA-65: 15 permutations that otherwise
// run one state at a time after it).
void expand_public(PublicKey::Expanded& x, Poly* s, Poly* s1_hat, Poly* t1, Poly* t0,
                   const LaneHashes::Secrets* draw) {
  const Params& p = *x.p;
  const Backend& be = backend();
  const unsigned lanes = be.expand_a_hash ? be.keygen_lanes_shapes[p.k / 2 - 2] : 0;
  if (draw && lanes < 2) {
    be.expand_s(s, p.l + p.k, draw->rhoprime, draw->eta, 0);  // s1 then s2 in one call
    draw = nullptr;
  }
  if (lanes) {
    PublicFromRows hashes(x, s, s1_hat, t1, t0, draw);
    be.expand_a_hash(x.A, x.rho, p.k, p.l, hashes);
    finish_public(x, t1, false, true, true);
    return;
  }
  s1_hat_of(p, s, s1_hat);
  be.expand_a(x.A, x.rho, p.k, p.l);
  Poly t;
  for (unsigned i = 0; i < p.k; ++i) t1_t0_row(p, i, x.A, s1_hat, s + p.l, t1, t0, t);
  secure_zero(&t, sizeof t);
  finish_public(x, t1, false);
}

// KeyGen's and skDecode's vectors, sized for the parameter set in one heap
// block (OpenSSL's ASYNC jobs run on 32 KiB stacks; a MAX_K x MAX_L layout
// wiped whole was 2.4% of ML-DSA-65 keygen). The secret ones come first and
// are wiped when done; t1 (public) last.
class KeyScratch {
 public:
  // with_check: room for from_sk's recomputed t0.
  KeyScratch(const Params& p, bool with_check)
      : secret_(2 * (p.l + p.k) + (with_check ? p.k : 0)),
        polys_(std::make_unique_for_overwrite<Poly[]>(secret_ + p.k)),  // every part written before use
        s(polys_.get()),
        t0(s + p.l + p.k),
        s1_hat(t0 + p.k),
        t0_check(with_check ? s1_hat + p.l : nullptr),
        t1(polys_.get() + secret_) {}
  ~KeyScratch() { secure_zero(polys_.get(), sizeof(Poly) * secret_); }
  KeyScratch(const KeyScratch&) = delete;
  KeyScratch& operator=(const KeyScratch&) = delete;

 private:
  const size_t secret_;
  std::unique_ptr<Poly[]> polys_;

 public:
  Poly* const s;         // s1 (l polynomials) then s2 (k), as ExpandS draws and skDecode writes them
  Poly* const t0;        // k
  Poly* const s1_hat;    // NTT(s1) over q, for t = A s1 + s2 only: l
  Poly* const t0_check;  // k (from_sk)
  Poly* const t1;        // k
};

// Every secret value lives inside Expanded or a scratch wiped before return.
void small_ntt_vec(SmallPoly* v_hat, const Poly* v, unsigned n) {
  const Backend& be = backend();
  for (unsigned i = 0; i < n; ++i) be.small_ntt(&v_hat[i], &v[i]);
}

// The signing form from s1, s2, t0 in normal form.
void fill_signing_form(const PrivateKey::Expanded& x, const Poly* s, const Poly* t0) {
  const Params& p = *x.p;
  x.allocate_signing_form();
  small_ntt_vec(x.s1_small_hat, s, p.l);
  small_ntt_vec(x.s2_small_hat, s + p.l, p.k);
  std::memcpy(x.t0_hat, t0, sizeof(Poly) * p.k);
  ntt_vec(x.t0_hat, p.k);
}

}  // namespace

void t1_hat_of(const Params& p, const Poly* t1, Poly* t1_hat) {
  const Backend& be = backend();
  for (unsigned i = 0; i < p.k; ++i) {
    for (int j = 0; j < N; ++j) t1_hat[i].c[j] = t1[i].c[j] << D;
    be.ntt(&t1_hat[i]);
  }
}

// ---------------------------------------------------------------------------
// PublicKey

PublicKey::PublicKey(std::unique_ptr<Expanded> x) : x_(std::move(x)) {}
PublicKey::~PublicKey() = default;
const Params& PublicKey::params() const { return *x_->p; }
std::span<const uint8_t> PublicKey::encoded() const { return {x_->pk, x_->p->pk_bytes}; }
std::span<const uint8_t> PublicKey::tr() const { return {x_->tr, x_->p->tr_bytes}; }
bool PublicKey::operator==(const PublicKey& o) const {
  return x_->p == o.x_->p && std::memcmp(x_->pk, o.x_->pk, x_->p->pk_bytes) == 0;
}

Status PublicKey::decode(const Params& p, std::span<const uint8_t> pk, std::unique_ptr<PublicKey>& out) {
  if (pk.size() != p.pk_bytes) return Status::bad_pk_length;
  auto x = std::make_unique<Expanded>(p);
  auto t1 = std::make_unique_for_overwrite<Poly[]>(p.k);
  std::memcpy(x->pk, pk.data(), p.pk_bytes);  // pkDecode then pkEncode gives the same bytes
  pk_decode(p, pk.data(), x->rho, t1.get());
  // A^ and tr = H(pk) at once where the backend shares its lanes between them.
  const Backend& be = backend();
  const bool with_tr = be.expand_a_hash != nullptr;
  if (with_tr) {
    OneLaneHash tr(x->pk, p.pk_bytes, x->tr, p.tr_bytes);
    be.expand_a_hash(x->A, x->rho, p.k, p.l, tr);
  } else {
    be.expand_a(x->A, x->rho, p.k, p.l);
  }
  finish_public(*x, t1.get(), true, true, with_tr);  // a decoded public key is there to verify
  out.reset(new PublicKey(std::move(x)));
  return Status::ok;
}

// ---------------------------------------------------------------------------
// PrivateKey

PrivateKey::PrivateKey(std::unique_ptr<Expanded> x, std::unique_ptr<PublicKey> pub)
    : x_(std::move(x)), pub_(std::move(pub)) {}
PrivateKey::~PrivateKey() = default;  // Expanded wipes itself
const Params& PrivateKey::params() const { return *x_->p; }
bool PrivateKey::has_seed() const { return x_->has_seed; }
std::span<const uint8_t> PrivateKey::seed() const {
  return x_->has_seed ? std::span<const uint8_t>(x_->seed, SEED_BYTES) : std::span<const uint8_t>();
}
std::span<const uint8_t> PrivateKey::encoded() const { return {x_->sk, x_->p->sk_bytes}; }
const PublicKey& PrivateKey::public_key() const { return *pub_; }

Status PrivateKey::from_seed(const Params& p, std::span<const uint8_t> seed, std::unique_ptr<PrivateKey>& out) {
  if (seed.size() != SEED_BYTES) return Status::bad_seed_length;
  auto x = std::make_unique<Expanded>(p);
  auto px = std::make_unique<PublicKey::Expanded>(p);
  x->has_seed = true;
  std::memcpy(x->seed, seed.data(), SEED_BYTES);

  // (rho, rho', K) = H(xi || k || l, 128)  (Algorithm 6 line 1); round 3
  // hashes zeta alone.
  uint8_t in[SEED_BYTES + 2], h[128];
  std::memcpy(in, seed.data(), SEED_BYTES);
  in[32] = static_cast<uint8_t>(p.k);
  in[33] = static_cast<uint8_t>(p.l);
  shake256(h, sizeof h, in, p.scheme == Scheme::ml_dsa ? sizeof in : SEED_BYTES);
  std::memcpy(px->rho, h, 32);
  declassify_bytes(px->rho, 32);  // rho is part of pk
  const uint8_t* rhoprime = h + 32;
  std::memcpy(x->K, h + 96, 32);

  KeyScratch scratch(p, false);
  Poly *s1 = scratch.s, *s2 = scratch.s + p.l, *t1 = scratch.t1, *t0 = scratch.t0;
  const LaneHashes::Secrets draw{s1, rhoprime, p.eta};  // s1 then s2: nonces 0..l+k-1
  expand_public(*px, s1, scratch.s1_hat, t1, t0, &draw);

  std::memcpy(x->tr, px->tr, p.tr_bytes);
  sk_encode(x->sk, p, px->rho, x->K, x->tr, s1, s2, t0);
  // The signing form waits for the first signature (signing_form()).

  secure_zero(in, sizeof in);
  secure_zero(h, sizeof h);
  out.reset(new PrivateKey(std::move(x), std::unique_ptr<PublicKey>(new PublicKey(std::move(px)))));
  return Status::ok;
}

Status PrivateKey::generate(const Params& p, std::unique_ptr<PrivateKey>& out) {
  uint8_t seed[SEED_BYTES];
  if (!os_random(seed, sizeof seed)) return Status::rng_failure;
  const Status st = from_seed(p, seed, out);
  secure_zero(seed, sizeof seed);
  return st;
}

Status decode_signing_key(const Params& p, std::span<const uint8_t> sk, PrivateKey::Expanded& x, uint8_t rho[32],
                          Poly* A, Poly* s, Poly* t0, bool expand_now) {
  if (sk.size() != p.sk_bytes) return Status::bad_sk_length;
  x.has_seed = false;
  std::memcpy(x.sk, sk.data(), p.sk_bytes);
  const Status st = sk_decode(p, sk.data(), rho, x.K, x.tr, s, s + p.l, t0);
  declassify_bytes(rho, 32);  // rho and tr are public (part of / hash of pk)
  declassify_bytes(x.tr, p.tr_bytes);
  if (st != Status::ok) return st;
  if (A) backend().expand_a(A, rho, p.k, p.l);
  if (expand_now) x.signing_form_once([&] { fill_signing_form(x, s, t0); });
  return Status::ok;
}

const PrivateKey::Expanded& signing_form(const PrivateKey::Expanded& x) {
  x.signing_form_once([&] {
    const Params& p = *x.p;
    KeyScratch s(p, false);
    uint8_t rho[32], K[32], tr[TR_BYTES];
    sk_decode(p, x.sk, rho, K, tr, s.s, s.s + p.l, s.t0);  // checked when the key was made
    fill_signing_form(x, s.s, s.t0);
    secure_zero(K, sizeof K);
  });
  return x;
}

const PublicKey::Expanded& verify_form(const PublicKey::Expanded& x) {
  x.t1_hat_once([&] {
    auto t1 = std::make_unique_for_overwrite<Poly[]>(x.p->k);
    uint8_t rho[32];
    pk_decode(*x.p, x.pk, rho, t1.get());
    t1_hat_of(*x.p, t1.get(), x.t1_hat);
  });
  return x;
}

Status PrivateKey::from_sk(const Params& p, std::span<const uint8_t> sk, std::unique_ptr<PrivateKey>& out) {
  if (sk.size() != p.sk_bytes) return Status::bad_sk_length;
  auto x = std::make_unique<Expanded>(p);
  auto px = std::make_unique<PublicKey::Expanded>(p);
  KeyScratch scratch(p, true);
  Status st = decode_signing_key(p, sk, *x, px->rho, nullptr, scratch.s, scratch.t0, false);
  if (st == Status::ok) {
    // Recompute the key pair from s1, s2: t0 and tr must agree with sk.
    Poly* t0_check = scratch.t0_check;
    expand_public(*px, scratch.s, scratch.s1_hat, scratch.t1, t0_check, nullptr);
    uint32_t diff = 0;
    for (unsigned i = 0; i < p.k; ++i)
      for (int j = 0; j < N; ++j) diff |= static_cast<uint32_t>(scratch.t0[i].c[j] ^ t0_check[i].c[j]);
    if (declassify(diff != 0))
      st = Status::sk_t0_mismatch;
    else if (std::memcmp(px->tr, x->tr, p.tr_bytes) != 0)
      st = Status::sk_tr_mismatch;
  }
  if (st == Status::ok) {
    out.reset(new PrivateKey(std::move(x), std::unique_ptr<PublicKey>(new PublicKey(std::move(px)))));
  }
  return st;
}

}  // namespace mldsa
