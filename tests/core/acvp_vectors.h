// acvp_vectors.h - reads the ACVP vector files written by tools/vectors/convert.py.
//
// A file is a list of records; each record is the "key = value" lines of one
// ACVP test case with its group's options repeated, so no JSON parser is needed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mldsa::test {

struct AcvpRecord {
  std::map<std::string, std::string, std::less<>> fields;

  bool has(std::string_view key) const { return fields.find(key) != fields.end(); }
  // The value of key, or "" if the record lacks it.
  const std::string& text(std::string_view key) const;
  // The value of key decoded from hex (empty if absent or empty).
  std::vector<uint8_t> bytes(std::string_view key) const;
  bool flag(std::string_view key) const { return text(key) == "true"; }
  int tg_id() const;
  int tc_id() const;
  // "tgId=3 tcId=41" for failure messages.
  std::string id() const;
};

struct AcvpFile {
  std::string path;
  std::string error;  // non-empty if the file could not be read or is inconsistent
  std::vector<AcvpRecord> records;
};

// Loads tests/vectors/<name> (the folder comes from MLDSA_ACVP_VECTOR_DIR, the
// absolute source path, so the tests run from any build directory). Each file is
// parsed once per process and cached.
const AcvpFile& load_acvp(const std::string& name);

// Decodes upper- or lower-case hex; throws std::invalid_argument on bad input.
std::vector<uint8_t> from_hex(std::string_view hex);

}  // namespace mldsa::test
