// sign_verify_test.cc - round trips, tampering, bad lengths, determinism,
// external mu and HashML-DSA, per parameter set. mu, tr and pre-hash digests are
// cross-checked against OpenSSL's SHAKE/SHA, an implementation independent of
// the core.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cpu/backend.h"
#include "cpu/keccak.h"
#include "cpu/mldsa.h"
#include "cpu/sampling.h"
#include "tests/core/backend_request.h"
#include "tests/core/reference_hash.h"
#include "tests/core/test_keys.h"

namespace mldsa::test {
namespace {

constexpr HashAlg kAllHashes[] = {
    HashAlg::SHA2_224, HashAlg::SHA2_256, HashAlg::SHA2_384, HashAlg::SHA2_512,
    HashAlg::SHA2_512_224, HashAlg::SHA2_512_256, HashAlg::SHA3_224, HashAlg::SHA3_256,
    HashAlg::SHA3_384, HashAlg::SHA3_512, HashAlg::SHAKE128, HashAlg::SHAKE256,
};

std::vector<uint8_t> concat(std::initializer_list<std::span<const uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (auto p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// M' of pure ML-DSA: 0 || len(ctx) || ctx || M (FIPS 204 Algorithm 2, line 10).
std::vector<uint8_t> pure_mprime(std::span<const uint8_t> ctx, std::span<const uint8_t> msg) {
  const uint8_t head[2] = {0, static_cast<uint8_t>(ctx.size())};
  return concat({head, ctx, msg});
}

class SignVerify : public BackendTest, public ::testing::WithParamInterface<ParamSet> {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    key_ = key_from_tag(p(), 1);
    ASSERT_TRUE(key_);
  }
  const Params& p() const { return params(GetParam()); }
  const PublicKey& pub() const { return key_->public_key(); }

  std::vector<uint8_t> sign_ok(std::span<const uint8_t> msg, std::span<const uint8_t> ctx, const uint8_t* rnd) {
    std::vector<uint8_t> sig(p().sig_bytes);
    Status st = sign(*key_, msg, ctx, rnd, sig.data());
    EXPECT_EQ(st, Status::ok);
    return sig;
  }

  const std::vector<uint8_t> msg_ = bytes_of("the quick brown fox jumps over the lazy dog");
  const std::vector<uint8_t> ctx_ = bytes_of("mldsa-accel test context");
  const std::vector<uint8_t> zeros_ = std::vector<uint8_t>(RND_BYTES, 0);
  std::unique_ptr<PrivateKey> key_;

  void check_verify_encoded();
};

TEST_P(SignVerify, RoundTrip) {
  std::vector<uint8_t> sig = sign_ok(msg_, ctx_, zeros_.data());
  EXPECT_EQ(verify(pub(), msg_, ctx_, sig), Status::ok);

  // Through a public key decoded from its bytes, as a verifier would hold it.
  std::unique_ptr<PublicKey> decoded;
  ASSERT_EQ(PublicKey::decode(p(), pub().encoded(), decoded), Status::ok);
  EXPECT_EQ(verify(*decoded, msg_, ctx_, sig), Status::ok);

  // Empty message and empty context are legal.
  std::vector<uint8_t> empty_sig = sign_ok({}, {}, zeros_.data());
  EXPECT_EQ(verify(pub(), {}, {}, empty_sig), Status::ok);
}

TEST_P(SignVerify, GeneratedKeysAreFreshAndWork) {
  std::unique_ptr<PrivateKey> a, b;
  ASSERT_EQ(PrivateKey::generate(p(), a), Status::ok);
  ASSERT_EQ(PrivateKey::generate(p(), b), Status::ok);
  EXPECT_TRUE(a->has_seed());
  EXPECT_FALSE(a->public_key() == b->public_key());
  std::vector<uint8_t> sig(p().sig_bytes);
  ASSERT_EQ(sign(*a, msg_, ctx_, nullptr, sig.data()), Status::ok);
  EXPECT_EQ(verify(a->public_key(), msg_, ctx_, sig), Status::ok);
  EXPECT_EQ(verify(b->public_key(), msg_, ctx_, sig), Status::verify_failed);
}

// A new key's signing form and t1's NTT are filled on first use: threads that
// race to use a fresh key all get the right answer.
TEST_P(SignVerify, FirstUseFromManyThreads) {
  const std::vector<uint8_t> want = sign_ok(msg_, ctx_, zeros_.data());
  for (int round = 0; round < 4; ++round) {
    std::unique_ptr<PrivateKey> fresh;
    ASSERT_EQ(PrivateKey::from_sk(p(), key_->encoded(), fresh), Status::ok);
    std::unique_ptr<PublicKey> pub_fresh;
    ASSERT_EQ(PublicKey::decode(p(), pub().encoded(), pub_fresh), Status::ok);
    constexpr int kThreads = 6;
    std::vector<std::vector<uint8_t>> sigs(kThreads, std::vector<uint8_t>(p().sig_bytes));
    Status signed_st[kThreads], verified_st[kThreads];
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        signed_st[t] = sign(*fresh, msg_, ctx_, zeros_.data(), sigs[t].data());
        verified_st[t] = verify(fresh->public_key(), msg_, ctx_, want);
        if (verified_st[t] == Status::ok) verified_st[t] = verify(*pub_fresh, msg_, ctx_, want);
      });
    for (std::thread& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_EQ(signed_st[t], Status::ok);
      EXPECT_EQ(sigs[t], want) << "thread " << t;
      EXPECT_EQ(verified_st[t], Status::ok) << "thread " << t;
    }
  }
}

TEST_P(SignVerify, TamperedSignatureFails) {
  std::vector<uint8_t> sig = sign_ok(msg_, ctx_, zeros_.data());
  ASSERT_EQ(verify(pub(), msg_, ctx_, sig), Status::ok);
  const size_t ctilde = p().lambda / 4;
  const size_t z_bytes = p().l * 32 * (1 + p().gamma1_bits);
  const size_t h_off = ctilde + z_bytes;
  ASSERT_EQ(h_off + p().omega + p().k, p().sig_bytes);

  // c~ and z: any change is a well-formed signature that does not verify.
  for (size_t pos : {size_t{0}, ctilde - 1, ctilde, ctilde + z_bytes / 2, h_off - 1}) {
    std::vector<uint8_t> bad = sig;
    bad[pos] ^= 0x01;
    EXPECT_EQ(verify(pub(), msg_, ctx_, bad), Status::verify_failed) << "byte " << pos;
  }
  // Hint area: either a malformed hint or a hint that does not verify.
  for (size_t pos : {h_off, h_off + p().omega - 1, h_off + p().omega, p().sig_bytes - 1}) {
    std::vector<uint8_t> bad = sig;
    bad[pos] ^= 0x01;
    Status st = verify(pub(), msg_, ctx_, bad);
    EXPECT_TRUE(st == Status::verify_failed || st == Status::sig_malformed_hint) << "byte " << pos << ": " << status_string(st);
  }
}

TEST_P(SignVerify, WrongMessageContextOrKeyFails) {
  std::vector<uint8_t> sig = sign_ok(msg_, ctx_, zeros_.data());
  std::vector<uint8_t> other_msg = msg_;
  other_msg.back() ^= 1;
  EXPECT_EQ(verify(pub(), other_msg, ctx_, sig), Status::verify_failed);
  EXPECT_EQ(verify(pub(), msg_, bytes_of("another context"), sig), Status::verify_failed);
  EXPECT_EQ(verify(pub(), msg_, {}, sig), Status::verify_failed);
  std::unique_ptr<PrivateKey> other = key_from_tag(p(), 2);
  ASSERT_TRUE(other);
  EXPECT_EQ(verify(other->public_key(), msg_, ctx_, sig), Status::verify_failed);
  // The internal interface signs M' itself: a pure signature is not one over M.
  EXPECT_EQ(verify_internal(pub(), msg_, sig), Status::verify_failed);
}

TEST_P(SignVerify, BadLengthsAreRejected) {
  std::vector<uint8_t> sig = sign_ok(msg_, ctx_, zeros_.data());
  std::vector<uint8_t> shorter(sig.begin(), sig.end() - 1), longer = sig;
  longer.push_back(0);
  EXPECT_EQ(verify(pub(), msg_, ctx_, shorter), Status::bad_sig_length);
  EXPECT_EQ(verify(pub(), msg_, ctx_, longer), Status::bad_sig_length);
  EXPECT_EQ(verify(pub(), msg_, ctx_, {}), Status::bad_sig_length);

  std::vector<uint8_t> out(p().sig_bytes);
  std::vector<uint8_t> ctx255(MAX_CONTEXT_BYTES, 0x5a), ctx256(MAX_CONTEXT_BYTES + 1, 0x5a);
  EXPECT_EQ(sign(*key_, msg_, ctx256, zeros_.data(), out.data()), Status::context_too_long);
  EXPECT_EQ(verify(pub(), msg_, ctx256, sig), Status::context_too_long);
  std::vector<uint8_t> sig255 = sign_ok(msg_, ctx255, zeros_.data());
  EXPECT_EQ(verify(pub(), msg_, ctx255, sig255), Status::ok);

  std::vector<uint8_t> digest(32, 7);
  EXPECT_EQ(sign_prehash(*key_, HashAlg::SHA2_256, digest, ctx256, zeros_.data(), out.data()), Status::context_too_long);
  EXPECT_EQ(verify_prehash(pub(), HashAlg::SHA2_256, digest, ctx256, sig), Status::context_too_long);
  std::vector<uint8_t> short_digest(31, 7);
  EXPECT_EQ(sign_prehash(*key_, HashAlg::SHA2_256, short_digest, ctx_, zeros_.data(), out.data()), Status::bad_digest_length);
  EXPECT_EQ(verify_prehash(pub(), HashAlg::SHA2_256, short_digest, ctx_, sig), Status::bad_digest_length);
  EXPECT_EQ(sign_prehash(*key_, HashAlg::SHAKE256, digest, ctx_, zeros_.data(), out.data()), Status::bad_digest_length);

  for (size_t len : {size_t{0}, MU_BYTES - 1, MU_BYTES + 1}) {
    std::vector<uint8_t> mu(len, 3);
    EXPECT_EQ(sign_mu(*key_, mu, zeros_.data(), out.data()), Status::bad_mu_length) << len;
    EXPECT_EQ(verify_mu(pub(), mu, sig), Status::bad_mu_length) << len;
  }

  MuBuilder b;
  EXPECT_EQ(b.init_pure(pub().tr(), ctx256), Status::context_too_long);
  EXPECT_EQ(b.init_prehash(pub().tr(), ctx256, HashAlg::SHA2_256, digest), Status::context_too_long);
  EXPECT_EQ(b.init_prehash(pub().tr(), ctx_, HashAlg::SHA2_256, short_digest), Status::bad_digest_length);
}

TEST_P(SignVerify, DeterministicAndHedged) {
  // Deterministic (rnd = 0^32): the same signature every time.
  EXPECT_EQ(sign_ok(msg_, ctx_, zeros_.data()), sign_ok(msg_, ctx_, zeros_.data()));
  // A given rnd is used: another rnd gives another signature, just as valid.
  std::vector<uint8_t> rnd(RND_BYTES, 0xa5);
  std::vector<uint8_t> with_rnd = sign_ok(msg_, ctx_, rnd.data());
  EXPECT_EQ(with_rnd, sign_ok(msg_, ctx_, rnd.data()));
  EXPECT_NE(with_rnd, sign_ok(msg_, ctx_, zeros_.data()));
  EXPECT_EQ(verify(pub(), msg_, ctx_, with_rnd), Status::ok);
  // Hedged (rnd = nullptr: fresh randomness): two calls differ, both verify.
  std::vector<uint8_t> h1 = sign_ok(msg_, ctx_, nullptr), h2 = sign_ok(msg_, ctx_, nullptr);
  EXPECT_NE(h1, h2);
  EXPECT_EQ(verify(pub(), msg_, ctx_, h1), Status::ok);
  EXPECT_EQ(verify(pub(), msg_, ctx_, h2), Status::ok);
}

TEST_P(SignVerify, TrIsHashOfPublicKey) {
  std::vector<uint8_t> want = openssl_shake256(pub().encoded(), TR_BYTES);
  ASSERT_EQ(want.size(), TR_BYTES);
  EXPECT_EQ(std::vector<uint8_t>(pub().tr().begin(), pub().tr().end()), want);
}

TEST_P(SignVerify, MuBuilderStreamsAndMatchesSign) {
  // A message longer than several SHAKE256 blocks (136 bytes each).
  std::vector<uint8_t> msg(1000);
  for (size_t i = 0; i < msg.size(); ++i) msg[i] = static_cast<uint8_t>(i * 13 + 5);

  uint8_t one_shot[MU_BYTES], streamed[MU_BYTES];
  MuBuilder a;
  ASSERT_EQ(a.init_pure(pub().tr(), ctx_), Status::ok);
  a.update(msg);
  a.final(one_shot);
  MuBuilder b;
  ASSERT_EQ(b.init_pure(pub().tr(), ctx_), Status::ok);
  size_t chunks[] = {0, 1, 7, 128, 136, 135, 200, 1};  // crosses block edges in odd places
  size_t at = 0;
  for (size_t n : chunks) {
    b.update(std::span<const uint8_t>(msg).subspan(at, n));
    at += n;
  }
  b.update(std::span<const uint8_t>(msg).subspan(at));
  b.final(streamed);
  EXPECT_EQ(std::vector<uint8_t>(one_shot, one_shot + MU_BYTES), std::vector<uint8_t>(streamed, streamed + MU_BYTES));

  // mu = H(tr || 0 || len(ctx) || ctx || M, 64) (Algorithm 7, line 6).
  std::vector<uint8_t> tr(pub().tr().begin(), pub().tr().end());
  EXPECT_EQ(std::vector<uint8_t>(one_shot, one_shot + MU_BYTES), openssl_shake256(concat({tr, pure_mprime(ctx_, msg)}), MU_BYTES));

  // sign over mu == sign over the message; each verifies through the other.
  std::vector<uint8_t> sig = sign_ok(msg, ctx_, zeros_.data());
  std::vector<uint8_t> sig_mu(p().sig_bytes);
  ASSERT_EQ(sign_mu(*key_, std::span<const uint8_t>(one_shot, MU_BYTES), zeros_.data(), sig_mu.data()), Status::ok);
  EXPECT_EQ(sig, sig_mu);
  EXPECT_EQ(verify_mu(pub(), std::span<const uint8_t>(one_shot, MU_BYTES), sig), Status::ok);
  EXPECT_EQ(verify(pub(), msg, ctx_, sig_mu), Status::ok);
  one_shot[0] ^= 1;
  EXPECT_EQ(verify_mu(pub(), std::span<const uint8_t>(one_shot, MU_BYTES), sig), Status::verify_failed);
}

TEST_P(SignVerify, InternalInterfaceSignsMPrime) {
  // Pure ML-DSA is Sign_internal over M' = 0 || len(ctx) || ctx || M.
  std::vector<uint8_t> mprime = pure_mprime(ctx_, msg_);
  std::vector<uint8_t> sig(p().sig_bytes);
  ASSERT_EQ(sign_internal(*key_, mprime, zeros_.data(), sig.data()), Status::ok);
  EXPECT_EQ(sig, sign_ok(msg_, ctx_, zeros_.data()));
  EXPECT_EQ(verify_internal(pub(), mprime, sig), Status::ok);

  uint8_t mu[MU_BYTES];
  MuBuilder b;
  b.init_internal(pub().tr());
  b.update(mprime);
  b.final(mu);
  std::vector<uint8_t> tr(pub().tr().begin(), pub().tr().end());
  EXPECT_EQ(std::vector<uint8_t>(mu, mu + MU_BYTES), openssl_shake256(concat({tr, mprime}), MU_BYTES));
}

TEST_P(SignVerify, PrehashRoundTripEveryHash) {
  for (HashAlg h : kAllHashes) {
    SCOPED_TRACE(hash_name(h));
    std::vector<uint8_t> digest = openssl_digest(h, msg_);
    ASSERT_EQ(digest.size(), hash_digest_bytes(h));
    std::vector<uint8_t> sig(p().sig_bytes);
    ASSERT_EQ(sign_prehash(*key_, h, digest, ctx_, zeros_.data(), sig.data()), Status::ok);
    EXPECT_EQ(verify_prehash(pub(), h, digest, ctx_, sig), Status::ok);

    // mu = H(tr || 1 || len(ctx) || ctx || OID(h) || digest, 64) (Algorithm 4, lines 18-23).
    const uint8_t head[2] = {1, static_cast<uint8_t>(ctx_.size())};
    std::vector<uint8_t> tr(pub().tr().begin(), pub().tr().end());
    std::vector<uint8_t> want_mu = openssl_shake256(concat({tr, head, ctx_, hash_oid_der(h), digest}), MU_BYTES);
    uint8_t mu[MU_BYTES];
    MuBuilder b;
    ASSERT_EQ(b.init_prehash(pub().tr(), ctx_, h, digest), Status::ok);
    b.final(mu);
    EXPECT_EQ(std::vector<uint8_t>(mu, mu + MU_BYTES), want_mu);
    std::vector<uint8_t> sig_mu(p().sig_bytes);
    ASSERT_EQ(sign_mu(*key_, want_mu, zeros_.data(), sig_mu.data()), Status::ok);
    EXPECT_EQ(sig, sig_mu);

    // Neither a pure signature nor a different digest verifies.
    EXPECT_EQ(verify(pub(), digest, ctx_, sig), Status::verify_failed);
    digest[0] ^= 1;
    EXPECT_EQ(verify_prehash(pub(), h, digest, ctx_, sig), Status::verify_failed);
  }
  // Same digest length, different hash: the OID in M' differs.
  std::vector<uint8_t> d(32, 0x42), sig(p().sig_bytes);
  ASSERT_EQ(sign_prehash(*key_, HashAlg::SHA2_256, d, ctx_, zeros_.data(), sig.data()), Status::ok);
  EXPECT_EQ(verify_prehash(pub(), HashAlg::SHA3_256, d, ctx_, sig), Status::verify_failed);
}

// verify_encoded (one call from the encoded pk) against decode + verify:
// good signatures, every byte position of a signature tampered with in turn
// (a stride through it), wrong message and context, and each bad input
// with the same status; with the backend's table as it is and, where it
// shares lanes, with its hashes in the lanes for every shape.
TEST_P(SignVerify, VerifyEncodedMatchesDecodeThenVerify) {
  const Backend& tested = backend();
  check_verify_encoded();
  if (!tested.expand_a_hash) return;
  Backend all_lanes = tested;
  for (auto& on : all_lanes.verify_lanes_shapes) on = 1;
  use_backend_for_testing(&all_lanes);
  check_verify_encoded();
  use_backend_for_testing(&tested);
}

void SignVerify::check_verify_encoded() {
  SCOPED_TRACE(std::string("backend table with verify_lanes_shapes ") +
               std::to_string(backend().verify_lanes_shapes[p().k / 2 - 2]));
  const std::span<const uint8_t> pk = pub().encoded();
  const bool r3 = p().scheme == Scheme::dilithium_r3;
  const std::vector<uint8_t> ctx = r3 ? std::vector<uint8_t>{} : ctx_;
  for (uint8_t m = 0; m < 8; ++m) {
    std::vector<uint8_t> msg(msg_);
    msg.push_back(m);
    const std::vector<uint8_t> sig = sign_ok(msg, ctx, m & 1 ? zeros_.data() : nullptr);
    EXPECT_EQ(Status::ok, verify_encoded(p(), pk, msg, ctx, sig));
    EXPECT_EQ(Status::verify_failed, verify_encoded(p(), pk, msg_, ctx, sig));  // other message
    for (size_t i = m; i < sig.size(); i += 97) {
      std::vector<uint8_t> bad(sig);
      bad[i] ^= static_cast<uint8_t>(1 << (i % 8));
      EXPECT_EQ(verify(pub(), msg, ctx, bad), verify_encoded(p(), pk, msg, ctx, bad)) << "byte " << i;
      EXPECT_NE(Status::ok, verify_encoded(p(), pk, msg, ctx, bad)) << "byte " << i;
    }
  }
  const std::vector<uint8_t> sig = sign_ok(msg_, ctx, nullptr);
  EXPECT_EQ(Status::bad_pk_length, verify_encoded(p(), pk.first(pk.size() - 1), msg_, ctx, sig));
  EXPECT_EQ(Status::bad_sig_length, verify_encoded(p(), pk, msg_, ctx, std::span(sig).first(sig.size() - 1)));
  const std::vector<uint8_t> long_ctx(256, 1);
  EXPECT_EQ(verify(pub(), msg_, long_ctx, sig), verify_encoded(p(), pk, msg_, long_ctx, sig));
  EXPECT_EQ(verify(pub(), msg_, ctx_, sig), verify_encoded(p(), pk, msg_, ctx_, sig));  // r3: unsupported
  std::vector<uint8_t> other_pk(pk.begin(), pk.end());
  other_pk[40] ^= 1;  // t1 changed: another key
  EXPECT_EQ(Status::verify_failed, verify_encoded(p(), other_pk, msg_, ctx, sig));
}

// Algorithm 29 over an explicit stream of H(c~): 8 sign bytes, then one
// candidate position per byte.
Poly ball_from_stream(const std::vector<uint8_t>& stream, unsigned tau) {
  Poly c{};
  uint64_t signs = 0;
  for (int i = 0; i < 8; ++i) signs |= uint64_t{stream[i]} << (8 * i);
  size_t pos = 8;
  for (unsigned i = N - tau; i < N; ++i) {
    unsigned j = stream.at(pos++);
    while (j > i) j = stream.at(pos++);
    c.c[i] = c.c[j];
    c.c[j] = (signs >> (i - (N - tau))) & 1 ? -1 : 1;
  }
  return c;
}

// SampleInBall from c~ alone, and with the stream's first block given (as
// the shared lanes hand it over): the same challenge; and a given block is
// taken as the stream's first, the sponge's bytes after it (a block of
// rejections only, so every position comes from the second block on).
TEST_P(SignVerify, SampleInBallWithFirstBlock) {
  for (unsigned trial = 0; trial < 16; ++trial) {
    std::vector<uint8_t> ctilde(p().ctilde_bytes);
    for (size_t i = 0; i < ctilde.size(); ++i) ctilde[i] = static_cast<uint8_t>(31 * trial + 7 * i);
    const std::vector<uint8_t> stream = openssl_shake256(ctilde, 3 * SHAKE256_RATE);
    Poly plain, given;
    sample_in_ball(&plain, ctilde.data(), ctilde.size(), p().tau);
    sample_in_ball(&given, ctilde.data(), ctilde.size(), p().tau, stream.data());
    const Poly want = ball_from_stream(stream, p().tau);
    ASSERT_EQ(0, std::memcmp(&want, &plain, sizeof want)) << "trial " << trial;
    ASSERT_EQ(0, std::memcmp(&want, &given, sizeof want)) << "trial " << trial;

    // The crafted first block, then the sponge's own bytes from the second block on.
    std::vector<uint8_t> crafted(stream);
    std::fill(crafted.begin() + 8, crafted.begin() + SHAKE256_RATE, 0xFF);  // rejected for every i < 255
    Poly from_crafted;
    sample_in_ball(&from_crafted, ctilde.data(), ctilde.size(), p().tau, crafted.data());
    const Poly want_crafted = ball_from_stream(crafted, p().tau);
    ASSERT_EQ(0, std::memcmp(&want_crafted, &from_crafted, sizeof want_crafted)) << "trial " << trial;
  }
}

INSTANTIATE_TEST_SUITE_P(All, SignVerify, ::testing::ValuesIn(kAllParamSets), param_name);

// ---------------------------------------------------------------------------
// HashML-DSA hash table (not per parameter set).

class Prehash : public BackendTest {};

TEST_F(Prehash, DigestsMatchOpenSSL) {
  std::vector<uint8_t> msgs[] = {{}, bytes_of("abc"), std::vector<uint8_t>(1000, 0x61)};
  for (HashAlg h : kAllHashes) {
    for (const auto& m : msgs) {
      SCOPED_TRACE(std::string(hash_name(h)) + " len " + std::to_string(m.size()));
      std::vector<uint8_t> want = openssl_digest(h, m);
      ASSERT_EQ(want.size(), hash_digest_bytes(h));
      std::vector<uint8_t> got(hash_digest_bytes(h));
      Status st = prehash_digest(h, m, got.data());
      bool sha2 = h <= HashAlg::SHA2_512_256;
      // The core computes SHA-3/SHAKE itself and may leave SHA-2 to its caller.
      if (sha2 && st == Status::unsupported_hash) continue;
      ASSERT_EQ(st, Status::ok);
      EXPECT_EQ(got, want);
    }
  }
}

TEST_F(Prehash, OidsAndNames) {
  // id-sha256 ... id-shake256 are 2.16.840.1.101.3.4.2.{1..12}.
  const std::pair<HashAlg, uint8_t> arcs[] = {
      {HashAlg::SHA2_256, 1}, {HashAlg::SHA2_384, 2}, {HashAlg::SHA2_512, 3}, {HashAlg::SHA2_224, 4},
      {HashAlg::SHA2_512_224, 5}, {HashAlg::SHA2_512_256, 6}, {HashAlg::SHA3_224, 7}, {HashAlg::SHA3_256, 8},
      {HashAlg::SHA3_384, 9}, {HashAlg::SHA3_512, 10}, {HashAlg::SHAKE128, 11}, {HashAlg::SHAKE256, 12},
  };
  for (auto [h, arc] : arcs) {
    SCOPED_TRACE(hash_name(h));
    std::vector<uint8_t> want = {0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, arc};
    std::span<const uint8_t> got = hash_oid_der(h);
    EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end()), want);
    HashAlg back;
    ASSERT_TRUE(hash_from_name(hash_name(h), back));
    EXPECT_EQ(back, h);
    ASSERT_TRUE(hash_from_name(openssl_md_name(h), back)) << openssl_md_name(h);
    EXPECT_EQ(back, h);
  }
  HashAlg h;
  EXPECT_TRUE(hash_from_name("SHA2-512/256", h));
  EXPECT_EQ(h, HashAlg::SHA2_512_256);
  EXPECT_TRUE(hash_from_name("SHAKE-128", h));
  EXPECT_EQ(h, HashAlg::SHAKE128);
  EXPECT_FALSE(hash_from_name("MD5", h));
  EXPECT_FALSE(hash_from_name("", h));
  EXPECT_FALSE(hash_from_name("sha2-256x", h));
}

}  // namespace
}  // namespace mldsa::test
