// capabilities.cc - the TLS-SIGALG capability (TLS 1.3 ML-DSA signature schemes; round-3
// Dilithium's and Falcon's when their settings ask).
#include "provider/capabilities.h"

#include "keymgmt/falcon_key.h"
#include "provctx/provctx.h"

#include <openssl/crypto.h>
#include <openssl/params.h>

#include <cstring>

namespace mldsa::prov {
namespace {

// Parameter names of the TLS-SIGALG capability. OpenSSL 3.2 added them to
// core_names.h; the 3.0 headers this module builds against lack them, so they
// are spelled out here with the same values.
constexpr const char* CAP_TLS_SIGALG = "TLS-SIGALG";
constexpr const char* SIGALG_IANA_NAME = "tls-sigalg-iana-name";    // name in TLS (e.g. -sigalgs)
constexpr const char* SIGALG_NAME = "tls-sigalg-name";              // algorithm name libssl fetches
constexpr const char* SIGALG_OID = "tls-sigalg-oid";
constexpr const char* SIGALG_CODE_POINT = "tls-sigalg-code-point";  // SignatureScheme value
constexpr const char* SIGALG_SECURITY_BITS = "tls-sigalg-sec-bits";
constexpr const char* SIGALG_MIN_TLS = "tls-min-tls";
constexpr const char* SIGALG_MAX_TLS = "tls-max-tls";  // 0: no upper limit
constexpr const char* SIGALG_MIN_DTLS = "tls-min-dtls";  // -1: not for DTLS
constexpr const char* SIGALG_MAX_DTLS = "tls-max-dtls";

constexpr int TLS13_VERSION = 0x0304;  // TLS1_3_VERSION, without pulling in ssl.h

struct SigAlg {
  const char* iana_name;
  const char* name;  // the keymgmt/signature name; libssl only uses the scheme
                     // when fetching this name with its property query lands
                     // on this provider
  const char* oid;
  unsigned int code_point;
  unsigned int security_bits;  // NIST category 2/3/5 -> 128/192/256
};

// Code points: IANA TLS SignatureScheme registry (draft-ietf-tls-mldsa).
constexpr SigAlg SIGALGS[] = {
    {"mldsa44", "ML-DSA-44", "2.16.840.1.101.3.4.3.17", 0x0904, 128},
    {"mldsa65", "ML-DSA-65", "2.16.840.1.101.3.4.3.18", 0x0905, 192},
    {"mldsa87", "ML-DSA-87", "2.16.840.1.101.3.4.3.19", 0x0906, 256},
};

// Round-3 Dilithium: the code points oqs-provider assigned from the private
// range (not IANA-registered), so only with tls_dilithium = yes.
constexpr SigAlg DILITHIUM_SIGALGS[] = {
    {"dilithium2", "dilithium2", "1.3.6.1.4.1.2.267.7.4.4", 0xfea0, 128},
    {"dilithium3", "dilithium3", "1.3.6.1.4.1.2.267.7.6.5", 0xfea3, 192},
    {"dilithium5", "dilithium5", "1.3.6.1.4.1.2.267.7.8.7", 0xfea5, 256},
};

int report_sigalg(const SigAlg& s, OSSL_CALLBACK* cb, void* arg) {
  // OSSL_PARAM wants non-const pointers; libssl only reads (it copies the strings).
  unsigned int code_point = s.code_point;
  unsigned int security_bits = s.security_bits;
  int min_tls = TLS13_VERSION, max_tls = 0, min_dtls = -1, max_dtls = -1;
  const OSSL_PARAM params[] = {
      OSSL_PARAM_utf8_string(SIGALG_IANA_NAME, const_cast<char*>(s.iana_name), std::strlen(s.iana_name)),
      OSSL_PARAM_utf8_string(SIGALG_NAME, const_cast<char*>(s.name), std::strlen(s.name)),
      OSSL_PARAM_utf8_string(SIGALG_OID, const_cast<char*>(s.oid), std::strlen(s.oid)),
      OSSL_PARAM_uint(SIGALG_CODE_POINT, &code_point),
      OSSL_PARAM_uint(SIGALG_SECURITY_BITS, &security_bits),
      OSSL_PARAM_int(SIGALG_MIN_TLS, &min_tls),
      OSSL_PARAM_int(SIGALG_MAX_TLS, &max_tls),
      OSSL_PARAM_int(SIGALG_MIN_DTLS, &min_dtls),
      OSSL_PARAM_int(SIGALG_MAX_DTLS, &max_dtls),
      OSSL_PARAM_END,
  };
  return cb(params, arg);
}

}  // namespace

int get_capabilities(void* provctx, const char* capability, OSSL_CALLBACK* cb, void* arg) {
  if (capability == nullptr || cb == nullptr) return 0;
  if (OPENSSL_strcasecmp(capability, CAP_TLS_SIGALG) != 0) return 1;
  for (const SigAlg& s : SIGALGS)
    if (!report_sigalg(s, cb, arg)) return 0;
  const ProvCtx* ctx = static_cast<const ProvCtx*>(provctx);
  if (ctx != nullptr && ctx->settings.tls_dilithium)
    for (const SigAlg& s : DILITHIUM_SIGALGS)
      if (!report_sigalg(s, cb, arg)) return 0;
  if (ctx != nullptr && ctx->settings.tls_falcon)
    for (const FalconVariant& v : falcon_variants())  // oqs-provider's private-range code points
      if (!report_sigalg({v.name, v.name, v.oid, v.tls_code_point, v.security_bits}, cb, arg)) return 0;
  return 1;
}

}  // namespace mldsa::prov
