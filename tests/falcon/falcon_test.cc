// falcon_test.cc - Falcon verify against a fixed signature made by the
// reference (tests/vectors/falcon/), sign/verify round trips, and bad input:
// tampered signatures, messages and keys, malformed encodings.
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cpu/falcon/falcon.h"
#include "tests/core/nist_drbg.h"

namespace {

std::vector<uint8_t> unhex(const std::string& s) {
  std::vector<uint8_t> r;
  for (size_t i = 0; i + 1 < s.size(); i += 2) r.push_back(static_cast<uint8_t>(std::stoi(s.substr(i, 2), nullptr, 16)));
  return r;
}

std::map<std::string, std::string> load(const std::string& path) {
  std::map<std::string, std::string> m;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find(" = ");
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    m[line.substr(0, eq)] = line.substr(eq + 3);
  }
  return m;
}

// Entry 0's message: the 33 bytes after the 48-byte seed from the KAT DRBG
// seeded with 0, 1, ..., 47.
std::vector<uint8_t> kat0_message() {
  std::array<uint8_t, 48> e;
  for (int i = 0; i < 48; ++i) e[i] = static_cast<uint8_t>(i);
  mldsa::test::NistKatDrbg d(e);
  std::vector<uint8_t> seed(48), msg(33);
  d.generate(seed.data(), 48);
  d.generate(msg.data(), 33);
  return msg;
}

TEST(FalconVectors, ReferenceSignatureVerifies) {
  const auto v = load(std::string(MLDSA_ACVP_VECTOR_DIR) + "/falcon/falcon512_kat0.txt");
  ASSERT_EQ(v.count("pk"), 1u);
  const auto pk = unhex(v.at("pk")), sig = unhex(v.at("sig"));
  auto msg = kat0_message();
  const auto& p = falcon::falcon512();
  ASSERT_EQ(pk.size(), p.pk_bytes);
  EXPECT_TRUE(falcon::verify(p, pk.data(), msg.data(), msg.size(), sig.data(), sig.size(), falcon::SigFormat::compressed));
  msg[0] ^= 1;
  EXPECT_FALSE(falcon::verify(p, pk.data(), msg.data(), msg.size(), sig.data(), sig.size(), falcon::SigFormat::compressed));
  // Not a Falcon-1024 signature.
  EXPECT_FALSE(falcon::verify(falcon::falcon1024(), pk.data(), msg.data(), msg.size(), sig.data(), sig.size(),
                              falcon::SigFormat::compressed));
}

struct Keys {
  std::vector<uint8_t> pk, sk;
};

Keys make_keys(const falcon::Params& p, uint8_t tag) {
  Keys k{std::vector<uint8_t>(p.pk_bytes), std::vector<uint8_t>(p.sk_bytes)};
  uint8_t seed[falcon::SEED_BYTES];
  for (unsigned i = 0; i < sizeof seed; ++i) seed[i] = static_cast<uint8_t>(tag + 7 * i);
  falcon::keygen(p, seed, k.pk.data(), k.sk.data());
  return k;
}

class FalconSets : public testing::TestWithParam<int> {
 protected:
  const falcon::Params& p() const { return GetParam() == 512 ? falcon::falcon512() : falcon::falcon1024(); }
};

TEST_P(FalconSets, SignVerifyAndTampering) {
  const Keys k = make_keys(p(), 3);
  std::vector<uint8_t> pk2(p().pk_bytes);
  ASSERT_TRUE(falcon::public_from_private(p(), k.sk.data(), pk2.data()));
  EXPECT_EQ(pk2, k.pk);
  const std::string text = "a message to sign";
  const auto* msg = reinterpret_cast<const uint8_t*>(text.data());
  uint8_t nonce[falcon::NONCE_BYTES] = {1, 2, 3}, seed[falcon::SEED_BYTES] = {9, 8, 7};
  for (auto fmt : {falcon::SigFormat::compressed, falcon::SigFormat::padded}) {
    std::vector<uint8_t> sig(p().sig_max_bytes);
    size_t len = 0;
    ASSERT_TRUE(falcon::sign(p(), k.sk.data(), msg, text.size(), nonce, seed, fmt, sig.data(), &len));
    if (fmt == falcon::SigFormat::padded) {
      EXPECT_EQ(len, p().sig_padded_bytes);
    }
    EXPECT_LE(len, p().sig_max_bytes);
    sig.resize(len);
    EXPECT_TRUE(falcon::verify(p(), k.pk.data(), msg, text.size(), sig.data(), len, fmt));
    // The other format's verifier: compressed accepts the padded length, not vice versa.
    if (fmt == falcon::SigFormat::padded) {
      EXPECT_TRUE(falcon::verify(p(), k.pk.data(), msg, text.size(), sig.data(), len, falcon::SigFormat::compressed));
    } else if (len != p().sig_padded_bytes) {
      EXPECT_FALSE(falcon::verify(p(), k.pk.data(), msg, text.size(), sig.data(), len, falcon::SigFormat::padded));
    }
    // Every byte flipped in turn (a sample of positions) is rejected.
    for (size_t i = 0; i < len; i += 1 + len / 40) {
      auto bad = sig;
      bad[i] ^= 0x10;
      EXPECT_FALSE(falcon::verify(p(), k.pk.data(), msg, text.size(), bad.data(), len, fmt)) << "byte " << i;
    }
    // Truncated, extended with a byte, empty.
    EXPECT_FALSE(falcon::verify(p(), k.pk.data(), msg, text.size(), sig.data(), len - 1, fmt));
    auto longer = sig;
    longer.push_back(0);
    EXPECT_FALSE(falcon::verify(p(), k.pk.data(), msg, text.size(), longer.data(), longer.size(), fmt));
    EXPECT_FALSE(falcon::verify(p(), k.pk.data(), msg, text.size(), sig.data(), 0, fmt));
    EXPECT_FALSE(falcon::verify(p(), k.pk.data(), msg, text.size(), nullptr, len, fmt));
    // Tampered message and public key; another key.
    EXPECT_FALSE(falcon::verify(p(), k.pk.data(), msg, text.size() - 1, sig.data(), len, fmt));
    auto badpk = k.pk;
    badpk[10] ^= 1;
    EXPECT_FALSE(falcon::verify(p(), badpk.data(), msg, text.size(), sig.data(), len, fmt));
    badpk = k.pk;
    badpk[0] ^= 1;  // header
    EXPECT_FALSE(falcon::verify(p(), badpk.data(), msg, text.size(), sig.data(), len, fmt));
    const Keys other = make_keys(p(), 4);
    EXPECT_FALSE(falcon::verify(p(), other.pk.data(), msg, text.size(), sig.data(), len, fmt));
  }
}

TEST_P(FalconSets, PaddingMustBeZero) {
  const Keys k = make_keys(p(), 5);
  uint8_t nonce[falcon::NONCE_BYTES] = {}, seed[falcon::SEED_BYTES] = {};
  std::vector<uint8_t> sig(p().sig_padded_bytes);
  size_t len = 0;
  const uint8_t msg[1] = {42};
  ASSERT_TRUE(falcon::sign(p(), k.sk.data(), msg, 1, nonce, seed, falcon::SigFormat::padded, sig.data(), &len));
  ASSERT_EQ(sig.back(), 0);  // a padded signature of this size ends in padding (checked: not a guess)
  sig.back() = 1;
  EXPECT_FALSE(falcon::verify(p(), k.pk.data(), msg, 1, sig.data(), len, falcon::SigFormat::padded));
  EXPECT_FALSE(falcon::verify(p(), k.pk.data(), msg, 1, sig.data(), len, falcon::SigFormat::compressed));
}

TEST_P(FalconSets, MalformedPrivateKeyIsRefused) {
  const Keys k = make_keys(p(), 6);
  uint8_t nonce[falcon::NONCE_BYTES] = {}, seed[falcon::SEED_BYTES] = {};
  std::vector<uint8_t> sig(p().sig_max_bytes);
  size_t len = 0;
  const uint8_t msg[1] = {0};
  auto bad = k.sk;
  bad[0] ^= 1;  // header
  EXPECT_FALSE(falcon::sign(p(), bad.data(), msg, 1, nonce, seed, falcon::SigFormat::compressed, sig.data(), &len));
  EXPECT_FALSE(falcon::public_from_private(p(), bad.data(), sig.data()));
  bad = k.sk;
  // f_0 = -2^(bits-1), the one value the fixed-width encoding excludes.
  bad[1] = 0x80;
  EXPECT_FALSE(falcon::sign(p(), bad.data(), msg, 1, nonce, seed, falcon::SigFormat::compressed, sig.data(), &len));
}

TEST(FalconVectors, MinusZeroIsRejected) {
  // A Falcon-512 "signature" whose first coefficient is encoded as -0.
  const auto& p = falcon::falcon512();
  const Keys k = make_keys(p, 7);
  std::vector<uint8_t> sig(p.sig_padded_bytes, 0);
  sig[0] = 0x39;
  sig[41] = 0x80;  // sign 1, low bits 0 ...
  sig[42] = 0x80;  // ... then the unary terminator
  EXPECT_FALSE(falcon::verify(p, k.pk.data(), nullptr, 0, sig.data(), sig.size(), falcon::SigFormat::padded));
}

INSTANTIATE_TEST_SUITE_P(Falcon, FalconSets, testing::Values(512, 1024));

}  // namespace
