// falcon_fuzz.cc - round-3 Falcon's signature and key decoders, through EVP and the
// core. Checks: EVP verification agrees with the core's (cpu/falcon/) on every input;
// an accepted signature is well-formed (falcon::check_signature); a rejection leaves a
// named error; a key that decodes re-encodes and decodes to the same key, its private
// part passes check_private_key and derives its public part, and it signs what it verifies.
//
// Input: one selector byte (bits 0-1: falcon512, falconpadded512, falcon1024,
// falconpadded1024; bits 2-3: mode), then
//   mode 0 (verify):  public key (pk_bytes), message length (one byte), message, signature;
//   mode 1 / 2:       a DER SubjectPublicKeyInfo / PrivateKeyInfo;
//   mode 3 (import):  one byte (bit 0: private), then the raw key for EVP_PKEY_fromdata.
// tests/fuzz/corpus/falcon/ holds one well-formed input per variant and mode
// (tests/fuzz/make_corpus.py --targets falcon).
#include "cpu/falcon/check.h"
#include "cpu/falcon/falcon.h"
#include "tests/fuzz/provider_env.h"

#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/params.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

using mldsa::fuzz::expect_named_error;
using mldsa::fuzz::fail;
using mldsa::fuzz::Input;
using mldsa::fuzz::libctx;

struct Variant {
  const char* name;
  bool padded;
  unsigned logn;
  const falcon::Params& params() const { return logn == 10 ? falcon::falcon1024() : falcon::falcon512(); }
  falcon::SigFormat format() const { return padded ? falcon::SigFormat::padded : falcon::SigFormat::compressed; }
};
const Variant kVariants[] = {
    {"falcon512", false, 9}, {"falconpadded512", true, 9}, {"falcon1024", false, 10}, {"falconpadded1024", true, 10}};

EVP_PKEY* from_data(const char* name, bool priv, const std::vector<uint8_t>& bytes) {
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_name(libctx(), name, nullptr);
  EVP_PKEY* pkey = nullptr;
  OSSL_PARAM p[] = {
      OSSL_PARAM_construct_octet_string(priv ? OSSL_PKEY_PARAM_PRIV_KEY : OSSL_PKEY_PARAM_PUB_KEY,
                                        const_cast<uint8_t*>(bytes.data()), bytes.size()),
      OSSL_PARAM_construct_end(),
  };
  if (c == nullptr || EVP_PKEY_fromdata_init(c) != 1) fail("fromdata init");
  if (EVP_PKEY_fromdata(c, &pkey, priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, p) != 1) {
    pkey = nullptr;
    expect_named_error("EVP_PKEY_fromdata");
  }
  EVP_PKEY_CTX_free(c);
  return pkey;
}

std::vector<uint8_t> octets(EVP_PKEY* pkey, const char* name) {
  std::vector<uint8_t> buf(4096);
  size_t len = 0;
  if (EVP_PKEY_get_octet_string_param(pkey, name, buf.data(), buf.size(), &len) != 1) return {};
  buf.resize(len);
  return buf;
}

int digest_verify(EVP_PKEY* pkey, const std::vector<uint8_t>& msg, const std::vector<uint8_t>& sig) {
  EVP_MD_CTX* m = EVP_MD_CTX_new();
  if (m == nullptr || EVP_DigestVerifyInit_ex(m, nullptr, nullptr, libctx(), nullptr, pkey, nullptr) != 1)
    fail("verify init");
  const int r = EVP_DigestVerify(m, sig.data(), sig.size(), msg.data(), msg.size());
  EVP_MD_CTX_free(m);
  return r;
}

// The signature is the rest of the input, whatever its length.
void verify_mode(const Variant& v, const uint8_t* data, size_t size) {
  const falcon::Params& p = v.params();
  Input in(data, size);
  const std::vector<uint8_t> pk = in.bytes(p.pk_bytes);
  const size_t msglen = in.byte();
  const std::vector<uint8_t> msg = in.bytes(msglen);
  const size_t used = p.pk_bytes + 1 + msglen;
  const std::vector<uint8_t> sig(data + (used < size ? used : size), data + size);
  EVP_PKEY* pkey = from_data(v.name, false, pk);
  if (pkey == nullptr) {
    if (falcon::check_public_key(p, pk.data(), pk.size()) == falcon::Problem::none) fail("a good public key refused");
    return;
  }
  const int evp = digest_verify(pkey, msg, sig);
  const bool core = falcon::verify(p, pk.data(), msg.data(), msg.size(), sig.data(), sig.size(), v.format());
  if ((evp == 1) != core) fail("EVP and the core disagree");
  if (evp == 1 && falcon::check_signature(p, sig.data(), sig.size(), v.format()) != falcon::Problem::none)
    fail("a malformed signature verified");
  if (evp != 1) expect_named_error("verify");
  EVP_PKEY_free(pkey);
}

EVP_PKEY* decode(const Variant& v, const uint8_t* data, size_t size, const char* structure) {
  EVP_PKEY* pkey = nullptr;
  OSSL_DECODER_CTX* d = OSSL_DECODER_CTX_new_for_pkey(&pkey, "DER", structure, v.name, 0, libctx(), nullptr);
  if (d == nullptr) return nullptr;
  OSSL_DECODER_from_data(d, &data, &size);
  OSSL_DECODER_CTX_free(d);
  ERR_clear_error();
  return pkey;
}

// A decoded or imported key: consistent parts, a DER round trip, sign then verify.
void check_key(const Variant& v, EVP_PKEY* pkey) {
  const falcon::Params& p = v.params();
  const std::vector<uint8_t> pk = octets(pkey, OSSL_PKEY_PARAM_PUB_KEY), sk = octets(pkey, OSSL_PKEY_PARAM_PRIV_KEY);
  if (falcon::check_public_key(p, pk.data(), pk.size()) != falcon::Problem::none) fail("a bad public key loaded");
  const bool priv = !sk.empty();
  if (priv) {
    if (falcon::check_private_key(p, sk.data(), sk.size()) != falcon::Problem::none) fail("a bad private key loaded");
    std::vector<uint8_t> derived(p.pk_bytes);
    if (!falcon::public_from_private(p, sk.data(), derived.data()) || derived != pk) fail("pk is not sk's");
  }
  const int selection = priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY;
  const char* structure = priv ? "PrivateKeyInfo" : "SubjectPublicKeyInfo";
  OSSL_ENCODER_CTX* e = OSSL_ENCODER_CTX_new_for_pkey(pkey, selection, "DER", structure, nullptr);
  unsigned char* der = nullptr;
  size_t len = 0;
  if (e == nullptr || OSSL_ENCODER_to_data(e, &der, &len) != 1) fail("a loaded key does not encode");
  OSSL_ENCODER_CTX_free(e);
  EVP_PKEY* again = decode(v, der, len, structure);
  OPENSSL_clear_free(der, len);
  if (again == nullptr || EVP_PKEY_eq(again, pkey) != 1) fail("re-encoded key decodes to another");
  EVP_PKEY_free(again);
  if (!priv) return;
  static const std::vector<uint8_t> msg = {'f', 'a', 'l', 'c', 'o', 'n'};
  EVP_MD_CTX* m = EVP_MD_CTX_new();
  std::vector<uint8_t> sig(p.sig_max_bytes);
  size_t siglen = sig.size();
  if (EVP_DigestSignInit_ex(m, nullptr, nullptr, libctx(), nullptr, pkey, nullptr) != 1 ||
      EVP_DigestSign(m, sig.data(), &siglen, msg.data(), msg.size()) != 1)
    fail("a loaded private key does not sign");
  EVP_MD_CTX_free(m);
  sig.resize(siglen);
  if (digest_verify(pkey, msg, sig) != 1) fail("its own signature does not verify");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Variant& v = kVariants[data[0] & 3];
  const int mode = (data[0] >> 2) & 3;
  ERR_clear_error();
  if (mode == 0) {
    verify_mode(v, data + 1, size - 1);
  } else if (mode == 3) {
    const bool priv = size >= 2 && (data[1] & 1) != 0;
    const std::vector<uint8_t> raw(data + (size >= 2 ? 2 : size), data + size);
    if (EVP_PKEY* pkey = from_data(v.name, priv, raw)) {
      check_key(v, pkey);
      EVP_PKEY_free(pkey);
    }
  } else if (EVP_PKEY* pkey = decode(v, data + 1, size - 1, mode == 1 ? "SubjectPublicKeyInfo" : "PrivateKeyInfo")) {
    check_key(v, pkey);
    EVP_PKEY_free(pkey);
  }
  ERR_clear_error();
  return 0;
}
