#include "tests/core/acvp_vectors.h"

#include <fstream>
#include <mutex>
#include <stdexcept>

#ifndef MLDSA_ACVP_VECTOR_DIR
#error "MLDSA_ACVP_VECTOR_DIR must name the tests/vectors folder"
#endif

namespace mldsa::test {

const std::string& AcvpRecord::text(std::string_view key) const {
  static const std::string empty;
  auto it = fields.find(key);
  return it == fields.end() ? empty : it->second;
}

std::vector<uint8_t> AcvpRecord::bytes(std::string_view key) const { return from_hex(text(key)); }

int AcvpRecord::tg_id() const { return std::stoi(text("tgId")); }
int AcvpRecord::tc_id() const { return std::stoi(text("tcId")); }

std::string AcvpRecord::id() const { return "tgId=" + text("tgId") + " tcId=" + text("tcId"); }

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::vector<uint8_t> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) throw std::invalid_argument("odd-length hex string");
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw std::invalid_argument("bad hex digit");
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

static AcvpFile parse(const std::string& path) {
  AcvpFile f;
  f.path = path;
  std::ifstream in(path);
  if (!in) {
    f.error = "cannot open " + path;
    return f;
  }
  long declared = -1;
  AcvpRecord cur;
  std::string line;
  size_t line_no = 0;
  auto flush = [&] {
    if (cur.fields.empty()) return;
    if (!cur.has("tgId") || !cur.has("tcId")) f.error = path + ": record without tgId/tcId before line " + std::to_string(line_no);
    f.records.push_back(std::move(cur));
    cur = AcvpRecord{};
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) {
      flush();
      continue;
    }
    if (line[0] == '#') {
      static constexpr std::string_view kCount = "# records = ";
      if (line.rfind(kCount, 0) == 0) declared = std::stol(line.substr(kCount.size()));
      continue;
    }
    // "key = value"; the value may be empty ("context = ").
    size_t eq = line.find(" =");
    if (eq == std::string::npos || eq == 0) {
      f.error = path + ":" + std::to_string(line_no) + ": not a 'key = value' line";
      return f;
    }
    std::string value = eq + 3 <= line.size() ? line.substr(eq + 3) : std::string();
    if (!cur.fields.emplace(line.substr(0, eq), std::move(value)).second) {
      f.error = path + ":" + std::to_string(line_no) + ": duplicate key";
      return f;
    }
  }
  flush();
  // A truncated or hand-edited file must not pass silently with fewer cases.
  if (f.error.empty() && (declared < 0 || static_cast<size_t>(declared) != f.records.size()))
    f.error = path + ": header declares " + std::to_string(declared) + " records, found " +
              std::to_string(f.records.size());
  return f;
}

const AcvpFile& load_acvp(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, AcvpFile> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, parse(std::string(MLDSA_ACVP_VECTOR_DIR) + "/" + name)).first;
  return it->second;
}

}  // namespace mldsa::test
