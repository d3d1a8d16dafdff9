// pkcs8_formats.h - the byte layouts of an ML-DSA private key inside PKCS#8.
//
// The privateKey OCTET STRING of a PKCS#8 PrivateKeyInfo holds one of six
// layouts, the ones OpenSSL 3.5 reads and writes (RFC 9881's CHOICE plus two
// legacy forms and two unwrapped ones). Each is recognised by its exact length
// and fixed prefix; no general DER parsing is needed inside the OCTET STRING.
//
//   seed-priv   30 82 LL LL | 04 20 seed | 04 82 LL LL sk      RFC 9881 "both"
//   priv-only   04 82 LL LL sk                                 RFC 9881 "expandedKey"
//   oqskeypair  04 82 LL LL sk pk                              liboqs / oqs-provider
//   seed-only   80 20 seed                                     RFC 9881 "seed" ([0] IMPLICIT)
//   bare-priv   sk                                             no wrapper
//   bare-seed   seed                                           no wrapper
//
// Round-3 Dilithium keys use oqs-provider's layouts: the OCTET STRING of
// sk || pk (oqskeypair, read and written) or of sk alone (priv-only, read);
// there is no seed layout for them and the ml-dsa.* format settings do not
// apply (p8_round3_inputs, P8_ROUND3_OUTPUT).
//
// Pure byte handling: no OpenSSL calls, no key objects.
#pragma once

#include "cpu/mldsa.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace mldsa::prov {

// Declaration order is OpenSSL 3.5's default preference order.
enum class P8Format : uint8_t { seed_priv, priv_only, oqskeypair, seed_only, bare_priv, bare_seed };
inline constexpr size_t P8_FORMAT_COUNT = 6;

const char* p8_format_name(P8Format f);
bool p8_format_has_seed(P8Format f);
bool p8_format_has_priv(P8Format f);
// Length of the layout's bytes (the privateKey OCTET STRING content).
size_t p8_format_size(const mldsa::Params& p, P8Format f);

// An ordered list of formats, as ml-dsa.input_formats / output_formats give it.
struct P8FormatList {
  std::array<P8Format, P8_FORMAT_COUNT> items{};
  size_t count = 0;
  std::span<const P8Format> view() const { return {items.data(), count}; }
  bool contains(P8Format f) const;
};

// Parses a list of format names separated by spaces, tabs or commas, the way
// OpenSSL 3.5 does: case insensitive, a name may abbreviate a format (it picks
// the first format in default order that it starts and no earlier name
// picked), unknown names are ignored. An empty or absent list means every
// format in the default order. Returns false when a non-empty list names no
// known format at all.
bool p8_parse_format_list(std::string_view text, P8FormatList& out);

// The layouts a round-3 Dilithium private key is read from, and the one it is written in.
P8FormatList p8_round3_inputs();
inline constexpr P8Format P8_ROUND3_OUTPUT = P8Format::oqskeypair;

// The parts of a recognised private key; views into the parsed bytes. Empty
// spans for parts the layout does not carry.
struct P8Parts {
  P8Format format{};
  std::span<const uint8_t> seed, sk, pk;
};

// Finds the first format in `allowed` whose length and prefix fit `der`
// exactly. False when none does.
bool p8_recognise(const mldsa::Params& p, std::span<const uint8_t> der, std::span<const P8Format> allowed,
                  P8Parts& out);

// Writes format f. `seed` may be empty only for formats without a seed; sk and
// pk must have the parameter set's sizes. Returns false on a missing part or
// a size mismatch. The caller cleanses `out` (it holds secrets).
bool p8_write(const mldsa::Params& p, P8Format f, std::span<const uint8_t> seed, std::span<const uint8_t> sk,
              std::span<const uint8_t> pk, std::vector<uint8_t>& out);

}  // namespace mldsa::prov
