// message_api_probe.cc - runs against whatever libcrypto the loader gives it:
// on OpenSSL 3.4+ (run_openssl35.sh starts it with Debian 13's 3.5) it drives
// the module through the core's own EVP_PKEY_sign_message_* / verify_message_*
// functions, which the 3.0 headers lack (looked up with dlsym), and checks the
// signatures against the 3.5 default provider's own ML-DSA. Exit 77 = skipped.
#include <dlfcn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using SignMessageInit = int (*)(EVP_PKEY_CTX*, EVP_SIGNATURE*, const OSSL_PARAM*);
using MessageUpdate = int (*)(EVP_PKEY_CTX*, const unsigned char*, size_t);
using SignMessageFinal = int (*)(EVP_PKEY_CTX*, unsigned char*, size_t*);
using SetSignature = int (*)(EVP_PKEY_CTX*, const unsigned char*, size_t);
using VerifyMessageFinal = int (*)(EVP_PKEY_CTX*);

struct Api {
  SignMessageInit sign_init, verify_init;
  MessageUpdate sign_update, verify_update;
  SignMessageFinal sign_final;
  SetSignature set_signature;
  VerifyMessageFinal verify_final;
};

int failures = 0;
void check(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  if (!ok) {
    ++failures;
    ERR_print_errors_fp(stdout);
  }
  ERR_clear_error();
}

template <typename T>
T sym(const char* name) {
  return reinterpret_cast<T>(dlsym(RTLD_DEFAULT, name));
}

const unsigned char kPart1[] = "streamed ";
const unsigned char kPart2[] = "message";
const unsigned char kWhole[] = "streamed message";

// sign_message_init / update x2 / final with algorithm alg of the module.
std::vector<unsigned char> sign_message(const Api& api, OSSL_LIB_CTX* lc, EVP_PKEY* key, const char* alg,
                                        const OSSL_PARAM* params) {
  EVP_SIGNATURE* s = EVP_SIGNATURE_fetch(lc, alg, "provider=mldsa-accel");
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_pkey(lc, key, "provider=mldsa-accel");
  std::vector<unsigned char> sig(5000);
  size_t len = sig.size();
  const bool ok = s && c && api.sign_init(c, s, params) == 1 && api.sign_update(c, kPart1, sizeof kPart1 - 1) == 1 &&
                  api.sign_update(c, kPart2, sizeof kPart2 - 1) == 1 && api.sign_final(c, sig.data(), &len) == 1;
  sig.resize(ok ? len : 0);
  EVP_PKEY_CTX_free(c);
  EVP_SIGNATURE_free(s);
  return sig;
}

// verify_message_init, then streamed (update + final) or one-shot
// (EVP_PKEY_verify: 3.5's own ML-DSA streams only when signing), with the
// algorithm alg from the providers propq selects.
bool verify_message(const Api& api, OSSL_LIB_CTX* lc, EVP_PKEY* key, const char* alg, const char* propq,
                    const std::vector<unsigned char>& sig, const OSSL_PARAM* params, bool streamed = true) {
  EVP_SIGNATURE* s = EVP_SIGNATURE_fetch(lc, alg, propq);
  EVP_PKEY_CTX* c = EVP_PKEY_CTX_new_from_pkey(lc, key, propq);
  bool ok = s && c && api.verify_init(c, s, params) == 1;
  if (ok && streamed)
    ok = api.set_signature(c, sig.data(), sig.size()) == 1 && api.verify_update(c, kWhole, sizeof kWhole - 1) == 1 &&
         api.verify_final(c) == 1;
  else if (ok)
    ok = EVP_PKEY_verify(c, sig.data(), sig.size(), kWhole, sizeof kWhole - 1) == 1;
  EVP_PKEY_CTX_free(c);
  EVP_SIGNATURE_free(s);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODULE_DIR\n", argv[0]);
    return 2;
  }
  Api api{sym<SignMessageInit>("EVP_PKEY_sign_message_init"), sym<SignMessageInit>("EVP_PKEY_verify_message_init"),
          sym<MessageUpdate>("EVP_PKEY_sign_message_update"), sym<MessageUpdate>("EVP_PKEY_verify_message_update"),
          sym<SignMessageFinal>("EVP_PKEY_sign_message_final"), sym<SetSignature>("EVP_PKEY_CTX_set_signature"),
          sym<VerifyMessageFinal>("EVP_PKEY_verify_message_final")};
  std::printf("libcrypto: %s\n", OpenSSL_version(OPENSSL_VERSION));
  if (!api.sign_init || !api.verify_init || !api.sign_update || !api.verify_update || !api.sign_final ||
      !api.set_signature || !api.verify_final) {
    std::printf("skipped: this libcrypto has no EVP_PKEY_sign_message_* (OpenSSL 3.4+ only)\n");
    return 77;
  }
  OSSL_LIB_CTX* lc = OSSL_LIB_CTX_new();
  OSSL_PROVIDER_set_default_search_path(lc, argv[1]);
  OSSL_PROVIDER* mine = OSSL_PROVIDER_load(lc, "mldsa-accel");
  OSSL_PROVIDER* deflt = OSSL_PROVIDER_load(lc, "default");
  check(mine != nullptr && deflt != nullptr, "load mldsa-accel and default");
  if (mine == nullptr || deflt == nullptr) return 1;

  for (const char* name : {"ML-DSA-44", "ML-DSA-65", "ML-DSA-87"}) {
    std::printf("-- %s\n", name);
    unsigned char seed[32];
    for (int i = 0; i < 32; ++i) seed[i] = static_cast<unsigned char>(i * 5 + 1);
    OSSL_PARAM gen[] = {OSSL_PARAM_octet_string("seed", seed, sizeof seed), OSSL_PARAM_END};
    EVP_PKEY* key = nullptr;
    EVP_PKEY_CTX* g = EVP_PKEY_CTX_new_from_name(lc, name, "provider=mldsa-accel");
    check(g && EVP_PKEY_keygen_init(g) == 1 && EVP_PKEY_CTX_set_params(g, gen) == 1 && EVP_PKEY_keygen(g, &key) == 1,
          "keygen through the module");
    EVP_PKEY_CTX_free(g);
    if (key == nullptr) continue;
    // The same public key held by the 3.5 default provider's own keymgmt.
    unsigned char pub[2592];
    size_t publen = 0;
    EVP_PKEY* native = nullptr;
    OSSL_PARAM pubp[] = {OSSL_PARAM_octet_string("pub", pub, 0), OSSL_PARAM_END};
    EVP_PKEY_CTX* f = EVP_PKEY_CTX_new_from_name(lc, name, "provider=default");
    const bool have_native = EVP_PKEY_get_octet_string_param(key, "pub", pub, sizeof pub, &publen) == 1 &&
                             (pubp[0].data_size = publen, true) && f && EVP_PKEY_fromdata_init(f) == 1 &&
                             EVP_PKEY_fromdata(f, &native, EVP_PKEY_PUBLIC_KEY, pubp) == 1;
    EVP_PKEY_CTX_free(f);
    check(have_native, "public key imported into the 3.5 default provider");

    unsigned char ctx[] = "probe";
    int det = 1;
    OSSL_PARAM p[] = {OSSL_PARAM_octet_string("context-string", ctx, 5), OSSL_PARAM_int("deterministic", &det),
                      OSSL_PARAM_END};
    const auto sig = sign_message(api, lc, key, name, p);
    check(!sig.empty(), "sign_message_init/update/final (pure)");
    check(verify_message(api, lc, key, name, "provider=mldsa-accel", sig, p), "verify_message_* by the module");
    check(verify_message(api, lc, key, name, "provider=mldsa-accel", sig, p, false),
          "verify_message_init + one-shot verify by the module");
    check(have_native && verify_message(api, lc, native, name, "provider=default", sig, p, false),
          "verify_message_* by OpenSSL 3.5's own ML-DSA");
    // Deterministic: the one-shot EVP_DigestSign of the whole message is identical.
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    std::vector<unsigned char> one(5000);
    size_t onelen = one.size();
    check(EVP_DigestSignInit_ex(md, nullptr, nullptr, lc, "provider=mldsa-accel", key, p) == 1 &&
              EVP_DigestSign(md, one.data(), &onelen, kWhole, sizeof kWhole - 1) == 1 &&
              std::vector<unsigned char>(one.begin(), one.begin() + onelen) == sig,
          "streamed message signature equals one-shot DigestSign");
    EVP_MD_CTX_free(md);

    const std::string hash = std::string("HASH-") + name + "-WITH-SHA512";
    const auto hsig = sign_message(api, lc, key, hash.c_str(), p);
    check(!hsig.empty(), "sign_message_* (HashML-DSA with SHA-512)");
    check(verify_message(api, lc, key, hash.c_str(), "provider=mldsa-accel", hsig, p), "verify HashML-DSA");
    check(!verify_message(api, lc, key, name, "provider=mldsa-accel", hsig, p),
          "pure ML-DSA rejects the HashML-DSA signature");
    EVP_PKEY_free(native);
    EVP_PKEY_free(key);
  }
  OSSL_PROVIDER_unload(mine);
  OSSL_PROVIDER_unload(deflt);
  OSSL_LIB_CTX_free(lc);
  std::printf("%s\n", failures ? "FAILED" : "all passed");
  return failures ? 1 : 0;
}
