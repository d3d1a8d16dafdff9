// capabilities.h - what the provider tells libssl through get_capabilities.
//
// "TLS-SIGALG" (read by libssl 3.2+): the TLS 1.3 signature schemes mldsa44
// (0x0904), mldsa65 (0x0905) and mldsa87 (0x0906), so a 3.2+ TLS stack can
// sign and verify CertificateVerify with this provider's keys. libssl 3.0 and
// 3.1 never ask for it; there the capability is simply unused. With
// tls_dilithium = yes also oqs-provider's round-3 Dilithium schemes,
// dilithium2 (0xfea0), dilithium3 (0xfea3) and dilithium5 (0xfea5); with
// tls_falcon = yes oqs-provider's round-3 Falcon schemes, falcon512 (0xfed7),
// falconpadded512 (0xfedc), falcon1024 (0xfeda) and falconpadded1024 (0xfedf).
#pragma once

#include <openssl/core.h>

namespace mldsa::prov {

// The provider's OSSL_FUNC_provider_get_capabilities. Calls cb once per
// signature scheme for "TLS-SIGALG" and returns what cb returns (0 stops);
// any other capability (libssl asks every provider for "TLS-GROUP") reports
// nothing and returns 1, because a 0 there makes SSL_CTX_new fail.
int get_capabilities(void* provctx, const char* capability, OSSL_CALLBACK* cb, void* arg);

}  // namespace mldsa::prov
