// check.h - why a Falcon key or signature encoding is malformed, for callers
// (the provider) that must name the reason; sign / verify only say no.
#pragma once

#include "cpu/falcon/falcon.h"

#include <cstddef>
#include <cstdint>

namespace falcon {

enum class Problem {
  none,
  bad_length,      // not the key's length; a signature too short or too long for its format
  bad_header,      // the first byte is not the one of this parameter set
  malformed,       // a value that does not decode (h >= q, -2^(bits-1), "minus zero", s2 over 2047, cut short)
  trailing_bytes,  // bytes after the compressed s2 (other than the zero padding of the padded length)
  ntru_mismatch,   // private key: f G - g F != q over the integers (F does not belong to f, g)
};
const char* problem_string(Problem p);

// The structure of a signature, without the key or message: length for the
// format, header byte, s2 decodes, nothing after it (the padded length may
// carry zero bytes, as verify accepts).
Problem check_signature(const Params& p, const uint8_t* sig, size_t len, SigFormat fmt);

// A public key's length, header and values (h < q).
Problem check_public_key(const Params& p, const uint8_t* pk, size_t len);

// A private key's length, header, f, g, F encodings, and the NTRU equation
// f G - g F = q with G = g F / f mod q (checked exactly, over the integers).
// Constant time in the key's values.
Problem check_private_key(const Params& p, const uint8_t* sk, size_t len);

}  // namespace falcon
