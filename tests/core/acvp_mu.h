// acvp_mu.h - mu of an ACVP sigGen / sigVer record through the record's
// interface, computed on the host: pure ML-DSA with its context, HashML-DSA
// (the digest by OpenSSL), the internal interface, or the record's external mu.
// What the GPU engine and its task code are given, since they sign and
// verify from mu.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu/mldsa.h"
#include "tests/core/acvp_vectors.h"

namespace mldsa::test {

// Empty with *why set when the record cannot be run (an unknown hash, a
// context the interface refuses).
std::vector<uint8_t> acvp_record_mu(std::span<const uint8_t> tr, const AcvpRecord& r, std::string* why);

}  // namespace mldsa::test
