// falcon_key.h - the provider's round-3 Falcon key object (keydata of falcon512,
// falconpadded512, falcon1024, falconpadded1024) and its variants' names and OIDs.
#pragma once

#include "cpu/falcon/check.h"
#include "cpu/falcon/falcon.h"
#include "provctx/provctx.h"

#include <openssl/core.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace mldsa::prov {

// One row per algorithm: oqs-provider's names, OIDs and TLS code points.
struct FalconVariant {
  const char* name;         // "falcon512": keymgmt, signature and OID short / long name
  const char* names;        // OSSL_ALGORITHM name list ("falcon512:1.3.9999.3.11")
  const char* oid;          // "1.3.9999.3.11"
  bool padded;              // signatures in the padded (fixed-length) format
  unsigned logn;            // 9 or 10
  unsigned security_bits;   // NIST category 1 / 5 -> 128 / 256
  int security_category;    // 1 or 5
  unsigned tls_code_point;  // 0xfed7, ...
  const char* description;

  const falcon::Params& params() const { return logn == 9 ? falcon::falcon512() : falcon::falcon1024(); }
  falcon::SigFormat format() const { return padded ? falcon::SigFormat::padded : falcon::SigFormat::compressed; }
  // The longest signature (max-size): the padded length, or the compressed format's bound.
  size_t max_signature_bytes() const { return padded ? params().sig_padded_bytes : params().sig_max_bytes; }
};
inline constexpr size_t FALCON_VARIANT_COUNT = 4;
std::span<const FalconVariant> falcon_variants();

struct FalconKey {
  ProvCtx* provctx = nullptr;
  const FalconVariant* variant = nullptr;
  std::vector<uint8_t> pub;   // pk_bytes, or empty
  std::vector<uint8_t> priv;  // sk_bytes, or empty; a private key always has its pub too
  ~FalconKey();               // cleanses priv

  bool has_public() const { return !pub.empty(); }
  bool has_private() const { return !priv.empty(); }
};

// Decoders hand a decoded key to load() as an object reference whose octets are one
// FalconKey* (as for ML-DSA keys, keymgmt/key.h); load() takes it and clears it.
FalconKey* falcon_key_new(ProvCtx* ctx, const FalconVariant& v);
void falcon_key_free(FalconKey* k);

// Fills an empty key from the encodings import and the decoders receive (either may be
// empty, not both): lengths, header bytes and values are checked, a private key's F
// against f and g (f G - g F = q), and pub, if given with priv, against the derived one.
// On failure a named reason is raised, the key stays empty and false returns.
bool falcon_key_from_parts(FalconKey* k, std::span<const uint8_t> priv, std::span<const uint8_t> pub);

// Raises the reason for problem p in a key (private or public) of variant v; false.
bool raise_falcon_key_problem(const ProvCtx* ctx, const FalconVariant& v, falcon::Problem p, bool private_key);

// The four key types, {NULL} last.
const OSSL_ALGORITHM* falcon_keymgmt_algorithms();

}  // namespace mldsa::prov
