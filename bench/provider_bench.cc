// provider_bench.cc - one-shot EVP_DigestSign of 32-byte messages through the
// mldsa-accel module, to set beside the core's sign_cached row: the gap
// between the two is what the OpenSSL provider layer costs per signature.
#include "bench/bench.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdlib>
#include <vector>

namespace mldsa::bench {
namespace {

// The library context with the module loaded, shared by every row.
OSSL_LIB_CTX* provider_libctx() {
  static OSSL_LIB_CTX* libctx = [] () -> OSSL_LIB_CTX* {
    const char* dir = std::getenv("MLDSA_ACCEL_MODULE_DIR");
    OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
    if (ctx == nullptr) return nullptr;
    if (!OSSL_PROVIDER_set_default_search_path(ctx, dir ? dir : MLDSA_BENCH_MODULE_DIR) ||
        OSSL_PROVIDER_load(ctx, "mldsa-accel") == nullptr ||
        OSSL_PROVIDER_load(ctx, "default") == nullptr) {
      ERR_print_errors_fp(stderr);
      OSSL_LIB_CTX_free(ctx);
      return nullptr;
    }
    return ctx;
  }();
  return libctx;
}

EVP_PKEY* provider_key(OSSL_LIB_CTX* libctx, const char* name) {
  EVP_PKEY* pkey = nullptr;
  EVP_PKEY_CTX* gen = EVP_PKEY_CTX_new_from_name(libctx, name, "provider=mldsa-accel");
  if (gen == nullptr || EVP_PKEY_keygen_init(gen) <= 0 || EVP_PKEY_keygen(gen, &pkey) <= 0) {
    ERR_print_errors_fp(stderr);
    pkey = nullptr;
  }
  EVP_PKEY_CTX_free(gen);
  return pkey;
}

// The timed loop both rows share: sign_one signs one distinct 32-byte message
// (false on failure); the last signature must verify, so a row measures real
// signing.
template <typename SignOne>
void sign_loop(benchmark::State& state, const Params* p, OSSL_LIB_CTX* libctx, EVP_PKEY* pkey,
               const char* what, SignOne sign_one) {
  std::vector<uint8_t> sig(p->sig_bytes);
  uint8_t msg[MSG_BYTES];
  uint64_t n = 0;
  const uint64_t t0 = ticks();
  for (auto _ : state) {
    next_message(msg, ++n);
    size_t siglen = sig.size();
    if (!sign_one(msg, sig.data(), &siglen) || siglen != p->sig_bytes) {
      ERR_print_errors_fp(stderr);
      state.SkipWithError(what);
      return;
    }
    benchmark::DoNotOptimize(sig.data());
  }
  report_cycles(state, t0, ticks());
  EVP_PKEY_CTX* vctx = EVP_PKEY_CTX_new_from_pkey(libctx, pkey, nullptr);
  if (vctx == nullptr || EVP_PKEY_verify_init(vctx) <= 0 ||
      EVP_PKEY_verify(vctx, sig.data(), sig.size(), msg, sizeof msg) != 1)
    state.SkipWithError("the last signature does not verify");
  EVP_PKEY_CTX_free(vctx);
}

// Init + one-shot EVP_DigestSign per message: what an application pays per signature.
void evp_digestsign(benchmark::State& state, const Params* p) {
  OSSL_LIB_CTX* libctx = provider_libctx();
  EVP_PKEY* pkey = libctx ? provider_key(libctx, p->name) : nullptr;
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  if (pkey == nullptr || md == nullptr) {
    state.SkipWithError("could not load mldsa-accel or generate a key through it");
  } else {
    sign_loop(state, p, libctx, pkey, "EVP_DigestSign failed", [&](const uint8_t* msg, uint8_t* sig, size_t* len) {
      EVP_MD_CTX_reset(md);
      return EVP_DigestSignInit_ex(md, nullptr, nullptr, libctx, nullptr, pkey, nullptr) > 0 &&
             EVP_DigestSign(md, sig, len, msg, MSG_BYTES) > 0;
    });
  }
  EVP_MD_CTX_free(md);
  EVP_PKEY_free(pkey);
}

// EVP_PKEY_sign on one context initialised once: what a server signing many
// messages with one key pays. Beside evp_digestsign it separates OpenSSL's
// per-call init (method fetch, new operation context) from the provider's
// own per-signature cost.
void evp_pkey_sign_reused(benchmark::State& state, const Params* p) {
  OSSL_LIB_CTX* libctx = provider_libctx();
  EVP_PKEY* pkey = libctx ? provider_key(libctx, p->name) : nullptr;
  EVP_PKEY_CTX* ctx = pkey ? EVP_PKEY_CTX_new_from_pkey(libctx, pkey, nullptr) : nullptr;
  if (ctx == nullptr || EVP_PKEY_sign_init(ctx) <= 0) {
    ERR_print_errors_fp(stderr);
    state.SkipWithError("could not load mldsa-accel or init EVP_PKEY_sign through it");
  } else {
    sign_loop(state, p, libctx, pkey, "EVP_PKEY_sign failed", [&](const uint8_t* msg, uint8_t* sig, size_t* len) {
      return EVP_PKEY_sign(ctx, sig, len, msg, MSG_BYTES) > 0;
    });
  }
  EVP_PKEY_CTX_free(ctx);
  EVP_PKEY_free(pkey);
}

}  // namespace

void register_provider_benchmarks(ParamSet set) {
  const Params* p = &params(set);
  add(std::string("evp_digestsign/") + p->name, [p](benchmark::State& s) { evp_digestsign(s, p); });
  add(std::string("evp_pkey_sign_reused/") + p->name, [p](benchmark::State& s) { evp_pkey_sign_reused(s, p); });
}

}  // namespace mldsa::bench
