// dilithium_test.cc - round-3 Dilithium through EVP (names, keys, encodings,
// signatures, the TLS code points) and the "hash-ml-dsa" parameter's rules
// (explicit, refused where it does not apply, its AlgorithmIdentifier).
// The known answers of both run per backend in kat_test.cc.
#include "tests/provider/provider_fixture.h"

#include <openssl/decoder.h>
#include <openssl/encoder.h>

#include <cstdlib>

namespace mldsa::test {
namespace {

constexpr ParamSet kRound3[] = {ParamSet::DILITHIUM2, ParamSet::DILITHIUM3, ParamSet::DILITHIUM5};

std::vector<uint8_t> tlv(uint8_t tag, std::span<const uint8_t> body) {
  std::vector<uint8_t> out = {tag};
  if (body.size() < 0x80) {
    out.push_back(static_cast<uint8_t>(body.size()));
  } else if (body.size() < 0x100) {
    out.insert(out.end(), {0x81, static_cast<uint8_t>(body.size())});
  } else {
    out.insert(out.end(), {0x82, static_cast<uint8_t>(body.size() >> 8), static_cast<uint8_t>(body.size())});
  }
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

std::vector<uint8_t> cat(std::initializer_list<std::span<const uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (auto p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// DER of the round-3 OIDs 1.3.6.1.4.1.2.267.7.{4.4, 6.5, 8.7} (IBM's arc, as
// oqs-provider registered them).
std::vector<uint8_t> oid_der(ParamSet set) {
  const uint8_t tail[3][2] = {{4, 4}, {6, 5}, {8, 7}};
  const int i = static_cast<int>(set) - static_cast<int>(ParamSet::DILITHIUM2);
  const std::vector<uint8_t> body = {0x2b, 0x06, 0x01, 0x04, 0x01, 0x02, 0x82, 0x0b, 0x07, tail[i][0], tail[i][1]};
  return tlv(0x06, body);
}

const char* oid_text(ParamSet set) {
  const char* oids[] = {"1.3.6.1.4.1.2.267.7.4.4", "1.3.6.1.4.1.2.267.7.6.5", "1.3.6.1.4.1.2.267.7.8.7"};
  return oids[static_cast<int>(set) - static_cast<int>(ParamSet::DILITHIUM2)];
}

std::vector<uint8_t> spki(ParamSet set, std::span<const uint8_t> pk) {
  const uint8_t zero[1] = {0};
  return tlv(0x30, cat({tlv(0x30, oid_der(set)), tlv(0x03, cat({zero, pk}))}));
}

std::vector<uint8_t> pkcs8(ParamSet set, std::span<const uint8_t> payload) {
  const uint8_t v0[1] = {0};
  return tlv(0x30, cat({tlv(0x02, v0), tlv(0x30, oid_der(set)), tlv(0x04, payload)}));
}

class Round3 : public ProviderTest {
 protected:
  std::vector<uint8_t> encode(EVP_PKEY* pkey, int selection, const char* structure) {
    OSSL_ENCODER_CTX* e = OSSL_ENCODER_CTX_new_for_pkey(pkey, selection, "DER", structure, nullptr);
    unsigned char* data = nullptr;
    size_t len = 0;
    std::vector<uint8_t> out;
    if (e != nullptr && OSSL_ENCODER_CTX_get_num_encoders(e) > 0 && OSSL_ENCODER_to_data(e, &data, &len) == 1)
      out.assign(data, data + len);
    OPENSSL_clear_free(data, len);
    OSSL_ENCODER_CTX_free(e);
    return out;
  }

  // Decodes DER as keytype (nullptr: any), structure as given.
  EVP_PKEY* decode(std::span<const uint8_t> der, const char* keytype, const char* structure, int selection) {
    EVP_PKEY* pkey = nullptr;
    OSSL_DECODER_CTX* d =
        OSSL_DECODER_CTX_new_for_pkey(&pkey, "DER", structure, keytype, selection, libctx_, nullptr);
    const unsigned char* p = der.data();
    size_t len = der.size();
    if (d != nullptr) OSSL_DECODER_from_data(d, &p, &len);
    OSSL_DECODER_CTX_free(d);
    return pkey;
  }

  std::vector<uint8_t> sign(EVP_PKEY* pkey, std::span<const uint8_t> msg, const OSSL_PARAM* p = nullptr) {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    size_t len = 0;
    std::vector<uint8_t> sig;
    if (EVP_DigestSignInit_ex(md, nullptr, nullptr, libctx_, nullptr, pkey, p) == 1 &&
        EVP_DigestSign(md, nullptr, &len, msg.data(), msg.size()) == 1) {
      sig.resize(len);
      if (EVP_DigestSign(md, sig.data(), &len, msg.data(), msg.size()) != 1) sig.clear();
    }
    EVP_MD_CTX_free(md);
    return sig;
  }

  int verify(EVP_PKEY* pkey, std::span<const uint8_t> msg, std::span<const uint8_t> sig, const OSSL_PARAM* p = nullptr) {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    int r = EVP_DigestVerifyInit_ex(md, nullptr, nullptr, libctx_, nullptr, pkey, p);
    if (r == 1) r = EVP_DigestVerify(md, sig.data(), sig.size(), msg.data(), msg.size());
    EVP_MD_CTX_free(md);
    return r;
  }

  // Sets params on a fresh DigestSign context: what set_params says.
  int sign_init_with(EVP_PKEY* pkey, const OSSL_PARAM* p) {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    int r = EVP_DigestSignInit_ex(md, nullptr, nullptr, libctx_, nullptr, pkey, nullptr);
    if (r == 1) r = EVP_PKEY_CTX_set_params(EVP_MD_CTX_get_pkey_ctx(md), p);
    EVP_MD_CTX_free(md);
    return r;
  }

  const std::vector<uint8_t> msg_ = {'r', 'o', 'u', 'n', 'd', ' ', '3'};
};

TEST_F(Round3, NamesAndSizes) {
  for (ParamSet set : kRound3) {
    const Params& p = params(set);
    SCOPED_TRACE(p.name);
    const std::string n = std::string("dilithium") + p.name[9];
    for (const std::string& alias : {n, std::string(p.name), std::string("CRYSTALS-Dilithium") + p.name[9],
                                     std::string(oid_text(set))}) {
      EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(libctx_, alias.c_str(), nullptr);
      EXPECT_NE(c, nullptr) << alias;
      EVP_PKEY_CTX_free(c);
    }
    EVP_PKEY* pkey = random_keygen(set);
    ASSERT_NE(pkey, nullptr) << last_reason();
    EXPECT_TRUE(EVP_PKEY_is_a(pkey, n.c_str()));
    EXPECT_FALSE(EVP_PKEY_is_a(pkey, params(static_cast<ParamSet>(static_cast<int>(set) - 3)).name));
    EXPECT_EQ(EVP_PKEY_get_size(pkey), static_cast<int>(p.sig_bytes));
    EXPECT_EQ(octets(pkey, "pub").size(), p.pk_bytes);
    EXPECT_EQ(octets(pkey, "priv").size(), p.sk_bytes);
    EVP_PKEY_free(pkey);
  }
}

TEST_F(Round3, SubjectPublicKeyInfoIsTheRawKey) {
  for (ParamSet set : kRound3) {
    SCOPED_TRACE(params(set).name);
    EVP_PKEY* pkey = keygen(set, seed_of(3));
    const auto pk = octets(pkey, "pub");
    const auto der = encode(pkey, EVP_PKEY_PUBLIC_KEY, "SubjectPublicKeyInfo");
    EXPECT_EQ(der, spki(set, pk));
    // Loads as this Dilithium key type, with no type named ...
    EVP_PKEY* back = decode(der, nullptr, "SubjectPublicKeyInfo", EVP_PKEY_PUBLIC_KEY);
    ASSERT_NE(back, nullptr);
    EXPECT_TRUE(EVP_PKEY_is_a(back, params(set).name));
    EXPECT_EQ(octets(back, "pub"), pk);
    EVP_PKEY_free(back);
    // ... and never as the ML-DSA set of the same size, nor the other way round.
    const ParamSet twin = static_cast<ParamSet>(static_cast<int>(set) - 3);
    ERR_clear_error();
    EXPECT_EQ(decode(der, params(twin).name, "SubjectPublicKeyInfo", EVP_PKEY_PUBLIC_KEY), nullptr);
    EVP_PKEY* ml = fromdata(twin, {}, {}, pk, EVP_PKEY_PUBLIC_KEY);  // the same bytes as an ML-DSA key
    ASSERT_NE(ml, nullptr);
    const auto ml_der = encode(ml, EVP_PKEY_PUBLIC_KEY, "SubjectPublicKeyInfo");
    EXPECT_EQ(decode(ml_der, params(set).name, "SubjectPublicKeyInfo", EVP_PKEY_PUBLIC_KEY), nullptr);
    EVP_PKEY_free(ml);
    ERR_clear_error();
    EVP_PKEY_free(pkey);
  }
}

TEST_F(Round3, Pkcs8Layouts) {
  for (ParamSet set : kRound3) {
    const Params& p = params(set);
    SCOPED_TRACE(p.name);
    EVP_PKEY* pkey = keygen(set, seed_of(4));
    const auto pk = octets(pkey, "pub"), sk = octets(pkey, "priv");
    // Written: oqs-provider's OCTET STRING of sk || pk.
    EXPECT_EQ(encode(pkey, EVP_PKEY_KEYPAIR, "PrivateKeyInfo"), pkcs8(set, tlv(0x04, cat({sk, pk}))));
    // Read: that and the OCTET STRING of sk alone.
    for (const auto& payload : {tlv(0x04, cat({sk, pk})), tlv(0x04, sk)}) {
      EVP_PKEY* back = decode(pkcs8(set, payload), nullptr, "PrivateKeyInfo", EVP_PKEY_KEYPAIR);
      ASSERT_NE(back, nullptr) << payload.size() << ": " << last_reason();
      EXPECT_TRUE(EVP_PKEY_is_a(back, p.name));
      EXPECT_EQ(octets(back, "priv"), sk);
      EXPECT_EQ(octets(back, "pub"), pk);
      EVP_PKEY_free(back);
    }
    // Not a seed layout, not a bare sk, not an ML-DSA sk, not another public key.
    auto other_pk = pk;
    other_pk[40] ^= 1;
    const uint8_t seed_tag[2] = {0x80, 0x20};
    const auto seed = seed_of(4);
    std::vector<uint8_t> ml_sk(params(static_cast<ParamSet>(static_cast<int>(set) - 3)).sk_bytes, 0);
    for (const auto& bad : {cat({seed_tag, seed}), sk, tlv(0x04, ml_sk), tlv(0x04, cat({sk, other_pk}))}) {
      ERR_clear_error();
      EXPECT_EQ(decode(pkcs8(set, bad), nullptr, "PrivateKeyInfo", EVP_PKEY_KEYPAIR), nullptr) << bad.size();
    }
    ERR_clear_error();
    EVP_PKEY_free(pkey);
  }
}

TEST_F(Round3, SigningRules) {
  for (ParamSet set : kRound3) {
    const Params& p = params(set);
    SCOPED_TRACE(p.name);
    EVP_PKEY* pkey = keygen(set, seed_of(5));
    // Randomized by default (two signatures differ), deterministic on request.
    const auto a = sign(pkey, msg_), b = sign(pkey, msg_);
    ASSERT_EQ(a.size(), p.sig_bytes);
    EXPECT_NE(a, b);
    int det = 1;
    OSSL_PARAM dp[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_END};
    const auto d1 = sign(pkey, msg_, dp), d2 = sign(pkey, msg_, dp);
    EXPECT_EQ(d1, d2);
    for (const auto* s : {&a, &b, &d1}) EXPECT_EQ(verify(pkey, msg_, *s), 1);
    // No context string, no fixed randomness, no HashML-DSA.
    uint8_t ctx[3] = {1, 2, 3};
    OSSL_PARAM cp[] = {OSSL_PARAM_octet_string("context-string", ctx, sizeof ctx), OSSL_PARAM_END};
    ERR_clear_error();
    EXPECT_TRUE(sign(pkey, msg_, cp).empty());
    EXPECT_TRUE(raised("round-3 Dilithium has no context string"));
    EXPECT_NE(verify(pkey, msg_, a, cp), 1);
    EXPECT_TRUE(raised("round-3 Dilithium has no context string"));
    OSSL_PARAM empty_ctx[] = {OSSL_PARAM_octet_string("context-string", ctx, 0), OSSL_PARAM_END};
    EXPECT_EQ(verify(pkey, msg_, a, empty_ctx), 1);
    uint8_t entropy[32] = {};
    OSSL_PARAM ep[] = {OSSL_PARAM_octet_string("test-entropy", entropy, sizeof entropy), OSSL_PARAM_END};
    EXPECT_NE(sign_init_with(pkey, ep), 1);
    EXPECT_TRUE(raised("operation not supported by ML-DSA"));
    char sha[] = "SHA2-512";
    OSSL_PARAM hp[] = {OSSL_PARAM_utf8_string("hash-ml-dsa", sha, 0), OSSL_PARAM_END};
    EXPECT_NE(sign_init_with(pkey, hp), 1);
    EXPECT_TRUE(raised("HashML-DSA needs an ML-DSA key (round-3 Dilithium has no pre-hash variant)"));
    // A changed message or signature fails.
    auto bad = a;
    bad[p.ctilde_bytes + 1] ^= 4;
    EXPECT_EQ(verify(pkey, msg_, bad), 0);
    ERR_clear_error();
    EVP_PKEY_free(pkey);
  }
}

// The same public key bytes as an ML-DSA key and as a Dilithium key: neither
// accepts the other's signatures.
TEST_F(Round3, NoCrossAcceptance) {
  for (ParamSet set : kRound3) {
    const ParamSet twin = static_cast<ParamSet>(static_cast<int>(set) - 3);
    SCOPED_TRACE(params(set).name);
    EVP_PKEY* r3 = keygen(set, seed_of(6));
    EVP_PKEY* ml = keygen(twin, seed_of(6));
    EVP_PKEY* r3_as_ml = fromdata(twin, {}, {}, octets(r3, "pub"), EVP_PKEY_PUBLIC_KEY);
    EVP_PKEY* ml_as_r3 = fromdata(set, {}, {}, octets(ml, "pub"), EVP_PKEY_PUBLIC_KEY);
    ASSERT_TRUE(r3 && ml && r3_as_ml && ml_as_r3);
    EXPECT_NE(octets(r3, "pub"), octets(ml, "pub"));  // one seed, two schemes, two keys
    EXPECT_EQ(verify(r3_as_ml, msg_, sign(r3, msg_)), 0);
    EXPECT_EQ(verify(ml_as_r3, msg_, sign(ml, msg_)), 0);
    // Nor does an ML-DSA private key import as a Dilithium one.
    EXPECT_EQ(fromdata(set, {}, octets(ml, "priv"), {}), nullptr);
    ERR_clear_error();
    for (EVP_PKEY* k : {r3, ml, r3_as_ml, ml_as_r3}) EVP_PKEY_free(k);
  }
}

// AlgorithmIdentifier for X.509: the key's OID, parameters absent.
TEST_F(Round3, AlgorithmIdentifier) {
  EVP_PKEY* pkey = keygen(ParamSet::DILITHIUM2, seed_of(7));
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ASSERT_EQ(EVP_DigestSignInit_ex(md, nullptr, nullptr, libctx_, nullptr, pkey, nullptr), 1);
  uint8_t aid[64];
  size_t len = 0;
  OSSL_PARAM q[] = {OSSL_PARAM_octet_string("algorithm-id", aid, sizeof aid), OSSL_PARAM_END};
  ASSERT_EQ(EVP_PKEY_CTX_get_params(EVP_MD_CTX_get_pkey_ctx(md), q), 1);
  len = q[0].return_size;
  EXPECT_EQ(std::vector<uint8_t>(aid, aid + len), tlv(0x30, oid_der(ParamSet::DILITHIUM2)));
  EVP_MD_CTX_free(md);
  EVP_PKEY_free(pkey);
}

// TLS 1.3 code points: off by default, on with tls_dilithium.
std::vector<std::string> tls_sigalgs(OSSL_PROVIDER* prov) {
  std::vector<std::string> names;
  OSSL_PROVIDER_get_capabilities(
      prov, "TLS-SIGALG",
      [](const OSSL_PARAM params[], void* arg) -> int {
        const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, "tls-sigalg-iana-name");
        const OSSL_PARAM* cp = OSSL_PARAM_locate_const(params, "tls-sigalg-code-point");
        const char* s = nullptr;
        unsigned int code = 0;
        if (p && OSSL_PARAM_get_utf8_string_ptr(p, &s) && cp && OSSL_PARAM_get_uint(cp, &code)) {
          char buf[16];
          std::snprintf(buf, sizeof buf, "=%04x", code);
          static_cast<std::vector<std::string>*>(arg)->push_back(std::string(s) + buf);
        }
        return 1;
      },
      &names);
  return names;
}

TEST_F(Round3, TlsCodePointsOnlyWhenAskedFor) {
  const std::vector<std::string> fips = {"mldsa44=0904", "mldsa65=0905", "mldsa87=0906"};
  EXPECT_EQ(tls_sigalgs(prov_), fips);
  // A second instance, loaded with the setting on.
  setenv("MLDSA_ACCEL_TLS_DILITHIUM", "yes", 1);
  OSSL_LIB_CTX* lib = OSSL_LIB_CTX_new();
  ASSERT_EQ(OSSL_PROVIDER_set_default_search_path(lib, MLDSA_PROVIDER_DIR), 1);
  OSSL_PROVIDER* on = OSSL_PROVIDER_load(lib, "mldsa-accel");
  unsetenv("MLDSA_ACCEL_TLS_DILITHIUM");
  ASSERT_NE(on, nullptr);
  std::vector<std::string> want = fips;
  want.insert(want.end(), {"dilithium2=fea0", "dilithium3=fea3", "dilithium5=fea5"});
  EXPECT_EQ(tls_sigalgs(on), want);
  OSSL_PROVIDER_unload(on);
  OSSL_LIB_CTX_free(lib);
}

// --- hash-ml-dsa on ML-DSA keys ------------------------------------------------

class HashParam : public Round3 {};

TEST_F(HashParam, ExplicitAndChecked) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_65, seed_of(8));
  int det = 1;
  char sha256[] = "SHA2-256", sha3[] = "sha3-384", shake[] = "SHAKE256", bogus[] = "MD5";
  OSSL_PARAM pure[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_END};
  OSSL_PARAM h256[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_utf8_string("hash-ml-dsa", sha256, 0),
                       OSSL_PARAM_END};
  OSSL_PARAM h3[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_utf8_string("hash-ml-dsa", sha3, 0),
                     OSSL_PARAM_END};
  OSSL_PARAM hx[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_utf8_string("hash-ml-dsa", shake, 0),
                     OSSL_PARAM_END};
  const auto s_pure = sign(pkey, msg_, pure), s256 = sign(pkey, msg_, h256), s3 = sign(pkey, msg_, h3),
             sx = sign(pkey, msg_, hx);
  ASSERT_FALSE(s_pure.empty() || s256.empty() || s3.empty() || sx.empty()) << last_reason();
  EXPECT_NE(s_pure, s256);
  EXPECT_NE(s256, s3);
  // Each verifies only as what it is.
  EXPECT_EQ(verify(pkey, msg_, s256, h256), 1);
  EXPECT_EQ(verify(pkey, msg_, s3, h3), 1);
  EXPECT_EQ(verify(pkey, msg_, sx, hx), 1);
  EXPECT_EQ(verify(pkey, msg_, s256, pure), 0);
  EXPECT_EQ(verify(pkey, msg_, s256, h3), 0);
  EXPECT_EQ(verify(pkey, msg_, s_pure, h256), 0);
  // A digest named to EVP_DigestSignInit never makes it HashML-DSA.
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ERR_clear_error();
  EXPECT_NE(EVP_DigestSignInit_ex(md, nullptr, "SHA256", libctx_, nullptr, pkey, nullptr), 1);
  EXPECT_TRUE(raised("unsupported digest for ML-DSA"));
  EVP_MD_CTX_free(md);
  // Unknown hashes, the wrong digest length, and combinations that leave it unused.
  OSSL_PARAM hb[] = {OSSL_PARAM_utf8_string("hash-ml-dsa", bogus, 0), OSSL_PARAM_END};
  EXPECT_NE(sign_init_with(pkey, hb), 1);
  EXPECT_TRUE(raised("unsupported digest for ML-DSA"));
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_pkey(libctx_, pkey, nullptr);
  ASSERT_EQ(EVP_PKEY_sign_init_ex(c, h256), 1);
  std::vector<uint8_t> sig(params(ParamSet::ML_DSA_65).sig_bytes);
  size_t len = sig.size();
  const std::vector<uint8_t> short_digest(31, 1);
  EXPECT_NE(EVP_PKEY_sign(c, sig.data(), &len, short_digest.data(), short_digest.size()), 1);
  EXPECT_TRUE(raised("pre-hash digest has the wrong length"));
  EVP_PKEY_CTX_free(c);
  int one = 1;
  OSSL_PARAM with_mu[] = {OSSL_PARAM_utf8_string("hash-ml-dsa", sha256, 0), OSSL_PARAM_int("mu", &one),
                          OSSL_PARAM_END};
  EXPECT_TRUE(sign(pkey, std::vector<uint8_t>(64, 2), with_mu).empty());
  EXPECT_TRUE(raised("operation not supported by ML-DSA"));
  EVP_PKEY_free(pkey);
}

// A UTF-8 string parameter ends at its data_size, NUL or not (OpenSSL's
// own getter copies data_size bytes); reading on to a NUL ran past the
// caller's buffer (found by tests/fuzz/params_fuzz.cc under ASan).
TEST_F(HashParam, NameEndsAtItsSize) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed_of(9));
  int det = 1;
  char exact[] = "SHA2-256", longer[] = "SHA2-256X";
  OSSL_PARAM plain[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_utf8_string("hash-ml-dsa", exact, 8),
                        OSSL_PARAM_END};
  OSSL_PARAM sized[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_utf8_string("hash-ml-dsa", longer, 8),
                        OSSL_PARAM_END};
  const auto a = sign(pkey, msg_, plain);
  ASSERT_FALSE(a.empty()) << last_reason();
  EXPECT_EQ(sign(pkey, msg_, sized), a) << last_reason();
  EVP_PKEY_free(pkey);
}

// HashML-DSA with SHA2-512 is RFC 9881's id-hash-ml-dsa-xx-with-sha512; no
// other hash has a signature OID, so no AlgorithmIdentifier is given.
TEST_F(HashParam, AlgorithmIdentifier) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed_of(9));
  auto aid_of = [&](const char* hash, std::vector<uint8_t>& out) {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    std::string h = hash;
    OSSL_PARAM p[] = {OSSL_PARAM_utf8_string("hash-ml-dsa", h.data(), 0), OSSL_PARAM_END};
    uint8_t aid[64];
    OSSL_PARAM q[] = {OSSL_PARAM_octet_string("algorithm-id", aid, sizeof aid), OSSL_PARAM_END};
    int r = EVP_DigestSignInit_ex(md, nullptr, nullptr, libctx_, nullptr, pkey, p);
    if (r == 1) r = EVP_PKEY_CTX_get_params(EVP_MD_CTX_get_pkey_ctx(md), q);
    if (r == 1) out.assign(aid, aid + q[0].return_size);
    EVP_MD_CTX_free(md);
    return r;
  };
  std::vector<uint8_t> aid;
  ASSERT_EQ(aid_of("SHA512", aid), 1);
  const std::vector<uint8_t> want = {0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x20};
  EXPECT_EQ(aid, want);
  ERR_clear_error();
  EXPECT_NE(aid_of("SHA3-256", aid), 1);
  EXPECT_TRUE(raised("operation not supported by ML-DSA"));
  EVP_PKEY_free(pkey);
}

}  // namespace
}  // namespace mldsa::test
