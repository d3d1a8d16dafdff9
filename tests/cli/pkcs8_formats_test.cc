// pkcs8_formats_test.cc - the six PKCS#8 private key layouts, byte for byte
// against the sizes and prefixes OpenSSL 3.5 uses (its ml_dsa_codecs.c tables).
#include "encoders/pkcs8_formats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace {

using mldsa::ParamSet;
using mldsa::prov::P8Format;
using mldsa::prov::P8FormatList;
using mldsa::prov::P8Parts;

struct Expected {
  ParamSet set;
  size_t seed_priv, priv_only, oqskeypair;  // total sizes from OpenSSL 3.5
  std::vector<uint8_t> seed_priv_head;      // first 6 bytes
  std::vector<uint8_t> sk_head;             // 04 82 LL LL before sk
  std::vector<uint8_t> oqs_head;
};

const Expected kExpected[] = {
    {ParamSet::ML_DSA_44, 0x0a2a, 0x0a04, 0x0f24, {0x30, 0x82, 0x0a, 0x26, 0x04, 0x20}, {0x04, 0x82, 0x0a, 0x00},
     {0x04, 0x82, 0x0f, 0x20}},
    {ParamSet::ML_DSA_65, 0x0fea, 0x0fc4, 0x1764, {0x30, 0x82, 0x0f, 0xe6, 0x04, 0x20}, {0x04, 0x82, 0x0f, 0xc0},
     {0x04, 0x82, 0x17, 0x60}},
    {ParamSet::ML_DSA_87, 0x134a, 0x1324, 0x1d44, {0x30, 0x82, 0x13, 0x46, 0x04, 0x20}, {0x04, 0x82, 0x13, 0x20},
     {0x04, 0x82, 0x1d, 0x40}},
};

constexpr P8Format kAll[] = {P8Format::seed_priv, P8Format::priv_only, P8Format::oqskeypair,
                             P8Format::seed_only, P8Format::bare_priv, P8Format::bare_seed};

// Distinct filler bytes per part, so a part read from the wrong offset shows.
struct Parts {
  std::vector<uint8_t> seed, sk, pk;
  explicit Parts(const mldsa::Params& p) : seed(32, 0x11), sk(p.sk_bytes, 0x22), pk(p.pk_bytes, 0x33) {
    seed[0] = 0xA0;
    sk[0] = 0xB0;
    pk[0] = 0xC0;
  }
};

bool starts_with(const std::vector<uint8_t>& v, const std::vector<uint8_t>& head, size_t at = 0) {
  return v.size() >= at + head.size() && std::memcmp(v.data() + at, head.data(), head.size()) == 0;
}

TEST(Pkcs8Formats, LayoutsMatchOpenSSL35) {
  for (const Expected& e : kExpected) {
    const mldsa::Params& p = mldsa::params(e.set);
    SCOPED_TRACE(p.name);
    const Parts parts(p);
    std::vector<uint8_t> out;

    ASSERT_TRUE(mldsa::prov::p8_write(p, P8Format::seed_priv, parts.seed, parts.sk, parts.pk, out));
    EXPECT_EQ(out.size(), e.seed_priv);
    EXPECT_TRUE(starts_with(out, e.seed_priv_head));
    EXPECT_TRUE(starts_with(out, parts.seed, 6));
    EXPECT_TRUE(starts_with(out, e.sk_head, 0x26));
    EXPECT_TRUE(starts_with(out, parts.sk, 0x2a));

    ASSERT_TRUE(mldsa::prov::p8_write(p, P8Format::priv_only, {}, parts.sk, parts.pk, out));
    EXPECT_EQ(out.size(), e.priv_only);
    EXPECT_TRUE(starts_with(out, e.sk_head));
    EXPECT_TRUE(starts_with(out, parts.sk, 4));

    ASSERT_TRUE(mldsa::prov::p8_write(p, P8Format::oqskeypair, {}, parts.sk, parts.pk, out));
    EXPECT_EQ(out.size(), e.oqskeypair);
    EXPECT_TRUE(starts_with(out, e.oqs_head));
    EXPECT_TRUE(starts_with(out, parts.sk, 4));
    EXPECT_TRUE(starts_with(out, parts.pk, 4 + p.sk_bytes));

    ASSERT_TRUE(mldsa::prov::p8_write(p, P8Format::seed_only, parts.seed, {}, {}, out));
    EXPECT_EQ(out.size(), 0x22u);
    EXPECT_TRUE(starts_with(out, {0x80, 0x20}));
    EXPECT_TRUE(starts_with(out, parts.seed, 2));

    ASSERT_TRUE(mldsa::prov::p8_write(p, P8Format::bare_priv, {}, parts.sk, {}, out));
    EXPECT_EQ(out, parts.sk);
    ASSERT_TRUE(mldsa::prov::p8_write(p, P8Format::bare_seed, parts.seed, {}, {}, out));
    EXPECT_EQ(out, parts.seed);
  }
}

TEST(Pkcs8Formats, RecogniseRoundTrip) {
  for (const Expected& e : kExpected) {
    const mldsa::Params& p = mldsa::params(e.set);
    const Parts parts(p);
    for (P8Format f : kAll) {
      SCOPED_TRACE(std::string(p.name) + " " + mldsa::prov::p8_format_name(f));
      std::vector<uint8_t> out;
      ASSERT_TRUE(mldsa::prov::p8_write(p, f, parts.seed, parts.sk, parts.pk, out));
      EXPECT_EQ(out.size(), mldsa::prov::p8_format_size(p, f));
      P8Parts got;
      ASSERT_TRUE(mldsa::prov::p8_recognise(p, out, kAll, got));
      EXPECT_EQ(got.format, f);
      EXPECT_EQ(!got.seed.empty(), mldsa::prov::p8_format_has_seed(f));
      EXPECT_EQ(!got.sk.empty(), mldsa::prov::p8_format_has_priv(f));
      EXPECT_TRUE(got.seed.empty() || std::equal(got.seed.begin(), got.seed.end(), parts.seed.begin()));
      EXPECT_TRUE(got.sk.empty() || std::equal(got.sk.begin(), got.sk.end(), parts.sk.begin()));
      EXPECT_EQ(!got.pk.empty(), f == P8Format::oqskeypair);
      EXPECT_TRUE(got.pk.empty() || std::equal(got.pk.begin(), got.pk.end(), parts.pk.begin()));

      // Only this format allowed: still recognised; every other format: not.
      const P8Format only[] = {f};
      EXPECT_TRUE(mldsa::prov::p8_recognise(p, out, only, got));
      std::vector<P8Format> others;
      for (P8Format g : kAll)
        if (g != f) others.push_back(g);
      EXPECT_FALSE(mldsa::prov::p8_recognise(p, out, others, got));
    }
  }
}

TEST(Pkcs8Formats, RejectsWrongLengthsAndTags) {
  for (const Expected& e : kExpected) {
    const mldsa::Params& p = mldsa::params(e.set);
    const Parts parts(p);
    for (P8Format f : kAll) {
      SCOPED_TRACE(std::string(p.name) + " " + mldsa::prov::p8_format_name(f));
      std::vector<uint8_t> good;
      ASSERT_TRUE(mldsa::prov::p8_write(p, f, parts.seed, parts.sk, parts.pk, good));
      P8Parts got;
      const P8Format only[] = {f};
      std::vector<uint8_t> shorter(good.begin(), good.end() - 1);
      EXPECT_FALSE(mldsa::prov::p8_recognise(p, shorter, only, got));
      std::vector<uint8_t> longer = good;
      longer.push_back(0);
      EXPECT_FALSE(mldsa::prov::p8_recognise(p, longer, only, got));
      // Every fixed header byte matters (bare layouts have none).
      size_t header = 0;
      if (f == P8Format::seed_priv) header = 6;
      if (f == P8Format::priv_only || f == P8Format::oqskeypair) header = 4;
      if (f == P8Format::seed_only) header = 2;
      for (size_t i = 0; i < header; ++i) {
        std::vector<uint8_t> bad = good;
        bad[i] ^= 0x01;
        EXPECT_FALSE(mldsa::prov::p8_recognise(p, bad, only, got)) << "header byte " << i;
      }
      if (f == P8Format::seed_priv) {
        for (size_t i = 0x26; i < 0x2a; ++i) {
          std::vector<uint8_t> bad = good;
          bad[i] ^= 0x01;
          EXPECT_FALSE(mldsa::prov::p8_recognise(p, bad, only, got)) << "sk header byte " << i;
        }
      }
    }
    // A part of the wrong size is refused on output.
    std::vector<uint8_t> out;
    EXPECT_FALSE(mldsa::prov::p8_write(p, P8Format::seed_priv, {}, parts.sk, parts.pk, out));
    EXPECT_FALSE(mldsa::prov::p8_write(p, P8Format::priv_only, parts.seed, parts.pk, parts.pk, out));
  }
}

TEST(Pkcs8Formats, FormatLists) {
  P8FormatList l;
  ASSERT_TRUE(mldsa::prov::p8_parse_format_list("", l));
  ASSERT_EQ(l.count, 6u);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(l.items[i], kAll[i]);  // OpenSSL 3.5's default order

  ASSERT_TRUE(mldsa::prov::p8_parse_format_list(" \t, ", l));
  EXPECT_EQ(l.count, 6u);

  ASSERT_TRUE(mldsa::prov::p8_parse_format_list("SEED-only,priv-only\tbogus seed-only  oqskeypair", l));
  ASSERT_EQ(l.count, 3u);
  EXPECT_EQ(l.items[0], P8Format::seed_only);
  EXPECT_EQ(l.items[1], P8Format::priv_only);
  EXPECT_EQ(l.items[2], P8Format::oqskeypair);
  EXPECT_TRUE(l.contains(P8Format::priv_only));
  EXPECT_FALSE(l.contains(P8Format::seed_priv));

  EXPECT_FALSE(mldsa::prov::p8_parse_format_list("bogus, seedx", l));  // names nothing known
  EXPECT_FALSE(mldsa::prov::p8_parse_format_list("seed-priv-x", l));   // longer than any name

  // Abbreviations, as OpenSSL 3.5 reads them: each picks the next unpicked match.
  ASSERT_TRUE(mldsa::prov::p8_parse_format_list("seed Seed bare", l));
  ASSERT_EQ(l.count, 3u);
  EXPECT_EQ(l.items[0], P8Format::seed_priv);
  EXPECT_EQ(l.items[1], P8Format::seed_only);
  EXPECT_EQ(l.items[2], P8Format::bare_priv);
}

}  // namespace
