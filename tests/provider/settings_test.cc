// settings_test.cc - the one settings table (provctx/settings.h): its rows
// are consistent, each type has one grammar, defaults are what the table
// says, and the environment overrides (secure_getenv, empty = unset).
#include "provctx/settings.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace mldsa::prov {
namespace {

// A setting's value as text, for comparing with its documented default.
std::string value_text(const Settings& s, const Setting& row) {
  if (auto* f = std::get_if<bool Settings::*>(&row.field)) return s.*(*f) ? "yes" : "no";
  if (auto* f = std::get_if<uint64_t Settings::*>(&row.field)) return std::to_string(s.*(*f));
  if (auto* f = std::get_if<std::optional<uint64_t> Settings::*>(&row.field))
    return (s.*(*f)).has_value() ? std::to_string(*(s.*(*f))) : "(unset)";
  return s.*std::get<std::string Settings::*>(row.field);
}

TEST(Settings, RowsAreConsistent) {
  std::set<std::string> keys, envs;
  for (const Setting& row : settings_table()) {
    SCOPED_TRACE(row.env);
    EXPECT_EQ(std::string(row.env).rfind("MLDSA_ACCEL_", 0), 0u);
    EXPECT_TRUE(envs.insert(row.env).second) << "variable twice";
    if (row.key != nullptr) EXPECT_TRUE(keys.insert(row.key).second) << "key twice";
    EXPECT_EQ(row.key == nullptr, row.test_only) << "test rows, and only they, are environment-only";
    EXPECT_NE(std::string(row.meaning), "");
    EXPECT_EQ(find_setting(row.env), &row);
    if (row.key != nullptr) EXPECT_EQ(find_setting(row.key), &row);
    // The field's type follows the row's.
    const bool is_bool = std::holds_alternative<bool Settings::*>(row.field);
    const bool is_number = std::holds_alternative<uint64_t Settings::*>(row.field) ||
                           std::holds_alternative<std::optional<uint64_t> Settings::*>(row.field);
    EXPECT_EQ(is_bool, row.type == SettingType::boolean);
    EXPECT_EQ(is_number, row.type == SettingType::number);
    if (is_number) EXPECT_LE(row.lo, row.hi);
  }
}

// A default written as a plain value is the struct's default; one in
// parentheses describes an unset value that the layer above sizes.
TEST(Settings, DefaultsAreTheTablesOwn) {
  const Settings defaults;
  for (const Setting& row : settings_table()) {
    SCOPED_TRACE(row.env);
    const std::string text = row.default_text;
    const std::string actual = value_text(defaults, row);
    if (text.front() == '(') {
      EXPECT_TRUE(actual == "(unset)" || actual.empty()) << actual;
      continue;
    }
    Settings parsed;
    std::string why;
    ASSERT_TRUE(apply_setting(parsed, row, text, &why)) << why;
    EXPECT_EQ(value_text(parsed, row), actual) << "documented " << text;
  }
}

TEST(Settings, OneGrammarPerType) {
  Settings s;
  std::string why;
  const Setting& retain = *find_setting("ml-dsa.retain_seed");
  for (const char* yes : {"1", "yes", "TRUE", "On"}) {
    s.retain_seed = false;
    EXPECT_TRUE(apply_setting(s, retain, yes, &why)) << yes;
    EXPECT_TRUE(s.retain_seed);
  }
  for (const char* no : {"0", "No", "false", "OFF"}) {
    EXPECT_TRUE(apply_setting(s, retain, no, &why)) << no;
    EXPECT_FALSE(s.retain_seed);
  }
  for (const char* bad : {"maybe", "", "2", "yes "}) {
    EXPECT_FALSE(apply_setting(s, retain, bad, &why)) << bad;
    EXPECT_NE(why.find("ml-dsa.retain_seed: '"), std::string::npos) << why;
    EXPECT_NE(why.find("is not a boolean"), std::string::npos) << why;
  }
  // The engine's caches take the same words as every other boolean (they took only 0/1).
  EXPECT_TRUE(apply_setting(s, *find_setting("gpu_sign_key_cache"), "off", &why)) << why;
  EXPECT_FALSE(s.gpu_sign_key_cache);
  // Numbers: decimal, whole, in range.
  const Setting& timeout = *find_setting("MLDSA_ACCEL_GPU_TIMEOUT_MS");
  EXPECT_TRUE(apply_setting(s, timeout, "1", &why));
  EXPECT_EQ(s.gpu_timeout_ms, 1u);
  for (const char* bad : {"0", "-1", "3600001", "1e3", "12ms", " 5", ""})
    EXPECT_FALSE(apply_setting(s, timeout, bad, &why)) << bad;
  EXPECT_NE(why.find("1..3600000"), std::string::npos) << why;
  // Choices: any case, one of the listed words.
  EXPECT_TRUE(apply_setting(s, *find_setting("gpu_kernels"), "COOP", &why));
  EXPECT_EQ(s.gpu_kernels, "coop");
  EXPECT_FALSE(apply_setting(s, *find_setting("gpu_kernels"), "fast", &why));
  EXPECT_NE(why.find("thread, coop"), std::string::npos) << why;
  // Texts with a grammar of their own.
  EXPECT_TRUE(apply_setting(s, *find_setting("gpu_devices"), "0,2", &why)) << why;
  EXPECT_FALSE(apply_setting(s, *find_setting("gpu_devices"), "0;2", &why));
  EXPECT_FALSE(apply_setting(s, *find_setting("gpu_split"), "17", &why));
}

TEST(Settings, EnvironmentOverridesAndTestRowsNeedTheTestBuild) {
  Settings s;
  std::string why;
  setenv("MLDSA_ACCEL_GPU_POLICY", "always", 1);
  setenv("MLDSA_ACCEL_GPU_MIN_INFLIGHT", "", 1);  // empty: as if unset
  setenv("MLDSA_ACCEL_SIM_DEVICES", "3", 1);
  ASSERT_TRUE(apply_environment(s, false, &why)) << why;
  EXPECT_EQ(s.gpu_policy, "always");
  EXPECT_EQ(s.gpu_min_inflight, 8u);
  EXPECT_EQ(s.sim_devices, 0u) << "the shipped module reads no test row";
  ASSERT_TRUE(apply_environment(s, true, &why)) << why;
  EXPECT_EQ(s.sim_devices, 3u);
  setenv("MLDSA_ACCEL_GPU_MAX_BATCH", "lots", 1);
  EXPECT_FALSE(apply_environment(s, false, &why));
  EXPECT_NE(why.find("gpu_max_batch: 'lots'"), std::string::npos) << why;
  EXPECT_NE(why.find("(from MLDSA_ACCEL_GPU_MAX_BATCH)"), std::string::npos) << why;
  for (const char* v : {"MLDSA_ACCEL_GPU_POLICY", "MLDSA_ACCEL_GPU_MIN_INFLIGHT", "MLDSA_ACCEL_SIM_DEVICES",
                        "MLDSA_ACCEL_GPU_MAX_BATCH"})
    unsetenv(v);
}

// The Markdown table of every setting, as docs/CONFIGURE.md holds it between
// its "settings table" markers.
std::string markdown_table() {
  auto code = [](std::string_view t) { return "`" + std::string(t) + "`"; };
  auto cell = [&](std::string_view t) {  // "(words)" is prose, anything else a literal
    return !t.empty() && t.front() == '(' && t.back() == ')' ? std::string(t.substr(1, t.size() - 2)) : code(t);
  };
  auto values = [&](const Setting& row) {
    if (row.type == SettingType::number) return code(std::string_view(row.values));
    if (row.type == SettingType::boolean) return std::string("boolean");
    std::string out, v = row.values;
    if (row.type == SettingType::text) return v;
    for (size_t at = 0;;) {  // a choice: each word in code
      const size_t bar = v.find('|', at);
      out += code(v.substr(at, bar - at));
      if (bar == std::string::npos) return out;
      out += ", ";
      at = bar + 1;
    }
  };
  static const char* kTypes[] = {"boolean", "number", "choice", "text"};
  std::string out =
      "| key (openssl.cnf) | environment variable | type | default | values | meaning |\n"
      "|---|---|---|---|---|---|\n";
  for (const Setting& row : settings_table()) {
    out += "| " + (row.key != nullptr ? code(row.key) : std::string("— (test build)")) + " | " + code(row.env) +
           " | " + kTypes[static_cast<int>(row.type)] + " | " + cell(row.default_text) + " | " + values(row) +
           " | " + row.meaning + " |\n";
  }
  return out;
}

TEST(SettingsDoc, ConfigureMdHoldsTheTable) {
  std::ifstream in(MLDSA_SOURCE_DIR "/docs/CONFIGURE.md");
  ASSERT_TRUE(in) << "cannot read docs/CONFIGURE.md";
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str(), begin = "<!-- settings table: begin -->\n",
                    end = "<!-- settings table: end -->";
  const size_t b = text.find(begin), e = text.find(end);
  ASSERT_NE(b, std::string::npos) << "docs/CONFIGURE.md lacks the marker " << begin;
  ASSERT_NE(e, std::string::npos) << "docs/CONFIGURE.md lacks the marker " << end;
  EXPECT_EQ(text.substr(b + begin.size(), e - b - begin.size()), markdown_table())
      << "docs/CONFIGURE.md's table differs from provctx/settings.cc's: put the expected text above between its "
         "markers";
}

}  // namespace
}  // namespace mldsa::prov
