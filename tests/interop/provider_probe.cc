// provider_probe.cc - what a running libcrypto/libssl sees of the providers.
//
// Built against the system's OpenSSL 3.0 headers and run either on 3.0 or, by
// interop.py through OpenSSL 3.5's own loader, on 3.5 (libcrypto.so.3 keeps
// its ABI). Prints one fact per line for interop.py to check:
//   version <libcrypto version>
//   sigalg <provider> <iana-name> <name> <oid> <code-point> <sec-bits> <min-tls> <max-tls>
//   capability <provider> <capability> rc=<return of get_capabilities>
//   fetch <KEYMGMT|SIGNATURE> <algorithm> <provider that answered, or "-">
//   ssl_ctx ok|failed
//   async <algorithm> ok|failed   (with --async: keygen, sign and verify inside
//                                  an ASYNC job, i.e. on OpenSSL's 32 KiB fibre stack)
//
// Usage: provider_probe [--modules DIR] [--propq QUERY] [--async] PROVIDER...
#include <openssl/async.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/ssl.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Reads a capability parameter as text whatever its type (libssl accepts
// an integer of any width for the numeric ones).
std::string param_text(const OSSL_PARAM params[], const char* key) {
  const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, key);
  if (p == nullptr) return "(absent)";
  if (p->data_type == OSSL_PARAM_UTF8_STRING) {
    const char* s = nullptr;
    return OSSL_PARAM_get_utf8_string_ptr(p, &s) && s != nullptr ? s : "(bad)";
  }
  long long v = 0;
  int64_t v64 = 0;
  if (OSSL_PARAM_get_int64(p, &v64)) {
    v = v64;
    char buf[32];
    std::snprintf(buf, sizeof buf, key == std::string("tls-sigalg-code-point") ? "0x%04llx" : "%lld", v);
    return buf;
  }
  return "(bad)";
}

struct SigalgPrinter {
  const char* provider;
};

int print_sigalg(const OSSL_PARAM params[], void* arg) {
  const auto* ctx = static_cast<const SigalgPrinter*>(arg);
  std::printf("sigalg %s %s %s %s %s %s %s %s\n", ctx->provider, param_text(params, "tls-sigalg-iana-name").c_str(),
              param_text(params, "tls-sigalg-name").c_str(), param_text(params, "tls-sigalg-oid").c_str(),
              param_text(params, "tls-sigalg-code-point").c_str(), param_text(params, "tls-sigalg-sec-bits").c_str(),
              param_text(params, "tls-min-tls").c_str(), param_text(params, "tls-max-tls").c_str());
  return 1;
}

int ignore_entry(const OSSL_PARAM*, void*) { return 1; }

struct AsyncWork {
  OSSL_LIB_CTX* libctx;
  const char* alg;
  const char* propq;
};

// Keygen, sign and verify, as an application's ASYNC job (openssl speed
// -async_jobs, an async TLS server) would run them. Returns 1 when the
// signature verifies.
int sign_in_job(void* arg) {
  const AsyncWork* w = *static_cast<AsyncWork* const*>(arg);
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* gen = EVP_PKEY_CTX_new_from_name(w->libctx, w->alg, w->propq);
  if (gen == nullptr || EVP_PKEY_keygen_init(gen) != 1 || EVP_PKEY_generate(gen, &key) != 1) key = nullptr;
  EVP_PKEY_CTX_free(gen);
  if (key == nullptr) return 0;
  const unsigned char msg[] = "signed inside an ASYNC job";
  unsigned char sig[5000];
  size_t siglen = sizeof sig;
  int ok = 0;
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  if (md != nullptr && EVP_DigestSignInit_ex(md, nullptr, nullptr, w->libctx, w->propq, key, nullptr) == 1 &&
      EVP_DigestSign(md, sig, &siglen, msg, sizeof msg) == 1) {
    EVP_MD_CTX_reset(md);
    ok = EVP_DigestVerifyInit_ex(md, nullptr, nullptr, w->libctx, w->propq, key, nullptr) == 1 &&
         EVP_DigestVerify(md, sig, siglen, msg, sizeof msg) == 1;
  }
  EVP_MD_CTX_free(md);
  EVP_PKEY_free(key);
  return ok;
}

bool run_in_job(AsyncWork* work) {
  ASYNC_JOB* job = nullptr;
  ASYNC_WAIT_CTX* wait = ASYNC_WAIT_CTX_new();
  int ret = 0;
  int st = ASYNC_PAUSE;
  // A job that pauses (a provider waiting for a batch) is resumed until done.
  while (st == ASYNC_PAUSE) st = ASYNC_start_job(&job, wait, &ret, sign_in_job, &work, sizeof work);
  ASYNC_WAIT_CTX_free(wait);
  return st == ASYNC_FINISH && ret == 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string modules, propq;
  std::vector<std::string> names;
  bool async = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--modules") == 0 && i + 1 < argc) {
      modules = argv[++i];
    } else if (std::strcmp(argv[i], "--propq") == 0 && i + 1 < argc) {
      propq = argv[++i];
    } else if (std::strcmp(argv[i], "--async") == 0) {
      async = true;
    } else {
      names.emplace_back(argv[i]);
    }
  }
  if (names.empty()) {
    std::fprintf(stderr, "usage: provider_probe [--modules DIR] [--propq QUERY] [--async] PROVIDER...\n");
    return 2;
  }

  OSSL_LIB_CTX* libctx = OSSL_LIB_CTX_new();
  if (libctx == nullptr) return 1;
  if (!modules.empty()) OSSL_PROVIDER_set_default_search_path(libctx, modules.c_str());
  std::printf("version %s\n", OpenSSL_version(OPENSSL_VERSION));

  std::vector<OSSL_PROVIDER*> loaded;
  for (const std::string& name : names) {
    OSSL_PROVIDER* prov = OSSL_PROVIDER_load(libctx, name.c_str());
    if (prov == nullptr) {
      std::fprintf(stderr, "provider_probe: cannot load provider %s\n", name.c_str());
      ERR_print_errors_fp(stderr);
      return 1;
    }
    loaded.push_back(prov);
  }

  for (OSSL_PROVIDER* prov : loaded) {
    SigalgPrinter printer{OSSL_PROVIDER_get0_name(prov)};
    int rc = OSSL_PROVIDER_get_capabilities(prov, "TLS-SIGALG", print_sigalg, &printer);
    std::printf("capability %s TLS-SIGALG rc=%d\n", printer.provider, rc);
    rc = OSSL_PROVIDER_get_capabilities(prov, "TLS-GROUP", ignore_entry, nullptr);
    std::printf("capability %s TLS-GROUP rc=%d\n", printer.provider, rc);
  }

  const char* q = propq.empty() ? nullptr : propq.c_str();
  for (const char* alg : {"ML-DSA-44", "ML-DSA-65", "ML-DSA-87"}) {
    EVP_KEYMGMT* km = EVP_KEYMGMT_fetch(libctx, alg, q);
    std::printf("fetch KEYMGMT %s %s\n", alg, km ? OSSL_PROVIDER_get0_name(EVP_KEYMGMT_get0_provider(km)) : "-");
    EVP_KEYMGMT_free(km);
    EVP_SIGNATURE* sig = EVP_SIGNATURE_fetch(libctx, alg, q);
    std::printf("fetch SIGNATURE %s %s\n", alg, sig ? OSSL_PROVIDER_get0_name(EVP_SIGNATURE_get0_provider(sig)) : "-");
    EVP_SIGNATURE_free(sig);
  }
  ERR_clear_error();

  // libssl asks every provider for TLS-GROUP and TLS-SIGALG here; a provider
  // that answers 0 makes this fail.
  SSL_CTX* ssl = SSL_CTX_new_ex(libctx, q, TLS_method());
  std::printf("ssl_ctx %s\n", ssl ? "ok" : "failed");
  if (ssl == nullptr) ERR_print_errors_fp(stderr);
  SSL_CTX_free(ssl);

  if (async) {
    if (!ASYNC_is_capable()) std::printf("async unsupported\n");
    for (const char* alg : {"ML-DSA-44", "ML-DSA-65", "ML-DSA-87"}) {
      AsyncWork work{libctx, alg, q};
      std::printf("async %s %s\n", alg, run_in_job(&work) ? "ok" : "failed");
      std::fflush(stdout);
    }
    ERR_print_errors_fp(stderr);
  }

  for (OSSL_PROVIDER* prov : loaded) OSSL_PROVIDER_unload(prov);
  OSSL_LIB_CTX_free(libctx);
  return 0;
}
