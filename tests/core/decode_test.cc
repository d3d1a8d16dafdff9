// decode_test.cc - parameter table, key and signature decoding, and the checks
// the core adds to FIPS 204's decoders: secret-key ranges and consistency
// (s1, s2, t0, tr) and hint encoding (Algorithm 21, HintBitUnpack).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "cpu/key_expanded.h"
#include "cpu/mldsa.h"
#include "tests/core/backend_request.h"
#include "tests/core/test_keys.h"

namespace mldsa::test {
namespace {

// Writes value into coefficient `index` of a polynomial packed little-endian
// with `bits` bits per coefficient starting at byte `offset` (FIPS 204 BitPack).
void set_packed(std::vector<uint8_t>& buf, size_t offset, unsigned bits, size_t index, uint32_t value) {
  for (unsigned b = 0; b < bits; ++b) {
    size_t bit = index * bits + b;
    uint8_t& byte = buf.at(offset + bit / 8);
    uint8_t mask = static_cast<uint8_t>(1u << (bit % 8));
    byte = static_cast<uint8_t>((value >> b) & 1 ? byte | mask : byte & ~mask);
  }
}

// FIPS 204 Table 1/2 and the encodings' sizes (Section 4).
TEST(ParamsTable, MatchesFips204) {
  struct Want { ParamSet id; const char* name; unsigned k, l, eta, tau, omega, lambda; size_t pk, sk, sig; };
  const Want wants[] = {
      {ParamSet::ML_DSA_44, "ML-DSA-44", 4, 4, 2, 39, 80, 128, 1312, 2560, 2420},
      {ParamSet::ML_DSA_65, "ML-DSA-65", 6, 5, 4, 49, 55, 192, 1952, 4032, 3309},
      {ParamSet::ML_DSA_87, "ML-DSA-87", 8, 7, 2, 60, 75, 256, 2592, 4896, 4627},
  };
  for (const Want& w : wants) {
    const Params& p = params(w.id);
    SCOPED_TRACE(w.name);
    EXPECT_STREQ(p.name, w.name);
    EXPECT_EQ(p.id, w.id);
    EXPECT_EQ(params_by_name(w.name), &p);
    EXPECT_EQ(p.k, w.k);
    EXPECT_EQ(p.l, w.l);
    EXPECT_EQ(p.eta, w.eta);
    EXPECT_EQ(p.tau, w.tau);
    EXPECT_EQ(p.beta, w.tau * w.eta);
    EXPECT_EQ(p.omega, w.omega);
    EXPECT_EQ(p.lambda, w.lambda);
    EXPECT_EQ(p.pk_bytes, w.pk);
    EXPECT_EQ(p.sk_bytes, w.sk);
    EXPECT_EQ(p.sig_bytes, w.sig);
    EXPECT_EQ(p.gamma1, int32_t{1} << p.gamma1_bits);
    EXPECT_EQ(p.gamma2, w.id == ParamSet::ML_DSA_44 ? (8380417 - 1) / 88 : (8380417 - 1) / 32);
  }
  EXPECT_EQ(params_by_name("ML-DSA-12"), nullptr);
  EXPECT_EQ(params_by_name("ml-dsa-44"), nullptr);  // exact match only
  EXPECT_EQ(params_by_name(""), nullptr);
}

TEST(StatusStrings, DistinctAndNamed) {
  std::set<std::string> seen;
  for (int i = 0; i <= static_cast<int>(Status::internal_error); ++i) {
    const char* s = status_string(static_cast<Status>(i));
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(seen.insert(s).second) << "duplicate status string " << s;
  }
}

class Decode : public BackendTest, public ::testing::WithParamInterface<ParamSet> {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    key_ = key_from_tag(p(), 3);
    ASSERT_TRUE(key_);
    sk_.assign(key_->encoded().begin(), key_->encoded().end());
  }
  const Params& p() const { return params(GetParam()); }

  // Secret-key layout (Algorithm 24): rho(32) K(32) tr(64) s1(l) s2(k) t0(k).
  unsigned eta_bits() const { return p().eta == 2 ? 3 : 4; }
  size_t eta_poly_bytes() const { return 32 * eta_bits(); }
  size_t s1_off() const { return 128; }
  size_t s2_off() const { return s1_off() + p().l * eta_poly_bytes(); }
  size_t t0_off() const { return s2_off() + p().k * eta_poly_bytes(); }

  Status load(const std::vector<uint8_t>& sk) {
    std::unique_ptr<PrivateKey> k;
    return PrivateKey::from_sk(p(), sk, k);
  }

  std::unique_ptr<PrivateKey> key_;
  std::vector<uint8_t> sk_;
};

TEST_P(Decode, SecretKeyLayoutAddsUp) {
  ASSERT_EQ(t0_off() + p().k * 32 * 13, p().sk_bytes);
}

TEST_P(Decode, WrongLengths) {
  std::unique_ptr<PublicKey> pub;
  std::unique_ptr<PrivateKey> priv;
  std::vector<uint8_t> pk(key_->public_key().encoded().begin(), key_->public_key().encoded().end());
  for (size_t n : {size_t{0}, pk.size() - 1, pk.size() + 1}) {
    std::vector<uint8_t> b(n, 0);
    std::copy_n(pk.begin(), std::min(n, pk.size()), b.begin());
    EXPECT_EQ(PublicKey::decode(p(), b, pub), Status::bad_pk_length) << n;
  }
  for (size_t n : {size_t{0}, sk_.size() - 1, sk_.size() + 1}) {
    std::vector<uint8_t> b(n, 0);
    std::copy_n(sk_.begin(), std::min(n, sk_.size()), b.begin());
    EXPECT_EQ(PrivateKey::from_sk(p(), b, priv), Status::bad_sk_length) << n;
  }
  for (size_t n : {size_t{0}, SEED_BYTES - 1, SEED_BYTES + 1}) {
    std::vector<uint8_t> seed(n, 9);
    EXPECT_EQ(PrivateKey::from_seed(p(), seed, priv), Status::bad_seed_length) << n;
  }
  // Another parameter set's sizes are wrong lengths too.
  const Params& other = params(GetParam() == ParamSet::ML_DSA_44 ? ParamSet::ML_DSA_65 : ParamSet::ML_DSA_44);
  EXPECT_EQ(PublicKey::decode(other, pk, pub), Status::bad_pk_length);
  EXPECT_EQ(PrivateKey::from_sk(other, sk_, priv), Status::bad_sk_length);
}

TEST_P(Decode, KeysRoundTrip) {
  std::unique_ptr<PublicKey> pub;
  ASSERT_EQ(PublicKey::decode(p(), key_->public_key().encoded(), pub), Status::ok);
  EXPECT_TRUE(*pub == key_->public_key());
  EXPECT_TRUE(std::ranges::equal(pub->encoded(), key_->public_key().encoded()));
  EXPECT_TRUE(std::ranges::equal(pub->tr(), key_->public_key().tr()));
  EXPECT_EQ(&pub->params(), &p());

  std::unique_ptr<PrivateKey> loaded;
  ASSERT_EQ(PrivateKey::from_sk(p(), sk_, loaded), Status::ok);
  EXPECT_FALSE(loaded->has_seed());
  EXPECT_TRUE(loaded->seed().empty());
  EXPECT_TRUE(std::ranges::equal(loaded->encoded(), sk_));
  EXPECT_TRUE(loaded->public_key() == key_->public_key());

  // Same key, same deterministic signature, whichever way it was loaded.
  std::vector<uint8_t> msg = bytes_of("decode"), zeros(RND_BYTES, 0);
  std::vector<uint8_t> a(p().sig_bytes), b(p().sig_bytes);
  ASSERT_EQ(sign(*key_, msg, {}, zeros.data(), a.data()), Status::ok);
  ASSERT_EQ(sign(*loaded, msg, {}, zeros.data(), b.data()), Status::ok);
  EXPECT_EQ(a, b);
}

TEST_P(Decode, SecretCoefficientsOutOfRange) {
  // Coefficients are packed as eta - c: valid codes are 0..2*eta.
  const uint32_t max_code = (1u << eta_bits()) - 1, first_bad = 2 * p().eta + 1;
  struct Region { size_t off; unsigned polys; Status want; const char* name; };
  for (Region r : {Region{s1_off(), p().l, Status::sk_s1_out_of_range, "s1"},
                   Region{s2_off(), p().k, Status::sk_s2_out_of_range, "s2"}}) {
    // First coefficient of the first polynomial, last of the last.
    for (size_t index : {size_t{0}, size_t{r.polys} * 256 - 1}) {
      for (uint32_t code : {first_bad, max_code}) {
        std::vector<uint8_t> sk = sk_;
        set_packed(sk, r.off, eta_bits(), index, code);
        EXPECT_EQ(load(sk), r.want) << r.name << " coefficient " << index << " code " << code;
      }
    }
    // The extreme valid code (-eta) decodes, and then no longer matches t0/tr.
    std::vector<uint8_t> sk = sk_;
    set_packed(sk, r.off, eta_bits(), 0, 2 * p().eta);
    if (sk != sk_) {
      Status st = load(sk);
      EXPECT_TRUE(st == Status::sk_t0_mismatch || st == Status::sk_tr_mismatch) << r.name << ": " << status_string(st);
    }
  }
}

// One-shot signing decodes the sk itself: the same length and range errors as
// from_sk, and the same signature as the loaded key's.
TEST_P(Decode, SignEncodedChecksTheKey) {
  const std::vector<uint8_t> msg = {1, 2, 3}, zeros(RND_BYTES, 0);
  std::vector<uint8_t> a(p().sig_bytes), b(p().sig_bytes);
  ASSERT_EQ(sign(*key_, msg, {}, zeros.data(), a.data()), Status::ok);
  ASSERT_EQ(sign_encoded(p(), sk_, msg, {}, zeros.data(), b.data()), Status::ok);
  EXPECT_EQ(a, b);
  std::vector<uint8_t> sk = sk_;
  sk.pop_back();
  EXPECT_EQ(sign_encoded(p(), sk, msg, {}, zeros.data(), b.data()), Status::bad_sk_length);
  sk = sk_;
  set_packed(sk, s1_off(), eta_bits(), 0, 2 * p().eta + 1);
  EXPECT_EQ(sign_encoded(p(), sk, msg, {}, zeros.data(), b.data()), Status::sk_s1_out_of_range);
  sk = sk_;
  set_packed(sk, s2_off(), eta_bits(), size_t{p().k} * 256 - 1, (1u << eta_bits()) - 1);
  EXPECT_EQ(sign_encoded(p(), sk, msg, {}, zeros.data(), b.data()), Status::sk_s2_out_of_range);
  const std::vector<uint8_t> ctx256(256, 0);
  EXPECT_EQ(sign_encoded(p(), sk_, msg, ctx256, zeros.data(), b.data()), Status::context_too_long);
}

// The FIPS 204 Appendix C loop limit: with a limit of one attempt, some
// messages find no signature and say so; the rest sign exactly as without it.
TEST_P(Decode, SigningLoopLimit) {
  const std::vector<uint8_t> zeros(RND_BYTES, 0);
  const PrivateKey::Expanded& x = signing_form(key_->expanded());
  const Poly* A = key_->public_key().expanded().A;
  unsigned exhausted = 0, signed_first_try = 0;
  for (uint8_t m = 0; m < 32; ++m) {
    uint8_t mu[MU_BYTES] = {m};
    std::vector<uint8_t> limited(p().sig_bytes), unlimited(p().sig_bytes);
    ASSERT_EQ(sign_mu_expanded(x, A, mu, zeros.data(), unlimited.data()), Status::ok);
    Status st = sign_mu_expanded(x, A, mu, zeros.data(), limited.data(), 1);
    if (st == Status::sign_attempts_exhausted) {
      ++exhausted;
    } else {
      ASSERT_EQ(st, Status::ok);
      EXPECT_EQ(limited, unlimited);
      ++signed_first_try;
    }
  }
  // About 1 in 4 (ML-DSA-44) to 1 in 5 (65) attempts succeed: both outcomes occur.
  EXPECT_GT(exhausted, 0u);
  EXPECT_GT(signed_first_try, 0u);
  EXPECT_STREQ(status_string(Status::sign_attempts_exhausted), "no signature within the loop limit (814 attempts)");
}

// Exact attempt counting for every limit, whatever the signing loop's grouping
// of attempts: with the limit at L, signing succeeds iff the unlimited loop
// accepted attempt number <= L, and then gives the same signature.
TEST_P(Decode, SigningLoopLimitEveryValue) {
  const std::vector<uint8_t> zeros(RND_BYTES, 0);
  const PrivateKey::Expanded& x = signing_form(key_->expanded());
  const Poly* A = key_->public_key().expanded().A;
  unsigned max_needed = 0;
  for (uint8_t m = 0; m < 12; ++m) {
    uint8_t mu[MU_BYTES] = {m, 0x5a};
    std::vector<uint8_t> unlimited(p().sig_bytes), limited(p().sig_bytes);
    ASSERT_EQ(sign_mu_expanded(x, A, mu, zeros.data(), unlimited.data()), Status::ok);
    unsigned needed = 0;  // the smallest limit that signs
    for (unsigned limit = 1; limit <= 60 && needed == 0; ++limit)
      if (sign_mu_expanded(x, A, mu, zeros.data(), limited.data(), limit) == Status::ok) needed = limit;
    ASSERT_NE(needed, 0u) << "message " << int(m);
    max_needed = std::max(max_needed, needed);
    EXPECT_EQ(sign_mu_expanded(x, A, mu, zeros.data(), limited.data(), 0), Status::sign_attempts_exhausted);
    for (unsigned limit = 1; limit <= needed + 5; ++limit) {
      std::fill(limited.begin(), limited.end(), 0);
      const Status st = sign_mu_expanded(x, A, mu, zeros.data(), limited.data(), limit);
      if (limit < needed) {
        EXPECT_EQ(st, Status::sign_attempts_exhausted) << "message " << int(m) << " limit " << limit;
      } else {
        ASSERT_EQ(st, Status::ok) << "message " << int(m) << " limit " << limit;
        EXPECT_EQ(limited, unlimited) << "message " << int(m) << " limit " << limit;
      }
    }
  }
  // Some message needs several attempts, so limits inside a group are exercised.
  EXPECT_GE(max_needed, 5u);
}

TEST_P(Decode, InconsistentSecretKey) {
  std::vector<uint8_t> sk = sk_;
  sk[t0_off()] ^= 0x01;  // t0 is not what A*s1 + s2 gives
  EXPECT_EQ(load(sk), Status::sk_t0_mismatch);
  sk = sk_;
  sk[p().sk_bytes - 1] ^= 0x10;  // last t0 coefficient
  EXPECT_EQ(load(sk), Status::sk_t0_mismatch);

  sk = sk_;
  sk[64] ^= 0x01;  // tr != H(pk)
  EXPECT_EQ(load(sk), Status::sk_tr_mismatch);
  sk = sk_;
  sk[127] ^= 0x80;
  EXPECT_EQ(load(sk), Status::sk_tr_mismatch);

  sk = sk_;
  sk[0] ^= 0x01;  // rho: another A, so another t
  Status st = load(sk);
  EXPECT_TRUE(st == Status::sk_t0_mismatch || st == Status::sk_tr_mismatch) << status_string(st);
}

// Hint encoding (Algorithm 20): omega index bytes, then k cumulative counts.
class Hint : public Decode {
 protected:
  size_t h_off() const { return p().lambda / 4 + p().l * 32 * (1 + p().gamma1_bits); }
  size_t count_after(const std::vector<uint8_t>& sig, unsigned poly) const { return sig[h_off() + p().omega + poly]; }

  // A valid signature with a polynomial of >= 2 hints and fewer than omega in
  // all, so every malformation below can be written; messages are tried in turn.
  void SetUp() override {
    Decode::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    std::vector<uint8_t> zeros(RND_BYTES, 0);
    for (int i = 0; i < 200; ++i) {
      msg_ = bytes_of("hint " + std::to_string(i));
      sig_.assign(p().sig_bytes, 0);
      ASSERT_EQ(sign(*key_, msg_, {}, zeros.data(), sig_.data()), Status::ok);
      size_t total = count_after(sig_, p().k - 1);
      if (total >= p().omega) continue;
      for (unsigned poly = 0; poly < p().k; ++poly) {
        size_t start = poly ? count_after(sig_, poly - 1) : 0;
        if (count_after(sig_, poly) >= start + 2) {
          pair_at_ = h_off() + start;
          return;
        }
      }
    }
    FAIL() << "no signature with two hints in one polynomial in 200 tries";
  }
  Status check(const std::vector<uint8_t>& sig) { return verify(key_->public_key(), msg_, {}, sig); }

  std::vector<uint8_t> msg_, sig_;
  size_t pair_at_ = 0;  // byte offset of the first of two hint indices of one polynomial
};

TEST_P(Hint, MalformedHintsAreRejected) {
  ASSERT_EQ(check(sig_), Status::ok);
  const size_t counts = h_off() + p().omega;

  std::vector<uint8_t> bad = sig_;
  bad[pair_at_ + 1] = bad[pair_at_];  // repeated index
  EXPECT_EQ(check(bad), Status::sig_malformed_hint) << "repeated index";
  bad = sig_;
  std::swap(bad[pair_at_], bad[pair_at_ + 1]);  // decreasing indices
  EXPECT_EQ(check(bad), Status::sig_malformed_hint) << "decreasing indices";

  bad = sig_;
  bad[counts + p().k - 1] = static_cast<uint8_t>(p().omega + 1);  // more than omega hints
  EXPECT_EQ(check(bad), Status::sig_malformed_hint) << "count > omega";
  bad = sig_;
  bad[counts + p().k - 1] = 0xff;
  EXPECT_EQ(check(bad), Status::sig_malformed_hint) << "count 255";

  bad = sig_;
  bad[counts] = static_cast<uint8_t>(count_after(sig_, 1) + 1);  // counts decrease
  EXPECT_EQ(check(bad), Status::sig_malformed_hint) << "decreasing counts";

  bad = sig_;
  bad[h_off() + p().omega - 1] = 1;  // padding after the last index must be zero
  EXPECT_EQ(check(bad), Status::sig_malformed_hint) << "non-zero padding";
}

INSTANTIATE_TEST_SUITE_P(All, Decode, ::testing::ValuesIn(kAllParamSets), param_name);
INSTANTIATE_TEST_SUITE_P(All, Hint, ::testing::ValuesIn(kAllParamSets), param_name);

}  // namespace
}  // namespace mldsa::test
