// falcon_provider_test.cc - round-3 Falcon through EVP, in a library context that
// loads the built module: keygen, parameters, sign / verify (EVP_DigestSign one-shot,
// EVP_PKEY_sign over the raw message, streaming), round trips of raw signatures against
// the core (cpu/falcon/), the reference signature of tests/vectors/falcon/, a named
// reason for each malformed signature and key, and the SPKI / PKCS#8 layouts, built
// here with a generic DER writer.
#include "cpu/falcon/falcon.h"
#include "provctx/errors.h"
#include "tests/core/der_writer.h"
#include "tests/core/nist_drbg.h"

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using Bytes = std::vector<uint8_t>;
using namespace mldsa::prov;  // the Reason values
using mldsa::test::der::cat;
using mldsa::test::der::tlv;

struct Variant {
  const char* name;
  Bytes oid;  // the DER OBJECT IDENTIFIER (tag, length, contents)
  bool padded;
  unsigned logn;
  const falcon::Params& params() const { return logn == 10 ? falcon::falcon1024() : falcon::falcon512(); }
  falcon::SigFormat format() const { return padded ? falcon::SigFormat::padded : falcon::SigFormat::compressed; }
};
// oqs-provider's OIDs: 1.3.9999.3.11, .16, .14, .19.
const Variant kVariants[] = {
    {"falcon512", {0x06, 0x05, 0x2b, 0xce, 0x0f, 0x03, 0x0b}, false, 9},
    {"falconpadded512", {0x06, 0x05, 0x2b, 0xce, 0x0f, 0x03, 0x10}, true, 9},
    {"falcon1024", {0x06, 0x05, 0x2b, 0xce, 0x0f, 0x03, 0x0e}, false, 10},
    {"falconpadded1024", {0x06, 0x05, 0x2b, 0xce, 0x0f, 0x03, 0x13}, true, 10},
};

struct Lib {
  OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
  OSSL_PROVIDER* mldsa = nullptr;
  OSSL_PROVIDER* deflt = nullptr;
  Lib() {
    OSSL_PROVIDER_set_default_search_path(ctx, MLDSA_PROVIDER_DIR);
    mldsa = OSSL_PROVIDER_load(ctx, "mldsa-accel");
    EXPECT_NE(mldsa, nullptr) << "cannot load " MLDSA_PROVIDER_DIR "/mldsa-accel.so";
    deflt = OSSL_PROVIDER_load(ctx, "default");
  }
  ~Lib() {
    if (mldsa != nullptr) OSSL_PROVIDER_unload(mldsa);
    if (deflt != nullptr) OSSL_PROVIDER_unload(deflt);
    OSSL_LIB_CTX_free(ctx);
  }
};

// One context for the whole program: each load of the module takes new error library
// numbers, which OpenSSL 3.0 wraps past 255 after some dozens of loads in one process.
Lib& shared_lib() {
  static Lib* lib = new Lib;
  return *lib;
}

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

// Drains the error queue; true if the provider raised `reason` in it.
bool provider_error(int reason) {
  bool found = false;
  for (unsigned long e; (e = ERR_get_error()) != 0;) {
    const char* lib = ERR_lib_error_string(e);
    if (lib != nullptr && std::strcmp(lib, "mldsa-accel") == 0 && ERR_GET_REASON(e) == reason) found = true;
  }
  return found;
}

Bytes octets(EVP_PKEY* pkey, const char* name) {
  Bytes buf(8192);
  size_t len = 0;
  if (EVP_PKEY_get_octet_string_param(pkey, name, buf.data(), buf.size(), &len) != 1) return {};
  buf.resize(len);
  return buf;
}

// (EVP_PKEY_Q_keygen on 3.0 knows only its own key types.)
Pkey keygen(Lib& lib, const char* name) {
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(lib.ctx, name, nullptr);
  EVP_PKEY* k = nullptr;
  if (c != nullptr && EVP_PKEY_keygen_init(c) == 1) EVP_PKEY_generate(c, &k);
  EVP_PKEY_CTX_free(c);
  return Pkey(k);
}

// EVP_PKEY_fromdata with priv and / or pub (an empty one is left out); nullptr on failure.
Pkey from_data(Lib& lib, const char* name, const Bytes& priv, const Bytes& pub) {
  EVP_PKEY_CTX* pctx = EVP_PKEY_CTX_new_from_name(lib.ctx, name, nullptr);
  EVP_PKEY* pkey = nullptr;
  OSSL_PARAM params[3];
  int n = 0;
  if (!priv.empty())
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PRIV_KEY, const_cast<uint8_t*>(priv.data()),
                                                    priv.size());
  if (!pub.empty())
    params[n++] =
        OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, const_cast<uint8_t*>(pub.data()), pub.size());
  params[n] = OSSL_PARAM_construct_end();
  if (pctx != nullptr && EVP_PKEY_fromdata_init(pctx) == 1)
    EVP_PKEY_fromdata(pctx, &pkey, priv.empty() ? EVP_PKEY_PUBLIC_KEY : EVP_PKEY_KEYPAIR, params);
  EVP_PKEY_CTX_free(pctx);
  return Pkey(pkey);
}

// EVP_DigestSign one-shot (pkeyutl -rawin); empty on failure.
Bytes digest_sign(Lib& lib, EVP_PKEY* key, const Bytes& msg) {
  EVP_MD_CTX* m = EVP_MD_CTX_new();
  Bytes sig;
  size_t len = 0;
  if (EVP_DigestSignInit_ex(m, nullptr, nullptr, lib.ctx, nullptr, key, nullptr) == 1 &&
      EVP_DigestSign(m, nullptr, &len, msg.data(), msg.size()) == 1) {
    sig.resize(len);
    if (EVP_DigestSign(m, sig.data(), &len, msg.data(), msg.size()) == 1)
      sig.resize(len);
    else
      sig.clear();
  }
  EVP_MD_CTX_free(m);
  return sig;
}

bool digest_verify(Lib& lib, EVP_PKEY* key, const Bytes& msg, const Bytes& sig) {
  EVP_MD_CTX* m = EVP_MD_CTX_new();
  const bool ok = EVP_DigestVerifyInit_ex(m, nullptr, nullptr, lib.ctx, nullptr, key, nullptr) == 1 &&
                  EVP_DigestVerify(m, sig.data(), sig.size(), msg.data(), msg.size()) == 1;
  EVP_MD_CTX_free(m);
  return ok;
}

// EVP_PKEY_sign / EVP_PKEY_verify: the input is the message itself.
Bytes pkey_sign(Lib& lib, EVP_PKEY* key, const Bytes& msg) {
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_pkey(lib.ctx, key, nullptr);
  Bytes sig;
  size_t len = 0;
  if (c != nullptr && EVP_PKEY_sign_init(c) == 1 && EVP_PKEY_sign(c, nullptr, &len, msg.data(), msg.size()) == 1) {
    sig.resize(len);
    if (EVP_PKEY_sign(c, sig.data(), &len, msg.data(), msg.size()) == 1)
      sig.resize(len);
    else
      sig.clear();
  }
  EVP_PKEY_CTX_free(c);
  return sig;
}

bool pkey_verify(Lib& lib, EVP_PKEY* key, const Bytes& msg, const Bytes& sig) {
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_pkey(lib.ctx, key, nullptr);
  const bool ok = c != nullptr && EVP_PKEY_verify_init(c) == 1 &&
                  EVP_PKEY_verify(c, sig.data(), sig.size(), msg.data(), msg.size()) == 1;
  EVP_PKEY_CTX_free(c);
  return ok;
}

Bytes encode(EVP_PKEY* pkey, int selection, const char* structure) {
  OSSL_ENCODER_CTX* e = OSSL_ENCODER_CTX_new_for_pkey(pkey, selection, "DER", structure, nullptr);
  Bytes out;
  unsigned char* data = nullptr;
  size_t len = 0;
  if (e != nullptr && OSSL_ENCODER_CTX_get_num_encoders(e) > 0 && OSSL_ENCODER_to_data(e, &data, &len) == 1)
    out.assign(data, data + len);
  OPENSSL_free(data);
  OSSL_ENCODER_CTX_free(e);
  return out;
}

Pkey decode(Lib& lib, const Bytes& in, const char* structure, int selection) {
  EVP_PKEY* pkey = nullptr;
  OSSL_DECODER_CTX* d =
      OSSL_DECODER_CTX_new_for_pkey(&pkey, "DER", structure, nullptr, selection, lib.ctx, nullptr);
  const unsigned char* p = in.data();
  size_t len = in.size();
  if (d != nullptr) OSSL_DECODER_from_data(d, &p, &len);
  OSSL_DECODER_CTX_free(d);
  return Pkey(pkey);
}

Bytes message(size_t n, uint8_t tag) {
  Bytes m(n);
  for (size_t i = 0; i < n; ++i) m[i] = static_cast<uint8_t>(tag + 31 * i);
  return m;
}

class FalconProvider : public testing::TestWithParam<int> {
 protected:
  void SetUp() override { ERR_clear_error(); }
  const Variant& v() const { return kVariants[GetParam()]; }
};

TEST_P(FalconProvider, KeygenParametersSignVerify) {
  Lib& lib = shared_lib();
  const falcon::Params& p = v().params();
  Pkey key = keygen(lib, v().name);
  ASSERT_NE(key, nullptr) << v().name;
  EXPECT_TRUE(EVP_PKEY_is_a(key.get(), v().name));
  const size_t max = v().padded ? p.sig_padded_bytes : p.sig_max_bytes;
  int bits = 0, sec = 0, size = 0;
  EXPECT_EQ(EVP_PKEY_get_int_param(key.get(), OSSL_PKEY_PARAM_BITS, &bits), 1);
  EXPECT_EQ(EVP_PKEY_get_int_param(key.get(), OSSL_PKEY_PARAM_SECURITY_BITS, &sec), 1);
  EXPECT_EQ(EVP_PKEY_get_int_param(key.get(), OSSL_PKEY_PARAM_MAX_SIZE, &size), 1);
  EXPECT_EQ(static_cast<size_t>(bits), 8 * p.pk_bytes);
  EXPECT_EQ(sec, p.n == 512 ? 128 : 256);
  EXPECT_EQ(static_cast<size_t>(size), max);
  const Bytes pk = octets(key.get(), OSSL_PKEY_PARAM_PUB_KEY), sk = octets(key.get(), OSSL_PKEY_PARAM_PRIV_KEY);
  ASSERT_EQ(pk.size(), p.pk_bytes);
  ASSERT_EQ(sk.size(), p.sk_bytes);
  EXPECT_EQ(pk[0], p.logn);
  EXPECT_EQ(sk[0], 0x50 + p.logn);

  const Bytes msg = message(100, 7);
  const Bytes s1 = digest_sign(lib, key.get(), msg), s2 = digest_sign(lib, key.get(), msg);
  ASSERT_FALSE(s1.empty());
  EXPECT_EQ(s1[0], 0x30 + p.logn);
  if (v().padded)
    EXPECT_EQ(s1.size(), p.sig_padded_bytes);
  else
    EXPECT_LE(s1.size(), p.sig_max_bytes);
  // Randomized: a fresh nonce each time.
  EXPECT_NE(Bytes(s1.begin() + 1, s1.begin() + 41), Bytes(s2.begin() + 1, s2.begin() + 41));
  EXPECT_TRUE(digest_verify(lib, key.get(), msg, s1));
  EXPECT_TRUE(digest_verify(lib, key.get(), msg, s2));
  // Raw bytes against the core: the provider's signature verifies there...
  EXPECT_TRUE(falcon::verify(p, pk.data(), msg.data(), msg.size(), s1.data(), s1.size(), v().format()));
  // ... and the core's through the provider.
  uint8_t nonce[falcon::NONCE_BYTES] = {1, 2, 3}, seed[falcon::SEED_BYTES] = {4, 5, 6};
  Bytes core_sig(max);
  size_t core_len = 0;
  ASSERT_TRUE(falcon::sign(p, sk.data(), msg.data(), msg.size(), nonce, seed, v().format(), core_sig.data(), &core_len));
  core_sig.resize(core_len);
  EXPECT_TRUE(digest_verify(lib, key.get(), msg, core_sig));
  EXPECT_TRUE(pkey_verify(lib, key.get(), msg, core_sig));
  // EVP_PKEY_sign signs the raw message the same way.
  const Bytes s3 = pkey_sign(lib, key.get(), msg);
  EXPECT_TRUE(falcon::verify(p, pk.data(), msg.data(), msg.size(), s3.data(), s3.size(), v().format()));
  // Another message fails, with R_VERIFY_FAILED.
  ERR_clear_error();
  EXPECT_FALSE(digest_verify(lib, key.get(), message(100, 8), s1));
  EXPECT_TRUE(provider_error(R_VERIFY_FAILED));
  // The public half alone verifies; it cannot sign.
  Pkey pub = from_data(lib, v().name, {}, pk);
  ASSERT_NE(pub, nullptr);
  EXPECT_TRUE(digest_verify(lib, pub.get(), msg, s1));
  EXPECT_EQ(EVP_PKEY_eq(pub.get(), key.get()), 1);
  ERR_clear_error();
  EXPECT_TRUE(digest_sign(lib, pub.get(), msg).empty());
  EXPECT_TRUE(provider_error(R_MISSING_KEY));
}

TEST_P(FalconProvider, StreamingDigestSignAndNoDigest) {
  Lib& lib = shared_lib();
  Pkey key = keygen(lib, v().name);
  ASSERT_NE(key, nullptr);
  const Bytes msg = message(300, 9);
  EVP_MD_CTX* m = EVP_MD_CTX_new();
  ASSERT_EQ(EVP_DigestSignInit_ex(m, nullptr, nullptr, lib.ctx, nullptr, key.get(), nullptr), 1);
  ASSERT_EQ(EVP_DigestSignUpdate(m, msg.data(), 100), 1);
  ASSERT_EQ(EVP_DigestSignUpdate(m, msg.data() + 100, 200), 1);
  Bytes sig(4096);
  size_t len = sig.size();
  ASSERT_EQ(EVP_DigestSignFinal(m, sig.data(), &len), 1);
  sig.resize(len);
  EVP_MD_CTX_free(m);
  EXPECT_TRUE(digest_verify(lib, key.get(), msg, sig));
  // A digest is refused by name.
  m = EVP_MD_CTX_new();
  ERR_clear_error();
  EXPECT_NE(EVP_DigestSignInit_ex(m, nullptr, "SHA256", lib.ctx, nullptr, key.get(), nullptr), 1);
  EXPECT_TRUE(provider_error(R_UNSUPPORTED_DIGEST));
  EVP_MD_CTX_free(m);
  // Pairwise check.
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_pkey(lib.ctx, key.get(), nullptr);
  EXPECT_EQ(EVP_PKEY_pairwise_check(c), 1);
  EVP_PKEY_CTX_free(c);
}

TEST_P(FalconProvider, MalformedSignaturesHaveNamedReasons) {
  Lib& lib = shared_lib();
  const falcon::Params& p = v().params();
  Pkey key = keygen(lib, v().name);
  ASSERT_NE(key, nullptr);
  const Bytes msg = message(50, 1);
  const Bytes sig = digest_sign(lib, key.get(), msg);
  ASSERT_FALSE(sig.empty());
  auto expect = [&](Bytes bad, int reason, const char* what) {
    ERR_clear_error();
    EXPECT_FALSE(digest_verify(lib, key.get(), msg, bad)) << what;
    EXPECT_TRUE(provider_error(reason)) << what;
  };
  Bytes b = sig;
  b[0] ^= 0x01;
  expect(b, R_BAD_FALCON_SIGNATURE_HEADER, "header");
  expect(Bytes(sig.begin(), sig.begin() + 41), R_BAD_FALCON_SIGNATURE_LENGTH, "nonce only");
  expect(Bytes(p.sig_max_bytes + 1, sig[0]), R_BAD_FALCON_SIGNATURE_LENGTH, "too long");
  if (v().padded) {
    // The padded format: any other length is wrong; a non-zero pad byte is trailing.
    expect(Bytes(sig.begin(), sig.end() - 1), R_BAD_FALCON_SIGNATURE_LENGTH, "short padded");
    b = sig;
    b.back() = 0x5a;
    expect(b, R_FALCON_SIGNATURE_TRAILING_BYTES, "padding");
  } else {
    b = sig;
    b.push_back(0x00);
    expect(b, R_FALCON_SIGNATURE_TRAILING_BYTES, "a byte after s2");
    expect(Bytes(sig.begin(), sig.begin() + 60), R_MALFORMED_FALCON_SIGNATURE, "s2 cut short");
  }
  // s2 of ones only: the unary part of every value runs past 2047.
  b = sig;
  std::fill(b.begin() + 41, b.end(), 0x00);
  b[41] = 0x7f;
  expect(b, R_MALFORMED_FALCON_SIGNATURE, "value over 2047");
  // A different variant's key is refused.
  const Variant& other = kVariants[(GetParam() + 2) % 4];
  Pkey wrong = keygen(lib, other.name);
  ASSERT_NE(wrong, nullptr);
  ERR_clear_error();
  EXPECT_FALSE(digest_verify(lib, wrong.get(), msg, sig));
}

TEST_P(FalconProvider, KeysImportAndNamedReasons) {
  Lib& lib = shared_lib();
  const falcon::Params& p = v().params();
  Pkey key = keygen(lib, v().name);
  ASSERT_NE(key, nullptr);
  const Bytes pk = octets(key.get(), OSSL_PKEY_PARAM_PUB_KEY), sk = octets(key.get(), OSSL_PKEY_PARAM_PRIV_KEY);
  // sk alone: the public key is derived.
  Pkey priv_only = from_data(lib, v().name, sk, {});
  ASSERT_NE(priv_only, nullptr);
  EXPECT_EQ(octets(priv_only.get(), OSSL_PKEY_PARAM_PUB_KEY), pk);
  EXPECT_EQ(EVP_PKEY_eq(priv_only.get(), key.get()), 1);
  Pkey dup(EVP_PKEY_dup(key.get()));
  ASSERT_NE(dup, nullptr);
  EXPECT_EQ(EVP_PKEY_eq(dup.get(), key.get()), 1);
  EXPECT_EQ(octets(dup.get(), OSSL_PKEY_PARAM_PRIV_KEY), sk);

  auto expect = [&](const Bytes& priv, const Bytes& pub, int reason, const char* what) {
    ERR_clear_error();
    EXPECT_EQ(from_data(lib, v().name, priv, pub), nullptr) << what;
    EXPECT_TRUE(provider_error(reason)) << what;
  };
  expect({}, Bytes(pk.begin(), pk.end() - 1), R_BAD_FALCON_KEY_LENGTH, "short pk");
  expect(Bytes(sk.begin(), sk.end() - 1), {}, R_BAD_FALCON_KEY_LENGTH, "short sk");
  Bytes b = pk;
  b[0] ^= 0x03;
  expect({}, b, R_BAD_FALCON_KEY, "pk header");
  b = pk;
  b[1] = 0xff;
  b[2] = 0xff;  // h[0] = 0x3fff >= q
  expect({}, b, R_BAD_FALCON_KEY, "h >= q");
  b = sk;
  b[0] ^= 0x01;
  expect(b, {}, R_BAD_FALCON_KEY, "sk header");
  // F (the last n bytes): one coefficient one off (kept inside [-127, 127]), f G - g F = q fails.
  b = sk;
  size_t i = p.sk_bytes - p.n;
  while (b[i] == 0x7f || b[i] == 0x81) ++i;
  b[i] = static_cast<uint8_t>(b[i] + 1);
  expect(b, {}, R_FALCON_F_MISMATCH, "F changed");
  // Another key's pk with this sk.
  Pkey other = keygen(lib, v().name);
  ASSERT_NE(other, nullptr);
  expect(sk, octets(other.get(), OSSL_PKEY_PARAM_PUB_KEY), R_PUB_PRIV_MISMATCH, "pk of another key");
}

TEST_P(FalconProvider, OqsProviderLayouts) {
  Lib& lib = shared_lib();
  Pkey key = keygen(lib, v().name);
  ASSERT_NE(key, nullptr);
  const Bytes pk = octets(key.get(), OSSL_PKEY_PARAM_PUB_KEY), sk = octets(key.get(), OSSL_PKEY_PARAM_PRIV_KEY);
  const Bytes spki = tlv(0x30, cat({tlv(0x30, v().oid), tlv(0x03, cat({{0x00}, pk}))}));
  auto pkcs8 = [&](const Bytes& payload) {
    return tlv(0x30, cat({tlv(0x02, {0x00}), tlv(0x30, v().oid), tlv(0x04, payload)}));
  };
  EXPECT_EQ(encode(key.get(), EVP_PKEY_PUBLIC_KEY, "SubjectPublicKeyInfo"), spki);
  EXPECT_EQ(encode(key.get(), EVP_PKEY_KEYPAIR, "PrivateKeyInfo"), pkcs8(tlv(0x04, cat({sk, pk}))));
  Pkey pub = decode(lib, spki, "SubjectPublicKeyInfo", EVP_PKEY_PUBLIC_KEY);
  ASSERT_NE(pub, nullptr);
  EXPECT_EQ(EVP_PKEY_eq(pub.get(), key.get()), 1);
  for (const Bytes& payload : {tlv(0x04, cat({sk, pk})), tlv(0x04, sk), cat({sk, pk}), sk}) {
    Pkey k = decode(lib, pkcs8(payload), "PrivateKeyInfo", EVP_PKEY_KEYPAIR);
    ASSERT_NE(k, nullptr) << payload.size();
    EXPECT_EQ(octets(k.get(), OSSL_PKEY_PARAM_PRIV_KEY), sk);
    EXPECT_EQ(octets(k.get(), OSSL_PKEY_PARAM_PUB_KEY), pk);
  }
  ERR_clear_error();
  EXPECT_EQ(decode(lib, pkcs8(tlv(0x04, cat({sk, pk, {0}}))), "PrivateKeyInfo", EVP_PKEY_KEYPAIR), nullptr);
  EXPECT_TRUE(provider_error(R_BAD_FALCON_KEY_LENGTH));
}

INSTANTIATE_TEST_SUITE_P(Variants, FalconProvider, testing::Range(0, 4), [](const testing::TestParamInfo<int>& i) {
  return std::string(kVariants[i.param].name);
});

// --- TLS 1.3 code points ---------------------------------------------------------

std::vector<std::string> tls_sigalgs(OSSL_PROVIDER* prov) {
  std::vector<std::string> names;
  OSSL_PROVIDER_get_capabilities(
      prov, "TLS-SIGALG",
      [](const OSSL_PARAM params[], void* arg) -> int {
        const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, "tls-sigalg-iana-name");
        const OSSL_PARAM* cp = OSSL_PARAM_locate_const(params, "tls-sigalg-code-point");
        const OSSL_PARAM* oid = OSSL_PARAM_locate_const(params, "tls-sigalg-oid");
        const char* s = nullptr;
        const char* o = nullptr;
        unsigned int code = 0;
        if (p && OSSL_PARAM_get_utf8_string_ptr(p, &s) && cp && OSSL_PARAM_get_uint(cp, &code) && oid &&
            OSSL_PARAM_get_utf8_string_ptr(oid, &o) && std::strncmp(s, "falcon", 6) == 0) {
          char buf[16];
          std::snprintf(buf, sizeof buf, "=%04x ", code);
          static_cast<std::vector<std::string>*>(arg)->push_back(std::string(s) + buf + o);
        }
        return 1;
      },
      &names);
  return names;
}

// Off by default; tls_falcon = yes offers oqs-provider's code points with their OIDs.
TEST(FalconTls, CodePointsOnlyWithTheSetting) {
  EXPECT_TRUE(tls_sigalgs(shared_lib().mldsa).empty());
  setenv("MLDSA_ACCEL_TLS_FALCON", "yes", 1);
  OSSL_LIB_CTX* lib = OSSL_LIB_CTX_new();
  ASSERT_EQ(OSSL_PROVIDER_set_default_search_path(lib, MLDSA_PROVIDER_DIR), 1);
  OSSL_PROVIDER* on = OSSL_PROVIDER_load(lib, "mldsa-accel");
  unsetenv("MLDSA_ACCEL_TLS_FALCON");
  ASSERT_NE(on, nullptr);
  const std::vector<std::string> want = {"falcon512=fed7 1.3.9999.3.11", "falconpadded512=fedc 1.3.9999.3.16",
                                         "falcon1024=feda 1.3.9999.3.14", "falconpadded1024=fedf 1.3.9999.3.19"};
  EXPECT_EQ(tls_sigalgs(on), want);
  OSSL_PROVIDER_unload(on);
  OSSL_LIB_CTX_free(lib);
}

// --- the reference signature ----------------------------------------------------

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

Bytes unhex(const std::string& s) {
  Bytes r;
  for (size_t i = 0; i + 1 < s.size(); i += 2) r.push_back(static_cast<uint8_t>(std::stoi(s.substr(i, 2), nullptr, 16)));
  return r;
}

// NIST KAT entry 0 as liboqs signs it with Falcon-512 (made by PQClean, not by this
// project): its message is the 33 bytes after the 48-byte seed of the KAT DRBG seeded
// with 0, 1, ..., 47.
TEST(FalconReference, Kat0VerifiesThroughTheProvider) {
  const auto v = load(std::string(MLDSA_ACVP_VECTOR_DIR) + "/falcon/falcon512_kat0.txt");
  ASSERT_EQ(v.count("pk"), 1u);
  ASSERT_EQ(v.count("sig"), 1u);
  const Bytes pk = unhex(v.at("pk")), sig = unhex(v.at("sig"));
  std::array<uint8_t, 48> e;
  for (int i = 0; i < 48; ++i) e[i] = static_cast<uint8_t>(i);
  mldsa::test::NistKatDrbg d(e);
  Bytes seed(48), msg(33);
  d.generate(seed.data(), 48);
  d.generate(msg.data(), 33);
  Lib& lib = shared_lib();
  Pkey key = from_data(lib, "falcon512", {}, pk);
  ASSERT_NE(key, nullptr);
  EXPECT_TRUE(digest_verify(lib, key.get(), msg, sig));
  EXPECT_TRUE(pkey_verify(lib, key.get(), msg, sig));
  msg[0] ^= 1;
  EXPECT_FALSE(digest_verify(lib, key.get(), msg, sig));
  // The same key by OID (oqs-provider's 1.3.9999.3.11).
  Pkey by_oid = from_data(lib, "1.3.9999.3.11", {}, pk);
  EXPECT_NE(by_oid, nullptr);
}

}  // namespace
