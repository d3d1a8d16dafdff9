// algorithms.cc - the table of the 18 composite ML-DSA algorithms (draft-19 Section 7, IANA OIDs).
#include "composite/algorithms.h"

#include <strings.h>

#include <string>

namespace mldsa::composite {

namespace {

using mldsa::ParamSet;

// One row per algorithm. The labels are those of the draft's algorithm list
// and of the test vectors it publishes; PSS salt lengths and hashes from its
// RSASSA-PSS tables (32 with SHA-256 for 2048/3072, 48 with SHA-384 for 4096).
#define RSA(n, s, o, ml, t, ph, h, bits, salt) \
  {n, "id-" n, "1.3.6.1.5.5.7.6." o, "COMPSIG-" s, ParamSet::ml, Trad::t, PreHash::ph, h, bits, salt, nullptr, 0}
#define EC(n, s, o, ml, ph, h, curve, field) \
  {n, "id-" n, "1.3.6.1.5.5.7.6." o, "COMPSIG-" s, ParamSet::ml, Trad::ecdsa, PreHash::ph, h, 0, 0, curve, field}
#define ED(n, s, o, ml, t, ph, field) \
  {n, "id-" n, "1.3.6.1.5.5.7.6." o, "COMPSIG-" s, ParamSet::ml, Trad::t, PreHash::ph, nullptr, 0, 0, nullptr, field}

const Algorithm kAlgorithms[] = {
    RSA("MLDSA44-RSA2048-PSS-SHA256", "MLDSA44-RSA2048-PSS-SHA256", "37", ML_DSA_44, rsa_pss, sha256, "SHA256", 2048, 32),
    RSA("MLDSA44-RSA2048-PKCS15-SHA256", "MLDSA44-RSA2048-PKCS15-SHA256", "38", ML_DSA_44, rsa_pkcs15, sha256, "SHA256", 2048, 0),
    ED("MLDSA44-Ed25519-SHA512", "MLDSA44-Ed25519-SHA512", "39", ML_DSA_44, ed25519, sha512, 32),
    EC("MLDSA44-ECDSA-P256-SHA256", "MLDSA44-ECDSA-P256-SHA256", "40", ML_DSA_44, sha256, "SHA256", "prime256v1", 32),
    RSA("MLDSA65-RSA3072-PSS-SHA512", "MLDSA65-RSA3072-PSS-SHA512", "41", ML_DSA_65, rsa_pss, sha512, "SHA256", 3072, 32),
    RSA("MLDSA65-RSA3072-PKCS15-SHA512", "MLDSA65-RSA3072-PKCS15-SHA512", "42", ML_DSA_65, rsa_pkcs15, sha512, "SHA256", 3072, 0),
    RSA("MLDSA65-RSA4096-PSS-SHA512", "MLDSA65-RSA4096-PSS-SHA512", "43", ML_DSA_65, rsa_pss, sha512, "SHA384", 4096, 48),
    RSA("MLDSA65-RSA4096-PKCS15-SHA512", "MLDSA65-RSA4096-PKCS15-SHA512", "44", ML_DSA_65, rsa_pkcs15, sha512, "SHA384", 4096, 0),
    EC("MLDSA65-ECDSA-P256-SHA512", "MLDSA65-ECDSA-P256-SHA512", "45", ML_DSA_65, sha512, "SHA256", "prime256v1", 32),
    EC("MLDSA65-ECDSA-P384-SHA512", "MLDSA65-ECDSA-P384-SHA512", "46", ML_DSA_65, sha512, "SHA384", "secp384r1", 48),
    EC("MLDSA65-ECDSA-brainpoolP256r1-SHA512", "MLDSA65-ECDSA-BP256-SHA512", "47", ML_DSA_65, sha512, "SHA256", "brainpoolP256r1", 32),
    ED("MLDSA65-Ed25519-SHA512", "MLDSA65-Ed25519-SHA512", "48", ML_DSA_65, ed25519, sha512, 32),
    EC("MLDSA87-ECDSA-P384-SHA512", "MLDSA87-ECDSA-P384-SHA512", "49", ML_DSA_87, sha512, "SHA384", "secp384r1", 48),
    EC("MLDSA87-ECDSA-brainpoolP384r1-SHA512", "MLDSA87-ECDSA-BP384-SHA512", "50", ML_DSA_87, sha512, "SHA384", "brainpoolP384r1", 48),
    ED("MLDSA87-Ed448-SHAKE256", "MLDSA87-Ed448-SHAKE256", "51", ML_DSA_87, ed448, shake256_64, 57),
    RSA("MLDSA87-RSA3072-PSS-SHA512", "MLDSA87-RSA3072-PSS-SHA512", "52", ML_DSA_87, rsa_pss, sha512, "SHA256", 3072, 32),
    RSA("MLDSA87-RSA4096-PSS-SHA512", "MLDSA87-RSA4096-PSS-SHA512", "53", ML_DSA_87, rsa_pss, sha512, "SHA384", 4096, 48),
    EC("MLDSA87-ECDSA-P521-SHA512", "MLDSA87-ECDSA-P521-SHA512", "54", ML_DSA_87, sha512, "SHA512", "secp521r1", 66),
};
#undef RSA
#undef EC
#undef ED
static_assert(sizeof(kAlgorithms) / sizeof(kAlgorithms[0]) == ALGORITHM_COUNT);

constexpr uint8_t kPrefix[] = {'C', 'o', 'm', 'p', 'o', 's', 'i', 't', 'e', 'A', 'l', 'g', 'o', 'r', 'i', 't',
                               'h', 'm', 'S', 'i', 'g', 'n', 'a', 't', 'u', 'r', 'e', 's', '2', '0', '2', '5'};

bool same(std::string_view a, const char* b) {
  const std::string s(a);
  return strcasecmp(s.c_str(), b) == 0;
}

}  // namespace

std::span<const Algorithm> algorithms() { return kAlgorithms; }

const Algorithm* algorithm_by_name(std::string_view name) {
  for (const Algorithm& a : kAlgorithms)
    if (same(name, a.name) || same(name, a.sn) || name == a.oid) return &a;
  return nullptr;
}

std::span<const uint8_t> prefix() { return kPrefix; }

const char* prehash_name(PreHash ph) {
  switch (ph) {
    case PreHash::sha256: return "SHA256";
    case PreHash::sha512: return "SHA512";
    case PreHash::shake256_64: return "SHAKE256";
  }
  return "";
}

size_t prehash_bytes(PreHash ph) { return ph == PreHash::sha256 ? 32 : 64; }

}  // namespace mldsa::composite
