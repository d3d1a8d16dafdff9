// test_keys.h - reproducible keys and parameter-set naming for the core tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cpu/mldsa.h"

namespace mldsa::test {

inline constexpr ParamSet kAllParamSets[] = {ParamSet::ML_DSA_44, ParamSet::ML_DSA_65, ParamSet::ML_DSA_87};

// A fixed seed per tag, so a failure reproduces.
inline std::vector<uint8_t> fixed_seed(uint8_t tag) {
  std::vector<uint8_t> seed(SEED_BYTES);
  for (size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<uint8_t>(tag * 31 + i * 7 + 1);
  return seed;
}

inline std::unique_ptr<PrivateKey> key_from_tag(const Params& p, uint8_t tag) {
  std::unique_ptr<PrivateKey> key;
  Status st = PrivateKey::from_seed(p, fixed_seed(tag), key);
  EXPECT_EQ(st, Status::ok) << status_string(st);
  return key;
}

inline std::vector<uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

// "ML_DSA_44" for test names.
inline std::string param_name(const ::testing::TestParamInfo<ParamSet>& info) {
  std::string s = params(info.param).name;
  for (char& c : s)
    if (c == '-') c = '_';
  return s;
}

}  // namespace mldsa::test

namespace mldsa {
// GoogleTest prints a Status by name in failure messages.
inline void PrintTo(Status s, std::ostream* os) { *os << status_string(s); }
inline void PrintTo(ParamSet p, std::ostream* os) { *os << params(p).name; }
}  // namespace mldsa
