// composite_core_test.cc - composite ML-DSA (composite/) against every entry of the LAMPS draft's
// test vectors: keys load and re-encode byte for byte, s and sWithContext verify (and fail when
// changed), sign + verify round trips, and the draft's separation properties.
#include "composite/composite.h"
#include "composite/traditional.h"
#include "tests/composite/composite_vectors.h"

#include <gtest/gtest.h>

#include <cstring>

namespace mldsa::composite {
namespace {

using composite_test::Bytes;
using composite_test::Vector;

const composite_test::VectorFile& vectors() {
  static const composite_test::VectorFile f = composite_test::read_vectors(MLDSA_COMPOSITE_VECTORS);
  return f;
}

const Vector* vector_for(const Algorithm& a) {
  for (const Vector& v : vectors().tests)
    if (v.tcId == a.sn) return &v;
  return nullptr;
}

std::span<const uint8_t> span(const Bytes& b) { return b; }

class CompositeVectors : public ::testing::TestWithParam<size_t> {
 protected:
  const Algorithm& alg() const { return algorithms()[GetParam()]; }
  const Vector& vec() const {
    const Vector* v = vector_for(alg());
    if (v == nullptr) throw std::runtime_error(std::string("no vector for ") + alg().sn);
    return *v;
  }
};

TEST(CompositeTable, EveryAlgorithmHasOneVectorAndDistinctOids) {
  EXPECT_EQ(vectors().tests.size(), ALGORITHM_COUNT);
  for (size_t i = 0; i < ALGORITHM_COUNT; ++i) {
    const Algorithm& a = algorithms()[i];
    EXPECT_NE(vector_for(a), nullptr) << a.sn;
    EXPECT_EQ(std::string(a.oid), "1.3.6.1.5.5.7.6." + std::to_string(37 + i));
    EXPECT_EQ(algorithm_by_name(a.name), &a);
    EXPECT_EQ(algorithm_by_name(a.sn), &a);
    EXPECT_EQ(algorithm_by_name(a.oid), &a);
  }
  EXPECT_EQ(algorithm_by_name("MLDSA65-ECDSA-P256"), nullptr);
}

TEST_P(CompositeVectors, PublicKeyLoadsAndSignaturesVerify) {
  std::unique_ptr<Key> k;
  ASSERT_EQ(Key::from_public(nullptr, alg(), vec().pk, k), Error::ok) << alg().sn;
  EXPECT_EQ(k->public_encoding(), vec().pk);
  const auto ops = core_ops();
  EXPECT_EQ(verify_message(nullptr, *k, ops, vectors().m, {}, vec().s), Error::ok);
  EXPECT_EQ(verify_message(nullptr, *k, ops, vectors().m, vectors().ctx, vec().sWithContext), Error::ok);
  // The other context, another message, each half changed by one byte.
  EXPECT_EQ(verify_message(nullptr, *k, ops, vectors().m, vectors().ctx, vec().s), Error::verify_failed);
  EXPECT_EQ(verify_message(nullptr, *k, ops, vectors().m, {}, vec().sWithContext), Error::verify_failed);
  Bytes other = vectors().m;
  other[0] ^= 1;
  EXPECT_EQ(verify_message(nullptr, *k, ops, other, {}, vec().s), Error::verify_failed);
  const size_t mldsa_bytes = mldsa::params(alg().mldsa).sig_bytes;
  for (size_t at : {size_t{0}, mldsa_bytes - 1, mldsa_bytes + 8, vec().s.size() - 1}) {
    Bytes bad = vec().s;
    bad[at] ^= 0x10;
    EXPECT_NE(verify_message(nullptr, *k, ops, vectors().m, {}, bad), Error::ok) << "byte " << at;
  }
  // Cut short: no traditional signature, or the ML-DSA one alone.
  EXPECT_EQ(verify_message(nullptr, *k, ops, vectors().m, {}, span(vec().s).first(mldsa_bytes)),
            Error::bad_signature_length);
  EXPECT_EQ(verify_message(nullptr, *k, ops, vectors().m, {}, span(vec().s).first(100)), Error::bad_signature_length);
}

TEST_P(CompositeVectors, PrivateKeyLoadsReencodesAndSigns) {
  std::unique_ptr<Key> k;
  ASSERT_EQ(Key::from_private(nullptr, alg(), vec().sk, vec().pk, k), Error::ok) << alg().sn;
  EXPECT_EQ(k->public_encoding(), vec().pk);
  Bytes sk;
  ASSERT_EQ(k->private_encoding(sk), Error::ok);
  EXPECT_EQ(sk, vec().sk) << "the draft's encoding, byte for byte";
  std::unique_ptr<Key> pub;
  ASSERT_EQ(Key::from_public(nullptr, alg(), vec().pk, pub), Error::ok);
  const auto ops = core_ops();
  Bytes sig(k->max_signature_bytes());
  size_t len = 0;
  for (const Bytes& ctx : {Bytes{}, vectors().ctx}) {
    ASSERT_EQ(sign_message(nullptr, *k, ops, vectors().m, ctx, nullptr, sig.data(), &len), Error::ok);
    EXPECT_EQ(verify_message(nullptr, *pub, ops, vectors().m, ctx, span(sig).first(len)), Error::ok);
  }
  // A public key that is not the private key's is refused.
  Bytes wrong = vec().pk;
  wrong[5] ^= 1;
  EXPECT_EQ(Key::from_private(nullptr, alg(), vec().sk, wrong, k), Error::pub_priv_mismatch);
}

// The ML-DSA half is ML-DSA.Sign(sk, M', ctx = Label): it verifies there, and not as plain
// ML-DSA of M' (empty context) nor of the message itself; the traditional half alone is no
// composite signature.
TEST_P(CompositeVectors, HalvesDoNotStandAlone) {
  std::unique_ptr<Key> k;
  ASSERT_EQ(Key::from_public(nullptr, alg(), vec().pk, k), Error::ok);
  const size_t mldsa_bytes = mldsa::params(alg().mldsa).sig_bytes;
  const auto mldsa_sig = span(vec().s).first(mldsa_bytes);
  uint8_t ph[MAX_PREHASH_BYTES];
  {
    EVP_MD* md = EVP_MD_fetch(nullptr, prehash_name(alg().ph), nullptr);
    EVP_MD_CTX* c = EVP_MD_CTX_new();
    ASSERT_EQ(EVP_DigestInit_ex2(c, md, nullptr), 1);
    ASSERT_EQ(EVP_DigestUpdate(c, vectors().m.data(), vectors().m.size()), 1);
    if (alg().ph == PreHash::shake256_64)
      ASSERT_EQ(EVP_DigestFinalXOF(c, ph, 64), 1);
    else
      ASSERT_EQ(EVP_DigestFinal_ex(c, ph, nullptr), 1);
    EVP_MD_CTX_free(c);
    EVP_MD_free(md);
  }
  Bytes mprime;
  ASSERT_EQ(message_representative(alg(), {}, {ph, prehash_bytes(alg().ph)}, mprime), Error::ok);
  const std::span<const uint8_t> label(reinterpret_cast<const uint8_t*>(alg().label), std::strlen(alg().label));
  EXPECT_EQ(mldsa::verify(k->mldsa_public(), mprime, label, mldsa_sig), mldsa::Status::ok);
  EXPECT_NE(mldsa::verify(k->mldsa_public(), mprime, {}, mldsa_sig), mldsa::Status::ok);
  EXPECT_NE(mldsa::verify(k->mldsa_public(), vectors().m, {}, mldsa_sig), mldsa::Status::ok);
  // The traditional half verifies over M' (which starts with the prefix), not over M.
  EXPECT_EQ(trad_verify(nullptr, alg(), k->traditional(), mprime, span(vec().s).subspan(mldsa_bytes)), Error::ok);
  EXPECT_NE(trad_verify(nullptr, alg(), k->traditional(), vectors().m, span(vec().s).subspan(mldsa_bytes)),
            Error::ok);
}

// The bytes of a key are refused by every other composite whose halves they cannot be: another
// traditional type, RSA size or curve, or (public keys) another ML-DSA level. Where the bytes fit
// (RSA-PSS against PKCS#1 v1.5 of one size; the seed fits every level), the OID keeps the keys
// apart (the provider's tests), and the label keeps the signatures apart: checked here.
bool same_trad_key(const Algorithm& a, const Algorithm& b) {
  const auto kind = [](const Algorithm& x) { return x.trad == Trad::rsa_pkcs15 ? Trad::rsa_pss : x.trad; };
  return kind(a) == kind(b) && a.rsa_bits == b.rsa_bits &&
         (a.curve == nullptr ? b.curve == nullptr : b.curve != nullptr && std::strcmp(a.curve, b.curve) == 0);
}

TEST_P(CompositeVectors, OtherCompositesRefuseTheKeyAndSignature) {
  for (const Algorithm& other : algorithms()) {
    if (&other == &alg()) continue;
    std::unique_ptr<Key> k;
    const bool trad_fits = same_trad_key(alg(), other);
    EXPECT_EQ(Key::from_public(nullptr, other, vec().pk, k) == Error::ok, trad_fits && other.mldsa == alg().mldsa)
        << other.sn;
    EXPECT_EQ(Key::from_private(nullptr, other, vec().sk, {}, k) == Error::ok, trad_fits) << other.sn;
    if (k != nullptr && other.mldsa == alg().mldsa) {
      // The bytes load as the other composite: its label makes this entry's signature fail.
      EXPECT_EQ(verify_message(nullptr, *k, core_ops(), vectors().m, {}, vec().s), Error::verify_failed) << other.sn;
    }
  }
  // Halves swapped: this entry's ML-DSA half with another same-level entry's traditional half.
  for (const Vector& o : vectors().tests) {
    const Algorithm* oa = algorithm_by_name(o.tcId);
    ASSERT_NE(oa, nullptr);
    if (oa == &alg() || oa->mldsa != alg().mldsa) continue;
    std::unique_ptr<Key> k;
    ASSERT_EQ(Key::from_public(nullptr, alg(), vec().pk, k), Error::ok);
    const size_t n = mldsa::params(alg().mldsa).sig_bytes;
    Bytes mixed(vec().s.begin(), vec().s.begin() + n);
    mixed.insert(mixed.end(), o.s.begin() + n, o.s.end());
    EXPECT_NE(verify_message(nullptr, *k, core_ops(), vectors().m, {}, mixed), Error::ok) << o.tcId;
  }
}

TEST_P(CompositeVectors, BadEncodingsAreNamed) {
  std::unique_ptr<Key> k;
  const size_t pk_bytes = mldsa::params(alg().mldsa).pk_bytes;
  EXPECT_EQ(Key::from_public(nullptr, alg(), span(vec().pk).first(pk_bytes), k), Error::bad_public_key);
  EXPECT_EQ(Key::from_public(nullptr, alg(), span(vec().pk).first(vec().pk.size() - 1), k), Error::bad_public_key);
  Bytes longer = vec().pk;
  longer.push_back(0);
  EXPECT_EQ(Key::from_public(nullptr, alg(), longer, k), Error::bad_public_key);
  EXPECT_EQ(Key::from_private(nullptr, alg(), span(vec().sk).first(32), {}, k), Error::bad_private_key);
  EXPECT_EQ(Key::from_private(nullptr, alg(), span(vec().sk).first(vec().sk.size() - 1), {}, k),
            Error::bad_private_key);
}

TEST_P(CompositeVectors, GeneratedKeysSignAndVerify) {
  std::unique_ptr<Key> k;
  const uint8_t seed[32] = {7};
  ASSERT_EQ(Key::generate(nullptr, alg(), seed, k), Error::ok);
  Bytes sk;
  ASSERT_EQ(k->private_encoding(sk), Error::ok);
  EXPECT_EQ(0, std::memcmp(sk.data(), seed, 32)) << "the ML-DSA half is kept as its seed";
  std::unique_ptr<Key> back, pub;
  ASSERT_EQ(Key::from_private(nullptr, alg(), sk, k->public_encoding(), back), Error::ok);
  ASSERT_EQ(Key::from_public(nullptr, alg(), k->public_encoding(), pub), Error::ok);
  EXPECT_TRUE(*back == *k);
  Bytes sig(back->max_signature_bytes());
  size_t len = 0;
  const uint8_t zeros[32] = {};
  ASSERT_EQ(sign_message(nullptr, *back, core_ops(), vectors().m, {}, zeros, sig.data(), &len), Error::ok);
  EXPECT_EQ(verify_message(nullptr, *pub, core_ops(), vectors().m, {}, span(sig).first(len)), Error::ok);
  const Bytes too_long(256, 'c');
  EXPECT_EQ(sign_message(nullptr, *back, core_ops(), vectors().m, too_long, zeros, sig.data(), &len),
            Error::context_too_long);
  EXPECT_EQ(sign_message(nullptr, *pub, core_ops(), vectors().m, {}, zeros, sig.data(), &len), Error::missing_key);
}

INSTANTIATE_TEST_SUITE_P(All, CompositeVectors, ::testing::Range<size_t>(0, ALGORITHM_COUNT),
                         [](const ::testing::TestParamInfo<size_t>& i) {
                           std::string n = algorithms()[i.param].name;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace mldsa::composite
