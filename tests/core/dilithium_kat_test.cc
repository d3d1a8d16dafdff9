// dilithium_kat_test.cc - CRYSTALS-Dilithium round 3 (v3.1) against the NIST
// PQC known-answer files: keygen from the KAT seed, deterministic signing and
// verification byte for byte (a subset of the files, copied into
// tests/vectors/dilithium-round3/), and the whole files regenerated from the
// generator's own DRBG and compared with their published SHA-256. Also the
// round-3 rules (no context, no pre-hash, randomized rho'') and that ML-DSA
// and Dilithium never accept each other's keys or signatures.
#include <gtest/gtest.h>

#include <openssl/evp.h>

#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cpu/mldsa.h"
#include "tests/core/acvp_vectors.h"
#include "tests/core/backend_request.h"
#include "tests/core/nist_drbg.h"
#include "tests/core/nist_kat.h"

namespace mldsa::test {
namespace {

std::vector<uint8_t> hex(const KatRecord& r, const char* key) { return from_hex(r.at(key)); }

std::string to_hex(std::span<const uint8_t> b) {
  static const char* digits = "0123456789ABCDEF";
  std::string s;
  s.reserve(2 * b.size());
  for (uint8_t x : b) {
    s.push_back(digits[x >> 4]);
    s.push_back(digits[x & 15]);
  }
  return s;
}

std::vector<uint8_t> concat(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  std::vector<uint8_t> out(a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// The ML-DSA parameter set with the same shape (k, l), whose pk (and for
// Dilithium2 sig) sizes equal the round-3 set's.
const Params& mldsa_twin(const Params& p) {
  return params(static_cast<ParamSet>(static_cast<int>(p.id) - 3));
}

const uint8_t kZeros[MAX_RND_BYTES] = {};

struct Level {
  ParamSet set;
  // SHA-256 of the whole PQCsignKAT_DilithiumN.rsp, as published with the
  // round-3 submission (and in the shared vector folder's SHA256SUMS).
  const char* sha256;
};

const Level kLevels[] = {
    {ParamSet::DILITHIUM2, "38ed991c5ca11e39ab23945ca37af89e059d16c5474bf8ba96b15cb4e948af2a"},
    {ParamSet::DILITHIUM3, "8196b32212753f525346201ffec1c7a0a852596fa0b57bd4e2746231dab44d55"},
    {ParamSet::DILITHIUM5, "7ded97a6e6c809b43b54c248171d7504fa6a0cab651bf288bb00034782667481"},
};

class RoundThree : public BackendTest, public ::testing::WithParamInterface<Level> {
 protected:
  const Params& p() const { return params(GetParam().set); }
};

TEST_P(RoundThree, KnownAnswers) {
  const KatFile f = load_round3_kat(p().name);
  ASSERT_TRUE(f.error.empty()) << f.error;
  ASSERT_EQ(f.header, std::string("# ") + p().name);
  ASSERT_EQ(f.records.size(), 2u);
  for (const KatRecord& r : f.records) {
    SCOPED_TRACE("count = " + r.at("count"));
    const std::vector<uint8_t> msg = hex(r, "msg"), pk = hex(r, "pk"), sk = hex(r, "sk"), sm = hex(r, "sm");
    ASSERT_EQ(msg.size(), std::stoul(r.at("mlen")));
    ASSERT_EQ(sm.size(), std::stoul(r.at("smlen")));
    ASSERT_EQ(sm.size(), p().sig_bytes + msg.size());
    const std::vector<uint8_t> want_sig(sm.begin(), sm.begin() + p().sig_bytes);

    // KeyGen from the DRBG's seed.
    std::unique_ptr<PrivateKey> key;
    ASSERT_EQ(PrivateKey::from_seed(p(), kat_keygen_seed(hex(r, "seed")), key), Status::ok);
    EXPECT_TRUE(std::ranges::equal(key->public_key().encoded(), pk));
    EXPECT_TRUE(std::ranges::equal(key->encoded(), sk));

    // Deterministic signing: sm = sig || msg.
    std::vector<uint8_t> sig(p().sig_bytes);
    ASSERT_EQ(sign(*key, msg, {}, kZeros, sig.data()), Status::ok);
    EXPECT_EQ(concat(sig, msg), sm);
    std::vector<uint8_t> sig2(p().sig_bytes);
    ASSERT_EQ(sign_encoded(p(), sk, msg, {}, kZeros, sig2.data()), Status::ok);
    EXPECT_EQ(sig2, want_sig);
    std::unique_ptr<PrivateKey> loaded;
    ASSERT_EQ(PrivateKey::from_sk(p(), sk, loaded), Status::ok);
    EXPECT_TRUE(std::ranges::equal(loaded->public_key().encoded(), pk));
    ASSERT_EQ(sign(*loaded, msg, {}, kZeros, sig2.data()), Status::ok);
    EXPECT_EQ(sig2, want_sig);

    // Verify, and reject a changed message or signature.
    std::unique_ptr<PublicKey> pub;
    ASSERT_EQ(PublicKey::decode(p(), pk, pub), Status::ok);
    EXPECT_EQ(verify(*pub, msg, {}, want_sig), Status::ok);
    EXPECT_EQ(verify_internal(*pub, msg, want_sig), Status::ok);  // round 3: M' = M
    std::vector<uint8_t> bad = msg;
    bad[0] ^= 1;
    EXPECT_EQ(verify(*pub, bad, {}, want_sig), Status::verify_failed);
    bad = want_sig;
    bad[p().ctilde_bytes + 7] ^= 0x10;
    EXPECT_EQ(verify(*pub, msg, {}, bad), Status::verify_failed);

    // The ML-DSA set of the same shape accepts neither the key nor the signature.
    const Params& twin = mldsa_twin(p());
    std::unique_ptr<PrivateKey> as_mldsa;
    EXPECT_EQ(PrivateKey::from_sk(twin, sk, as_mldsa), Status::bad_sk_length);
    std::unique_ptr<PublicKey> twin_pub;
    ASSERT_EQ(PublicKey::decode(twin, pk, twin_pub), Status::ok);  // same pk size: the bytes decode
    const Status cross = verify(*twin_pub, msg, {}, want_sig);
    EXPECT_NE(cross, Status::ok);
    EXPECT_EQ(cross, twin.sig_bytes == p().sig_bytes ? Status::verify_failed : Status::bad_sig_length);
  }
}

// The whole KAT file, rebuilt as PQCgenKAT_sign writes it: the DRBG seeded
// with 0, 1, ..., 47 draws each record's 48-byte seed and its message of
// 33 * (count + 1) bytes; each record's keys come from its own seed and its
// signature is deterministic. The text's SHA-256 must be the published one.
TEST_P(RoundThree, WholeFileDigest) {
  uint8_t entropy[48];
  for (int i = 0; i < 48; ++i) entropy[i] = static_cast<uint8_t>(i);
  NistKatDrbg master(entropy);
  std::string text = std::string("# ") + p().name + "\n\n";
  std::vector<uint8_t> sig(p().sig_bytes);
  for (int count = 0; count < 100; ++count) {
    uint8_t seed[48];
    master.generate(seed, sizeof seed);
    std::vector<uint8_t> msg(33 * static_cast<size_t>(count + 1));
    master.generate(msg.data(), msg.size());
    std::unique_ptr<PrivateKey> key;
    ASSERT_EQ(PrivateKey::from_seed(p(), kat_keygen_seed(seed), key), Status::ok);
    ASSERT_EQ(sign(*key, msg, {}, kZeros, sig.data()), Status::ok);
    std::ostringstream rec;
    rec << "count = " << count << "\nseed = " << to_hex(seed) << "\nmlen = " << msg.size()
        << "\nmsg = " << to_hex(msg) << "\npk = " << to_hex(key->public_key().encoded())
        << "\nsk = " << to_hex(key->encoded()) << "\nsmlen = " << sig.size() + msg.size()
        << "\nsm = " << to_hex(concat(sig, msg)) << "\n\n";
    text += rec.str();
  }
  uint8_t digest[32];
  unsigned int n = 0;
  ASSERT_EQ(EVP_Digest(text.data(), text.size(), digest, &n, EVP_sha256(), nullptr), 1);
  std::string got;
  for (uint8_t b : digest) {
    char h[3];
    std::snprintf(h, sizeof h, "%02x", b);
    got += h;
  }
  EXPECT_EQ(got, GetParam().sha256) << text.size() << " bytes regenerated";
}

TEST_P(RoundThree, RandomizedSigning) {
  std::unique_ptr<PrivateKey> key;
  ASSERT_EQ(PrivateKey::generate(p(), key), Status::ok);
  const std::vector<uint8_t> msg = {'r', 'o', 'u', 'n', 'd', '3'};
  std::vector<uint8_t> a(p().sig_bytes), b(p().sig_bytes), c(p().sig_bytes), d(p().sig_bytes);
  ASSERT_EQ(sign(*key, msg, {}, nullptr, a.data()), Status::ok);  // fresh rho'' from the OS
  ASSERT_EQ(sign(*key, msg, {}, nullptr, b.data()), Status::ok);
  EXPECT_NE(a, b);
  uint8_t rhopp[MAX_RND_BYTES];
  ASSERT_TRUE(os_random(rhopp, sizeof rhopp));
  ASSERT_EQ(sign(*key, msg, {}, rhopp, c.data()), Status::ok);  // the caller's rho''
  ASSERT_EQ(sign(*key, msg, {}, kZeros, d.data()), Status::ok);  // deterministic
  EXPECT_NE(c, d);
  for (const auto* s : {&a, &b, &c, &d}) EXPECT_EQ(verify(key->public_key(), msg, {}, *s), Status::ok);
  std::vector<uint8_t> e(p().sig_bytes);
  ASSERT_EQ(sign(*key, msg, {}, kZeros, e.data()), Status::ok);
  EXPECT_EQ(d, e);
}

TEST_P(RoundThree, NoContextNoPrehash) {
  std::unique_ptr<PrivateKey> key;
  ASSERT_EQ(PrivateKey::generate(p(), key), Status::ok);
  const std::vector<uint8_t> msg = {1, 2, 3}, ctx = {'c'};
  std::vector<uint8_t> sig(p().sig_bytes);
  EXPECT_EQ(sign(*key, msg, ctx, kZeros, sig.data()), Status::context_unsupported);
  EXPECT_EQ(sign_encoded(p(), key->encoded(), msg, ctx, kZeros, sig.data()), Status::context_unsupported);
  ASSERT_EQ(sign(*key, msg, {}, kZeros, sig.data()), Status::ok);
  EXPECT_EQ(verify(key->public_key(), msg, ctx, sig), Status::context_unsupported);
  const std::vector<uint8_t> digest(64, 7);
  EXPECT_EQ(sign_prehash(*key, HashAlg::SHA2_512, digest, {}, kZeros, sig.data()), Status::prehash_unsupported);
  EXPECT_EQ(verify_prehash(key->public_key(), HashAlg::SHA2_512, digest, {}, sig), Status::prehash_unsupported);
  EXPECT_EQ(key->public_key().tr().size(), 32u);
}

// An ML-DSA key and a round-3 key with the same public key bytes: neither
// scheme's signature verifies under the other.
TEST_P(RoundThree, MlDsaSignaturesNotAccepted) {
  const Params& twin = mldsa_twin(p());
  std::unique_ptr<PrivateKey> ml;
  ASSERT_EQ(PrivateKey::generate(twin, ml), Status::ok);
  const std::vector<uint8_t> msg = {'x'};
  std::vector<uint8_t> sig(twin.sig_bytes);
  ASSERT_EQ(sign(*ml, msg, {}, kZeros, sig.data()), Status::ok);
  std::unique_ptr<PublicKey> as_r3;
  ASSERT_EQ(PublicKey::decode(p(), ml->public_key().encoded(), as_r3), Status::ok);
  const Status st = verify(*as_r3, msg, {}, sig);
  EXPECT_EQ(st, twin.sig_bytes == p().sig_bytes ? Status::verify_failed : Status::bad_sig_length);
  // Nor does the same key's seed make the same key in both schemes.
  std::unique_ptr<PrivateKey> r3;
  ASSERT_EQ(PrivateKey::from_seed(p(), ml->seed(), r3), Status::ok);
  EXPECT_FALSE(std::ranges::equal(r3->public_key().encoded(), ml->public_key().encoded()));
}

INSTANTIATE_TEST_SUITE_P(Dilithium, RoundThree, ::testing::ValuesIn(kLevels),
                         [](const auto& info) { return std::string(params(info.param.set).name); });

}  // namespace
}  // namespace mldsa::test
