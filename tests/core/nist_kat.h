// nist_kat.h - the NIST PQC known-answer files (.rsp) and what their DRBG
// seeds give, for the round-3 Dilithium KATs (tests/vectors/dilithium-round3/).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace mldsa::test {

// One record: its "name = value" lines (count, seed, mlen, msg, pk, sk, smlen, sm).
using KatRecord = std::map<std::string, std::string>;

struct KatFile {
  std::string header;  // the first line, "# Dilithium2"
  std::vector<KatRecord> records;
  std::string error;   // non-empty when the file cannot be read or parsed
};

KatFile load_kat_file(const std::string& path);
// tests/vectors/dilithium-round3/PQCsignKAT_<name>.rsp ("Dilithium2", ...).
KatFile load_round3_kat(const std::string& name);

// The 32-byte keygen seed the scheme drew: the first bytes of the NIST KAT
// DRBG (tests/core/nist_drbg.h) seeded with the record's 48-byte `seed`.
std::vector<uint8_t> kat_keygen_seed(std::span<const uint8_t> kat_seed);

}  // namespace mldsa::test
