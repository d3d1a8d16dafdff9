// coop_pieces_test.cc - the warp-level pieces of the cooperative kernels
// (kernels/warp/: poly.h, keccak.h, sampling.h) on the host SIMT
// implementation, against the thread-level code (kernels/thread/) and the
// core (cpu/): NTT and inverse (exactly equal, no shared-memory bank
// conflicts, no races), layout changes, packing and unpacking, the norm
// check, the warp Keccak permutation and SHAKE sponge (lengths, alignments,
// shared and global buffers), ExpandA / ExpandS / ExpandMask streams and
// SampleInBall.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "cpu/keccak.h"
#include "cpu/ntt.h"
#include "cpu/sampling.h"
#include "kernels/warp/sampling.h"
#include "kernels/warp/poly.h"
#include "kernels/thread/packing.h"
#include "kernels/thread/sign.h"

namespace mldsa::gpu::coop {
namespace {

using Bytes = std::vector<uint8_t>;
using simt::BankStats;
using simt::HostResult;

constexpr uint32_t kThreads = 128, kWarps = 4;

// Shared memory of the NTT tests: the twiddle table, then one scratch per warp.
constexpr size_t kZetaOffset = 0, kScratchOffset = 1024;
constexpr size_t kNttShared = kScratchOffset + kWarps * kNttScratchWords * 4;

std::vector<int32_t> random_polys(size_t n, std::mt19937_64& rng, int32_t bound) {
  std::vector<int32_t> v(n * kN);
  for (auto& x : v) x = static_cast<int32_t>(rng() % (2 * static_cast<uint64_t>(bound) - 1)) - (bound - 1);
  return v;
}

void expect_clean(const HostResult& r) { EXPECT_TRUE(r.ok) << r.error; }

TEST(CoopWarpPoly, NttAndInverseEqualTheThreadCode) {
  std::mt19937_64 rng(1);
  constexpr uint32_t kBlocks = 3;
  const size_t polys = kBlocks * kWarps;
  std::vector<int32_t> in = random_polys(polys, rng, kQ);
  std::vector<int32_t> fwd(in.size()), inv(in.size());
  BankStats banks;
  for (bool reverse : {false, true}) {
    const HostResult r = simt::host_launch({kBlocks, kThreads, kNttShared}, {.reverse = reverse, .banks = &banks}, [&] {
      Shared<int32_t> zetas = simt::shared_at<int32_t>(kZetaOffset);
      Shared<int32_t> scratch = simt::shared_at<int32_t>(kScratchOffset + simt::warp_index() * kNttScratchWords * 4);
      block_load_zetas(zetas);
      simt::sync_block();
      const size_t p = simt::block_index() * kWarps + simt::warp_index();
      Frag f = load_strided(in.data() + p * kN);
      warp_ntt(f, scratch, zetas);
      store_contiguous(fwd.data() + p * kN, f);
      Frag g = load_contiguous(in.data() + p * kN);
      warp_invntt_tomont(g, scratch, zetas);
      store_strided(inv.data() + p * kN, g);
    });
    expect_clean(r);
    for (size_t p = 0; p < polys; ++p) {
      int32_t want[kN], want_inv[kN];
      std::memcpy(want, in.data() + p * kN, sizeof want);
      std::memcpy(want_inv, in.data() + p * kN, sizeof want_inv);
      ntt(want);
      invntt_tomont(want_inv);
      EXPECT_EQ(0, std::memcmp(want, fwd.data() + p * kN, sizeof want)) << "poly " << p;
      EXPECT_EQ(0, std::memcmp(want_inv, inv.data() + p * kN, sizeof want_inv)) << "poly " << p;
    }
  }
  EXPECT_GT(banks.accesses, 0u);
  EXPECT_EQ(banks.extra(), 0u) << "shared-memory bank conflicts: " << banks.wavefronts << " wavefronts for "
                               << banks.ideal << " (worst " << banks.worst << ")";
}

TEST(CoopWarpPoly, LayoutsLoadsAndStores) {
  std::mt19937_64 rng(2);
  std::vector<int32_t> in = random_polys(kWarps, rng, kQ), out(in.size(), 0), out2(in.size(), 0);
  BankStats banks;
  expect_clean(simt::host_launch({1, kThreads, kWarps * (kNttScratchWords + kPolyWords) * 4}, {.banks = &banks}, [&] {
    const unsigned w = simt::warp_index();
    Shared<int32_t> scratch = simt::shared_at<int32_t>(w * kNttScratchWords * 4);
    Shared<int32_t> poly = simt::shared_at<int32_t>((kWarps * kNttScratchWords + w * kPolyWords) * 4);
    Frag f = load_strided(in.data() + w * kN);
    warp_to_contiguous(f, scratch);
    store_contiguous(poly, f);            // shared, padded
    simt::sync_warp();
    Frag g = load_strided(poly);          // read back the other way
    store_strided(out.data() + w * kN, g);
    warp_to_contiguous(g, scratch);
    warp_to_strided(g, scratch);
    store_strided(out2.data() + w * kN, g);
  }));
  EXPECT_EQ(in, out);
  EXPECT_EQ(in, out2);
  EXPECT_EQ(banks.extra(), 0u) << banks.wavefronts << " wavefronts for " << banks.ideal;
}

TEST(CoopWarpPoly, PackingEqualsTheThreadCode) {
  std::mt19937_64 rng(3);
  struct Enc {
    unsigned bits;
    int32_t offset;
    bool negate;
  };
  const Enc encs[] = {{3, 2, true}, {4, 4, true}, {4, 0, false}, {6, 0, false}, {10, 0, false},
                      {13, 1 << 12, true}, {18, 1 << 17, true}, {20, 1 << 19, true}};
  for (const Enc& e : encs) {
    // Values whose encoding fits in bits.
    std::vector<int32_t> a(kN);
    for (auto& x : a) {
      const int32_t v = static_cast<int32_t>(rng() & ((1u << e.bits) - 1));
      x = e.negate ? e.offset - v : v - e.offset;
    }
    Bytes want(32 * e.bits), got(32 * e.bits), got_shared(32 * e.bits);
    pack_bits(want.data(), a.data(), e.bits, e.offset, e.negate);
    std::vector<int32_t> back_c(kN), back_s(kN), back_shared(kN);
    expect_clean(simt::host_launch({1, 32, 32 * e.bits}, {}, [&] {
      Shared<uint8_t> sh = simt::shared_at<uint8_t>(0);
      Frag f = load_contiguous(a.data());
      pack_contiguous(got.data(), f, e.bits, e.offset, e.negate);  // global
      pack_contiguous(sh, f, e.bits, e.offset, e.negate);          // shared
      simt::sync_warp();
      for (unsigned b = simt::lane(); b < 32 * e.bits; b += 32) got_shared[b] = sh[b];
      store_contiguous(back_c.data(), unpack_contiguous(want.data(), e.bits, e.offset, e.negate));
      store_strided(back_s.data(), unpack_strided(want.data(), e.bits, e.offset, e.negate));
      store_strided(back_shared.data(), unpack_strided(sh, e.bits, e.offset, e.negate));
    }));
    EXPECT_EQ(got, want) << e.bits << " bits";
    EXPECT_EQ(got_shared, want) << e.bits << " bits";
    EXPECT_EQ(back_c, a) << e.bits << " bits";
    EXPECT_EQ(back_s, a) << e.bits << " bits";
    EXPECT_EQ(back_shared, a) << e.bits << " bits";
  }
}

TEST(CoopWarpPoly, NormCheckEqualsTheThreadCode) {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<int32_t> a = random_polys(1, rng, 1000);
    const int32_t bound = 900 + static_cast<int32_t>(rng() % 200);
    if (trial % 4 == 0) a[rng() % kN] = (trial % 8 == 0 ? 1 : -1) * bound;  // exactly at the bound
    uint32_t got = 7;
    expect_clean(simt::host_launch({1, 32, 0}, {}, [&] {
      const bool e = warp_exceeds(load_strided(a.data()), bound);
      if (simt::lane() == 0) got = e ? 0xFFFFFFFFu : 0;
    }));
    EXPECT_EQ(got, poly_exceeds(a.data(), bound)) << "trial " << trial;
  }
}

TEST(CoopWarpKeccak, PermutationEqualsTheThreadCode) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 3; ++trial) {
    uint64_t st[25], got[25];
    for (auto& w : st) w = rng();
    expect_clean(simt::host_launch({1, 32, 0}, {}, [&] {
      const unsigned l = simt::lane();
      const KeccakLane k = keccak_lane(l);
      const uint64_t a = warp_keccak_f1600(l < 25 ? st[l] : 0, k);
      if (l < 25) got[l] = a;
    }));
    keccak_f1600(st);
    EXPECT_EQ(0, std::memcmp(st, got, sizeof st)) << "trial " << trial;
  }
}

// SHAKE128/256 on the warp: input from global memory at every alignment or
// from shared memory, absorbed in one call or in pieces (with a 2-byte
// value), squeezed to global or shared memory.
TEST(CoopWarpKeccak, SpongeEqualsTheCore) {
  std::mt19937_64 rng(6);
  Bytes msg(700);
  for (auto& b : msg) b = static_cast<uint8_t>(rng());
  const size_t lens[] = {0, 1, 7, 8, 33, 135, 136, 137, 168, 200, 500};
  for (uint32_t rate : {kShake128Rate, kShake256Rate}) {
    for (size_t len : lens) {
      for (size_t align : {size_t{0}, size_t{3}}) {
        const size_t outlen = 10 + len % 300;
        Bytes want(outlen), want_split(outlen);
        (rate == kShake128Rate ? mldsa::shake128 : mldsa::shake256)(want.data(), outlen, msg.data() + align, len);
        Bytes m2(msg.begin() + static_cast<long>(align), msg.begin() + static_cast<long>(align + len));
        m2.push_back(0x34);
        m2.push_back(0x12);
        (rate == kShake128Rate ? mldsa::shake128 : mldsa::shake256)(want_split.data(), outlen, m2.data(), m2.size());
        Bytes g_global(outlen), g_shared(outlen), g_split(outlen);
        const size_t shared = 1024 + 512;
        expect_clean(simt::host_launch({1, 32, shared}, {}, [&] {
          Shared<uint8_t> in = simt::shared_at<uint8_t>(0), out = simt::shared_at<uint8_t>(1024);
          for (size_t b = simt::lane(); b < len; b += 32) in[b] = msg[align + b];
          simt::sync_warp();
          WarpSponge a;
          warp_sponge_init(a, rate);
          warp_absorb(a, msg.data() + align, len);
          warp_finalize(a);
          warp_squeeze(a, g_global.data(), outlen);

          WarpSponge b;
          warp_sponge_init(b, rate);
          warp_absorb(b, in, len);
          warp_finalize(b);
          warp_squeeze(b, out, 5);
          warp_squeeze(b, out + 5, outlen - 5);
          simt::sync_warp();
          for (size_t i = simt::lane(); i < outlen; i += 32) g_shared[i] = out[i];

          WarpSponge c;
          warp_sponge_init(c, rate);
          warp_absorb(c, msg.data() + align, len / 3);
          warp_absorb(c, in + len / 3, len - len / 3);
          warp_absorb_value(c, 0x1234, 2);
          warp_finalize(c);
          warp_squeeze(c, g_split.data(), outlen);
        }));
        EXPECT_EQ(g_global, want) << "rate " << rate << " len " << len << " align " << align;
        EXPECT_EQ(g_shared, want) << "rate " << rate << " len " << len;
        EXPECT_EQ(g_split, want_split) << "rate " << rate << " len " << len;
      }
    }
  }
}

// As the kernels run them: one lane per stream for ExpandA's k*l entries and
// ExpandS's l + k polynomials, the warp sponge for ExpandMask's l streams.
TEST(CoopSampling, LaneStreamsEqualTheCore) {
  std::mt19937_64 rng(7);
  uint8_t rho[32], rhoprime[64], rhopp[64];
  for (auto& b : rho) b = static_cast<uint8_t>(rng());
  for (auto& b : rhoprime) b = static_cast<uint8_t>(rng());
  for (auto& b : rhopp) b = static_cast<uint8_t>(rng());
  constexpr unsigned k = 8, l = 7;
  std::vector<Poly> want_a(k * l), want_s(k + l), want_y(l);
  expand_a_ref(want_a.data(), rho, k, l);
  for (unsigned eta : {2u, 4u}) {
    expand_s_ref(want_s.data(), k + l, rhoprime, eta, 0);
    std::vector<int32_t> got_a(k * l * kN), got_s((k + l) * kN);
    expect_clean(simt::host_launch({1, 64, 0}, {}, [&] {
      const unsigned t = simt::thread_index();
      if (t < k * l)
        lane_rej_ntt_poly(rho, t / l, t % l, [&](unsigned c, int32_t a) { got_a[t * kN + c] = a; });
      if (t < k + l)
        lane_rej_bounded_poly(rhoprime, static_cast<uint16_t>(t), eta, [&](unsigned c, int32_t s) { got_s[t * kN + c] = s; });
    }));
    for (unsigned e = 0; e < k * l; ++e)
      EXPECT_EQ(0, std::memcmp(want_a[e].c, got_a.data() + e * kN, 4 * kN)) << "A entry " << e;
    for (unsigned e = 0; e < k + l; ++e)
      EXPECT_EQ(0, std::memcmp(want_s[e].c, got_s.data() + e * kN, 4 * kN)) << "eta " << eta << " poly " << e;
  }
  for (unsigned gamma1_bits : {17u, 19u}) {
    const uint16_t kappa = 3 * l;
    expand_mask_ref(want_y.data(), l, rhopp, kappa, gamma1_bits);
    const unsigned zbits = gamma1_bits + 1, blocks = mask_stream_blocks(zbits);
    const size_t stream_bytes = blocks * kShake256Rate;
    std::vector<int32_t> got(l * kN);
    expect_clean(simt::host_launch({1, 32, l * stream_bytes}, {}, [&] {
      for (unsigned j = 0; j < l; ++j)
        warp_mask_stream(rhopp, static_cast<uint16_t>(kappa + j), simt::shared_at<uint8_t>(j * stream_bytes), blocks);
      simt::sync_warp();
      for (unsigned j = 0; j < l; ++j)
        store_strided(got.data() + j * kN,
                      unpack_strided(simt::shared_at<uint8_t>(j * stream_bytes), zbits, 1 << gamma1_bits, true));
    }));
    for (unsigned j = 0; j < l; ++j)
      EXPECT_EQ(0, std::memcmp(want_y[j].c, got.data() + j * kN, 4 * kN)) << "gamma1 2^" << gamma1_bits << " poly " << j;
  }
}

TEST(CoopSampling, SampleInBallEqualsTheCore) {
  std::mt19937_64 rng(8);
  for (unsigned tau : {39u, 49u, 60u}) {
    for (int trial = 0; trial < 4; ++trial) {
      const unsigned len = tau == 39 ? 32 : tau == 49 ? 48 : 64;
      Bytes ct(len);
      for (auto& b : ct) b = static_cast<uint8_t>(rng());
      Poly want;
      mldsa::sample_in_ball(&want, ct.data(), len, tau);
      std::vector<int32_t> got(kN);
      expect_clean(simt::host_launch({1, 32, 64 + 136 + kPolyWords * 4}, {}, [&] {
        Shared<uint8_t> c = simt::shared_at<uint8_t>(0);
        for (unsigned b = simt::lane(); b < len; b += 32) c[b] = ct[b];
        simt::sync_warp();
        Shared<int32_t> poly = simt::shared_at<int32_t>(200);
        warp_sample_in_ball(poly, c, len, tau, simt::shared_at<uint8_t>(64));
        store_strided(got.data(), load_strided(poly));
      }));
      EXPECT_EQ(0, std::memcmp(want.c, got.data(), sizeof want.c)) << "tau " << tau << " trial " << trial;
    }
  }
}

}  // namespace
}  // namespace mldsa::gpu::coop
