// verify_fuzz.cc - EVP verification with a fuzzed signature, message and
// context string, for one key per parameter set. At start-up each key signs
// one message with one context (none for round-3 Dilithium, which has no
// context string); no other (signature, message, context) may ever verify: an
// accept of anything else aborts (ML-DSA and Dilithium signatures are
// strongly unforgeable, and their encoding is unique).
//
// Input: parameter set (byte 0, mod 6: ML-DSA-44/65/87, dilithium2/3/5),
// context length (byte 1) and that
// many bytes, message length (next byte) and that many bytes, the rest is
// the signature. tests/fuzz/corpus/verify/ holds the start-up triples.
#include "tests/fuzz/provider_env.h"

#include <openssl/params.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace {

using mldsa::fuzz::fail;
using mldsa::fuzz::libctx;

// The fixed key, message and context (tests/fuzz/make_corpus.py uses the same).
constexpr const char* kNames[] = {"ML-DSA-44", "ML-DSA-65", "ML-DSA-87", "dilithium2", "dilithium3", "dilithium5"};
constexpr size_t kSets = sizeof(kNames) / sizeof(kNames[0]);
constexpr uint8_t kMessage[] = {'v', 'e', 'r', 'i', 'f', 'y', '-', 'f', 'u', 'z', 'z'};
constexpr uint8_t kContext[] = {'c', 't', 'x'};

struct Signer {
  EVP_PKEY* pkey = nullptr;
  std::span<const uint8_t> ctx;  // kContext, or empty for round 3
  std::vector<uint8_t> sig;      // the one signature made at start-up
};

bool same(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

EVP_PKEY* key_from_seed(const char* name) {
  uint8_t seed[32];
  for (size_t i = 0; i < sizeof seed; ++i) seed[i] = static_cast<uint8_t>(i);
  OSSL_PARAM p[] = {OSSL_PARAM_octet_string("seed", seed, sizeof seed), OSSL_PARAM_END};
  EVP_PKEY* pkey = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx(), name, nullptr);
  if (ctx == nullptr || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_CTX_set_params(ctx, p) != 1 ||
      EVP_PKEY_keygen(ctx, &pkey) != 1)
    fail("keygen");
  EVP_PKEY_CTX_free(ctx);
  return pkey;
}

const Signer& signer(size_t set) {
  // Never destroyed (nor its keys freed): still reachable at exit, so no leak report.
  static const std::vector<Signer>& signers = *new std::vector<Signer>([] {
    std::vector<Signer> out;
    for (size_t i = 0; i < kSets; ++i) {
      Signer s;
      s.pkey = key_from_seed(kNames[i]);
      if (i < 3) s.ctx = kContext;
      int det = 1;
      OSSL_PARAM p[] = {OSSL_PARAM_int("deterministic", &det),
                        OSSL_PARAM_octet_string("context-string", const_cast<uint8_t*>(s.ctx.data()), s.ctx.size()),
                        OSSL_PARAM_END};
      size_t len = 0;
      EVP_MD_CTX* md = EVP_MD_CTX_new();
      if (md == nullptr || EVP_DigestSignInit_ex(md, nullptr, nullptr, libctx(), nullptr, s.pkey, p) != 1 ||
          EVP_DigestSign(md, nullptr, &len, kMessage, sizeof kMessage) != 1)
        fail("sign");
      s.sig.resize(len);
      if (EVP_DigestSign(md, s.sig.data(), &len, kMessage, sizeof kMessage) != 1) fail("sign");
      EVP_MD_CTX_free(md);
      out.push_back(std::move(s));
    }
    return out;
  }());
  return signers[set];
}

bool verify(const Signer& s, std::span<const uint8_t> ctx, std::span<const uint8_t> msg,
            std::span<const uint8_t> sig) {
  OSSL_PARAM p[] = {OSSL_PARAM_octet_string("context-string", const_cast<uint8_t*>(ctx.data()), ctx.size()),
                    OSSL_PARAM_END};
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  const bool ok = md != nullptr &&
                  EVP_DigestVerifyInit_ex(md, nullptr, nullptr, libctx(), nullptr, s.pkey, p) == 1 &&
                  EVP_DigestVerify(md, sig.data(), sig.size(), msg.data(), msg.size()) == 1;
  EVP_MD_CTX_free(md);
  return ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> in(data, size);
  if (in.size() < 2) return 0;
  const Signer& s = signer(in[0] % kSets);
  const size_t ctx_len = in[1];
  in = in.subspan(2);
  if (in.size() < ctx_len + 1) return 0;
  const auto ctx = in.first(ctx_len);
  const size_t msg_len = in[ctx_len];
  in = in.subspan(ctx_len + 1);
  if (in.size() < msg_len) return 0;
  const auto msg = in.first(msg_len);
  const auto sig = in.subspan(msg_len);
  if (verify(s, ctx, msg, sig) && !(same(sig, s.sig) && same(msg, kMessage) && same(ctx, s.ctx)))
    fail("accepted a signature that was never made");
  ERR_clear_error();
  return 0;
}
