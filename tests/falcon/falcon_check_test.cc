// falcon_check_test.cc - cpu/falcon/check.h: each problem a key or signature
// encoding can have is named, and well-formed ones pass.
#include <gtest/gtest.h>

#include <vector>

#include "cpu/falcon/check.h"

namespace {

using falcon::Problem;

class FalconCheck : public testing::TestWithParam<int> {
 protected:
  const falcon::Params& p() const { return GetParam() == 512 ? falcon::falcon512() : falcon::falcon1024(); }
  void SetUp() override {
    pk.resize(p().pk_bytes);
    sk.resize(p().sk_bytes);
    uint8_t seed[falcon::SEED_BYTES];
    for (unsigned i = 0; i < sizeof seed; ++i) seed[i] = static_cast<uint8_t>(11 * i + 1);
    falcon::keygen(p(), seed, pk.data(), sk.data());
  }
  std::vector<uint8_t> sign(falcon::SigFormat fmt) {
    const uint8_t msg[] = "check";
    uint8_t nonce[falcon::NONCE_BYTES] = {9}, seed[falcon::SEED_BYTES] = {8};
    std::vector<uint8_t> sig(fmt == falcon::SigFormat::padded ? p().sig_padded_bytes : p().sig_max_bytes);
    size_t len = 0;
    EXPECT_TRUE(falcon::sign(p(), sk.data(), msg, sizeof msg, nonce, seed, fmt, sig.data(), &len));
    sig.resize(len);
    return sig;
  }
  std::vector<uint8_t> pk, sk;
};

TEST_P(FalconCheck, Keys) {
  EXPECT_EQ(falcon::check_public_key(p(), pk.data(), pk.size()), Problem::none);
  EXPECT_EQ(falcon::check_private_key(p(), sk.data(), sk.size()), Problem::none);
  EXPECT_EQ(falcon::check_public_key(p(), pk.data(), pk.size() - 1), Problem::bad_length);
  EXPECT_EQ(falcon::check_private_key(p(), sk.data(), sk.size() + 1), Problem::bad_length);
  auto b = pk;
  b[0] ^= 1;
  EXPECT_EQ(falcon::check_public_key(p(), b.data(), b.size()), Problem::bad_header);
  b = pk;
  b[1] = b[2] = 0xff;  // h[0] = 16383 >= q
  EXPECT_EQ(falcon::check_public_key(p(), b.data(), b.size()), Problem::malformed);
  b = sk;
  b[0] ^= 1;
  EXPECT_EQ(falcon::check_private_key(p(), b.data(), b.size()), Problem::bad_header);
  // F = -128 is outside the encoding.
  b = sk;
  b[p().sk_bytes - 1] = 0x80;
  EXPECT_EQ(falcon::check_private_key(p(), b.data(), b.size()), Problem::malformed);
  // Every coefficient of F one off in turn (the first 16): f G - g F = q fails each time.
  for (size_t i = p().sk_bytes - p().n; i < p().sk_bytes - p().n + 16; ++i) {
    b = sk;
    b[i] = static_cast<uint8_t>(b[i] == 0x7f ? 0x7e : b[i] + 1);
    EXPECT_EQ(falcon::check_private_key(p(), b.data(), b.size()), Problem::ntru_mismatch) << i;
  }
  // F and g swapped halves of another key: still well-encoded, not a key.
  std::vector<uint8_t> pk2(p().pk_bytes), sk2(p().sk_bytes);
  uint8_t seed[falcon::SEED_BYTES] = {42};
  falcon::keygen(p(), seed, pk2.data(), sk2.data());
  b = sk;
  std::copy(sk2.end() - static_cast<long>(p().n), sk2.end(), b.end() - static_cast<long>(p().n));
  EXPECT_EQ(falcon::check_private_key(p(), b.data(), b.size()), Problem::ntru_mismatch);
}

TEST_P(FalconCheck, Signatures) {
  for (const auto fmt : {falcon::SigFormat::compressed, falcon::SigFormat::padded}) {
    const auto sig = sign(fmt);
    EXPECT_EQ(falcon::check_signature(p(), sig.data(), sig.size(), fmt), Problem::none);
    auto b = sig;
    b[0] ^= 1;
    EXPECT_EQ(falcon::check_signature(p(), b.data(), b.size(), fmt), Problem::bad_header);
    EXPECT_EQ(falcon::check_signature(p(), sig.data(), 41, fmt), Problem::bad_length);
    b = sig;
    std::fill(b.begin() + 41, b.end(), 0);
    b[41] = 0x7f;  // a value whose unary part runs past 2047
    EXPECT_EQ(falcon::check_signature(p(), b.data(), b.size(), fmt), Problem::malformed);
    b = sig;
    b[41] = 0x80;  // "minus zero" as the first value's sign and low bits, then its terminator
    b[42] |= 0x80;
    EXPECT_NE(falcon::check_signature(p(), b.data(), b.size(), fmt), Problem::none);
    if (fmt == falcon::SigFormat::padded) {
      b = sig;
      b.back() = 1;
      EXPECT_EQ(falcon::check_signature(p(), b.data(), b.size(), fmt), Problem::trailing_bytes);
      // The compressed verifier takes the padded length with zero padding, as liboqs does.
      EXPECT_EQ(falcon::check_signature(p(), sig.data(), sig.size(), falcon::SigFormat::compressed), Problem::none);
    } else {
      b = sig;
      b.push_back(0);
      EXPECT_EQ(falcon::check_signature(p(), b.data(), b.size(), fmt), Problem::trailing_bytes);
      EXPECT_EQ(falcon::check_signature(p(), sig.data(), sig.size() - 1, fmt), Problem::malformed);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sets, FalconCheck, testing::Values(512, 1024));

}  // namespace
