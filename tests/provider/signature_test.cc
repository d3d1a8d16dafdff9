// signature_test.cc - signing and verifying through EVP and through the
// module's dispatch table: every entry point and parameter, the answers of
// the core for the same inputs, and every rejected input.
#include "tests/provider/provider_fixture.h"

#include <atomic>
#include <functional>
#include <memory>
#include <thread>

namespace mldsa::test {
namespace {

const uint8_t kZeros[RND_BYTES] = {};

std::vector<uint8_t> message(size_t n, uint8_t tag = 1) {
  std::vector<uint8_t> m(n);
  for (size_t i = 0; i < n; ++i) m[i] = static_cast<uint8_t>(i * 13 + tag);
  return m;
}

class Signature : public ProviderTest {
 protected:
  void SetUp() override {
    ProviderTest::SetUp();
    md_ = EVP_MD_CTX_new();
  }
  void TearDown() override {
    EVP_MD_CTX_free(md_);
    ProviderTest::TearDown();
  }

  std::unique_ptr<PrivateKey> core_key(ParamSet set, const std::vector<uint8_t>& seed) {
    std::unique_ptr<PrivateKey> k;
    EXPECT_EQ(PrivateKey::from_seed(params(set), seed, k), Status::ok);
    return k;
  }

  // EVP_DigestSign one-shot with optional params; empty on failure.
  std::vector<uint8_t> digest_sign(EVP_PKEY* pkey, const std::vector<uint8_t>& msg, const OSSL_PARAM* p = nullptr) {
    EVP_MD_CTX_reset(md_);
    if (EVP_DigestSignInit_ex(md_, nullptr, nullptr, libctx_, nullptr, pkey, p) != 1) return {};
    size_t len = 0;
    if (EVP_DigestSign(md_, nullptr, &len, msg.data(), msg.size()) != 1) return {};
    std::vector<uint8_t> sig(len);
    if (EVP_DigestSign(md_, sig.data(), &len, msg.data(), msg.size()) != 1) return {};
    sig.resize(len);
    return sig;
  }

  int digest_verify(EVP_PKEY* pkey, const std::vector<uint8_t>& msg, const std::vector<uint8_t>& sig,
                    const OSSL_PARAM* p = nullptr) {
    EVP_MD_CTX_reset(md_);
    if (EVP_DigestVerifyInit_ex(md_, nullptr, nullptr, libctx_, nullptr, pkey, p) != 1) return -1;
    return EVP_DigestVerify(md_, sig.data(), sig.size(), msg.data(), msg.size());
  }

  EVP_MD_CTX* md_ = nullptr;
};

// Deterministic signing with a context equals the core's ML-DSA.Sign.
TEST_F(Signature, DeterministicEqualsCore) {
  for (ParamSet set : kSets) {
    SCOPED_TRACE(params(set).name);
    const auto seed = seed_of(20);
    EVP_PKEY* pkey = keygen(set, seed);
    ASSERT_NE(pkey, nullptr);
    auto ref = core_key(set, seed);
    const auto msg = message(100);
    std::vector<uint8_t> ctx = {'c', 't', 'x'};
    int det = 1;
    OSSL_PARAM p[] = {
        OSSL_PARAM_octet_string("context-string", ctx.data(), ctx.size()),
        OSSL_PARAM_int("deterministic", &det),
        OSSL_PARAM_END,
    };
    const auto sig = digest_sign(pkey, msg, p);
    ASSERT_EQ(sig.size(), params(set).sig_bytes) << last_reason();
    std::vector<uint8_t> expect(params(set).sig_bytes);
    ASSERT_EQ(mldsa::sign(*ref, msg, ctx, kZeros, expect.data()), Status::ok);
    EXPECT_EQ(sig, expect);
    EXPECT_EQ(digest_verify(pkey, msg, sig, p), 1);
    EXPECT_EQ(mldsa::verify(ref->public_key(), msg, ctx, sig), Status::ok);
    EVP_PKEY_free(pkey);
  }
}

TEST_F(Signature, HedgedByDefault) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed_of(21));
  const auto msg = message(32);
  const auto a = digest_sign(pkey, msg), b = digest_sign(pkey, msg);
  ASSERT_FALSE(a.empty());
  EXPECT_NE(a, b);
  EXPECT_EQ(digest_verify(pkey, msg, a), 1);
  EXPECT_EQ(digest_verify(pkey, msg, b), 1);
  EVP_PKEY_free(pkey);
}

TEST_F(Signature, TestEntropyEqualsCore) {
  const auto seed = seed_of(22);
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_65, seed);
  auto ref = core_key(ParamSet::ML_DSA_65, seed);
  const auto msg = message(77);
  std::vector<uint8_t> rnd(RND_BYTES, 0x5a);
  OSSL_PARAM p[] = {OSSL_PARAM_octet_string("test-entropy", rnd.data(), rnd.size()), OSSL_PARAM_END};
  std::vector<uint8_t> expect(params(ParamSet::ML_DSA_65).sig_bytes);
  ASSERT_EQ(mldsa::sign(*ref, msg, {}, rnd.data(), expect.data()), Status::ok);
  EXPECT_EQ(digest_sign(pkey, msg, p), expect);

  std::vector<uint8_t> short_rnd(31, 1);
  OSSL_PARAM bad[] = {OSSL_PARAM_octet_string("test-entropy", short_rnd.data(), short_rnd.size()), OSSL_PARAM_END};
  ERR_clear_error();
  EXPECT_TRUE(digest_sign(pkey, msg, bad).empty());
  EXPECT_TRUE(raised("test-entropy must be 32 bytes"));
  EVP_PKEY_free(pkey);
}

// Streaming in uneven chunks gives the one-shot signature (deterministic).
TEST_F(Signature, StreamingEqualsOneShot) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_87, seed_of(23));
  const auto msg = message(10000);
  int det = 1;
  OSSL_PARAM p[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_END};
  const auto oneshot = digest_sign(pkey, msg, p);
  ASSERT_FALSE(oneshot.empty());

  ASSERT_EQ(EVP_DigestSignInit_ex(md_, nullptr, nullptr, libctx_, nullptr, pkey, p), 1);
  size_t off = 0;
  for (size_t chunk = 1; off < msg.size(); chunk = chunk * 3 + 1) {
    const size_t n = std::min(chunk, msg.size() - off);
    ASSERT_EQ(EVP_DigestSignUpdate(md_, msg.data() + off, n), 1);
    off += n;
  }
  size_t len = 0;
  ASSERT_EQ(EVP_DigestSignFinal(md_, nullptr, &len), 1);
  EXPECT_EQ(len, oneshot.size());
  std::vector<uint8_t> sig(len);
  // Not finalised: EVP duplicates the context (dupctx), so Final works twice.
  ASSERT_EQ(EVP_DigestSignFinal(md_, sig.data(), &len), 1) << last_reason();
  EXPECT_EQ(sig, oneshot);
  std::vector<uint8_t> again(len);
  ASSERT_EQ(EVP_DigestSignFinal(md_, again.data(), &len), 1);
  EXPECT_EQ(again, oneshot);

  ASSERT_EQ(EVP_DigestVerifyInit_ex(md_, nullptr, nullptr, libctx_, nullptr, pkey, nullptr), 1);
  ASSERT_EQ(EVP_DigestVerifyUpdate(md_, msg.data(), 5000), 1);
  ASSERT_EQ(EVP_DigestVerifyUpdate(md_, msg.data() + 5000, msg.size() - 5000), 1);
  EXPECT_EQ(EVP_DigestVerifyFinal(md_, sig.data(), sig.size()), 1);
  EVP_PKEY_free(pkey);
}

// EVP_MD_CTX_copy_ex mid-stream: both copies go on independently.
TEST_F(Signature, CopyMidStream) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed_of(24));
  int det = 1;
  OSSL_PARAM p[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_END};
  ASSERT_EQ(EVP_DigestSignInit_ex(md_, nullptr, nullptr, libctx_, nullptr, pkey, p), 1);
  ASSERT_EQ(EVP_DigestSignUpdate(md_, "abc", 3), 1);
  EVP_MD_CTX* copy = EVP_MD_CTX_new();
  ASSERT_EQ(EVP_MD_CTX_copy_ex(copy, md_), 1);
  ASSERT_EQ(EVP_DigestSignUpdate(md_, "def", 3), 1);
  ASSERT_EQ(EVP_DigestSignUpdate(copy, "xyz", 3), 1);
  std::vector<uint8_t> a(params(ParamSet::ML_DSA_44).sig_bytes), b(a.size());
  size_t la = a.size(), lb = b.size();
  ASSERT_EQ(EVP_DigestSignFinal(md_, a.data(), &la), 1);
  ASSERT_EQ(EVP_DigestSignFinal(copy, b.data(), &lb), 1);
  EVP_MD_CTX_free(copy);
  EXPECT_EQ(a, digest_sign(pkey, {'a', 'b', 'c', 'd', 'e', 'f'}, p));
  EXPECT_EQ(b, digest_sign(pkey, {'a', 'b', 'c', 'x', 'y', 'z'}, p));
  EVP_PKEY_free(pkey);
}

// EVP_PKEY_sign / EVP_PKEY_verify (what `openssl pkeyutl` without -rawin uses).
TEST_F(Signature, PkeySignVerify) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_65, seed_of(25));
  const auto msg = message(64);
  int det = 1;
  OSSL_PARAM p[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_END};
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(libctx_, pkey, nullptr);
  ASSERT_EQ(EVP_PKEY_sign_init(ctx), 1);
  ASSERT_EQ(EVP_PKEY_CTX_set_params(ctx, p), 1);
  size_t len = 0;
  ASSERT_EQ(EVP_PKEY_sign(ctx, nullptr, &len, msg.data(), msg.size()), 1);
  ASSERT_EQ(len, params(ParamSet::ML_DSA_65).sig_bytes);
  std::vector<uint8_t> sig(len);
  ASSERT_EQ(EVP_PKEY_sign(ctx, sig.data(), &len, msg.data(), msg.size()), 1);
  EXPECT_EQ(sig, digest_sign(pkey, msg, p));
  // Too small an output buffer.
  size_t small = len - 1;
  ERR_clear_error();
  EXPECT_NE(EVP_PKEY_sign(ctx, sig.data(), &small, msg.data(), msg.size()), 1);
  EXPECT_TRUE(raised("output buffer too small"));

  ASSERT_EQ(EVP_PKEY_verify_init(ctx), 1);
  EXPECT_EQ(EVP_PKEY_verify(ctx, sig.data(), sig.size(), msg.data(), msg.size()), 1);
  sig[10] ^= 1;
  ERR_clear_error();
  EXPECT_EQ(EVP_PKEY_verify(ctx, sig.data(), sig.size(), msg.data(), msg.size()), 0);
  EVP_PKEY_CTX_free(ctx);
  EVP_PKEY_free(pkey);
}

TEST_F(Signature, VerifyRejections) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed_of(26));
  const auto msg = message(50);
  std::vector<uint8_t> ctx = {1, 2, 3};
  OSSL_PARAM p[] = {OSSL_PARAM_octet_string("context-string", ctx.data(), ctx.size()), OSSL_PARAM_END};
  const auto sig = digest_sign(pkey, msg, p);
  ASSERT_EQ(digest_verify(pkey, msg, sig, p), 1);

  ERR_clear_error();
  EXPECT_EQ(digest_verify(pkey, msg, sig), 0) << "other context";
  EXPECT_TRUE(raised("signature verification failed"));

  auto corrupt = sig;
  corrupt[100] ^= 0x40;
  EXPECT_EQ(digest_verify(pkey, msg, corrupt, p), 0);

  auto other_msg = msg;
  other_msg[0] ^= 1;
  EXPECT_EQ(digest_verify(pkey, other_msg, sig, p), 0);

  for (size_t len : {size_t{0}, sig.size() - 1, sig.size() + 1}) {
    std::vector<uint8_t> s(sig.begin(), sig.begin() + std::min(len, sig.size()));
    s.resize(len);
    ERR_clear_error();
    EXPECT_EQ(digest_verify(pkey, msg, s, p), 0) << len;
    EXPECT_TRUE(raised("wrong length for an ML-DSA signature")) << len;
  }
  EVP_PKEY_free(pkey);
}

TEST_F(Signature, ContextStringLimits) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed_of(27));
  const auto msg = message(10);
  std::vector<uint8_t> ctx255(255, 'c'), ctx256(256, 'c');
  OSSL_PARAM ok[] = {OSSL_PARAM_octet_string("context-string", ctx255.data(), ctx255.size()), OSSL_PARAM_END};
  const auto sig = digest_sign(pkey, msg, ok);
  ASSERT_FALSE(sig.empty());
  EXPECT_EQ(digest_verify(pkey, msg, sig, ok), 1);

  OSSL_PARAM too_long[] = {OSSL_PARAM_octet_string("context-string", ctx256.data(), ctx256.size()), OSSL_PARAM_END};
  ERR_clear_error();
  EXPECT_TRUE(digest_sign(pkey, msg, too_long).empty());
  EXPECT_TRUE(raised("context string longer than 255 bytes"));

  // Set after init through the EVP_PKEY_CTX, as `openssl pkeyutl -pkeyopt` does.
  EVP_PKEY_CTX* pctx = nullptr;
  ASSERT_EQ(EVP_DigestSignInit_ex(md_, &pctx, nullptr, libctx_, nullptr, pkey, nullptr), 1);
  ERR_clear_error();
  EXPECT_NE(EVP_PKEY_CTX_set_params(pctx, too_long), 1);
  EXPECT_TRUE(raised("context string longer than 255 bytes"));
  EVP_PKEY_free(pkey);
}

TEST_F(Signature, ContextFixedOnceDataArrives) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed_of(28));
  EVP_PKEY_CTX* pctx = nullptr;
  ASSERT_EQ(EVP_DigestSignInit_ex(md_, &pctx, nullptr, libctx_, nullptr, pkey, nullptr), 1);
  ASSERT_EQ(EVP_DigestSignUpdate(md_, "abc", 3), 1);
  uint8_t c = 1;
  OSSL_PARAM p[] = {OSSL_PARAM_octet_string("context-string", &c, 1), OSSL_PARAM_END};
  ERR_clear_error();
  EXPECT_NE(EVP_PKEY_CTX_set_params(pctx, p), 1);
  EXPECT_TRUE(raised("signature parameter set after message data"));
  EVP_PKEY_free(pkey);
}

// message-encoding 0: the input is M' itself (ML-DSA.Sign_internal).
TEST_F(Signature, RawMessageEncoding) {
  const auto seed = seed_of(29);
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_65, seed);
  auto ref = core_key(ParamSet::ML_DSA_65, seed);
  const auto msg = message(40);
  int det = 1, raw = 0, bad = 2;
  OSSL_PARAM p[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_int("message-encoding", &raw), OSSL_PARAM_END};
  std::vector<uint8_t> expect(params(ParamSet::ML_DSA_65).sig_bytes);
  ASSERT_EQ(mldsa::sign_internal(*ref, msg, kZeros, expect.data()), Status::ok);
  const auto sig = digest_sign(pkey, msg, p);
  EXPECT_EQ(sig, expect);
  EXPECT_EQ(digest_verify(pkey, msg, sig, p), 1);
  EXPECT_EQ(digest_verify(pkey, msg, sig), 0);  // pure encoding differs

  OSSL_PARAM wrong[] = {OSSL_PARAM_int("message-encoding", &bad), OSSL_PARAM_END};
  ERR_clear_error();
  EXPECT_TRUE(digest_sign(pkey, msg, wrong).empty());
  EXPECT_TRUE(raised("message-encoding must be 0 (raw) or 1 (pure)"));
  EVP_PKEY_free(pkey);
}

// mu = 1: the input is the 64-byte mu (external mu).
TEST_F(Signature, ExternalMu) {
  const auto seed = seed_of(30);
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_87, seed);
  auto ref = core_key(ParamSet::ML_DSA_87, seed);
  const auto msg = message(33);
  MuBuilder b;
  ASSERT_EQ(b.init_pure(ref->public_key().tr(), {}), Status::ok);
  b.update(msg);
  std::vector<uint8_t> mu(MU_BYTES);
  b.final(mu.data());

  int det = 1, one = 1;
  OSSL_PARAM p[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_int("mu", &one), OSSL_PARAM_END};
  const auto sig = digest_sign(pkey, mu, p);
  std::vector<uint8_t> expect(params(ParamSet::ML_DSA_87).sig_bytes);
  ASSERT_EQ(mldsa::sign_mu(*ref, mu, kZeros, expect.data()), Status::ok);
  EXPECT_EQ(sig, expect);
  // Same as signing the message itself.
  OSSL_PARAM det_only[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_END};
  EXPECT_EQ(digest_sign(pkey, msg, det_only), sig);
  EXPECT_EQ(digest_verify(pkey, mu, sig, p), 1);

  std::vector<uint8_t> short_mu(mu.begin(), mu.end() - 1);
  ERR_clear_error();
  EXPECT_TRUE(digest_sign(pkey, short_mu, p).empty());
  EXPECT_TRUE(raised("mu must be 64 bytes"));
  EVP_PKEY_free(pkey);
}

// A context string with message-encoding 0 (the input is M') or mu 1 (the
// input is mu) is accepted and not used, as OpenSSL 3.5's own ML-DSA does
// (checked with its CLI: the same signature with and without one).
TEST_F(Signature, ContextIgnoredForRawAndMuInput) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed_of(31));
  const auto msg = message(64);
  uint8_t ctx_bytes[] = {'a', 'b', 'c'};
  int det = 1, zero = 0, one = 1;
  for (const char* name : {"message-encoding", "mu"}) {
    int* value = std::string(name) == "mu" ? &one : &zero;
    OSSL_PARAM plain[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_int(name, value), OSSL_PARAM_END};
    OSSL_PARAM with_ctx[] = {OSSL_PARAM_int("deterministic", &det), OSSL_PARAM_int(name, value),
                             OSSL_PARAM_octet_string("context-string", ctx_bytes, sizeof ctx_bytes), OSSL_PARAM_END};
    const auto a = digest_sign(pkey, msg, plain);
    const auto b = digest_sign(pkey, msg, with_ctx);
    ASSERT_FALSE(a.empty()) << name;
    EXPECT_EQ(a, b) << name;
    EXPECT_EQ(digest_verify(pkey, msg, a, with_ctx), 1) << name;
  }
  EVP_PKEY_free(pkey);
}

// Every settable parameter given with the wrong type is refused with a
// reason naming it, not a bare 0.
TEST_F(Signature, WrongTypedParametersAreNamed) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_65, seed_of(32));
  char text[] = "1";
  int number = 1;
  struct Case {
    const char* name;
    bool as_text;  // else as an int
  };
  const Case cases[] = {{"context-string", true}, {"deterministic", true},  {"test-entropy", true},
                        {"mu", true},             {"message-encoding", true}, {"signature", false},
                        {"context-string", false}};
  for (const Case& c : cases) {
    EVP_PKEY_CTX* pctx = nullptr;
    EVP_MD_CTX_reset(md_);
    ASSERT_EQ(EVP_DigestSignInit_ex(md_, &pctx, nullptr, libctx_, nullptr, pkey, nullptr), 1);
    OSSL_PARAM p[] = {c.as_text ? OSSL_PARAM_construct_utf8_string(c.name, text, 1)
                                : OSSL_PARAM_construct_int(c.name, &number),
                      OSSL_PARAM_END};
    ERR_clear_error();
    EXPECT_NE(EVP_PKEY_CTX_set_params(pctx, p), 1) << c.name;
    const unsigned long e = ERR_peek_last_error();
    const char* data = nullptr;
    int flags = 0;
    ERR_peek_last_error_data(&data, &flags);
    EXPECT_NE(data != nullptr ? std::string(data).find(c.name) : std::string::npos, std::string::npos)
        << c.name << ": " << (data ? data : "(no data)");
    EXPECT_TRUE(raised("parameter of the wrong type")) << c.name << " " << e;
  }
  EVP_PKEY_free(pkey);
}

TEST_F(Signature, DigestNameRefused) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed_of(31));
  for (const char* md : {"SHA256", "SHA2-512", "SHA3-256"}) {
    ERR_clear_error();
    EXPECT_EQ(EVP_DigestSignInit_ex(md_, nullptr, md, libctx_, nullptr, pkey, nullptr), 0) << md;
    EXPECT_TRUE(raised("unsupported digest for ML-DSA")) << md;
    EVP_MD_CTX_reset(md_);
  }
  EVP_PKEY_free(pkey);
}

TEST_F(Signature, PublicKeyCannotSign) {
  EVP_PKEY* full = keygen(ParamSet::ML_DSA_44, seed_of(32));
  EVP_PKEY* pub = fromdata(ParamSet::ML_DSA_44, {}, {}, octets(full, "pub"), EVP_PKEY_PUBLIC_KEY);
  ASSERT_NE(pub, nullptr);
  ERR_clear_error();
  EXPECT_NE(EVP_DigestSignInit_ex(md_, nullptr, nullptr, libctx_, nullptr, pub, nullptr), 1);
  EXPECT_TRUE(raised("no key, or the key lacks the part the operation needs"));
  // It verifies what the full key signs.
  const auto msg = message(20);
  const auto sig = digest_sign(full, msg);
  EXPECT_EQ(digest_verify(pub, msg, sig), 1);
  EVP_PKEY_free(pub);
  EVP_PKEY_free(full);
}

// What `openssl req/x509` read right after DigestSignInit.
TEST_F(Signature, AlgorithmIdentifier) {
  const uint8_t arc[] = {17, 18, 19};
  for (size_t i = 0; i < 3; ++i) {
    EVP_PKEY* pkey = keygen(kSets[i], seed_of(33));
    EVP_PKEY_CTX* pctx = nullptr;
    EVP_MD_CTX_reset(md_);
    ASSERT_EQ(EVP_DigestSignInit_ex(md_, &pctx, nullptr, libctx_, nullptr, pkey, nullptr), 1);
    uint8_t aid[64];
    OSSL_PARAM p[] = {OSSL_PARAM_octet_string("algorithm-id", aid, sizeof aid), OSSL_PARAM_END};
    ASSERT_EQ(EVP_PKEY_CTX_get_params(pctx, p), 1);
    const std::vector<uint8_t> expect = {0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, arc[i]};
    EXPECT_EQ(std::vector<uint8_t>(aid, aid + p[0].return_size), expect);
    EVP_PKEY_free(pkey);
  }
}

TEST_F(Signature, SettableAndGettableLists) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed_of(34));
  EVP_PKEY_CTX* pctx = nullptr;
  ASSERT_EQ(EVP_DigestSignInit_ex(md_, &pctx, nullptr, libctx_, nullptr, pkey, nullptr), 1);
  const OSSL_PARAM* settable = EVP_PKEY_CTX_settable_params(pctx);
  for (const char* k : {"context-string", "deterministic", "test-entropy", "mu", "message-encoding", "signature"})
    EXPECT_NE(OSSL_PARAM_locate_const(settable, k), nullptr) << k;
  EXPECT_NE(OSSL_PARAM_locate_const(EVP_PKEY_CTX_gettable_params(pctx), "algorithm-id"), nullptr);
  // -pkeyopt style text parameters.
  EXPECT_EQ(EVP_PKEY_CTX_ctrl_str(pctx, "context-string", "hello"), 1);
  EXPECT_EQ(EVP_PKEY_CTX_ctrl_str(pctx, "hexcontext-string", "00ff"), 1);
  EXPECT_EQ(EVP_PKEY_CTX_ctrl_str(pctx, "deterministic", "1"), 1);
  EVP_PKEY_free(pkey);
}

// ---------------------------------------------------------------------------
// Entry points a 3.4+ core calls (sign_message_*, verify_message_*), and the
// HashML-DSA algorithms, driven through the module's dispatch table.

class SignatureDispatch : public Signature {
 protected:
  struct Fns {
    OSSL_FUNC_signature_newctx_fn* newctx;
    OSSL_FUNC_signature_freectx_fn* freectx;
    OSSL_FUNC_signature_sign_init_fn* sign_init;
    OSSL_FUNC_signature_sign_fn* sign;
    OSSL_FUNC_signature_verify_init_fn* verify_init;
    OSSL_FUNC_signature_verify_fn* verify;
    OSSL_FUNC_signature_set_ctx_params_fn* set_params;
    OSSL_FUNC_signature_get_ctx_params_fn* get_params;
    // 3.4+: same shapes as sign_init / digest_sign_update / digest_sign_final.
    OSSL_FUNC_signature_sign_init_fn* sign_message_init;
    OSSL_FUNC_signature_digest_sign_update_fn* sign_message_update;
    OSSL_FUNC_signature_digest_sign_final_fn* sign_message_final;
    OSSL_FUNC_signature_verify_init_fn* verify_message_init;
    OSSL_FUNC_signature_digest_verify_update_fn* verify_message_update;
    int (*verify_message_final)(void*);
    const char** (*query_key_types)(void);
  };

  Fns fns(const char* name) {
    Dispatch d(prov_, OSSL_OP_SIGNATURE, name);
    EXPECT_TRUE(d.found()) << name;
    return {d.get<OSSL_FUNC_signature_newctx_fn>(OSSL_FUNC_SIGNATURE_NEWCTX),
            d.get<OSSL_FUNC_signature_freectx_fn>(OSSL_FUNC_SIGNATURE_FREECTX),
            d.get<OSSL_FUNC_signature_sign_init_fn>(OSSL_FUNC_SIGNATURE_SIGN_INIT),
            d.get<OSSL_FUNC_signature_sign_fn>(OSSL_FUNC_SIGNATURE_SIGN),
            d.get<OSSL_FUNC_signature_verify_init_fn>(OSSL_FUNC_SIGNATURE_VERIFY_INIT),
            d.get<OSSL_FUNC_signature_verify_fn>(OSSL_FUNC_SIGNATURE_VERIFY),
            d.get<OSSL_FUNC_signature_set_ctx_params_fn>(OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS),
            d.get<OSSL_FUNC_signature_get_ctx_params_fn>(OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS),
            d.get<OSSL_FUNC_signature_sign_init_fn>(27),
            d.get<OSSL_FUNC_signature_digest_sign_update_fn>(28),
            d.get<OSSL_FUNC_signature_digest_sign_final_fn>(29),
            d.get<OSSL_FUNC_signature_verify_init_fn>(30),
            d.get<OSSL_FUNC_signature_digest_verify_update_fn>(31),
            d.get<int(void*)>(32),
            d.get<const char**(void)>(26)};
  }

  void* provctx() { return OSSL_PROVIDER_get0_provider_ctx(prov_); }

  // sign_message_init / update (in two pieces) / final.
  std::vector<uint8_t> sign_message(const Fns& f, void* key, const std::vector<uint8_t>& msg, const OSSL_PARAM* p) {
    void* c = f.newctx(provctx(), nullptr);
    std::vector<uint8_t> sig(MAX_SIG_BYTES);
    size_t len = 0;
    const size_t half = msg.size() / 2;
    bool ok = f.sign_message_init(c, key, p) == 1 && f.sign_message_update(c, msg.data(), half) == 1 &&
              f.sign_message_update(c, msg.data() + half, msg.size() - half) == 1 &&
              f.sign_message_final(c, sig.data(), &len, sig.size()) == 1;
    f.freectx(c);
    sig.resize(ok ? len : 0);
    return sig;
  }

  int verify_message(const Fns& f, void* key, const std::vector<uint8_t>& msg, std::vector<uint8_t> sig,
                     const OSSL_PARAM* p) {
    void* c = f.newctx(provctx(), nullptr);
    OSSL_PARAM s[] = {OSSL_PARAM_octet_string("signature", sig.data(), sig.size()), OSSL_PARAM_END};
    int r = f.verify_message_init(c, key, p) == 1 && f.set_params(c, s) == 1 &&
            f.verify_message_update(c, msg.data(), msg.size()) == 1 && f.verify_message_final(c) == 1;
    f.freectx(c);
    return r;
  }
};

TEST_F(SignatureDispatch, MessageApiEqualsDigestSign) {
  for (ParamSet set : kSets) {
    SCOPED_TRACE(params(set).name);
    const auto seed = seed_of(40);
    RawKey key(prov_, set, seed);
    ASSERT_NE(key.get(), nullptr);
    EVP_PKEY* pkey = keygen(set, seed);
    Fns f = fns(params(set).name);
    ASSERT_NE(f.sign_message_init, nullptr);
    ASSERT_NE(f.verify_message_final, nullptr);
    const auto msg = message(500);
    std::vector<uint8_t> ctx = {'m'};
    int det = 1;
    OSSL_PARAM p[] = {OSSL_PARAM_int("deterministic", &det),
                      OSSL_PARAM_octet_string("context-string", ctx.data(), ctx.size()), OSSL_PARAM_END};
    const auto sig = sign_message(f, key.get(), msg, p);
    ASSERT_EQ(sig.size(), params(set).sig_bytes) << last_reason();
    EXPECT_EQ(sig, digest_sign(pkey, msg, p));
    EXPECT_EQ(verify_message(f, key.get(), msg, sig, p), 1);
    auto bad = sig;
    bad[7] ^= 2;
    EXPECT_EQ(verify_message(f, key.get(), msg, bad, p), 0);
    const char** types = f.query_key_types();
    ASSERT_NE(types, nullptr);
    EXPECT_STREQ(types[0], params(set).name);
    EVP_PKEY_free(pkey);
  }
}

TEST_F(SignatureDispatch, WrongKeyType) {
  RawKey key65(prov_, ParamSet::ML_DSA_65, seed_of(41));
  Fns f = fns("ML-DSA-44");
  void* c = f.newctx(provctx(), nullptr);
  ERR_clear_error();
  EXPECT_EQ(f.sign_init(c, key65.get(), nullptr), 0);
  EXPECT_TRUE(raised("key is not of this ML-DSA parameter set"));
  // A context never initialised refuses to sign.
  uint8_t sig[MAX_SIG_BYTES];
  size_t len = 0;
  ERR_clear_error();
  EXPECT_EQ(f.sign(c, sig, &len, sizeof sig, sig, 1), 0);
  EXPECT_TRUE(raised("operation not initialized"));
  f.freectx(c);
}

// Every parameter the signature code reads, given with NULL data (and, for
// the string types, a non-zero size) or as a pointer type whose pointer is
// NULL, on every entry point that takes parameters: refused with a reason
// that names the parameter, never a crash. (OpenSSL's getters dereference
// NULL data of an integer or a pointer type, and hand NULL octet-string data
// on with its size.)
TEST_F(SignatureDispatch, NullParameterDataIsNamed) {
  const auto seed = seed_of(43);
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_44, seed);
  ASSERT_NE(pkey, nullptr);
  RawKey key(prov_, ParamSet::ML_DSA_44, seed);
  Fns f = fns("ML-DSA-44");
  ASSERT_NE(f.sign_message_init, nullptr);
  struct Case {
    const char* name;
    unsigned int type;
    size_t size;
  };
  const Case cases[] = {
      {"context-string", OSSL_PARAM_OCTET_STRING, 3}, {"test-entropy", OSSL_PARAM_OCTET_STRING, RND_BYTES},
      {"signature", OSSL_PARAM_OCTET_STRING, 2420},   {"context-string", OSSL_PARAM_OCTET_PTR, 3},
      {"signature", OSSL_PARAM_OCTET_PTR, 0},         {"deterministic", OSSL_PARAM_INTEGER, sizeof(int)},
      {"mu", OSSL_PARAM_INTEGER, sizeof(int)},        {"message-encoding", OSSL_PARAM_UNSIGNED_INTEGER, sizeof(int)},
      {"hash-ml-dsa", OSSL_PARAM_UTF8_STRING, 8},     {"hash-ml-dsa", OSSL_PARAM_UTF8_PTR, 0},
  };
  // Each entry point, given the parameters; 1 if it accepted them.
  const std::pair<const char*, std::function<int(const OSSL_PARAM*)>> entries[] = {
      {"EVP_PKEY_sign_init_ex", [&](const OSSL_PARAM* p) {
         EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_pkey(libctx_, pkey, nullptr);
         const int r = EVP_PKEY_sign_init_ex(c, p);
         EVP_PKEY_CTX_free(c);
         return r;
       }},
      {"EVP_PKEY_verify_init_ex", [&](const OSSL_PARAM* p) {
         EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_pkey(libctx_, pkey, nullptr);
         const int r = EVP_PKEY_verify_init_ex(c, p);
         EVP_PKEY_CTX_free(c);
         return r;
       }},
      {"EVP_DigestSignInit_ex", [&](const OSSL_PARAM* p) {
         EVP_MD_CTX_reset(md_);
         return EVP_DigestSignInit_ex(md_, nullptr, nullptr, libctx_, nullptr, pkey, p);
       }},
      {"EVP_DigestVerifyInit_ex", [&](const OSSL_PARAM* p) {
         EVP_MD_CTX_reset(md_);
         return EVP_DigestVerifyInit_ex(md_, nullptr, nullptr, libctx_, nullptr, pkey, p);
       }},
      {"EVP_PKEY_CTX_set_params", [&](const OSSL_PARAM* p) {
         EVP_PKEY_CTX* pctx = nullptr;
         EVP_MD_CTX_reset(md_);
         if (EVP_DigestSignInit_ex(md_, &pctx, nullptr, libctx_, nullptr, pkey, nullptr) != 1) return -1;
         ERR_clear_error();
         return EVP_PKEY_CTX_set_params(pctx, p);
       }},
      {"sign_message_init", [&](const OSSL_PARAM* p) {
         void* c = f.newctx(provctx(), nullptr);
         const int r = f.sign_message_init(c, key.get(), p);
         f.freectx(c);
         return r;
       }},
      {"verify_message_init", [&](const OSSL_PARAM* p) {
         void* c = f.newctx(provctx(), nullptr);
         const int r = f.verify_message_init(c, key.get(), p);
         f.freectx(c);
         return r;
       }},
  };
  for (const auto& [entry, call] : entries) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(entry) + " " + c.name + " type " + std::to_string(c.type));
      OSSL_PARAM p[] = {{c.name, c.type, nullptr, c.size, OSSL_PARAM_UNMODIFIED}, OSSL_PARAM_END};
      ERR_clear_error();
      EXPECT_EQ(call(p), 0);
      EXPECT_TRUE(raised_for("parameter data is NULL", c.name));
    }
  }
  // An empty octet string may come as NULL data of size 0.
  OSSL_PARAM empty[] = {OSSL_PARAM_octet_string("context-string", nullptr, 0), OSSL_PARAM_END};
  EXPECT_EQ(digest_sign(pkey, message(10), empty).size(), params(ParamSet::ML_DSA_44).sig_bytes) << last_reason();
  EVP_PKEY_free(pkey);
}

// HashML-DSA with SHA-512: the message API hashes the message (through the
// application's library context), sign_init takes the digest itself.
TEST_F(SignatureDispatch, HashMlDsaEqualsCore) {
  const char* names[] = {"HASH-ML-DSA-44-WITH-SHA512", "HASH-ML-DSA-65-WITH-SHA512", "HASH-ML-DSA-87-WITH-SHA512"};
  for (size_t i = 0; i < 3; ++i) {
    const ParamSet set = kSets[i];
    SCOPED_TRACE(names[i]);
    const auto seed = seed_of(42);
    RawKey key(prov_, set, seed);
    auto ref = core_key(set, seed);
    Fns f = fns(names[i]);
    const auto msg = message(3000);
    std::vector<uint8_t> digest(64);
    unsigned int dlen = 0;
    ASSERT_EQ(EVP_Digest(msg.data(), msg.size(), digest.data(), &dlen, EVP_sha512(), nullptr), 1);
    std::vector<uint8_t> ctx = {'h', 'a', 's', 'h'};
    int det = 1;
    OSSL_PARAM p[] = {OSSL_PARAM_int("deterministic", &det),
                      OSSL_PARAM_octet_string("context-string", ctx.data(), ctx.size()), OSSL_PARAM_END};
    std::vector<uint8_t> expect(params(set).sig_bytes);
    ASSERT_EQ(mldsa::sign_prehash(*ref, HashAlg::SHA2_512, digest, ctx, kZeros, expect.data()), Status::ok);

    EXPECT_EQ(sign_message(f, key.get(), msg, p), expect) << last_reason();
    EXPECT_EQ(verify_message(f, key.get(), msg, expect, p), 1);

    // sign_init + sign: the input is the digest.
    void* c = f.newctx(provctx(), nullptr);
    std::vector<uint8_t> sig(expect.size());
    size_t len = 0;
    ASSERT_EQ(f.sign_init(c, key.get(), p), 1);
    ASSERT_EQ(f.sign(c, sig.data(), &len, sig.size(), digest.data(), digest.size()), 1) << last_reason();
    EXPECT_EQ(sig, expect);
    ERR_clear_error();
    EXPECT_EQ(f.sign(c, sig.data(), &len, sig.size(), digest.data(), 32), 0);
    EXPECT_TRUE(raised("pre-hash digest has the wrong length"));
    ASSERT_EQ(f.verify_init(c, key.get(), p), 1);
    EXPECT_EQ(f.verify(c, expect.data(), expect.size(), digest.data(), digest.size()), 1);

    // EVP_DigestSignInit may name its own hash, and no other.
    Dispatch d(prov_, OSSL_OP_SIGNATURE, names[i]);
    auto dsi = d.get<OSSL_FUNC_signature_digest_sign_init_fn>(OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT);
    ASSERT_NE(dsi, nullptr);
    EXPECT_EQ(dsi(c, "SHA512", key.get(), p), 1);
    EXPECT_EQ(dsi(c, "SHA2-512", key.get(), p), 1);
    ERR_clear_error();
    EXPECT_EQ(dsi(c, "SHA256", key.get(), p), 0);
    EXPECT_TRUE(raised("unsupported digest for ML-DSA"));

    // Its own AlgorithmIdentifier (sigAlgs 32..34).
    uint8_t aid[32];
    OSSL_PARAM g[] = {OSSL_PARAM_octet_string("algorithm-id", aid, sizeof aid), OSSL_PARAM_END};
    ASSERT_EQ(f.get_params(c, g), 1);
    ASSERT_EQ(g[0].return_size, 13u);
    EXPECT_EQ(aid[12], 32 + i);
    f.freectx(c);
    // Pure ML-DSA does not verify it.
    EVP_PKEY* pkey = keygen(set, seed);
    EXPECT_EQ(digest_verify(pkey, msg, expect, p), 0);
    EVP_PKEY_free(pkey);
  }
}

}  // namespace
}  // namespace mldsa::test

namespace mldsa::test {
namespace {

// One key, many threads signing and verifying at once: the key object is
// shared read-only, each thread has its own operation context.
TEST_F(Signature, ConcurrentUseOfOneKey) {
  EVP_PKEY* pkey = keygen(ParamSet::ML_DSA_65, seed_of(50));
  ASSERT_NE(pkey, nullptr);
  std::atomic<int> good{0}, bad{0};
  auto worker = [&](int t) {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    for (int i = 0; i < 8; ++i) {
      const auto msg = message(64 + i, static_cast<uint8_t>(t));
      std::vector<uint8_t> sig(params(ParamSet::ML_DSA_65).sig_bytes);
      size_t len = sig.size();
      const bool ok = EVP_DigestSignInit_ex(md, nullptr, nullptr, libctx_, nullptr, pkey, nullptr) == 1 &&
                      EVP_DigestSign(md, sig.data(), &len, msg.data(), msg.size()) == 1 &&
                      EVP_DigestVerifyInit_ex(md, nullptr, nullptr, libctx_, nullptr, pkey, nullptr) == 1 &&
                      EVP_DigestVerify(md, sig.data(), len, msg.data(), msg.size()) == 1;
      (ok ? good : bad)++;
    }
    EVP_MD_CTX_free(md);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(worker, t);
  for (auto& th : threads) th.join();
  EXPECT_EQ(good.load(), 32);
  EXPECT_EQ(bad.load(), 0);
  EVP_PKEY_free(pkey);
}

}  // namespace
}  // namespace mldsa::test
