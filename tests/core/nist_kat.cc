// nist_kat.cc - see nist_kat.h.
#include "tests/core/nist_kat.h"

#include <fstream>
#include <stdexcept>

#include "cpu/mldsa.h"
#include "tests/core/nist_drbg.h"

namespace mldsa::test {

KatFile load_kat_file(const std::string& path) {
  KatFile f;
  std::ifstream in(path);
  if (!in) {
    f.error = "cannot open " + path;
    return f;
  }
  std::getline(in, f.header);
  KatRecord r;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) {
      if (!r.empty()) f.records.push_back(std::move(r));
      r.clear();
      continue;
    }
    const size_t eq = line.find(" = ");
    if (eq == std::string::npos) {
      f.error = path + ": bad line " + line.substr(0, 40);
      return f;
    }
    r[line.substr(0, eq)] = line.substr(eq + 3);
  }
  if (!r.empty()) f.records.push_back(std::move(r));
  return f;
}

KatFile load_round3_kat(const std::string& name) {
  return load_kat_file(std::string(MLDSA_ACVP_VECTOR_DIR) + "/dilithium-round3/PQCsignKAT_" + name + ".rsp");
}

std::vector<uint8_t> kat_keygen_seed(std::span<const uint8_t> kat_seed) {
  if (kat_seed.size() != 48) throw std::invalid_argument("a KAT seed has 48 bytes");
  NistKatDrbg drbg(kat_seed.first<48>());
  std::vector<uint8_t> zeta(SEED_BYTES);
  drbg.generate(zeta.data(), zeta.size());
  return zeta;
}

}  // namespace mldsa::test
