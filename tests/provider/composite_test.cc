// composite_test.cc - the 18 composite ML-DSA algorithms through EVP with the built module and
// OpenSSL's default provider: every entry of the LAMPS draft's vectors (x5c and pk load and
// verify, sk_pkcs8 loads, re-encodes byte for byte and signs what the pk verifies), the draft's
// separation properties, and bad input with its named reason.
#include "composite/composite.h"
#include "tests/composite/composite_vectors.h"
#include "tests/provider/provider_fixture.h"

#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/x509.h>

#include <cstring>
#include <memory>

namespace mldsa::test {
namespace {

using composite::Algorithm;
using composite_test::Bytes;
using composite_test::Vector;

const composite_test::VectorFile& vectors() {
  static const composite_test::VectorFile f = composite_test::read_vectors(MLDSA_COMPOSITE_VECTORS);
  return f;
}

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

class CompositeEvp : public ProviderTest, public ::testing::WithParamInterface<size_t> {
 protected:
  const Algorithm& alg() const { return composite::algorithms()[GetParam()]; }
  const Vector& vec() const {
    for (const Vector& v : vectors().tests)
      if (v.tcId == alg().sn) return v;
    throw std::runtime_error("no vector");
  }

  Pkey decode(const Bytes& der, const char* structure, int selection, const char* type = nullptr) {
    EVP_PKEY* k = nullptr;
    OSSL_DECODER_CTX* d = OSSL_DECODER_CTX_new_for_pkey(&k, "DER", structure, type, selection, libctx_, nullptr);
    const unsigned char* p = der.data();
    size_t left = der.size();
    if (d == nullptr || OSSL_DECODER_from_data(d, &p, &left) != 1) k = nullptr;
    OSSL_DECODER_CTX_free(d);
    return Pkey(k);
  }

  Bytes encode(EVP_PKEY* k, int selection, const char* structure) {
    OSSL_ENCODER_CTX* e = OSSL_ENCODER_CTX_new_for_pkey(k, selection, "DER", structure, nullptr);
    unsigned char* der = nullptr;
    size_t len = 0;
    Bytes out;
    if (e != nullptr && OSSL_ENCODER_to_data(e, &der, &len) == 1) out.assign(der, der + len);
    OPENSSL_free(der);
    OSSL_ENCODER_CTX_free(e);
    return out;
  }

  // EVP_DigestVerify with an optional context string.
  bool verify(EVP_PKEY* k, const Bytes& msg, const Bytes& ctx, const Bytes& sig) {
    EVP_MD_CTX* m = EVP_MD_CTX_new();
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string("context-string", const_cast<uint8_t*>(ctx.data()),
                                          ctx.size()),
        OSSL_PARAM_construct_end()};
    const bool ok = EVP_DigestVerifyInit_ex(m, nullptr, nullptr, libctx_, nullptr, k, params) == 1 &&
                    EVP_DigestVerify(m, sig.data(), sig.size(), msg.data(), msg.size()) == 1;
    EVP_MD_CTX_free(m);
    return ok;
  }

  // EVP_DigestSign in two updates (the streaming path).
  Bytes sign(EVP_PKEY* k, const Bytes& msg, const Bytes& ctx) {
    EVP_MD_CTX* m = EVP_MD_CTX_new();
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string("context-string", const_cast<uint8_t*>(ctx.data()),
                                          ctx.size()),
        OSSL_PARAM_construct_end()};
    size_t len = 0;
    Bytes sig;
    const size_t half = msg.size() / 2;
    if (EVP_DigestSignInit_ex(m, nullptr, nullptr, libctx_, nullptr, k, params) == 1 &&
        EVP_DigestSignUpdate(m, msg.data(), half) == 1 &&
        EVP_DigestSignUpdate(m, msg.data() + half, msg.size() - half) == 1 &&
        EVP_DigestSignFinal(m, nullptr, &len) == 1) {
      sig.resize(len);
      if (EVP_DigestSignFinal(m, sig.data(), &len) == 1) sig.resize(len); else sig.clear();
    }
    EVP_MD_CTX_free(m);
    return sig;
  }
};

TEST_P(CompositeEvp, CertificateLoadsAndVerifiesItself) {
  const unsigned char* p = vec().x5c.data();
  X509* cert = X509_new_ex(libctx_, nullptr);
  ASSERT_NE(d2i_X509(&cert, &p, static_cast<long>(vec().x5c.size())), nullptr) << alg().sn;
  EVP_PKEY* pub = X509_get0_pubkey(cert);
  ASSERT_NE(pub, nullptr);
  EXPECT_TRUE(EVP_PKEY_is_a(pub, alg().name));
  EXPECT_EQ(X509_verify(cert, pub), 1);
  uint8_t pk[8192];
  size_t pk_len = 0;
  ASSERT_EQ(EVP_PKEY_get_octet_string_param(pub, OSSL_PKEY_PARAM_PUB_KEY, pk, sizeof pk, &pk_len), 1);
  EXPECT_EQ(Bytes(pk, pk + pk_len), vec().pk);
  // The vectors' signatures, under the certificate's key.
  EXPECT_TRUE(verify(pub, vectors().m, {}, vec().s));
  EXPECT_TRUE(verify(pub, vectors().m, vectors().ctx, vec().sWithContext));
  EXPECT_FALSE(verify(pub, vectors().m, vectors().ctx, vec().s));
  Bytes bad = vec().s;
  bad[bad.size() / 3] ^= 4;
  EXPECT_FALSE(verify(pub, vectors().m, {}, bad));
  EXPECT_TRUE(raised("signature verification failed"));
  EXPECT_FALSE(verify(pub, vectors().m, {}, Bytes(vec().s.begin(), vec().s.begin() + 100)));
  EXPECT_TRUE(raised("wrong length for a composite signature"));
  X509_free(cert);
}

TEST_P(CompositeEvp, PrivateKeyInfoLoadsReencodesAndSigns) {
  Pkey priv = decode(vec().sk_pkcs8, "PrivateKeyInfo", EVP_PKEY_KEYPAIR);
  ASSERT_NE(priv, nullptr) << alg().sn;
  EXPECT_TRUE(EVP_PKEY_is_a(priv.get(), alg().sn));
  EXPECT_EQ(encode(priv.get(), EVP_PKEY_KEYPAIR, "PrivateKeyInfo"), vec().sk_pkcs8);
  const Bytes spki = encode(priv.get(), EVP_PKEY_PUBLIC_KEY, "SubjectPublicKeyInfo");
  Pkey pub = decode(spki, "SubjectPublicKeyInfo", EVP_PKEY_PUBLIC_KEY);
  ASSERT_NE(pub, nullptr);
  for (const Bytes& ctx : {Bytes{}, vectors().ctx}) {
    const Bytes sig = sign(priv.get(), vectors().m, ctx);
    ASSERT_FALSE(sig.empty());
    EXPECT_TRUE(verify(pub.get(), vectors().m, ctx, sig));
  }
  // Raw import of the draft's encodings gives the same key.
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(libctx_, alg().name, nullptr);
  EVP_PKEY* raw = nullptr;
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, const_cast<uint8_t*>(vec().sk.data()), vec().sk.size()),
      OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, const_cast<uint8_t*>(vec().pk.data()), vec().pk.size()),
      OSSL_PARAM_construct_end()};
  ASSERT_EQ(EVP_PKEY_fromdata_init(c), 1);
  ASSERT_EQ(EVP_PKEY_fromdata(c, &raw, EVP_PKEY_KEYPAIR, params), 1);
  EXPECT_EQ(EVP_PKEY_eq(raw, priv.get()), 1);
  EVP_PKEY_free(raw);
  EVP_PKEY_CTX_free(c);
}

// The ML-DSA half of a composite signature is not an ML-DSA signature of the message (nor of M'
// with an empty context), and an ML-DSA signature of M' by the same key is no composite half.
TEST_P(CompositeEvp, MldsaHalfIsNotAnMldsaSignature) {
  Pkey priv = decode(vec().sk_pkcs8, "PrivateKeyInfo", EVP_PKEY_KEYPAIR);
  ASSERT_NE(priv, nullptr);
  const char* mldsa_name = params(alg().mldsa).name;
  const size_t n = params(alg().mldsa).sig_bytes;
  // The ML-DSA key of the composite's seed.
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(libctx_, mldsa_name, nullptr);
  EVP_PKEY* ml = nullptr;
  OSSL_PARAM seed[] = {OSSL_PARAM_construct_octet_string("seed", const_cast<uint8_t*>(vec().sk.data()), 32),
                       OSSL_PARAM_construct_end()};
  ASSERT_EQ(EVP_PKEY_fromdata_init(c), 1);
  ASSERT_EQ(EVP_PKEY_fromdata(c, &ml, EVP_PKEY_KEYPAIR, seed), 1);
  EVP_PKEY_CTX_free(c);
  const Bytes half(vec().s.begin(), vec().s.begin() + n);
  EXPECT_FALSE(verify(ml, vectors().m, {}, half));
  // M' with an empty application context, as the composite signed it.
  uint8_t ph[64];
  unsigned int ph_len = 0;
  EVP_MD* md = EVP_MD_fetch(libctx_, composite::prehash_name(alg().ph), nullptr);
  EVP_MD_CTX* mc = EVP_MD_CTX_new();
  ASSERT_EQ(EVP_DigestInit_ex2(mc, md, nullptr), 1);
  ASSERT_EQ(EVP_DigestUpdate(mc, vectors().m.data(), vectors().m.size()), 1);
  if (alg().ph == composite::PreHash::shake256_64) {
    ASSERT_EQ(EVP_DigestFinalXOF(mc, ph, 64), 1);
    ph_len = 64;
  } else {
    ASSERT_EQ(EVP_DigestFinal_ex(mc, ph, &ph_len), 1);
  }
  EVP_MD_CTX_free(mc);
  EVP_MD_free(md);
  Bytes mprime;
  ASSERT_EQ(composite::message_representative(alg(), {}, {ph, ph_len}, mprime), composite::Error::ok);
  EXPECT_FALSE(verify(ml, mprime, {}, half));
  const Bytes label(alg().label, alg().label + std::strlen(alg().label));
  EXPECT_TRUE(verify(ml, mprime, label, half)) << "ML-DSA.Sign(sk, M', ctx = Label)";
  // The other way round: ML-DSA of M' (empty context) spliced with the traditional half.
  Bytes spliced = sign(ml, mprime, {});
  ASSERT_EQ(spliced.size(), n);
  spliced.insert(spliced.end(), vec().s.begin() + n, vec().s.end());
  EXPECT_FALSE(verify(priv.get(), vectors().m, {}, spliced));
  EVP_PKEY_free(ml);
}

// Keys of one composite under another's OID: the decoder of that OID refuses what cannot be its
// key (another traditional type, RSA size, curve, ML-DSA level), with a named reason.
TEST_P(CompositeEvp, OtherOidsRefuseTheKey) {
  for (const Algorithm& other : composite::algorithms()) {
    if (&other == &alg() || other.mldsa == alg().mldsa) continue;  // same-level pairs: covered by the core test
    EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(libctx_, other.name, nullptr);
    EVP_PKEY* k = nullptr;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, const_cast<uint8_t*>(vec().pk.data()), vec().pk.size()),
        OSSL_PARAM_construct_end()};
    ASSERT_EQ(EVP_PKEY_fromdata_init(c), 1);
    EXPECT_NE(EVP_PKEY_fromdata(c, &k, EVP_PKEY_PUBLIC_KEY, params), 1) << other.sn;
    EXPECT_TRUE(raised("malformed composite key")) << other.sn;
    EVP_PKEY_free(k);
    EVP_PKEY_CTX_free(c);
  }
}

INSTANTIATE_TEST_SUITE_P(All, CompositeEvp, ::testing::Range<size_t>(0, composite::ALGORITHM_COUNT),
                         [](const ::testing::TestParamInfo<size_t>& i) {
                           std::string n = composite::algorithms()[i.param].name;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

// Bad input, each with its reason: a traditional key of the wrong size or curve, a wrong-length
// raw key, a truncated PrivateKeyInfo, a digest named for a composite.
class CompositeBadInput : public ProviderTest {};

TEST_F(CompositeBadInput, TraditionalParametersAreChecked) {
  const Vector* rsa3072 = nullptr;
  const Vector* p256 = nullptr;
  for (const Vector& v : vectors().tests) {
    if (v.tcId == "id-MLDSA65-RSA3072-PSS-SHA512") rsa3072 = &v;
    if (v.tcId == "id-MLDSA65-ECDSA-P256-SHA512") p256 = &v;
  }
  ASSERT_TRUE(rsa3072 != nullptr && p256 != nullptr);
  const std::pair<const char*, const Vector*> cases[] = {
      {"MLDSA65-RSA4096-PSS-SHA512", rsa3072},       // a 3072-bit key where 4096 bits belong
      {"MLDSA65-ECDSA-P384-SHA512", p256},           // P-256 where P-384 belongs (length differs)
      {"MLDSA65-ECDSA-brainpoolP256r1-SHA512", p256}, // a P-256 point is not on brainpoolP256r1
  };
  for (const auto& [name, v] : cases) {
    EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(libctx_, name, nullptr);
    EVP_PKEY* k = nullptr;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, const_cast<uint8_t*>(v->sk.data()), v->sk.size()),
        OSSL_PARAM_construct_end()};
    ASSERT_EQ(EVP_PKEY_fromdata_init(c), 1);
    EXPECT_NE(EVP_PKEY_fromdata(c, &k, EVP_PKEY_KEYPAIR, params), 1) << name;
    const std::string reason = last_reason();
    EXPECT_TRUE(reason == "composite's traditional key of the wrong type, RSA size or curve" ||
                reason == "malformed composite key")
        << name << ": " << reason;
    ERR_clear_error();
    EVP_PKEY_free(k);
    EVP_PKEY_CTX_free(c);
  }
  // RSA: the size check itself.
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(libctx_, "MLDSA65-RSA4096-PKCS15-SHA512", nullptr);
  EVP_PKEY* k = nullptr;
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, const_cast<uint8_t*>(rsa3072->pk.data()), rsa3072->pk.size()),
      OSSL_PARAM_construct_end()};
  ASSERT_EQ(EVP_PKEY_fromdata_init(c), 1);
  EXPECT_NE(EVP_PKEY_fromdata(c, &k, EVP_PKEY_PUBLIC_KEY, params), 1);
  EXPECT_TRUE(raised("composite's traditional key of the wrong type, RSA size or curve"));
  EVP_PKEY_CTX_free(c);
}

TEST_F(CompositeBadInput, MalformedDerAndDigestNames) {
  const Vector& v = vectors().tests.front();
  // A PrivateKeyInfo cut short is nobody's key; one whose composite key is cut short is ours, and bad.
  Bytes cut(v.sk_pkcs8.begin(), v.sk_pkcs8.end() - 1);
  EVP_PKEY* k = nullptr;
  OSSL_DECODER_CTX* d = OSSL_DECODER_CTX_new_for_pkey(&k, "DER", "PrivateKeyInfo", nullptr, EVP_PKEY_KEYPAIR, libctx_, nullptr);
  const unsigned char* p = cut.data();
  size_t left = cut.size();
  EXPECT_NE(OSSL_DECODER_from_data(d, &p, &left), 1);
  OSSL_DECODER_CTX_free(d);
  ERR_clear_error();
  // The digest: only the composite's own PH may be named (CMS does), another is refused.
  Pkey priv([&] {
    EVP_PKEY* out = nullptr;
    OSSL_DECODER_CTX* dd = OSSL_DECODER_CTX_new_for_pkey(&out, "DER", "PrivateKeyInfo", nullptr, EVP_PKEY_KEYPAIR, libctx_, nullptr);
    const unsigned char* q = v.sk_pkcs8.data();
    size_t l = v.sk_pkcs8.size();
    if (OSSL_DECODER_from_data(dd, &q, &l) != 1) out = nullptr;
    OSSL_DECODER_CTX_free(dd);
    return out;
  }());
  ASSERT_NE(priv, nullptr);
  EVP_MD_CTX* m = EVP_MD_CTX_new();
  EXPECT_NE(EVP_DigestSignInit_ex(m, nullptr, "SHA384", libctx_, nullptr, priv.get(), nullptr), 1);
  EXPECT_TRUE(raised("unsupported digest for ML-DSA"));
  EXPECT_EQ(EVP_DigestSignInit_ex(m, nullptr, "SHA256", libctx_, nullptr, priv.get(), nullptr), 1) << v.tcId;
  const Bytes long_ctx(256, 'x');
  OSSL_PARAM params[] = {OSSL_PARAM_construct_octet_string("context-string",
                                                           const_cast<uint8_t*>(long_ctx.data()), long_ctx.size()),
                         OSSL_PARAM_construct_end()};
  EXPECT_NE(EVP_DigestSignInit_ex(m, nullptr, nullptr, libctx_, nullptr, priv.get(), params), 1);
  EXPECT_TRUE(raised("context string longer than 255 bytes"));
  EVP_MD_CTX_free(m);
}

// Key generation through EVP: one of each traditional kind (RSA keygen is slow; the core test
// generates every algorithm).
TEST_F(CompositeBadInput, GenerateSignVerifyEachKind) {
  for (const char* name : {"MLDSA44-RSA2048-PSS-SHA256", "MLDSA44-ECDSA-P256-SHA256", "MLDSA65-Ed25519-SHA512",
                           "MLDSA87-Ed448-SHAKE256", "MLDSA87-ECDSA-brainpoolP384r1-SHA512"}) {
    EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(libctx_, name, nullptr);
    EVP_PKEY* k = nullptr;
    ASSERT_TRUE(c != nullptr && EVP_PKEY_keygen_init(c) == 1 && EVP_PKEY_generate(c, &k) == 1) << name;
    EVP_PKEY_CTX_free(c);
    EVP_PKEY_CTX* check = EVP_PKEY_CTX_new_from_pkey(libctx_, k, nullptr);
    EXPECT_EQ(EVP_PKEY_pairwise_check(check), 1) << name;
    EVP_PKEY_CTX_free(check);
    // EVP_PKEY_sign: the input is the message.
    EVP_PKEY_CTX* s = EVP_PKEY_CTX_new_from_pkey(libctx_, k, nullptr);
    const uint8_t msg[] = "composite via EVP_PKEY_sign";
    size_t len = 0;
    ASSERT_EQ(EVP_PKEY_sign_init(s), 1);
    ASSERT_EQ(EVP_PKEY_sign(s, nullptr, &len, msg, sizeof msg), 1);
    Bytes sig(len);
    ASSERT_EQ(EVP_PKEY_sign(s, sig.data(), &len, msg, sizeof msg), 1) << name;
    sig.resize(len);
    ASSERT_EQ(EVP_PKEY_verify_init(s), 1);
    EXPECT_EQ(EVP_PKEY_verify(s, sig.data(), sig.size(), msg, sizeof msg), 1) << name;
    EVP_PKEY_CTX_free(s);
    EVP_PKEY_free(k);
  }
}

}  // namespace
}  // namespace mldsa::test
