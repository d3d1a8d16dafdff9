// backend_equivalence_test.cc - every seam function of the backend under test
// (MLDSA_ACCEL_CPU, else the best this CPU runs) gives bit-identical results to
// the ref backend, on random inputs and on the extreme values of the ranges
// cpu/backend.h documents; and full keygen / sign / verify agree byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu/backend.h"
#include "cpu/keccak.h"
#include "cpu/mldsa.h"
#include "cpu/packing.h"
#include "tests/core/backend_request.h"
#include "tests/core/test_keys.h"

namespace mldsa::test {
namespace {

class BackendEquivalence : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    be_ = &backend();
    if (be_ == &kRefBackend) GTEST_SKIP() << "skipped: backend ref is the reference; nothing to compare";
  }
  const Backend* be_ = nullptr;
  const Backend& ref_ = kRefBackend;
  std::mt19937_64 rng_{0x6d6c647361ull};

  int32_t uniform(int32_t lo, int32_t hi) { return std::uniform_int_distribution<int32_t>(lo, hi)(rng_); }
  void fill_bytes(uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(rng_());
  }
  // Random coefficients in [-(bound-1), bound-1], with 5 inputs in 8 made of
  // extremes only (all +max, all -max, alternating, max mixed with 0, and
  // +-max with random signs so even and odd vector lanes see both).
  void fill_poly(Poly* a, int32_t bound, int trial) {
    const int32_t m = bound - 1;
    for (int j = 0; j < N; ++j) {
      switch (trial % 8) {
        case 1: a->c[j] = m; break;
        case 3: a->c[j] = -m; break;
        case 5: a->c[j] = (j & 1) ? m : -m; break;
        case 6: a->c[j] = (rng_() & 1) ? m : -m; break;
        case 7: a->c[j] = (j % 3 == 0) ? 0 : ((j & 2) ? m : -m); break;
        default: a->c[j] = uniform(-m, m);
      }
    }
  }
};

::testing::AssertionResult same_polys(const Poly* a, const Poly* b, unsigned n) {
  for (unsigned i = 0; i < n; ++i)
    for (int j = 0; j < N; ++j)
      if (a[i].c[j] != b[i].c[j])
        return ::testing::AssertionFailure() << "poly " << i << " coefficient " << j << ": ref " << a[i].c[j]
                                             << ", backend " << b[i].c[j];
  return ::testing::AssertionSuccess();
}

TEST_F(BackendEquivalence, Keccakf1600) {
  for (int trial = 0; trial < 64; ++trial) {
    uint64_t a[25], b[25];
    for (auto& v : a) v = trial == 0 ? 0 : trial == 1 ? ~uint64_t{0} : rng_();
    std::memcpy(b, a, sizeof a);
    ref_.keccakf1600(a);
    be_->keccakf1600(b);
    ASSERT_EQ(0, std::memcmp(a, b, sizeof a)) << "trial " << trial;
  }
}

TEST_F(BackendEquivalence, Keccakf1600x4) {
  for (int trial = 0; trial < 32; ++trial) {
    uint64_t a[4][25], b[4][25];
    for (auto& s : a)
      for (auto& v : s) v = rng_();
    if (trial == 0) std::memset(a, 0, sizeof a);
    std::memcpy(b, a, sizeof a);
    uint64_t lane3[25];  // state 3 alone through the single-state permutation
    std::memcpy(lane3, a[3], sizeof lane3);
    ref_.keccakf1600(lane3);
    ref_.keccakf1600x4(a);
    be_->keccakf1600x4(b);
    ASSERT_EQ(0, std::memcmp(a, b, sizeof a)) << "trial " << trial;
    ASSERT_EQ(0, std::memcmp(lane3, b[3], sizeof lane3)) << "trial " << trial;  // no states swapped
  }
}

TEST_F(BackendEquivalence, Ntt) {
  for (int trial = 0; trial < 200; ++trial) {
    Poly a, b;
    fill_poly(&a, Q, trial);  // in: |a_i| < q
    b = a;
    ref_.ntt(&a);
    be_->ntt(&b);
    ASSERT_TRUE(same_polys(&a, &b, 1)) << "trial " << trial;
  }
}

TEST_F(BackendEquivalence, InvNttToMont) {
  for (int trial = 0; trial < 200; ++trial) {
    Poly a, b;
    fill_poly(&a, Q, trial);
    b = a;
    ref_.invntt_tomont(&a);
    be_->invntt_tomont(&b);
    ASSERT_TRUE(same_polys(&a, &b, 1)) << "trial " << trial;
  }
}

TEST_F(BackendEquivalence, PointwiseAcc) {
  for (int trial = 0; trial < 200; ++trial) {
    const unsigned n = 1 + trial % 8;
    Poly a[8], b[8], c_ref, c_be;
    for (unsigned i = 0; i < n; ++i) {
      fill_poly(&a[i], 9 * Q, trial);  // |a| < 9q (NTT outputs)
      fill_poly(&b[i], Q, trial / 8);  // |b| < q
    }
    ref_.pointwise_acc(&c_ref, a, b, n);
    be_->pointwise_acc(&c_be, a, b, n);
    // The same residues, each below q in magnitude; the representative is the
    // backend's (backend.h: every consumer reduces).
    for (int j = 0; j < N; ++j) {
      ASSERT_LT(std::abs(c_be.c[j]), Q) << "trial " << trial << " n " << n << " coefficient " << j;
      ASSERT_EQ(((c_be.c[j] - c_ref.c[j]) % Q + Q) % Q, 0)
          << "trial " << trial << " n " << n << " coefficient " << j << ": ref " << c_ref.c[j] << ", backend "
          << c_be.c[j];
    }
  }
}

TEST_F(BackendEquivalence, ExpandA) {
  for (ParamSet ps : kAllParamSets) {
    const Params& p = params(ps);
    for (int trial = 0; trial < 24; ++trial) {
      uint8_t rho[32];
      fill_bytes(rho, sizeof rho);
      if (trial == 0) std::memset(rho, 0xFF, sizeof rho);
      std::vector<Poly> a(p.k * p.l), b(p.k * p.l);
      ref_.expand_a(a.data(), rho, p.k, p.l);
      be_->expand_a(b.data(), rho, p.k, p.l);
      ASSERT_TRUE(same_polys(a.data(), b.data(), p.k * p.l)) << p.name << " trial " << trial;
    }
  }
}

// ExpandA with a SHAKE256 hash riding in its lanes: the same A^ and the same
// digest as expand_a and the single sponge, for message lengths around the
// rate (the padding's block) and outputs of one and several blocks.
TEST_F(BackendEquivalence, ExpandAHash) {
  if (!be_->expand_a_hash) GTEST_SKIP() << "skipped: backend " << be_->name << " has no expand_a_hash";
  int trial = 0;
  for (ParamSet ps : kAllParamSets) {
    const Params& p = params(ps);
    for (size_t msg_len : {size_t{0}, size_t{1}, size_t{135}, size_t{136}, size_t{137}, size_t{272}, p.pk_bytes}) {
      for (size_t out_len : {size_t{32}, size_t{64}, size_t{136}, size_t{300}}) {
        uint8_t rho[32];
        fill_bytes(rho, sizeof rho);
        std::vector<uint8_t> msg(msg_len), want(out_len), got(out_len, 0xAA);
        fill_bytes(msg.data(), msg.size());
        std::vector<Poly> a(p.k * p.l), b(p.k * p.l);
        ref_.expand_a(a.data(), rho, p.k, p.l);
        shake256(want.data(), out_len, msg.data(), msg_len);
        OneLaneHash hash(msg.data(), msg_len, got.data(), out_len);
        be_->expand_a_hash(b.data(), rho, p.k, p.l, hash);
        ASSERT_TRUE(same_polys(a.data(), b.data(), p.k * p.l)) << p.name << " trial " << trial;
        ASSERT_EQ(want, got) << p.name << " msg_len " << msg_len << " out_len " << out_len;
        ++trial;
      }
    }
  }
}

// A message written from the rows of A^ as expand_a_hash finishes them
// (KeyGen's pk = rho || t1): a prefix at the start, then for each row a
// chunk made from every polynomial's last coefficients (the ones rejection
// sampling writes last), so a row read before it is final gives other bytes.
// lag holds back that many rows' worth of what is ready (the hash then waits
// longer off the lanes). With chain, a first hash (of a message that is all
// there) runs before it and its 64-byte digest is the prefix (verify's
// tr, then mu || w1').
class MessageFromRows final : public LaneHashes {
 public:
  MessageFromRows(const Params& p, const Poly* A, std::vector<uint8_t>& msg, size_t prefix, size_t chunk,
                  unsigned lag, const std::vector<uint8_t>* first_msg)
      : p_(p), A_(A), msg_(msg), prefix_(prefix), chunk_(chunk), lag_(lag), first_msg_(first_msg) {}
  bool next(Job& job) override {
    if (stage_ == 0 && first_msg_) {
      stage_ = 1;
      job = {first_msg_->data(), first_msg_->size(), first_out.data(), first_out.size()};
      return true;
    }
    if (stage_ <= 1) {
      if (first_msg_) std::copy(first_out.begin(), first_out.end(), msg_.begin());
      stage_ = 2;
      job = {msg_.data(), msg_.size(), out.data(), out.size()};
      return true;
    }
    return false;
  }
  void rows_done(unsigned n) override {
    calls.push_back(n);
    write_row(p_, A_, msg_, prefix_, chunk_, n - 1);
    rows_ = n;
  }
  size_t ready(const Job& job) override {
    if (job.msg != msg_.data()) return job.msg_len;
    if (rows_ == p_.k) return msg_.size();
    const unsigned shown = rows_ > lag_ ? rows_ - lag_ : 0;
    return prefix_ + shown * chunk_;
  }
  static void write_row(const Params& p, const Poly* A, std::vector<uint8_t>& msg, size_t prefix, size_t chunk,
                        unsigned i) {
    for (size_t m = 0; m < chunk; ++m) {
      uint32_t v = 0;
      for (unsigned j = 0; j < p.l; ++j) v = v * 31 + static_cast<uint32_t>(A[i * p.l + j].c[N - 1 - m % 32]);
      msg[prefix + i * chunk + m] = static_cast<uint8_t>(v ^ (v >> 8) ^ (v >> 16));
    }
  }
  std::vector<unsigned> calls;
  std::vector<uint8_t> first_out = std::vector<uint8_t>(64), out = std::vector<uint8_t>(64, 0xAA);

 private:
  const Params& p_;
  const Poly* A_;
  std::vector<uint8_t>& msg_;
  size_t prefix_, chunk_;
  unsigned lag_, rows_ = 0, stage_ = 0;
  const std::vector<uint8_t>* first_msg_;
};

TEST_F(BackendEquivalence, ExpandAHashFromRows) {
  if (!be_->expand_a_hash) GTEST_SKIP() << "skipped: backend " << be_->name << " has no expand_a_hash";
  for (ParamSet ps : kAllParamSets) {
    const Params& p = params(ps);
    // pk's shape (32 + 320 per row), rows smaller and larger than a block, no
    // prefix, nothing until the end (chunk 0 with a prefix), lags, and chains
    // after a hash of a pk's length and of one block.
    struct Shape {
      size_t prefix, chunk;
      unsigned lag;
      size_t first_len;  // 0: no chain
    };
    for (Shape sh : {Shape{32, T1_BYTES, 0, 0}, Shape{32, T1_BYTES, 2, 0}, Shape{0, 1, 0, 0}, Shape{5, 136, 0, 0},
                     Shape{140, 500, 1, 0}, Shape{300, 0, 0, 0}, Shape{0, 17, 9, 0}, Shape{64, 192, 0, p.pk_bytes},
                     Shape{64, 128, 1, 32}}) {
      uint8_t rho[32];
      fill_bytes(rho, sizeof rho);
      const size_t msg_len = sh.prefix + p.k * sh.chunk;
      std::vector<Poly> a(p.k * p.l), b(p.k * p.l);
      ref_.expand_a(a.data(), rho, p.k, p.l);
      std::vector<uint8_t> first_msg(sh.first_len), first_want(64);
      fill_bytes(first_msg.data(), first_msg.size());
      shake256(first_want.data(), first_want.size(), first_msg.data(), first_msg.size());
      std::vector<uint8_t> prefix(sh.prefix), want_msg(msg_len), msg(msg_len, 0xAA);
      fill_bytes(prefix.data(), prefix.size());
      if (sh.first_len) prefix = first_want;
      std::copy(prefix.begin(), prefix.end(), want_msg.begin());
      for (unsigned i = 0; i < p.k; ++i) MessageFromRows::write_row(p, a.data(), want_msg, sh.prefix, sh.chunk, i);
      std::vector<uint8_t> want(64);
      shake256(want.data(), want.size(), want_msg.data(), msg_len);

      if (!sh.first_len) std::copy(prefix.begin(), prefix.end(), msg.begin());
      MessageFromRows hashes(p, b.data(), msg, sh.prefix, sh.chunk, sh.lag, sh.first_len ? &first_msg : nullptr);
      be_->expand_a_hash(b.data(), rho, p.k, p.l, hashes);
      const std::string what = std::string(p.name) + " prefix " + std::to_string(sh.prefix) + " chunk " +
                               std::to_string(sh.chunk) + " lag " + std::to_string(sh.lag) + " chained after " +
                               std::to_string(sh.first_len);
      ASSERT_TRUE(same_polys(a.data(), b.data(), p.k * p.l)) << what;
      std::vector<unsigned> in_order(p.k);
      for (unsigned n = 0; n < p.k; ++n) in_order[n] = n + 1;
      ASSERT_EQ(hashes.calls, in_order) << what << ": rows_done once per row, in order";
      if (sh.first_len) {
        ASSERT_EQ(first_want, hashes.first_out) << what;
      }
      ASSERT_EQ(want_msg, msg) << what;
      ASSERT_EQ(want, hashes.out) << what;
    }
  }
}

TEST_F(BackendEquivalence, ExpandS) {
  for (unsigned eta : {2u, 4u}) {
    for (unsigned trial = 0; trial < 8 * 8; ++trial) {
      const unsigned n = 1 + trial % 8;  // every batch shape of 4- and 8-way backends
      uint8_t rhoprime[64];
      fill_bytes(rhoprime, sizeof rhoprime);
      // Nonces near the 16-bit wrap too.
      const uint16_t nonce = n % 3 == 0 ? static_cast<uint16_t>(65535 - n / 2) : static_cast<uint16_t>(rng_());
      Poly a[8], b[8];
      ref_.expand_s(a, n, rhoprime, eta, nonce);
      be_->expand_s(b, n, rhoprime, eta, nonce);
      ASSERT_TRUE(same_polys(a, b, n)) << "eta " << eta << " n " << n << " trial " << trial;
    }
  }
}

TEST_F(BackendEquivalence, ExpandMask) {
  for (unsigned bits : {17u, 19u}) {
    for (unsigned trial = 0; trial < 7 * 8; ++trial) {
      const unsigned l = 1 + trial % 7;
      uint8_t rhopp[64];
      fill_bytes(rhopp, sizeof rhopp);
      const uint16_t kappa = l % 2 ? static_cast<uint16_t>(65535 - l / 2) : static_cast<uint16_t>(rng_());
      Poly a[7], b[7];
      ref_.expand_mask(a, l, rhopp, kappa, bits);
      be_->expand_mask(b, l, rhopp, kappa, bits);
      ASSERT_TRUE(same_polys(a, b, l)) << "gamma1 2^" << bits << " l " << l << " trial " << trial;
    }
  }
}

// Signing's mask stream with hashes beside it: every mask is ExpandMask's for
// its nonce (counting from 0 over all takes, through the ring's wrap-around)
// and every hash the single sponge's (and SampleInBall's block after it when
// asked for), for take sizes 1 to 7 and message lengths around the rate and
// signing's (832-1088 bytes).
TEST_F(BackendEquivalence, MaskHash) {
  if (!be_->mask_hash) GTEST_SKIP() << "skipped: backend " << be_->name << " has no mask_hash";
  for (unsigned bits : {17u, 19u}) {
    uint8_t rhopp[64];
    fill_bytes(rhopp, sizeof rhopp);
    const std::unique_ptr<MaskHash> lanes = be_->mask_hash(rhopp, bits);
    ASSERT_TRUE(lanes);
    unsigned nonce = 0;
    const size_t lengths[] = {0, 1, 135, 136, 137, 272, 832, 1088};
    for (unsigned trial = 0; trial < 80; ++trial) {
      const unsigned n = 1 + trial % 7;
      Poly want[7], got[7];
      ref_.expand_mask(want, n, rhopp, static_cast<uint16_t>(nonce), bits);
      lanes->take(got, n);
      ASSERT_TRUE(same_polys(want, got, n)) << "gamma1 2^" << bits << " n " << n << " nonce " << nonce;
      nonce += n;
      const size_t msg_len = lengths[trial % 8], out_len = trial % 2 ? 64 : 32;
      std::vector<uint8_t> msg(msg_len), digest(out_len), out(out_len, 0xAA);
      fill_bytes(msg.data(), msg.size());
      shake256(digest.data(), out_len, msg.data(), msg_len);
      // Every other hash with SampleInBall's first block: H(digest)'s.
      const bool with_ball = trial % 4 >= 2;
      std::vector<uint8_t> ball_want(SHAKE256_RATE), ball(SHAKE256_RATE, 0xAA);
      shake256(ball_want.data(), ball_want.size(), digest.data(), out_len);
      lanes->hash(msg.data(), msg_len, out.data(), out_len, with_ball ? ball.data() : nullptr);
      ASSERT_EQ(digest, out) << "msg_len " << msg_len << " out_len " << out_len << " trial " << trial;
      if (with_ball) {
        ASSERT_EQ(ball_want, ball) << "SampleInBall's block, trial " << trial;
      }
      if (trial % 5 == 4) lanes->hash(msg.data(), msg_len, out.data(), out_len, nullptr);  // two hashes in a row
    }
  }
}

TEST_F(BackendEquivalence, DecomposeW1) {
  for (int32_t gamma2 : {(Q - 1) / 88, (Q - 1) / 32}) {
    for (int trial = 0; trial < 64; ++trial) {
      Poly a, a1[2], a0[2];
      uint8_t enc[2][192];
      for (int j = 0; j < N; ++j) {
        // In [0, q): random, or next to the multiples of 2*gamma2 and the ends
        // of the range, where the rounding and the 44 -> 0 wrap act.
        const int32_t m = 2 * gamma2 * uniform(0, (Q - 1) / (2 * gamma2));
        const int32_t edge = std::clamp(m + uniform(-2, 2) + (j & 1 ? gamma2 : 0), 0, Q - 1);
        a.c[j] = trial % 2 ? uniform(0, Q - 1) : (j % 7 == 0 ? (j & 8 ? Q - 1 : 0) : edge);
      }
      std::memset(enc, 0, sizeof enc);
      ref_.decompose_w1(&a1[0], &a0[0], enc[0], &a, gamma2);
      be_->decompose_w1(&a1[1], &a0[1], enc[1], &a, gamma2);
      ASSERT_TRUE(same_polys(&a1[0], &a1[1], 1)) << "a1, gamma2 " << gamma2 << " trial " << trial;
      ASSERT_TRUE(same_polys(&a0[0], &a0[1], 1)) << "a0, gamma2 " << gamma2 << " trial " << trial;
      ASSERT_EQ(0, std::memcmp(enc[0], enc[1], sizeof enc[0])) << "w1Encode, gamma2 " << gamma2;
    }
  }
}

TEST_F(BackendEquivalence, UseHintW1) {
  for (int32_t gamma2 : {(Q - 1) / 88, (Q - 1) / 32}) {
    for (int trial = 0; trial < 64; ++trial) {
      Poly a, h;
      uint8_t enc[2][192];
      for (int j = 0; j < N; ++j) {
        // Around the multiples of 2*gamma2 (a0 near 0 and +-gamma2) and the
        // ends of [0, q), where the hint wraps a1 modulo 16 or 44.
        const int32_t m = 2 * gamma2 * uniform(0, (Q - 1) / (2 * gamma2));
        const int32_t edge = std::clamp(m + uniform(-2, 2) + (j & 1 ? gamma2 : 0), 0, Q - 1);
        a.c[j] = trial % 2 ? uniform(0, Q - 1) : (j % 7 == 0 ? (j & 8 ? Q - 1 : 0) : edge);
        h.c[j] = trial % 3 == 0 ? 1 : uniform(0, 1);
      }
      std::memset(enc, 0, sizeof enc);
      ref_.use_hint_w1(enc[0], &a, &h, gamma2);
      be_->use_hint_w1(enc[1], &a, &h, gamma2);
      ASSERT_EQ(0, std::memcmp(enc[0], enc[1], sizeof enc[0])) << "gamma2 " << gamma2 << " trial " << trial;
    }
  }
}

// The bit-packing formats of every parameter set: (bits, offset, negate) as
// pkEncode / skEncode / sigEncode use them, and w1Encode's widths (4, 6 bits),
// which the vector backends leave to the portable code.
struct PackFormat {
  unsigned bits;
  int32_t offset;
  bool negate;
};
std::vector<PackFormat> pack_formats() {
  std::vector<PackFormat> f = {{10, 0, false}, {13, 1 << (D - 1), true}, {4, 0, false}, {6, 0, false}};
  for (ParamSet ps : kAllParamSets) {
    const Params& p = params(ps);
    f.push_back({p.eta == 2 ? 3u : 4u, static_cast<int32_t>(p.eta), true});
    f.push_back({p.gamma1_bits + 1, p.gamma1, true});
  }
  return f;
}

TEST_F(BackendEquivalence, PackBits) {
  for (const PackFormat& f : pack_formats()) {
    const size_t len = 32 * f.bits;
    const int32_t top = (1 << f.bits) - 1;
    for (int trial = 0; trial < 40; ++trial) {
      Poly a;
      for (int j = 0; j < N; ++j) {
        // The packed value v in [0, 2^bits): random, all 0, all max, alternating;
        // every 5th trial anything up to 2^30 in size (the packers keep the low bits).
        const int32_t v = trial % 8 == 1 ? 0 : trial % 8 == 3 ? top : trial % 8 == 5 ? ((j & 1) ? top : 0)
                                                                                    : uniform(0, top);
        a.c[j] = f.negate ? f.offset - v : v - f.offset;
        if (trial % 5 == 4) a.c[j] = uniform(-(1 << 30), 1 << 30);
      }
      // Guard bytes on both sides: nothing outside the 32*bits bytes changes.
      std::vector<uint8_t> out[2];
      for (auto& o : out) o.assign(len + 64, 0xA5);
      ref_.pack_bits(out[0].data() + 32, &a, f.bits, f.offset, f.negate);
      be_->pack_bits(out[1].data() + 32, &a, f.bits, f.offset, f.negate);
      ASSERT_EQ(out[0], out[1]) << "bits " << f.bits << " offset " << f.offset << " trial " << trial;
      for (size_t i = 0; i < 32; ++i) ASSERT_EQ(0xA5, out[1][i]);
      for (size_t i = len + 32; i < len + 64; ++i) ASSERT_EQ(0xA5, out[1][i]) << "bits " << f.bits;
    }
  }
}

TEST_F(BackendEquivalence, UnpackBits) {
  for (const PackFormat& f : pack_formats()) {
    const size_t len = 32 * f.bits;
    for (int trial = 0; trial < 40; ++trial) {
      // Exactly the packed bytes on the heap, so a sanitizer build sees any
      // read past them.
      std::vector<uint8_t> in(len);
      fill_bytes(in.data(), len);
      if (trial == 1) std::fill(in.begin(), in.end(), 0x00);
      if (trial == 2) std::fill(in.begin(), in.end(), 0xFF);
      if (trial == 3)
        for (size_t i = 0; i < len; ++i) in[i] = i & 1 ? 0xAA : 0x55;
      Poly a, b;
      ref_.unpack_bits(&a, in.data(), f.bits, f.offset, f.negate);
      be_->unpack_bits(&b, in.data(), f.bits, f.offset, f.negate);
      ASSERT_TRUE(same_polys(&a, &b, 1)) << "bits " << f.bits << " offset " << f.offset << " trial " << trial;
    }
  }
}

// The bounds the checks use: gamma1 - beta, gamma2 - beta, gamma2, eta + 1 and q.
std::vector<int32_t> norm_bounds() {
  std::vector<int32_t> b = {Q};
  for (ParamSet ps : kAllParamSets) {
    const Params& p = params(ps);
    for (int32_t v : {p.gamma1 - static_cast<int32_t>(p.beta), p.gamma2 - static_cast<int32_t>(p.beta), p.gamma2,
                      static_cast<int32_t>(p.eta) + 1})
      b.push_back(v);
  }
  return b;
}

TEST_F(BackendEquivalence, Exceeds) {
  for (int32_t bound : norm_bounds()) {
    for (int trial = 0; trial < 64; ++trial) {
      Poly a;
      fill_poly(&a, bound, trial);  // all |a_i| < bound ...
      // ... except, in most trials, one coefficient at +-bound or beyond, or
      // +-(bound - 1) at the edge of passing.
      const int pos = uniform(0, N - 1);
      const int32_t over[] = {bound, -bound, bound - 1, -(bound - 1), bound + 1, -Q + 1, 6283008, -6283008};
      if (trial % 4 != 0) a.c[pos] = over[trial % 8];
      ASSERT_EQ(ref_.exceeds(&a, bound), be_->exceeds(&a, bound)) << "bound " << bound << " trial " << trial;
    }
  }
}

TEST_F(BackendEquivalence, ReduceExceeds) {
  const int32_t big = (1 << 30) - (1 << 22) - 1;  // |a + b| stays in reduce32's range
  for (int32_t bound : norm_bounds()) {
    for (int trial = 0; trial < 48; ++trial) {
      Poly a, b;
      // Mostly small sums that pass or fail the check near the bound; every
      // 4th input with |a_i|, |b_i| up to 2^30 - 2^22.
      fill_poly(&a, trial % 4 == 3 ? big + 1 : bound, trial);
      fill_poly(&b, trial % 4 == 3 ? big + 1 : Q, trial / 2);
      if (trial % 3 == 0)
        for (int j = 0; j < N; ++j) b.c[j] = uniform(-2, 2) * Q + uniform(-3, 3);  // sums next to multiples of q
      for (int op = 0; op < 3; ++op) {
        Poly c[2];
        uint32_t v[2];
        for (int side = 0; side < 2; ++side) {
          const Backend& be = side == 0 ? ref_ : *be_;
          if (op == 0) v[side] = be.add_reduce_exceeds(&c[side], &a, &b, bound);
          if (op == 1) v[side] = be.sub_reduce_exceeds(&c[side], &a, &b, bound);
          if (op == 2) {  // b null, in place
            c[side] = b;
            v[side] = be.add_reduce_exceeds(&c[side], &c[side], nullptr, bound);
          }
        }
        ASSERT_TRUE(same_polys(&c[0], &c[1], 1)) << "op " << op << " bound " << bound << " trial " << trial;
        ASSERT_EQ(v[0], v[1]) << "op " << op << " bound " << bound << " trial " << trial;
      }
      // In place as sign uses it (c aliases a).
      Poly c[2] = {a, a};
      const uint32_t v0 = ref_.sub_reduce_exceeds(&c[0], &c[0], &b, bound);
      const uint32_t v1 = be_->sub_reduce_exceeds(&c[1], &c[1], &b, bound);
      ASSERT_TRUE(same_polys(&c[0], &c[1], 1)) << "in place, bound " << bound;
      ASSERT_EQ(v0, v1);
    }
  }
}

TEST_F(BackendEquivalence, MakeHint) {
  for (int32_t gamma2 : {(Q - 1) / 88, (Q - 1) / 32}) {
    for (int trial = 0; trial < 64; ++trial) {
      Poly r0, ct0, w1, h[2];
      for (int j = 0; j < N; ++j) {
        // r0 + ct0 at and next to +-gamma2, or anywhere in a wide range.
        const int32_t sum = trial % 2 ? uniform(-2 * gamma2, 2 * gamma2)
                                      : (j & 1 ? gamma2 : -gamma2) + uniform(-2, 2);
        ct0.c[j] = uniform(-gamma2, gamma2);
        r0.c[j] = sum - ct0.c[j];
        w1.c[j] = trial % 4 == 2 ? 0 : uniform(0, gamma2 == (Q - 1) / 88 ? 43 : 15);
      }
      const unsigned n0 = ref_.make_hint(&h[0], &r0, &ct0, &w1, gamma2);
      const unsigned n1 = be_->make_hint(&h[1], &r0, &ct0, &w1, gamma2);
      ASSERT_TRUE(same_polys(&h[0], &h[1], 1)) << "gamma2 " << gamma2 << " trial " << trial;
      ASSERT_EQ(n0, n1) << "gamma2 " << gamma2 << " trial " << trial;
    }
  }
}

TEST_F(BackendEquivalence, Caddq) {
  for (int trial = 0; trial < 64; ++trial) {
    Poly a[2];
    fill_poly(&a[0], Q, trial);  // (-q, q), the inverse NTT's output range
    a[1] = a[0];
    ref_.caddq(&a[0]);
    be_->caddq(&a[1]);
    ASSERT_TRUE(same_polys(&a[0], &a[1], 1)) << "trial " << trial;
  }
}

TEST_F(BackendEquivalence, HintPositions) {
  for (int trial = 0; trial < 64; ++trial) {
    Poly h;
    // Sparse, dense, empty and full hints; any non-zero value counts.
    for (int j = 0; j < N; ++j)
      h.c[j] = trial == 0 ? 0 : trial == 1 ? 1 : trial % 4 == 2 ? uniform(0, 1) : (uniform(0, 15) == 0 ? uniform(1, 3) : 0);
    uint8_t pos[2][N + 16];
    std::memset(pos, 0, sizeof pos);
    const unsigned n0 = ref_.hint_positions(pos[0], &h);
    const unsigned n1 = be_->hint_positions(pos[1], &h);
    ASSERT_EQ(n0, n1) << "trial " << trial;
    ASSERT_EQ(0, std::memcmp(pos[0], pos[1], n0)) << "trial " << trial;
  }
}

TEST_F(BackendEquivalence, Power2Round) {
  for (int trial = 0; trial < 64; ++trial) {
    Poly t, s2, t1[2], t0[2];
    fill_poly(&t, Q, trial);       // the inverse NTT's output range
    fill_poly(&s2, 5, trial / 2);  // |s2| <= eta <= 4
    if (trial % 8 == 6)            // sums at the multiples of 2^13 +- 1 and near 0, q
      for (int j = 0; j < N; ++j) t.c[j] = (uniform(-1023, 1023) << D) + uniform(-1, 1) - s2.c[j];
    ref_.power2round(&t1[0], &t0[0], &t, &s2);
    be_->power2round(&t1[1], &t0[1], &t, &s2);
    ASSERT_TRUE(same_polys(&t1[0], &t1[1], 1)) << "t1, trial " << trial;
    ASSERT_TRUE(same_polys(&t0[0], &t0[1], 1)) << "t0, trial " << trial;
  }
}

// Whole operations: keys, signatures and verdicts from the backend under test
// equal those from ref, byte for byte.
TEST_F(BackendEquivalence, KeygenSignVerify) {
  const std::string tested = table_spec(*be_);
  for (ParamSet ps : kAllParamSets) {
    const Params& p = params(ps);
    for (uint8_t tag = 1; tag <= 3; ++tag) {
      std::vector<uint8_t> msg(33 * tag), rnd(RND_BYTES, 0);
      fill_bytes(msg.data(), msg.size());
      if (tag > 1) fill_bytes(rnd.data(), rnd.size());  // tag 1: deterministic signing
      std::vector<uint8_t> sk[2], pk[2], sig[2];
      Status ver[2], ver_bad[2];
      for (int side = 0; side < 2; ++side) {
        ASSERT_TRUE(select_backend(side == 0 ? "ref" : tested));
        std::unique_ptr<PrivateKey> key = key_from_tag(p, tag);
        ASSERT_TRUE(key);
        sk[side].assign(key->encoded().begin(), key->encoded().end());
        pk[side].assign(key->public_key().encoded().begin(), key->public_key().encoded().end());
        sig[side].resize(p.sig_bytes);
        ASSERT_EQ(Status::ok, sign(*key, msg, {}, rnd.data(), sig[side].data()));
        // A key decoded from sk bytes (recomputes t = A s1 + s2) signs the same.
        std::unique_ptr<PrivateKey> decoded;
        ASSERT_EQ(Status::ok, PrivateKey::from_sk(p, sk[side], decoded));
        std::vector<uint8_t> sig2(p.sig_bytes);
        ASSERT_EQ(Status::ok, sign(*decoded, msg, {}, rnd.data(), sig2.data()));
        EXPECT_EQ(sig[side], sig2);
        std::unique_ptr<PublicKey> pub;
        ASSERT_EQ(Status::ok, PublicKey::decode(p, pk[side], pub));
        ver[side] = verify(*pub, msg, {}, sig[side]);
        std::vector<uint8_t> bad = sig[side];
        bad[p.lambda / 4 + tag] ^= 0x10;  // a bit of z
        ver_bad[side] = verify(*pub, msg, {}, bad);
      }
      ASSERT_TRUE(select_backend(tested));
      EXPECT_EQ(sk[0], sk[1]) << p.name << " tag " << int(tag);
      EXPECT_EQ(pk[0], pk[1]) << p.name << " tag " << int(tag);
      EXPECT_EQ(sig[0], sig[1]) << p.name << " tag " << int(tag);
      EXPECT_EQ(Status::ok, ver[1]);
      EXPECT_EQ(ver[0], ver[1]);
      EXPECT_EQ(Status::verify_failed, ver_bad[1]);
      EXPECT_EQ(ver_bad[0], ver_bad[1]);
    }
  }
}

// Signing draws masks ahead in whole permutations (Backend::mask_ways), runs
// attempts in groups (Backend::sign_group), and may draw masks and hash
// challenges on shared lanes (Backend::mask_hash): none may change a
// signature. The backend under test (ref too) with each lanes count, 1 to
// more than a whole attempt's masks, and each group size signs 16 messages
// (each a different number of attempts) as with neither, deterministic and
// hedged.
// KeyGen's three arrangements (Backend::keygen_lanes_shapes: 0 ExpandS,
// ExpandA and H(pk) one after another; 1 H(pk) in ExpandA's lanes; 2 ExpandS
// there too) give the same keys for every shape, from seeds whose s1 / s2
// need one block or two (32 seeds a set, so both occur), and from_sk accepts
// each sk (it recomputes t0 and tr with the table as it is).
class KeygenLanes : public BackendTest {};

TEST_F(KeygenLanes, SameKeysForEveryArrangement) {
  const Backend& tested = backend();
  if (!tested.expand_a_hash) GTEST_SKIP() << "skipped: backend " << tested.name << " has no expand_a_hash";
  const std::string name = table_spec(tested);
  for (ParamSet ps : kAllParamSets) {
    const Params& p = params(ps);
    for (uint8_t tag = 0; tag < 32; ++tag) {
      std::vector<uint8_t> seed(SEED_BYTES);
      for (size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<uint8_t>(tag * 37 + i * 11 + p.k);
      std::vector<uint8_t> pk[3], sk[3];
      for (uint8_t lanes = 0; lanes < 3; ++lanes) {
        Backend b = tested;
        for (auto& on : b.keygen_lanes_shapes) on = lanes;
        use_backend_for_testing(&b);
        std::unique_ptr<PrivateKey> key, again;
        ASSERT_EQ(Status::ok, PrivateKey::from_seed(p, seed, key)) << p.name << " lanes " << int{lanes};
        pk[lanes].assign(key->public_key().encoded().begin(), key->public_key().encoded().end());
        sk[lanes].assign(key->encoded().begin(), key->encoded().end());
        EXPECT_EQ(Status::ok, PrivateKey::from_sk(p, sk[lanes], again)) << p.name << " lanes " << int{lanes};
        ASSERT_TRUE(select_backend(name));
      }
      for (int lanes = 1; lanes < 3; ++lanes) {
        EXPECT_EQ(pk[0], pk[lanes]) << p.name << " tag " << int{tag} << " lanes " << lanes;
        EXPECT_EQ(sk[0], sk[lanes]) << p.name << " tag " << int{tag} << " lanes " << lanes;
      }
    }
  }
}

class SignLookAhead : public BackendTest {};

TEST_F(SignLookAhead, SameSignaturesForEveryLanesCountAndGroupSize) {
  const Backend& tested = backend();
  const std::string name = table_spec(tested);
  for (ParamSet ps : kAllParamSets) {
    const Params& p = params(ps);
    std::unique_ptr<PrivateKey> key = key_from_tag(p, 4);
    ASSERT_TRUE(key);
    // shared_lanes: Backend::mask_hash_shapes' value (0 none, 1 masks and
    // c~, 2 SampleInBall's block too) for every shape.
    auto sign_all = [&](unsigned ways, unsigned group, uint8_t shared_lanes = 0) {
      Backend b = tested;
      b.mask_ways = static_cast<uint8_t>(ways);
      for (auto& g : b.sign_group) g = static_cast<uint8_t>(group);
      if (!shared_lanes) b.mask_hash = nullptr;
      for (auto& on : b.mask_hash_shapes) on = shared_lanes;
      use_backend_for_testing(&b);
      std::vector<std::vector<uint8_t>> sigs;
      for (uint8_t m = 0; m < 16; ++m) {
        const uint8_t msg[1] = {m};
        std::vector<uint8_t> rnd(RND_BYTES, m & 1 ? m : 0);  // even m: deterministic
        std::vector<uint8_t> sig(p.sig_bytes);
        EXPECT_EQ(Status::ok, sign(*key, msg, {}, rnd.data(), sig.data()));
        sigs.push_back(std::move(sig));
      }
      EXPECT_TRUE(select_backend(name));
      return sigs;
    };
    const auto plain = sign_all(1, 1);
    for (unsigned ways : {1u, 2u, 3u, 4u, 5u, 8u, 11u})
      for (unsigned group : {1u, 2u, 3u})
        EXPECT_EQ(plain, sign_all(ways, group)) << p.name << " ways " << ways << " group " << group;
    if (tested.mask_hash != nullptr) {  // masks and challenges on shared lanes, every shape
      for (unsigned group : {1u, 2u})
        for (uint8_t shape : {1, 2})
          EXPECT_EQ(plain, sign_all(4, group, shape)) << p.name << " shared lanes " << int{shape};
    }
  }
}

}  // namespace
}  // namespace mldsa::test
