// simt_test.cc - the host implementation of the SIMT layer (kernels/simt/):
// indices, shuffles and votes against their definitions, barriers ordering
// shared memory, and what it must catch: a missing barrier (a race, found
// and reported with the threads), a missing warp sync, a barrier or
// collective not every thread reaches (deadlock), lanes in different
// collectives, shared memory read before anyone wrote it or accessed out of
// bounds. Also the bank-conflict counter on known patterns, several blocks
// resident at once with a spin-wait between them, and what a fiber switch
// costs next to a thread barrier (printed: the reason the layer uses fibers).
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstring>
#include <iostream>
#include <thread>
#include <vector>

#include "kernels/simt/simt.h"

namespace mldsa::gpu::simt {
namespace {

HostResult launch_ok(const HostGrid& g, const HostOptions& o, auto&& f) {
  HostResult r = host_launch(g, o, f);
  EXPECT_TRUE(r.ok) << r.error;
  return r;
}

TEST(Simt, IndicesOfEveryThread) {
  constexpr uint32_t kBlocks = 3, kThreads = 96;
  std::vector<uint32_t> seen(kBlocks * kThreads * 4, 0xFFFFFFFF);
  launch_ok({kBlocks, kThreads, 0}, {}, [&] {
    const uint32_t i = block_index() * block_size() + thread_index();
    seen[4 * i] = thread_index();
    seen[4 * i + 1] = lane();
    seen[4 * i + 2] = warp_index();
    seen[4 * i + 3] = block_index() * 1000 + grid_size() * 10 + warps();
  });
  for (uint32_t b = 0; b < kBlocks; ++b)
    for (uint32_t t = 0; t < kThreads; ++t) {
      const uint32_t i = b * kThreads + t;
      EXPECT_EQ(seen[4 * i], t);
      EXPECT_EQ(seen[4 * i + 1], t % 32);
      EXPECT_EQ(seen[4 * i + 2], t / 32);
      EXPECT_EQ(seen[4 * i + 3], b * 1000 + kBlocks * 10 + kThreads / 32);
    }
}

TEST(Simt, ShufflesAndVotes) {
  constexpr uint32_t kThreads = 64;
  struct Out {
    uint32_t rot, xor_sum, ballot, prefix;
    uint64_t wide;
    bool any_odd, all_small, any_none;
  };
  std::vector<Out> out(kThreads);
  for (bool reverse : {false, true}) {
    launch_ok({1, kThreads, 0}, {.reverse = reverse}, [&] {
      const uint32_t t = thread_index(), l = lane();
      Out& o = out[t];
      o.rot = shfl(t * 7, (l + 1) % 32);  // the next lane's value
      uint32_t s = t;
      for (unsigned m = 16; m > 0; m >>= 1) s += shfl_xor(s, m);  // butterfly: every lane gets the warp's sum
      o.xor_sum = s;
      const bool pick = l % 3 == 0;
      o.ballot = ballot(pick);
      o.prefix = popc(o.ballot & lanemask_lt());  // compaction offset
      o.wide = shfl((uint64_t{t} << 40) | 0xABCDu, 31 - l);
      o.any_odd = any(t == 37);
      o.all_small = all(l < 32);
      o.any_none = any(false);
    });
    for (uint32_t t = 0; t < kThreads; ++t) {
      const uint32_t w = t / 32, l = t % 32;
      const Out& o = out[t];
      EXPECT_EQ(o.rot, (w * 32 + (l + 1) % 32) * 7) << t;
      EXPECT_EQ(o.xor_sum, 32 * w * 32 + 31 * 32 / 2) << t;
      uint32_t want = 0;
      for (unsigned k = 0; k < 32; k += 3) want |= 1u << k;
      EXPECT_EQ(o.ballot, want);
      EXPECT_EQ(o.prefix, static_cast<uint32_t>(__builtin_popcount(want & ((1u << l) - 1))));
      EXPECT_EQ(o.wide, (uint64_t{w * 32 + 31 - l} << 40) | 0xABCDu);
      EXPECT_EQ(o.any_odd, w == 1);
      EXPECT_TRUE(o.all_small);
      EXPECT_FALSE(o.any_none);
    }
  }
}

// Writes, a block barrier, then reads of another warp's words: ordered, so
// no problem, in both run orders.
TEST(Simt, BlockBarrierOrdersSharedMemory) {
  constexpr uint32_t kThreads = 128;
  std::vector<uint32_t> got(kThreads);
  for (bool reverse : {false, true}) {
    launch_ok({2, kThreads, kThreads * 4}, {.reverse = reverse}, [&] {
      Shared<uint32_t> s = shared_at<uint32_t>(0);
      const uint32_t t = thread_index();
      s[t] = t * t + block_index();
      sync_block();
      const uint32_t v = s[(t + 37) % kThreads];
      if (block_index() == 1) got[t] = v;
    });
    for (uint32_t t = 0; t < kThreads; ++t) EXPECT_EQ(got[t], (t + 37) % kThreads * ((t + 37) % kThreads) + 1);
  }
}

// The same exchange with the second barrier missing: caught as a race, and
// the values read are wrong as well.
TEST(Simt, MissingBlockBarrierIsCaught) {
  constexpr uint32_t kThreads = 64;
  auto kernel = [](std::vector<uint32_t>& got, bool with_barrier) {
    return [&got, with_barrier] {
      Shared<uint32_t> s = shared_at<uint32_t>(0);
      const uint32_t t = thread_index();
      s[t] = 1;  // phase 1, ordered by the barrier below
      sync_block();
      s[t] = 100 + t;  // phase 2 ...
      if (with_barrier) sync_block();
      got[t] = s[t ^ 32];  // ... read by the other warp
    };
  };
  for (bool reverse : {false, true}) {
    std::vector<uint32_t> got(kThreads);
    HostResult good = host_launch({1, kThreads, kThreads * 4}, {.reverse = reverse}, kernel(got, true));
    EXPECT_TRUE(good.ok) << good.error;
    for (uint32_t t = 0; t < kThreads; ++t) EXPECT_EQ(got[t], 100 + (t ^ 32));

    HostResult bad = host_launch({1, kThreads, kThreads * 4}, {.reverse = reverse}, kernel(got, false));
    ASSERT_FALSE(bad.ok);
    EXPECT_NE(bad.error.find("shared memory race"), std::string::npos) << bad.error;
    EXPECT_NE(bad.error.find("with no sync_block or sync_warp between"), std::string::npos) << bad.error;
    std::cout << (reverse ? "reverse: " : "forward: ") << bad.error << " (" << bad.problems << " problems)\n";
    size_t wrong = 0;
    for (uint32_t t = 0; t < kThreads; ++t) wrong += got[t] != 100 + (t ^ 32);
    EXPECT_GT(wrong, 0u) << "without the barrier one warp reads the other's old values";

    // Without the race check the missing barrier still shows, as wrong values.
    HostResult unchecked =
        host_launch({1, kThreads, kThreads * 4}, {.check_races = false, .reverse = reverse}, kernel(got, false));
    EXPECT_TRUE(unchecked.ok) << unchecked.error;
    wrong = 0;
    for (uint32_t t = 0; t < kThreads; ++t) wrong += got[t] != 100 + (t ^ 32);
    EXPECT_GT(wrong, 0u) << "the warp that runs first reads stale values";
  }
}

// Lanes exchanging through shared memory need sync_warp; a shuffle between
// the write and the read brings the lanes together on the host (the values
// come out right) but orders no memory on a GPU, so it is still a race.
TEST(Simt, WarpExchangeNeedsSyncWarp) {
  std::vector<uint32_t> got(32);
  auto kernel = [&](int mode) {
    return [&got, mode] {
      Shared<uint32_t> s = shared_at<uint32_t>(0);
      const uint32_t l = lane();
      s[l] = l + 5;
      if (mode == 1) sync_warp();
      if (mode == 2) (void)shfl(l, 0);
      got[l] = s[(l + 1) % 32];
    };
  };
  HostResult synced = host_launch({1, 32, 128}, {}, kernel(1));
  EXPECT_TRUE(synced.ok) << synced.error;
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(got[l], (l + 1) % 32 + 5);

  HostResult shuffled = host_launch({1, 32, 128}, {}, kernel(2));
  EXPECT_FALSE(shuffled.ok);
  EXPECT_NE(shuffled.error.find("race (read after write)"), std::string::npos) << shuffled.error;

  HostResult none = host_launch({1, 32, 128}, {}, kernel(0));
  EXPECT_FALSE(none.ok);  // lane 0 runs to the end before lane 1 writes
  EXPECT_NE(none.error.find("which no thread of the block has written"), std::string::npos) << none.error;
}

// Warp 0 reads warp 1's words while warp 1 overwrites them, no barrier
// between. Run in reverse order, warp 0's read comes first: the race found
// is the write after it.
TEST(Simt, WriteAfterReadWithoutBarrierIsARace) {
  HostResult r = host_launch({1, 64, 256}, {.reverse = true}, [] {
    Shared<uint32_t> s = shared_at<uint32_t>(0);
    const uint32_t t = thread_index();
    s[t] = t;
    sync_block();
    if (t < 32) {
      (void)static_cast<uint32_t>(s[t + 32]);
    } else {
      s[t] = 0;
    }
  });
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("race (write after read) at byte 128: thread 32 writes it, thread 0 read it"),
            std::string::npos)
      << r.error;
}

TEST(Simt, BarrierNotEveryThreadReachesIsADeadlock) {
  HostResult r = host_launch({1, 64, 0}, {}, [] {
    if (thread_index() < 32) sync_block();
  });
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("deadlock: 32 threads wait at a block barrier"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("32 have exited"), std::string::npos) << r.error;

  HostResult half = host_launch({1, 32, 0}, {}, [] {
    if (lane() < 16) (void)shfl(1u, 0);
  });
  EXPECT_FALSE(half.ok);
  EXPECT_NE(half.error.find("in a warp collective: shfl (32-bit) (warp 0)"), std::string::npos) << half.error;

  // Deadlocked fibers are abandoned; the next launch on this thread works.
  std::vector<uint32_t> got(32);
  launch_ok({1, 32, 0}, {}, [&] { got[lane()] = shfl(lane(), 3); });
  for (uint32_t v : got) EXPECT_EQ(v, 3u);
}

TEST(Simt, LanesInDifferentCollectivesAreCaught) {
  HostResult r = host_launch({1, 32, 0}, {}, [] {
    if (lane() < 16) {
      (void)ballot(true);
    } else {
      (void)any(true);
    }
  });
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("lane 16 is in any while other lanes are in ballot"), std::string::npos) << r.error;
}

TEST(Simt, SharedMemoryOutOfBoundsIsCaught) {
  HostResult r = host_launch({1, 32, 64}, {}, [] {
    Shared<uint32_t> s = shared_at<uint32_t>(0);
    s[lane()] = 1;  // lanes 16.. are past the 64 bytes
  });
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("outside the block's 64 bytes of shared memory (offset 64)"), std::string::npos) << r.error;
  HostResult big = host_launch({1, 32, 300 * 1024}, {}, [] {});
  EXPECT_FALSE(big.ok);
  HostResult odd = host_launch({1, 48, 0}, {}, [] {});
  EXPECT_FALSE(odd.ok);
  EXPECT_NE(odd.error.find("a multiple of 32"), std::string::npos) << odd.error;
}

BankStats banks_of(size_t bytes, auto&& access) {
  BankStats st;
  HostResult r = host_launch({1, 32, bytes}, {.banks = &st}, access);
  EXPECT_TRUE(r.ok) << r.error;
  return st;
}

TEST(Simt, BankConflictsCountedAsOnAGpu) {
  // Consecutive words: one wavefront per access.
  BankStats st = banks_of(4096, [] {
    Shared<uint32_t> s = shared_at<uint32_t>(0);
    s[lane()] = lane();
    sync_warp();
    const uint32_t v = s[(lane() + 1) % 32];
    s[32 + lane()] = v;
  });
  EXPECT_EQ(st.accesses, 3u);
  EXPECT_EQ(st.extra(), 0u);
  // Stride 2: two lanes per bank, 2 wavefronts; stride 32: all in bank 0, 32.
  st = banks_of(4096, [] { shared_at<uint32_t>(0)[2 * lane()] = 1; });
  EXPECT_EQ(st.wavefronts, 2u);
  st = banks_of(4096, [] { shared_at<uint32_t>(0)[32 * lane()] = 1; });
  EXPECT_EQ(st.wavefronts, 32u);
  EXPECT_EQ(st.worst, 32u);
  // Stride 33 (one pad word per 32): conflict-free again.
  st = banks_of(8192, [] { shared_at<uint32_t>(0)[33 * lane()] = 1; });
  EXPECT_EQ(st.extra(), 0u);
  // One word read by every lane is a broadcast, not a conflict.
  st = banks_of(128, [] {
    Shared<uint32_t> s = shared_at<uint32_t>(0);
    if (lane() == 0) s[0] = 7;
    sync_warp();
    (void)static_cast<uint32_t>(s[0]);
  });
  EXPECT_EQ(st.extra(), 0u);
  // 8-byte accesses: two half-warps, each conflict-free when consecutive.
  st = banks_of(4096, [] { shared_at<uint64_t>(0)[lane()] = 1; });
  EXPECT_EQ(st.wavefronts, 2u);
  EXPECT_EQ(st.extra(), 0u);
  // Bytes: four lanes share a word, no conflict.
  st = banks_of(4096, [] { shared_at<uint8_t>(0)[lane()] = 1; });
  EXPECT_EQ(st.extra(), 0u);
}

// Block 0 waits for a flag block 1 sets: needs both resident and a spinning
// thread that gives way (backoff), as on a GPU.
TEST(Simt, ResidentBlocksAndBackoff) {
  std::atomic<uint32_t> flag{0};
  std::vector<uint32_t> order;
  launch_ok({2, 32, 0}, {.resident_blocks = 2}, [&] {
    if (block_index() == 0 && thread_index() == 0) {
      while (flag.load() == 0) backoff();
      order.push_back(0);
    }
    if (block_index() == 1 && thread_index() == 0) {
      order.push_back(1);
      flag.store(1);
    }
  });
  EXPECT_EQ(order, (std::vector<uint32_t>{1, 0}));
  // More blocks than resident slots: each block starts when one finishes.
  std::vector<uint32_t> done(7, 0);
  launch_ok({7, 64, 256}, {.resident_blocks = 3}, [&] {
    Shared<uint32_t> s = shared_at<uint32_t>(0);
    s[thread_index()] = block_index();
    sync_block();
    if (thread_index() == 0) {
      uint32_t sum = 0;
      for (uint32_t i = 0; i < 64; ++i) sum += s[i];
      done[block_index()] = sum;
    }
  });
  for (uint32_t b = 0; b < 7; ++b) EXPECT_EQ(done[b], 64 * b);
}

// The cost that decided the design (fiber.h): a 32-lane rendezvous through
// fibers, and through 32 host threads at a std::barrier.
TEST(SimtFiber, SwitchCost) {
  constexpr int kRounds = 20000;
  uint32_t count = 0;
  const auto t0 = std::chrono::steady_clock::now();
  launch_ok({1, 32, 0}, {.check_races = false}, [&] {
    for (int i = 0; i < kRounds; ++i) sync_warp();
    if (lane() == 0) count = kRounds;
  });
  const double fiber_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / kRounds;
  EXPECT_EQ(count, static_cast<uint32_t>(kRounds));

  constexpr int kThreadRounds = 500;
  std::barrier sync(32);
  std::atomic<int> passed{0};
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int i = 0; i < 32; ++i)
    pool.emplace_back([&] {
      for (int r = 0; r < kThreadRounds; ++r) sync.arrive_and_wait();
      passed.fetch_add(1);
    });
  for (auto& t : pool) t.join();
  const double thread_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t1).count() / kThreadRounds;
  EXPECT_EQ(passed.load(), 32);
  std::cout << "32-lane rendezvous: fibers " << fiber_ns << " ns (" << fiber_ns / 32 << " ns per lane switch), "
            << "32 threads at a std::barrier " << thread_ns << " ns (" << std::thread::hardware_concurrency()
            << " hardware threads; timings from a shared machine)\n";
}

}  // namespace
}  // namespace mldsa::gpu::simt
