// tables_test.cc - a backend's tables per microarchitecture (cpu/backend.cc):
// "<backend>@<tuning>" selects one, a plain name the one for this CPU, read
// here from /proc/cpuinfo rather than CPUID, so the two must agree.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>

#include "cpu/backend.h"
#include "cpu/mldsa.h"

namespace mldsa::test {
namespace {

// The tuning the core should pick on this CPU: "zen5" on AMD family 26
// (0x1A), else "generic".
std::string expected_tuning() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, vendor, family;
  while (std::getline(in, line) && (vendor.empty() || family.empty())) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "vendor_id") vendor = value;
    if (key == "cpu family") family = value;
  }
  return vendor == "AuthenticAMD" && family == "26" ? "zen5" : "generic";
}

class Tables : public ::testing::Test {
 protected:
  void TearDown() override { select_backend("auto"); }
};

TEST_F(Tables, EachTuningSelectsItsTable) {
  for (const char* name : {"avx2", "avx512"}) {
    const std::vector<const Backend*> tables = backend_tables(name);
    if (tables.empty()) {
      std::cout << "[ SKIPPED  ] this CPU cannot run " << name << "\n";
      continue;
    }
    std::set<std::string> tunings;
    for (const Backend* t : tables) {
      EXPECT_STREQ(name, t->name);
      EXPECT_TRUE(tunings.insert(t->tuning).second) << name << " has two tables tuned " << t->tuning;
      ASSERT_TRUE(select_backend(std::string(name) + "@" + t->tuning)) << name << "@" << t->tuning;
      EXPECT_EQ(t, &backend());
    }
    EXPECT_TRUE(tunings.count("generic")) << name << " has no generic table";
    EXPECT_TRUE(tunings.count("zen5")) << name << " has no zen5 table";
    EXPECT_FALSE(select_backend(std::string(name) + "@no-such-cpu"));
    EXPECT_FALSE(select_backend(std::string(name) + "@"));
  }
  if (backend_tables("avx2").empty() && backend_tables("avx512").empty())
    GTEST_SKIP() << "skipped: this CPU has neither avx2 nor avx512";
}

TEST_F(Tables, PlainNameTakesThisCpusTable) {
  const std::string want = expected_tuning();
  bool ran = false;
  for (const char* name : {"avx2", "avx512"}) {
    if (!select_backend(name)) continue;
    ran = true;
    EXPECT_EQ(want, backend().tuning) << name << " on this CPU";
    EXPECT_EQ(backend_tables(name).front(), &backend());
  }
  if (!ran) GTEST_SKIP() << "skipped: this CPU has neither avx2 nor avx512";
}

TEST_F(Tables, RefAndAutoNeedNoTuning) {
  ASSERT_TRUE(select_backend("ref"));
  EXPECT_STREQ("generic", backend().tuning);
  EXPECT_TRUE(select_backend("ref@generic"));
  EXPECT_FALSE(select_backend("ref@zen5"));
  EXPECT_TRUE(select_backend("auto"));
  EXPECT_FALSE(select_backend("no-such-backend"));
}

// backend_specs() lists what select_backend reads: ref's and auto's spellings
// (which every CPU runs, auto@generic down to ref) all select, and a
// spelling it does not list does not.
TEST_F(Tables, SpecsAreWhatSelectReads) {
  const std::vector<std::string> specs = backend_specs();
  for (const std::string& spec : specs) {
    if (spec == "auto" || spec == "auto@generic" || spec.rfind("ref", 0) == 0) {
      EXPECT_TRUE(select_backend(spec)) << spec;
    }
  }
  EXPECT_NE(std::find(specs.begin(), specs.end(), "auto@generic"), specs.end());
  EXPECT_EQ(std::find(specs.begin(), specs.end(), "ref@zen5"), specs.end());
  EXPECT_FALSE(select_backend("ref@zen5"));
}

}  // namespace
}  // namespace mldsa::test
