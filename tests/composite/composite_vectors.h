// composite_vectors.h - reads tests/vectors/composite/testvectors.txt (the LAMPS draft's vectors,
// flattened by tools/vectors/convert_composite.py) for the core, EVP and CLI tests.
#pragma once

#include <openssl/evp.h>

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace composite_test {

using Bytes = std::vector<uint8_t>;

struct Vector {
  std::string tcId;  // "id-MLDSA65-ECDSA-P256-SHA512"
  Bytes pk, x5c, sk, sk_pkcs8, s, sWithContext;
};

struct VectorFile {
  Bytes m, ctx;
  std::vector<Vector> tests;
};

inline Bytes base64(const std::string& text) {
  Bytes out(3 * (text.size() / 4) + 3);
  const int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0 || text.size() % 4 != 0) throw std::runtime_error("bad base64");
  size_t pad = 0;
  for (size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

inline VectorFile read_vectors(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  VectorFile f;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t eq = line.find(" = ");
    if (eq == std::string::npos) throw std::runtime_error("bad line: " + line);
    const std::string key = line.substr(0, eq), value = line.substr(eq + 3);
    if (key == "m") f.m = base64(value);
    else if (key == "ctx") f.ctx = base64(value);
    else if (key == "tcId") f.tests.push_back({value, {}, {}, {}, {}, {}, {}});
    else if (f.tests.empty()) throw std::runtime_error("field before tcId: " + key);
    else {
      Vector& v = f.tests.back();
      Bytes* slots[] = {&v.pk, &v.x5c, &v.sk, &v.sk_pkcs8, &v.s, &v.sWithContext};
      const char* names[] = {"pk", "x5c", "sk", "sk_pkcs8", "s", "sWithContext"};
      bool known = false;
      for (size_t i = 0; i < 6; ++i)
        if (key == names[i]) *slots[i] = base64(value), known = true;
      if (!known) throw std::runtime_error("unknown field: " + key);
    }
  }
  return f;
}

}  // namespace composite_test
