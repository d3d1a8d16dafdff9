// keccak_test.cc - the Keccak-f[1600] permutation of the backend under test
// (MLDSA_ACCEL_CPU) against keccakf1600_ref on many states, edge states and
// long chains of applications; and the incremental sponge (Keccak::absorb /
// finalize / squeeze with arbitrary splits) against OpenSSL's SHA3 / SHAKE.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "cpu/backend.h"
#include "cpu/keccak.h"
#include "cpu/mldsa.h"
#include "tests/core/backend_request.h"
#include "tests/core/reference_hash.h"

namespace mldsa::test {
namespace {

class KeccakPermutation : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (&backend() == &kRefBackend) GTEST_SKIP() << "skipped: backend ref is the reference; nothing to compare";
  }
  std::mt19937_64 rng_{0x6b656363616bull};

  ::testing::AssertionResult same_after_one(const uint64_t in[25]) {
    uint64_t a[25], b[25];
    std::memcpy(a, in, sizeof a);
    std::memcpy(b, in, sizeof b);
    keccakf1600_ref(a);
    backend().keccakf1600(b);
    for (int i = 0; i < 25; ++i)
      if (a[i] != b[i]) return ::testing::AssertionFailure() << "lane " << i << ": ref " << a[i] << ", backend " << b[i];
    return ::testing::AssertionSuccess();
  }
};

TEST_F(KeccakPermutation, RandomStates) {
  for (int trial = 0; trial < 4096; ++trial) {
    uint64_t s[25];
    for (auto& v : s) v = rng_();
    ASSERT_TRUE(same_after_one(s)) << "trial " << trial;
  }
}

// All zero, all ones, every single bit, every single lane all ones, and
// states with only one plane or one column set: catch a lane moved to the
// wrong place or a wrong rotation count.
TEST_F(KeccakPermutation, EdgeStates) {
  uint64_t s[25] = {};
  ASSERT_TRUE(same_after_one(s)) << "zero state";
  std::memset(s, 0xFF, sizeof s);
  ASSERT_TRUE(same_after_one(s)) << "all ones";
  for (int bit = 0; bit < 1600; ++bit) {
    std::memset(s, 0, sizeof s);
    s[bit / 64] = uint64_t{1} << (bit % 64);
    ASSERT_TRUE(same_after_one(s)) << "single bit " << bit;
  }
  for (int lane = 0; lane < 25; ++lane) {
    std::memset(s, 0, sizeof s);
    s[lane] = ~uint64_t{0};
    ASSERT_TRUE(same_after_one(s)) << "single lane " << lane;
  }
  for (int k = 0; k < 5; ++k) {
    std::memset(s, 0, sizeof s);
    for (int x = 0; x < 5; ++x) s[x + 5 * k] = rng_();
    ASSERT_TRUE(same_after_one(s)) << "plane " << k;
    std::memset(s, 0, sizeof s);
    for (int y = 0; y < 5; ++y) s[k + 5 * y] = rng_();
    ASSERT_TRUE(same_after_one(s)) << "column " << k;
  }
}

// Repeated application, as in a long squeeze: the same chain through both.
TEST_F(KeccakPermutation, Chains) {
  for (int chain = 0; chain < 8; ++chain) {
    uint64_t a[25], b[25];
    for (auto& v : a) v = chain == 0 ? 0 : rng_();
    std::memcpy(b, a, sizeof a);
    for (int step = 0; step < 500; ++step) {
      keccakf1600_ref(a);
      backend().keccakf1600(b);
      ASSERT_EQ(0, std::memcmp(a, b, sizeof a)) << "chain " << chain << " step " << step;
    }
  }
}

class KeccakSponge : public BackendTest {
 protected:
  std::mt19937_64 rng_{0x73706f6e6765ull};
  size_t below(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  std::vector<uint8_t> random_bytes(size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng_());
    return v;
  }
  // Pieces of a random size: mostly short (byte-level paths), some longer
  // than a block, some empty.
  size_t piece(size_t left, unsigned rate) {
    if (left == 0) return 0;
    switch (below(4)) {
      case 0: return std::min(left, below(9));
      case 1: return std::min(left, below(rate) + 1);
      case 2: return std::min(left, below(3 * rate) + 1);
      default: return std::min(left, below(64));
    }
  }
  std::vector<uint8_t> incremental(unsigned rate, uint8_t ds, std::span<const uint8_t> msg, size_t out_len) {
    Keccak k;
    k.init(rate);
    for (size_t off = 0; off < msg.size();) {
      const size_t n = piece(msg.size() - off, rate);
      k.absorb(msg.data() + off, n);
      off += n;
    }
    k.finalize(ds);
    std::vector<uint8_t> out(out_len);
    for (size_t off = 0; off < out_len;) {
      const size_t n = piece(out_len - off, rate);
      k.squeeze(out.data() + off, n);
      off += n;
    }
    return out;
  }
};

TEST_F(KeccakSponge, Shake128SplitsMatchOpenSSL) {
  for (int trial = 0; trial < 300; ++trial) {
    const size_t len = trial < 8 ? trial * 21 : below(4 * SHAKE128_RATE + 7);
    const size_t out_len = 1 + below(3 * SHAKE128_RATE);
    const auto msg = random_bytes(len);
    ASSERT_EQ(openssl_shake128(msg, out_len), incremental(SHAKE128_RATE, DS_SHAKE, msg, out_len))
        << "trial " << trial << " len " << len << " out " << out_len;
    std::vector<uint8_t> one(out_len);
    shake128(one.data(), out_len, msg.data(), msg.size());
    ASSERT_EQ(openssl_shake128(msg, out_len), one) << "one-shot, trial " << trial;
  }
}

TEST_F(KeccakSponge, Shake256SplitsMatchOpenSSL) {
  for (int trial = 0; trial < 300; ++trial) {
    const size_t len = trial < 8 ? trial * 17 : below(4 * SHAKE256_RATE + 7);
    const size_t out_len = 1 + below(3 * SHAKE256_RATE);
    const auto msg = random_bytes(len);
    ASSERT_EQ(openssl_shake256(msg, out_len), incremental(SHAKE256_RATE, DS_SHAKE, msg, out_len))
        << "trial " << trial << " len " << len << " out " << out_len;
    std::vector<uint8_t> one(out_len);
    shake256(one.data(), out_len, msg.data(), msg.size());
    ASSERT_EQ(openssl_shake256(msg, out_len), one) << "one-shot, trial " << trial;
  }
}

// Whole-block squeezes right after finalize, then byte reads after them.
TEST_F(KeccakSponge, SqueezeBlocksThenBytes) {
  for (int trial = 0; trial < 50; ++trial) {
    const auto msg = random_bytes(below(200));
    const size_t blocks = 1 + below(4), tail = below(2 * SHAKE128_RATE);
    Keccak k;
    k.init(SHAKE128_RATE);
    k.absorb(msg.data(), msg.size());
    k.finalize(DS_SHAKE);
    std::vector<uint8_t> out(blocks * SHAKE128_RATE + tail);
    k.squeeze_blocks(out.data(), blocks);
    for (size_t i = 0; i < tail; ++i) k.squeeze(out.data() + blocks * SHAKE128_RATE + i, 1);
    ASSERT_EQ(openssl_shake128(msg, out.size()), out) << "trial " << trial;
  }
}

// shake256_x4 against the single-state sponge, lane by lane: input lengths
// around the block boundaries (the padding lands in the last byte of a block,
// or needs a block of its own), outputs of one and several blocks, 1 to 4
// live lanes with different inputs; lanes beyond n are left untouched.
TEST_F(KeccakSponge, Shake256x4MatchesSingleState) {
  std::vector<size_t> lens = {0, 1, 63, 64, 65};
  for (size_t b = 1; b <= 9; ++b)
    for (int d = -2; d <= 1; ++d) lens.push_back(b * SHAKE256_RATE + d);
  for (size_t len : lens)
    for (size_t out_len : {size_t{1}, size_t{32}, size_t{SHAKE256_RATE}, size_t{SHAKE256_RATE + 1}, size_t{3 * SHAKE256_RATE + 5}})
      for (unsigned n = 1; n <= 4; ++n) {
        std::vector<uint8_t> msg[4], out[4];
        const uint8_t* in[4];
        uint8_t* outp[4];
        for (unsigned i = 0; i < 4; ++i) {
          msg[i] = random_bytes(len);
          out[i].assign(out_len, 0xA5);
          in[i] = msg[i].data();
          outp[i] = out[i].data();
        }
        shake256_x4(outp, out_len, in, len, n);
        for (unsigned i = 0; i < 4; ++i) {
          std::vector<uint8_t> want(out_len, 0xA5);
          if (i < n) shake256(want.data(), out_len, msg[i].data(), len);
          ASSERT_EQ(want, out[i]) << "len " << len << " out " << out_len << " n " << n << " lane " << i;
        }
      }
}

TEST_F(KeccakSponge, Sha3MatchesOpenSSL) {
  const HashAlg algs[] = {HashAlg::SHA3_224, HashAlg::SHA3_256, HashAlg::SHA3_384, HashAlg::SHA3_512};
  const size_t md_len[] = {28, 32, 48, 64};
  for (int a = 0; a < 4; ++a)
    for (int trial = 0; trial < 40; ++trial) {
      const auto msg = random_bytes(trial < 4 ? trial : below(600));
      std::vector<uint8_t> got(md_len[a]);
      sha3(got.data(), md_len[a], msg.data(), msg.size());
      ASSERT_EQ(openssl_digest(algs[a], msg), got) << openssl_md_name(algs[a]) << " len " << msg.size();
    }
}

}  // namespace
}  // namespace mldsa::test
