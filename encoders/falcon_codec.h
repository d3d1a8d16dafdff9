// falcon_codec.h - the bytes of a Falcon private key inside PKCS#8 (oqs-provider's
// layout), for the codecs and their tests. Pure byte handling.
#pragma once

#include "cpu/falcon/falcon.h"

#include <cstdint>
#include <span>
#include <vector>

namespace mldsa::prov {

// The privateKey OCTET STRING content written: the DER OCTET STRING of sk || pk
// (04 82 LL LL sk pk). The caller cleanses it.
std::vector<uint8_t> falcon_private_payload(std::span<const uint8_t> sk, std::span<const uint8_t> pk);

// The layouts read: that one, the OCTET STRING of sk alone, and sk || pk or sk without
// the OCTET STRING (older oqs-provider); recognised by exact length and prefix. sk and
// pk (empty when absent) view into `in`. False when no layout fits.
bool falcon_private_parts(const falcon::Params& p, std::span<const uint8_t> in, std::span<const uint8_t>& sk,
                          std::span<const uint8_t>& pk);

}  // namespace mldsa::prov
