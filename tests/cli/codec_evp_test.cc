// codec_evp_test.cc - the provider's encoders and decoders through EVP
// (OSSL_ENCODER / OSSL_DECODER), in a library context that loads the built
// module. Expected bytes are built here with a generic DER writer from the
// ACVP keyGen vectors, independently of encoders/pkcs8_formats.cc.
#include "provctx/errors.h"
#include "tests/core/acvp_vectors.h"
#include "tests/core/der_writer.h"

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

using Bytes = std::vector<uint8_t>;
using mldsa::prov::Reason;

constexpr const char* kNames[] = {"ML-DSA-44", "ML-DSA-65", "ML-DSA-87"};
constexpr size_t kPk[] = {1312, 1952, 2592};
constexpr size_t kSk[] = {2560, 4032, 4896};

// --- DER building: the test's own oracle (tests/core/der_writer.h) ----------

using mldsa::test::der::cat;
using mldsa::test::der::has_seed;
using mldsa::test::der::kFormats;
using mldsa::test::der::mldsa_oid;
using mldsa::test::der::pkcs8;
using mldsa::test::der::pkcs8_v2;
using mldsa::test::der::spki;
using mldsa::test::der::tlv;

Bytes layout(const std::string& fmt, const Bytes& seed, const Bytes& sk, const Bytes& pk) {
  Bytes out = mldsa::test::der::layout(fmt, seed, sk, pk);
  if (out.empty()) ADD_FAILURE() << "unknown format " << fmt;
  return out;
}

// --- ACVP keyGen: the first case of each parameter set ----------------------

struct Kat {
  Bytes seed, pk, sk;
};
Kat kat(int i) {
  const auto& file = mldsa::test::load_acvp("keyGen.txt");
  EXPECT_TRUE(file.error.empty()) << file.error;
  for (const auto& r : file.records)
    if (r.text("parameterSet") == kNames[i]) return {r.bytes("seed"), r.bytes("pk"), r.bytes("sk")};
  ADD_FAILURE() << "no keyGen vector for " << kNames[i];
  return {};
}

// --- library context with the provider --------------------------------------

struct Lib {
  OSSL_LIB_CTX* ctx = nullptr;
  OSSL_PROVIDER* mldsa = nullptr;
  OSSL_PROVIDER* deflt = nullptr;
  std::string conf_path;
  // No config: the module and OpenSSL's default provider, default settings.
  Lib() {
    ctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER_set_default_search_path(ctx, MLDSA_PROVIDER_DIR);
    mldsa = OSSL_PROVIDER_load(ctx, "mldsa-accel");
    EXPECT_NE(mldsa, nullptr) << "cannot load " MLDSA_PROVIDER_DIR "/mldsa-accel.so";
    deflt = OSSL_PROVIDER_load(ctx, "default");
    EXPECT_NE(deflt, nullptr);
  }
  // With ml-dsa.* settings from an openssl.cnf written for the test.
  Lib(const std::string& output_formats, const std::string& input_formats) {
    conf_path = testing::TempDir() + "mldsa_codec_" + std::to_string(reinterpret_cast<uintptr_t>(this)) + ".cnf";
    std::ofstream f(conf_path);
    f << "openssl_conf = init\n[init]\nproviders = provs\n[provs]\nmldsa-accel = mldsa_sect\n"
         "default = default_sect\n[default_sect]\nactivate = 1\n[mldsa_sect]\nactivate = 1\n"
      << "module = " MLDSA_PROVIDER_DIR "/mldsa-accel.so\n";
    if (!output_formats.empty()) f << "ml-dsa.output_formats = " << output_formats << "\n";
    if (!input_formats.empty()) f << "ml-dsa.input_formats = " << input_formats << "\n";
    f.close();
    ctx = OSSL_LIB_CTX_new();
    EXPECT_EQ(OSSL_LIB_CTX_load_config(ctx, conf_path.c_str()), 1);
  }
  ~Lib() {
    // Each OSSL_PROVIDER_load holds a reference the context does not drop.
    if (mldsa != nullptr) OSSL_PROVIDER_unload(mldsa);
    if (deflt != nullptr) OSSL_PROVIDER_unload(deflt);
    OSSL_LIB_CTX_free(ctx);
    if (!conf_path.empty()) std::remove(conf_path.c_str());
  }
};

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

Pkey from_data(Lib& lib, int i, const char* param, const Bytes& value) {
  EVP_PKEY_CTX* pctx = EVP_PKEY_CTX_new_from_name(lib.ctx, kNames[i], nullptr);
  EVP_PKEY* pkey = nullptr;
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_octet_string(param, const_cast<uint8_t*>(value.data()), value.size()),
      OSSL_PARAM_construct_end(),
  };
  const int selection = std::strcmp(param, OSSL_PKEY_PARAM_PUB_KEY) == 0 ? EVP_PKEY_PUBLIC_KEY : EVP_PKEY_KEYPAIR;
  EXPECT_TRUE(pctx != nullptr && EVP_PKEY_fromdata_init(pctx) == 1 &&
              EVP_PKEY_fromdata(pctx, &pkey, selection, params) == 1)
      << kNames[i] << " from " << param;
  EVP_PKEY_CTX_free(pctx);
  return Pkey(pkey);
}

Bytes octets(EVP_PKEY* pkey, const char* name) {
  Bytes buf(8192);
  size_t len = 0;
  if (EVP_PKEY_get_octet_string_param(pkey, name, buf.data(), buf.size(), &len) != 1) return {};
  buf.resize(len);
  return buf;
}

// Encodes; empty on failure. cipher / pass: encrypt the private key.
Bytes encode(EVP_PKEY* pkey, int selection, const char* type, const char* structure, const char* cipher = nullptr,
             const char* pass = nullptr) {
  OSSL_ENCODER_CTX* ectx = OSSL_ENCODER_CTX_new_for_pkey(pkey, selection, type, structure, nullptr);
  Bytes out;
  unsigned char* data = nullptr;
  size_t len = 0;
  if (ectx != nullptr && OSSL_ENCODER_CTX_get_num_encoders(ectx) > 0 &&
      (cipher == nullptr || OSSL_ENCODER_CTX_set_cipher(ectx, cipher, nullptr) == 1) &&
      (pass == nullptr ||
       OSSL_ENCODER_CTX_set_passphrase(ectx, reinterpret_cast<const unsigned char*>(pass), std::strlen(pass)) == 1) &&
      OSSL_ENCODER_to_data(ectx, &data, &len) == 1)
    out.assign(data, data + len);
  OPENSSL_free(data);
  OSSL_ENCODER_CTX_free(ectx);
  return out;
}

Pkey decode(Lib& lib, const Bytes& in, const char* type, const char* keytype, const char* structure = nullptr,
            const char* pass = nullptr, int selection = 0) {
  EVP_PKEY* pkey = nullptr;
  OSSL_DECODER_CTX* dctx = OSSL_DECODER_CTX_new_for_pkey(&pkey, type, structure, keytype, selection, lib.ctx, nullptr);
  const unsigned char* p = in.data();
  size_t len = in.size();
  if (dctx != nullptr &&
      (pass == nullptr ||
       OSSL_DECODER_CTX_set_passphrase(dctx, reinterpret_cast<const unsigned char*>(pass), std::strlen(pass)) == 1))
    OSSL_DECODER_from_data(dctx, &p, &len);
  OSSL_DECODER_CTX_free(dctx);
  return Pkey(pkey);
}

// Drains the error queue; true if the provider raised `reason` in it.
bool provider_error(int reason) {
  bool found = false;
  const char* data = nullptr;
  int flags = 0;
  for (unsigned long e; (e = ERR_get_error_all(nullptr, nullptr, nullptr, &data, &flags)) != 0;) {
    const char* lib = ERR_lib_error_string(e);
    if (lib != nullptr && std::strcmp(lib, "mldsa-accel") == 0 && ERR_GET_REASON(e) == reason) found = true;
  }
  return found;
}

class Codec : public testing::Test {
 protected:
  void SetUp() override { ERR_clear_error(); }
};

// --- round trips --------------------------------------------------------------

TEST_F(Codec, PrivateKeyInfoRoundTripDerAndPem) {
  Lib lib;
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(kNames[i]);
    EVP_PKEY_CTX* gctx = EVP_PKEY_CTX_new_from_name(lib.ctx, kNames[i], nullptr);
    EVP_PKEY* raw = nullptr;
    ASSERT_TRUE(gctx != nullptr && EVP_PKEY_keygen_init(gctx) == 1 && EVP_PKEY_generate(gctx, &raw) == 1);
    EVP_PKEY_CTX_free(gctx);
    Pkey key(raw);
    for (const char* type : {"DER", "PEM"}) {
      const Bytes enc = encode(key.get(), EVP_PKEY_KEYPAIR, type, "PrivateKeyInfo");
      ASSERT_FALSE(enc.empty()) << type;
      Pkey back = decode(lib, enc, type, nullptr);
      ASSERT_TRUE(back) << type;
      EXPECT_TRUE(EVP_PKEY_is_a(back.get(), kNames[i]));
      EXPECT_EQ(EVP_PKEY_eq(key.get(), back.get()), 1);
      EXPECT_EQ(octets(back.get(), "seed"), octets(key.get(), "seed"));
      EXPECT_EQ(octets(back.get(), OSSL_PKEY_PARAM_PRIV_KEY), octets(key.get(), OSSL_PKEY_PARAM_PRIV_KEY));
      EXPECT_EQ(octets(back.get(), "seed").size(), 32u);
    }
  }
}

TEST_F(Codec, KnownAnswerSpkiAndDefaultPkcs8) {
  Lib lib;
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(kNames[i]);
    const Kat k = kat(i);
    ASSERT_EQ(k.pk.size(), kPk[i]);
    Pkey key = from_data(lib, i, "seed", k.seed);
    ASSERT_TRUE(key);
    // SubjectPublicKeyInfo with absent parameters: OpenSSL 3.5's 22-byte prefix + pk.
    const Bytes want_spki = spki(mldsa_oid(i), k.pk);
    EXPECT_EQ(want_spki.size(), 22 + kPk[i]);
    EXPECT_EQ(encode(key.get(), EVP_PKEY_PUBLIC_KEY, "DER", "SubjectPublicKeyInfo"), want_spki);
    // Default PKCS#8 for a key with its seed: seed-priv, version 0.
    EXPECT_EQ(encode(key.get(), EVP_PKEY_KEYPAIR, "DER", "PrivateKeyInfo"),
              pkcs8(mldsa_oid(i), layout("seed-priv", k.seed, k.sk, k.pk)));
    // A key without its seed: priv-only.
    Pkey no_seed = from_data(lib, i, OSSL_PKEY_PARAM_PRIV_KEY, k.sk);
    ASSERT_TRUE(no_seed);
    EXPECT_EQ(encode(no_seed.get(), EVP_PKEY_KEYPAIR, "DER", "PrivateKeyInfo"),
              pkcs8(mldsa_oid(i), layout("priv-only", k.seed, k.sk, k.pk)));
    // The public key decodes back to the same pk.
    Pkey pub = decode(lib, want_spki, "DER", nullptr, "SubjectPublicKeyInfo", nullptr, EVP_PKEY_PUBLIC_KEY);
    ASSERT_TRUE(pub);
    EXPECT_EQ(octets(pub.get(), OSSL_PKEY_PARAM_PUB_KEY), k.pk);
    EXPECT_EQ(EVP_PKEY_eq(pub.get(), key.get()), 1);
  }
}

TEST_F(Codec, EveryOutputFormatWritesAndLoadsBack) {
  Lib plain;
  for (const char* fmt : kFormats) {
    Lib lib(fmt, "");
    for (int i = 0; i < 3; ++i) {
      SCOPED_TRACE(std::string(kNames[i]) + " " + fmt);
      const Kat k = kat(i);
      Pkey key = from_data(lib, i, "seed", k.seed);
      ASSERT_TRUE(key);
      const Bytes der = encode(key.get(), EVP_PKEY_KEYPAIR, "DER", "PrivateKeyInfo");
      EXPECT_EQ(der, pkcs8(mldsa_oid(i), layout(fmt, k.seed, k.sk, k.pk)));
      // Loads back in a context with default settings (every input format on).
      Pkey back = decode(plain, der, "DER", nullptr);
      ASSERT_TRUE(back);
      EXPECT_EQ(octets(back.get(), OSSL_PKEY_PARAM_PRIV_KEY), k.sk);
      EXPECT_EQ(octets(back.get(), OSSL_PKEY_PARAM_PUB_KEY), k.pk);
      EXPECT_EQ(octets(back.get(), "seed"), has_seed(fmt) ? k.seed : Bytes{});
    }
  }
}

TEST_F(Codec, OutputFormatsSkipSeedFormatsForAKeyWithoutSeed) {
  const Kat k = kat(1);
  {
    Lib lib("seed-only, bare-seed, oqskeypair", "");
    Pkey key = from_data(lib, 1, OSSL_PKEY_PARAM_PRIV_KEY, k.sk);
    ASSERT_TRUE(key);
    EXPECT_EQ(encode(key.get(), EVP_PKEY_KEYPAIR, "DER", "PrivateKeyInfo"),
              pkcs8(mldsa_oid(1), layout("oqskeypair", k.seed, k.sk, k.pk)));
  }
  {
    Lib lib("seed-only", "");
    Pkey key = from_data(lib, 1, OSSL_PKEY_PARAM_PRIV_KEY, k.sk);
    ASSERT_TRUE(key);
    ERR_clear_error();
    EXPECT_TRUE(encode(key.get(), EVP_PKEY_KEYPAIR, "DER", "PrivateKeyInfo").empty());
    EXPECT_TRUE(provider_error(mldsa::prov::R_MISSING_KEY));
  }
  {
    // A list naming no known format refuses the load (provctx/settings.h).
    Lib lib("no-such-format", "");
    EXPECT_FALSE(OSSL_PROVIDER_available(lib.ctx, "mldsa-accel"));
  }
}

TEST_F(Codec, InputFormatsLimitWhatLoads) {
  const Kat k = kat(1);
  Lib lib("", "priv-only");
  const Bytes priv_only = pkcs8(mldsa_oid(1), layout("priv-only", k.seed, k.sk, k.pk));
  EXPECT_TRUE(decode(lib, priv_only, "DER", "ML-DSA-65"));
  for (const char* fmt : kFormats) {
    if (std::string(fmt) == "priv-only") continue;
    SCOPED_TRACE(fmt);
    ERR_clear_error();
    EXPECT_FALSE(decode(lib, pkcs8(mldsa_oid(1), layout(fmt, k.seed, k.sk, k.pk)), "DER", "ML-DSA-65"));
    EXPECT_TRUE(provider_error(mldsa::prov::R_FORMAT_NOT_ALLOWED));
  }
  // A list naming no known format refuses the load (provctx/settings.h).
  Lib none("", "nothing-known");
  EXPECT_FALSE(OSSL_PROVIDER_available(none.ctx, "mldsa-accel"));
}

TEST_F(Codec, EncryptedPrivateKeyInfo) {
  Lib lib;
  const Kat k = kat(0);
  Pkey key = from_data(lib, 0, "seed", k.seed);
  ASSERT_TRUE(key);
  const Bytes pem = encode(key.get(), EVP_PKEY_KEYPAIR, "PEM", "PrivateKeyInfo", "AES-256-CBC", "correct horse");
  const std::string text(pem.begin(), pem.end());
  ASSERT_EQ(text.rfind("-----BEGIN ENCRYPTED PRIVATE KEY-----", 0), 0u) << text.substr(0, 60);
  Pkey back = decode(lib, pem, "PEM", nullptr, nullptr, "correct horse");
  ASSERT_TRUE(back);
  EXPECT_EQ(octets(back.get(), "seed"), k.seed);
  EXPECT_FALSE(decode(lib, pem, "PEM", nullptr, nullptr, "wrong horse"));

  // The explicit EncryptedPrivateKeyInfo structure, DER.
  const Bytes der = encode(key.get(), EVP_PKEY_KEYPAIR, "DER", "EncryptedPrivateKeyInfo", "AES-128-CBC", "pw");
  ASSERT_FALSE(der.empty());
  // The seed must not appear in clear.
  EXPECT_EQ(std::search(der.begin(), der.end(), k.seed.begin(), k.seed.end()), der.end());
  Pkey back2 = decode(lib, der, "DER", nullptr, "EncryptedPrivateKeyInfo", "pw");
  ASSERT_TRUE(back2);
  EXPECT_EQ(EVP_PKEY_eq(back2.get(), key.get()), 1);

  // A cipher but no passphrase: fails, with the core's reason, and nothing is written.
  ERR_clear_error();
  EXPECT_TRUE(encode(key.get(), EVP_PKEY_KEYPAIR, "PEM", "PrivateKeyInfo", "AES-256-CBC").empty());
  EXPECT_NE(ERR_peek_error(), 0u);
  EXPECT_FALSE(provider_error(mldsa::prov::R_MISSING_KEY));

  // Without a cipher there is nothing to encrypt with.
  ERR_clear_error();
  EXPECT_TRUE(encode(key.get(), EVP_PKEY_KEYPAIR, "DER", "EncryptedPrivateKeyInfo").empty());
  EXPECT_TRUE(provider_error(mldsa::prov::R_NOT_SUPPORTED));
}

TEST_F(Codec, Text) {
  Lib lib;
  const Kat k = kat(0);
  Pkey key = from_data(lib, 0, "seed", k.seed);
  ASSERT_TRUE(key);
  const Bytes out = encode(key.get(), EVP_PKEY_KEYPAIR, "TEXT", nullptr);
  const std::string text(out.begin(), out.end());
  char first_line[64];
  std::snprintf(first_line, sizeof(first_line), "    %02x:%02x:", k.seed[0], k.seed[1]);
  EXPECT_EQ(text.rfind("ML-DSA-44 Private-Key:\nseed:\n", 0), 0u) << text.substr(0, 80);
  EXPECT_NE(text.find(std::string("seed:\n") + first_line), std::string::npos);
  EXPECT_NE(text.find("\npriv:\n    "), std::string::npos);
  EXPECT_NE(text.find("\npub:\n    "), std::string::npos);
  // 32 seed bytes: 15 + 15 + 2 per line, the last without a trailing colon.
  const size_t seed_at = text.find("seed:\n") + 6;
  const std::string seed_block = text.substr(seed_at, text.find("priv:") - seed_at);
  EXPECT_EQ(std::count(seed_block.begin(), seed_block.end(), '\n'), 3);
  EXPECT_EQ(std::count(seed_block.begin(), seed_block.end(), ':'), 31);

  Pkey pub = from_data(lib, 0, OSSL_PKEY_PARAM_PUB_KEY, k.pk);
  ASSERT_TRUE(pub);
  const Bytes pout = encode(pub.get(), EVP_PKEY_PUBLIC_KEY, "TEXT", nullptr);
  const std::string ptext(pout.begin(), pout.end());
  EXPECT_EQ(ptext.rfind("ML-DSA-44 Public-Key:\npub:\n", 0), 0u) << ptext.substr(0, 60);
  EXPECT_EQ(ptext.find("priv:"), std::string::npos);
}

TEST_F(Codec, PublicKeyHasNoPrivateKeyInfo) {
  Lib lib;
  const Kat k = kat(2);
  Pkey pub = from_data(lib, 2, OSSL_PKEY_PARAM_PUB_KEY, k.pk);
  ASSERT_TRUE(pub);
  EXPECT_TRUE(encode(pub.get(), EVP_PKEY_KEYPAIR, "DER", "PrivateKeyInfo").empty());
  EXPECT_EQ(encode(pub.get(), EVP_PKEY_PUBLIC_KEY, "DER", "SubjectPublicKeyInfo"), spki(mldsa_oid(2), k.pk));
}

// --- malformed input ----------------------------------------------------------

struct BadCase {
  const char* what;
  Bytes der;
  int reason;               // 0: not ours, no provider error expected
  bool any_keytype = false; // the error comes from another parameter set's decoder
};

std::vector<BadCase> bad_private_keys() {
  const Kat k = kat(1);  // ML-DSA-65
  const Bytes oid = mldsa_oid(1);
  std::vector<BadCase> cases;
  for (const char* fmt : kFormats) {
    Bytes payload = layout(fmt, k.seed, k.sk, k.pk);
    Bytes shorter(payload.begin(), payload.end() - 1);
    Bytes longer = payload;
    longer.push_back(0);
    cases.push_back({"truncated", pkcs8(oid, shorter), mldsa::prov::R_BAD_ENCODING});
    cases.push_back({"trailing byte", pkcs8(oid, longer), mldsa::prov::R_BAD_ENCODING});
  }
  Bytes bad_seed = k.seed;
  bad_seed[0] ^= 1;
  cases.push_back({"seed-priv seed mismatch", pkcs8(oid, layout("seed-priv", bad_seed, k.sk, k.pk)),
                   mldsa::prov::R_SEED_PRIV_MISMATCH});
  Bytes bad_pk = k.pk;
  bad_pk[100] ^= 1;
  cases.push_back({"oqskeypair pk mismatch", pkcs8(oid, layout("oqskeypair", k.seed, k.sk, bad_pk)),
                   mldsa::prov::R_PUB_PRIV_MISMATCH});
  // s1 starts after rho, K and tr (128 bytes); 0xff is 15 twice, outside [-4, 4].
  Bytes bad_sk = k.sk;
  bad_sk[128] = 0xff;
  cases.push_back({"s1 out of range", pkcs8(oid, layout("priv-only", k.seed, bad_sk, k.pk)),
                   mldsa::prov::R_S1_OUT_OF_RANGE});
  cases.push_back({"NULL parameters", pkcs8(oid, layout("priv-only", k.seed, k.sk, k.pk), tlv(0x05, {})),
                   mldsa::prov::R_BAD_ENCODING});
  // ML-DSA-44's OID around an ML-DSA-65 key: no ML-DSA-44 layout has that length.
  cases.push_back({"other parameter set", pkcs8(mldsa_oid(0), layout("priv-only", k.seed, k.sk, k.pk)),
                   mldsa::prov::R_BAD_ENCODING, true});
  cases.push_back({"wrong seed tag", pkcs8(oid, tlv(0x81, k.seed)), mldsa::prov::R_BAD_ENCODING});
  // PKCS#8 v2: the publicKey [1] is checked against the private key.
  cases.push_back({"v2 pk mismatch", pkcs8_v2(oid, layout("priv-only", k.seed, k.sk, k.pk), bad_pk),
                   mldsa::prov::R_PUB_PRIV_MISMATCH});
  cases.push_back({"v2 pk mismatch, seed", pkcs8_v2(oid, layout("seed-only", k.seed, k.sk, k.pk), bad_pk),
                   mldsa::prov::R_PUB_PRIV_MISMATCH});
  cases.push_back({"v2 pk differs from oqskeypair's", pkcs8_v2(oid, layout("oqskeypair", k.seed, k.sk, k.pk), bad_pk),
                   mldsa::prov::R_PUB_PRIV_MISMATCH});
  cases.push_back({"v2 pk short", pkcs8_v2(oid, layout("priv-only", k.seed, k.sk, k.pk), Bytes(k.pk.begin(), k.pk.end() - 1)),
                   mldsa::prov::R_BAD_PUBLIC_KEY_LENGTH});
  cases.push_back({"v2 pk unused bits", pkcs8_v2(oid, layout("priv-only", k.seed, k.sk, k.pk), k.pk, 1, 3),
                   mldsa::prov::R_BAD_ENCODING});
  cases.push_back({"v1 with a publicKey", pkcs8_v2(oid, layout("priv-only", k.seed, k.sk, k.pk), k.pk, 0),
                   mldsa::prov::R_BAD_ENCODING});
  cases.push_back({"version 3", pkcs8_v2(oid, layout("priv-only", k.seed, k.sk, k.pk), k.pk, 2),
                   mldsa::prov::R_BAD_ENCODING});
  // Not recognisable as a PrivateKeyInfo at all: nobody's key, no provider reason.
  const Bytes good = pkcs8(oid, layout("seed-priv", k.seed, k.sk, k.pk));
  cases.push_back({"outer DER truncated", Bytes(good.begin(), good.begin() + 200), 0});
  cases.push_back({"empty", {}, 0});
  cases.push_back({"garbage", Bytes(64, 0x30), 0});
  return cases;
}

// PKCS#8 v2 (RFC 5958, as BouncyCastle writes seedless keys) loads in every
// layout on this OpenSSL (3.0's own PKCS8_PRIV_KEY_INFO refuses it).
TEST_F(Codec, PrivateKeyInfoV2Loads) {
  Lib lib;
  for (int i = 0; i < 3; ++i) {
    const Kat k = kat(i);
    for (const char* fmt : kFormats) {
      SCOPED_TRACE(fmt);
      Pkey key = decode(lib, pkcs8_v2(mldsa_oid(i), layout(fmt, k.seed, k.sk, k.pk), k.pk), "DER", nullptr);
      ASSERT_TRUE(key) << fmt;
      EXPECT_EQ(encode(key.get(), EVP_PKEY_PUBLIC_KEY, "DER", "SubjectPublicKeyInfo"), spki(mldsa_oid(i), k.pk));
    }
  }
}

TEST_F(Codec, MalformedPrivateKeysFailCleanly) {
  Lib lib;
  for (const BadCase& c : bad_private_keys()) {
    SCOPED_TRACE(c.what);
    for (const char* keytype : {"ML-DSA-65", static_cast<const char*>(nullptr)}) {
      if (c.any_keytype && keytype != nullptr) continue;
      ERR_clear_error();
      EXPECT_FALSE(decode(lib, c.der, "DER", keytype));
      if (c.reason != 0) {
        EXPECT_TRUE(provider_error(c.reason)) << "expected provider reason " << c.reason;
      } else {
        EXPECT_FALSE(provider_error(mldsa::prov::R_BAD_ENCODING));
      }
    }
  }
}

TEST_F(Codec, MalformedPublicKeysFailCleanly) {
  Lib lib;
  const Kat k = kat(1);
  const Bytes oid = mldsa_oid(1);
  const Bytes short_pk(k.pk.begin(), k.pk.end() - 1);
  const Bytes good = spki(oid, k.pk);
  const struct {
    const char* what;
    Bytes der;
    int reason;
  } cases[] = {
      {"short pk", spki(oid, short_pk), mldsa::prov::R_BAD_PUBLIC_KEY_LENGTH},
      {"pk of another set", spki(mldsa_oid(2), k.pk), mldsa::prov::R_BAD_PUBLIC_KEY_LENGTH},
      {"unused bits", spki(oid, k.pk, 3), mldsa::prov::R_BAD_ENCODING},
      {"NULL parameters", tlv(0x30, cat({tlv(0x30, cat({oid, tlv(0x05, {})})), tlv(0x03, cat({{0}, k.pk}))})),
       mldsa::prov::R_BAD_ENCODING},
      {"truncated", Bytes(good.begin(), good.begin() + 100), 0},
      {"empty", {}, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    ERR_clear_error();
    EXPECT_FALSE(decode(lib, c.der, "DER", nullptr, "SubjectPublicKeyInfo", nullptr, EVP_PKEY_PUBLIC_KEY));
    if (c.reason != 0) {
      EXPECT_TRUE(provider_error(c.reason)) << "expected provider reason " << c.reason;
    }
  }
}

// Random damage to valid encodings: never a crash; whatever still loads is a
// whole key that writes out and loads back the same.
TEST_F(Codec, RandomDamageNeverCrashes) {
  Lib lib;
  std::mt19937 rng(20261201);  // fixed: a failure reproduces
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(kNames[i]);
    const Kat k = kat(i);
    std::vector<Bytes> inputs = {spki(mldsa_oid(i), k.pk)};
    for (const char* fmt : kFormats) inputs.push_back(pkcs8(mldsa_oid(i), layout(fmt, k.seed, k.sk, k.pk)));
    int loaded = 0;
    for (const Bytes& good : inputs) {
      for (int round = 0; round < 60; ++round) {
        Bytes bad = good;
        switch (round % 3) {
          case 0:  // flip bits in one byte; the header bytes half of the time
            bad[rng() % (round % 2 ? bad.size() : std::min<size_t>(bad.size(), 40))] ^= static_cast<uint8_t>(1 + rng() % 255);
            break;
          case 1:  // cut the end off
            bad.resize(rng() % bad.size());
            break;
          case 2:  // overwrite a run with random bytes
            for (size_t at = rng() % bad.size(), n = 1 + rng() % 16; n > 0 && at < bad.size(); --n, ++at)
              bad[at] = static_cast<uint8_t>(rng());
            break;
        }
        Pkey key = decode(lib, bad, "DER", nullptr);
        ERR_clear_error();
        if (!key) continue;
        ++loaded;
        const bool priv = !octets(key.get(), OSSL_PKEY_PARAM_PRIV_KEY).empty();
        const Bytes again = encode(key.get(), priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, "DER",
                                   priv ? "PrivateKeyInfo" : "SubjectPublicKeyInfo");
        ASSERT_FALSE(again.empty());
        Pkey back = decode(lib, again, "DER", nullptr);
        ASSERT_TRUE(back);
        EXPECT_EQ(EVP_PKEY_eq(key.get(), back.get()), 1);
      }
    }
    // Damage inside a public key or a seed still gives a (different) valid key.
    EXPECT_GT(loaded, 0);
  }
}

// Bytes after the outer DER object never reach a decoder: OpenSSL reads one
// object. An ML-DSA key then behaves exactly as OpenSSL's own key types do.
TEST_F(Codec, BytesAfterTheDerObjectAsForOtherKeyTypes) {
  Lib lib;
  EVP_PKEY* raw = EVP_PKEY_Q_keygen(lib.ctx, nullptr, "ED25519");
  ASSERT_NE(raw, nullptr);
  Pkey ed(raw);
  Bytes ed_der = encode(ed.get(), EVP_PKEY_KEYPAIR, "DER", "PrivateKeyInfo");
  ed_der.push_back(0);
  const bool ed_loads = static_cast<bool>(decode(lib, ed_der, "DER", nullptr));

  const Kat k = kat(1);
  Bytes der = pkcs8(mldsa_oid(1), layout("seed-priv", k.seed, k.sk, k.pk));
  der.push_back(0);
  Pkey back = decode(lib, der, "DER", nullptr);
  EXPECT_EQ(static_cast<bool>(back), ed_loads);
  if (back) {
    EXPECT_EQ(octets(back.get(), OSSL_PKEY_PARAM_PRIV_KEY), k.sk);
  }
}

// With the structure named, the chain starts at the provider's own decoders,
// which must read one DER object and leave what follows to the caller
// (OSSL_DECODER_from_data reports it), as OpenSSL's decoders do: they read
// the whole input and took the extra bytes for part of the key, refusing it
// (found by the differential fuzzer against OpenSSL 3.5).
TEST_F(Codec, BytesAfterTheKeyStayForTheCaller) {
  Lib lib;
  const Kat k = kat(0);
  const Bytes pki = pkcs8(mldsa_oid(0), layout("seed-priv", k.seed, k.sk, k.pk));
  const Bytes pub = spki(mldsa_oid(0), k.pk);
  for (const auto& [structure, der] : {std::pair{"PrivateKeyInfo", pki}, std::pair{"SubjectPublicKeyInfo", pub}}) {
    for (const Bytes& tail : {Bytes{0x30}, Bytes{0x30, 0x03, 0x02, 0x01, 0x00}, pub}) {
      SCOPED_TRACE(std::string(structure) + " + " + std::to_string(tail.size()) + " bytes");
      const Bytes in = cat({der, tail});
      EVP_PKEY* pkey = nullptr;
      OSSL_DECODER_CTX* dctx = OSSL_DECODER_CTX_new_for_pkey(&pkey, "DER", structure, "ML-DSA-44", 0, lib.ctx, nullptr);
      ASSERT_NE(dctx, nullptr);
      const unsigned char* p = in.data();
      size_t len = in.size();
      EXPECT_EQ(OSSL_DECODER_from_data(dctx, &p, &len), 1);
      EXPECT_EQ(len, tail.size());
      ASSERT_NE(pkey, nullptr);
      EXPECT_EQ(octets(pkey, "pub"), k.pk);
      EVP_PKEY_free(pkey);
      OSSL_DECODER_CTX_free(dctx);
    }
  }
}

// Our decoders say "not mine" to other keys, so the rest of the chain still works.
TEST_F(Codec, OtherKeyTypesStillDecode) {
  Lib lib;
  EVP_PKEY* raw = EVP_PKEY_Q_keygen(lib.ctx, nullptr, "ED25519");
  ASSERT_NE(raw, nullptr);
  Pkey ed(raw);
  const Bytes der = encode(ed.get(), EVP_PKEY_KEYPAIR, "DER", "PrivateKeyInfo");
  ASSERT_FALSE(der.empty());
  Pkey back = decode(lib, der, "DER", nullptr);
  ASSERT_TRUE(back);
  EXPECT_TRUE(EVP_PKEY_is_a(back.get(), "ED25519"));
  const Bytes pub = encode(ed.get(), EVP_PKEY_PUBLIC_KEY, "DER", "SubjectPublicKeyInfo");
  Pkey back_pub = decode(lib, pub, "DER", nullptr, "SubjectPublicKeyInfo");
  ASSERT_TRUE(back_pub);
  EXPECT_TRUE(EVP_PKEY_is_a(back_pub.get(), "ED25519"));
}

// --- parameters ---------------------------------------------------------------

// The implementation of one of the module's encoders for ML-DSA-44, by index
// (the seven of key_encoder.cc's MLDSA_ENCODERS, in order).
const OSSL_DISPATCH* ml_dsa_44_encoder(Lib& lib, size_t index, const char** props) {
  int no_cache = 0;
  size_t seen = 0;
  for (const OSSL_ALGORITHM* a = OSSL_PROVIDER_query_operation(lib.mldsa, OSSL_OP_ENCODER, &no_cache);
       a != nullptr && a->algorithm_names != nullptr; ++a) {
    if (std::strstr(a->algorithm_names, "ML-DSA-44") == nullptr || seen++ != index) continue;
    *props = a->property_definition;
    return a->implementation;
  }
  return nullptr;
}

template <typename Fn>
Fn* dispatch_fn(const OSSL_DISPATCH* fns, int id) {
  for (; fns != nullptr && fns->function_id != 0; ++fns)
    if (fns->function_id == id) return reinterpret_cast<Fn*>(fns->function);
  return nullptr;
}

// import_object (the core's route for a key held by another provider) with
// a key part of NULL data and a non-zero size: refused with the provider's
// reason, never a crash.
TEST_F(Codec, EncoderImportObjectNullDataIsNamed) {
  Lib lib;
  ASSERT_NE(lib.mldsa, nullptr);
  void* provctx = OSSL_PROVIDER_get0_provider_ctx(lib.mldsa);
  for (size_t e = 0; e < 7; ++e) {
    const char* props = nullptr;
    const OSSL_DISPATCH* fns = ml_dsa_44_encoder(lib, e, &props);
    ASSERT_NE(fns, nullptr) << e;
    SCOPED_TRACE(props);
    auto newctx = dispatch_fn<OSSL_FUNC_encoder_newctx_fn>(fns, OSSL_FUNC_ENCODER_NEWCTX);
    auto freectx = dispatch_fn<OSSL_FUNC_encoder_freectx_fn>(fns, OSSL_FUNC_ENCODER_FREECTX);
    auto import_object = dispatch_fn<OSSL_FUNC_encoder_import_object_fn>(fns, OSSL_FUNC_ENCODER_IMPORT_OBJECT);
    ASSERT_TRUE(newctx != nullptr && freectx != nullptr && import_object != nullptr);
    void* ctx = newctx(provctx);
    for (auto [name, size] : {std::pair{"seed", size_t{32}}, {"priv", kSk[0]}, {"pub", kPk[0]}}) {
      for (unsigned int type : {OSSL_PARAM_OCTET_STRING, OSSL_PARAM_OCTET_PTR}) {
        SCOPED_TRACE(std::string(name) + " type " + std::to_string(type));
        OSSL_PARAM p[] = {{name, type, nullptr, size, OSSL_PARAM_UNMODIFIED}, OSSL_PARAM_END};
        ERR_clear_error();
        EXPECT_EQ(import_object(ctx, OSSL_KEYMGMT_SELECT_KEYPAIR, p), nullptr);
        EXPECT_TRUE(provider_error(mldsa::prov::R_NULL_PARAM_DATA));
      }
    }
    freectx(ctx);
  }
}

// Each encoder parameter ("cipher", "properties") given with each type it
// is not (every other OSSL_PARAM type, with data and with NULL data), on
// every output and structure: refused with the provider's bad-type reason,
// naming the parameter, and the context keeps working.
TEST_F(Codec, EncoderParametersOfTheWrongTypeAreNamed) {
  Lib lib;
  const Kat k = kat(0);
  Pkey key = from_data(lib, 0, "seed", k.seed);
  ASSERT_TRUE(key);
  const std::pair<const char*, const char*> targets[] = {
      {"DER", "SubjectPublicKeyInfo"}, {"PEM", "SubjectPublicKeyInfo"},    {"DER", "PrivateKeyInfo"},
      {"PEM", "PrivateKeyInfo"},       {"DER", "EncryptedPrivateKeyInfo"}, {"PEM", "EncryptedPrivateKeyInfo"},
      {"TEXT", nullptr}};
  int number = 1;
  double real = 1;
  unsigned char bytes[] = "AES-128-CBC";
  void* bytes_ptr = bytes;
  const OSSL_PARAM wrong[] = {
      {nullptr, OSSL_PARAM_INTEGER, &number, sizeof number, OSSL_PARAM_UNMODIFIED},
      {nullptr, OSSL_PARAM_UNSIGNED_INTEGER, &number, sizeof number, OSSL_PARAM_UNMODIFIED},
      {nullptr, OSSL_PARAM_REAL, &real, sizeof real, OSSL_PARAM_UNMODIFIED},
      {nullptr, OSSL_PARAM_OCTET_STRING, bytes, sizeof bytes - 1, OSSL_PARAM_UNMODIFIED},
      {nullptr, OSSL_PARAM_OCTET_PTR, &bytes_ptr, sizeof bytes - 1, OSSL_PARAM_UNMODIFIED},
      {nullptr, OSSL_PARAM_INTEGER, nullptr, 0, OSSL_PARAM_UNMODIFIED},
      {nullptr, OSSL_PARAM_OCTET_STRING, nullptr, 0, OSSL_PARAM_UNMODIFIED},
  };
  for (const auto& [type, structure] : targets) {
    for (const char* name : {OSSL_ENCODER_PARAM_CIPHER, OSSL_ENCODER_PARAM_PROPERTIES}) {
      for (const OSSL_PARAM& w : wrong) {
        SCOPED_TRACE(std::string(type) + " " + (structure ? structure : "") + " " + name + " type " +
                     std::to_string(w.data_type) + (w.data ? "" : " NULL"));
        const bool pub = structure != nullptr && std::strcmp(structure, "SubjectPublicKeyInfo") == 0;
        OSSL_ENCODER_CTX* ectx = OSSL_ENCODER_CTX_new_for_pkey(key.get(), pub ? EVP_PKEY_PUBLIC_KEY : EVP_PKEY_KEYPAIR,
                                                               type, structure, nullptr);
        ASSERT_NE(ectx, nullptr);
        ASSERT_GT(OSSL_ENCODER_CTX_get_num_encoders(ectx), 0);
        OSSL_PARAM p[] = {w, OSSL_PARAM_END};
        p[0].key = name;
        ERR_clear_error();
        EXPECT_EQ(OSSL_ENCODER_CTX_set_params(ectx, p), 0);
        const char* data = nullptr;
        int flags = 0;
        ERR_peek_last_error_data(&data, &flags);
        EXPECT_NE((flags & ERR_TXT_STRING) ? std::string(data).find(name) : std::string::npos, std::string::npos);
        EXPECT_TRUE(provider_error(mldsa::prov::R_BAD_PARAM_TYPE));
        // The refused value changed nothing: a plain (unencrypted) encoding still works.
        if (std::string(structure ? structure : "") != "EncryptedPrivateKeyInfo") {
          unsigned char* out = nullptr;
          size_t len = 0;
          EXPECT_EQ(OSSL_ENCODER_to_data(ectx, &out, &len), 1);
          OPENSSL_free(out);
        }
        OSSL_ENCODER_CTX_free(ectx);
      }
    }
  }
}

// A UTF-8 string parameter ends at its data_size, NUL or not: a cipher name
// with more bytes after it (no NUL within its size) names that cipher.
// Reading on to a NUL ran past the caller's buffer (found by
// tests/fuzz/params_fuzz.cc under ASan).
TEST_F(Codec, EncoderStringParametersEndAtTheirSize) {
  Lib lib;
  const Kat k = kat(0);
  Pkey key = from_data(lib, 0, "seed", k.seed);
  ASSERT_TRUE(key);
  OSSL_ENCODER_CTX* ectx = OSSL_ENCODER_CTX_new_for_pkey(key.get(), EVP_PKEY_KEYPAIR, "DER", "PrivateKeyInfo", nullptr);
  ASSERT_NE(ectx, nullptr);
  char cipher[] = "AES-128-CBCX";
  OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_ENCODER_PARAM_CIPHER, cipher, 11), OSSL_PARAM_END};
  ERR_clear_error();
  EXPECT_EQ(OSSL_ENCODER_CTX_set_params(ectx, p), 1) << ERR_reason_error_string(ERR_peek_last_error());
  ASSERT_EQ(OSSL_ENCODER_CTX_set_passphrase(ectx, reinterpret_cast<const unsigned char*>("pw"), 2), 1);
  unsigned char* data = nullptr;
  size_t len = 0;
  ASSERT_EQ(OSSL_ENCODER_to_data(ectx, &data, &len), 1);
  OSSL_ENCODER_CTX_free(ectx);
  const Bytes der(data, data + len);
  OPENSSL_free(data);
  Pkey back = decode(lib, der, "DER", nullptr, "EncryptedPrivateKeyInfo", "pw");
  ASSERT_TRUE(back);
  EXPECT_EQ(EVP_PKEY_eq(back.get(), key.get()), 1);
}

// The decoders take no parameters: none is settable, so none can be of the
// wrong type; parameters given to a decoder context leave them decoding.
TEST_F(Codec, DecodersTakeNoParameters) {
  Lib lib;
  int no_cache = 0;
  size_t ours = 0;
  for (const OSSL_ALGORITHM* a = OSSL_PROVIDER_query_operation(lib.mldsa, OSSL_OP_DECODER, &no_cache);
       a != nullptr && a->algorithm_names != nullptr; ++a, ++ours) {
    SCOPED_TRACE(a->algorithm_names);
    EXPECT_EQ(dispatch_fn<OSSL_FUNC_decoder_set_ctx_params_fn>(a->implementation, OSSL_FUNC_DECODER_SET_CTX_PARAMS),
              nullptr);
    EXPECT_EQ(dispatch_fn<OSSL_FUNC_decoder_settable_ctx_params_fn>(a->implementation,
                                                                     OSSL_FUNC_DECODER_SETTABLE_CTX_PARAMS),
              nullptr);
  }
  EXPECT_GT(ours, 0u);
  const Kat k = kat(0);
  const Bytes der = pkcs8(mldsa_oid(0), layout("seed-priv", k.seed, k.sk, k.pk));
  int number = 1;
  for (const char* name : {OSSL_DECODER_PARAM_PROPERTIES, "input-type", "input-structure"}) {
    EVP_PKEY* pkey = nullptr;
    OSSL_DECODER_CTX* dctx = OSSL_DECODER_CTX_new_for_pkey(&pkey, "DER", nullptr, "ML-DSA-44", 0, lib.ctx, nullptr);
    ASSERT_NE(dctx, nullptr);
    OSSL_PARAM p[] = {OSSL_PARAM_construct_int(name, &number), OSSL_PARAM_END};
    OSSL_DECODER_CTX_set_params(dctx, p);  // whatever OpenSSL's own decoders in the chain answer
    ERR_clear_error();
    const unsigned char* in = der.data();
    size_t len = der.size();
    EXPECT_EQ(OSSL_DECODER_from_data(dctx, &in, &len), 1) << name;
    EXPECT_NE(pkey, nullptr) << name;
    EVP_PKEY_free(pkey);
    OSSL_DECODER_CTX_free(dctx);
  }
}

}  // namespace
