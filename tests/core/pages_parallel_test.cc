// cpu/pages.h (PageBuffer) and cpu/parallel.h (parallel_for, WorkerPool,
// the affinity mask): the buffers the bulk API and tool read into, and the
// loops and threads that fill them.
#include "cpu/pages.h"
#include "cpu/parallel.h"

#include <gtest/gtest.h>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace {

TEST(PageBuffer, SmallIsExactAndZeroed) {
  mldsa::PageBuffer b(5000);
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(b.size(), 5000u);
  for (size_t i = 0; i < b.size(); ++i) ASSERT_EQ(b.data()[i], 0) << i;
}

TEST(PageBuffer, LargeIsWholeAlignedHugePages) {
  const size_t mib = size_t{1} << 20;
  for (size_t ask : {mib, 3 * mib + 7, 4 * mib}) {
    mldsa::PageBuffer b(ask);
    ASSERT_NE(b.data(), nullptr);
    EXPECT_GE(b.size(), ask);
    EXPECT_EQ(b.size() % (2 * mib), 0u) << ask;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % (2 * mib), 0u) << ask;
    // Every byte it reports is there, zeroed and writable (a trimmed head or
    // tail would fault here).
    for (size_t i = 0; i < b.size(); i += 4096) ASSERT_EQ(b.data()[i], 0) << i;
    ASSERT_EQ(b.data()[b.size() - 1], 0);
    b.data()[0] = 1;
    b.data()[b.size() - 1] = 2;
  }
}

TEST(PageBuffer, MoveLeavesAnEmptyBuffer) {
  mldsa::PageBuffer a(3 << 20);
  uint8_t* p = a.data();
  const size_t size = a.size();
  mldsa::PageBuffer b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.size(), size);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): the state a move leaves is the point
  EXPECT_EQ(a.size(), 0u);
  mldsa::PageBuffer c(100);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.size(), size);
}

TEST(PageBuffer, EmptyHasNoMemory) {
  mldsa::PageBuffer b(0);
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(b.size(), 0u);
}

TEST(ParallelFor, EachIndexOnceOnEveryThreadCount) {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{1000}}) {
      std::vector<std::atomic<int>> seen(n);
      std::atomic<unsigned> most_worker{0};
      mldsa::parallel_for(n, threads, 4, [&](size_t i, unsigned w) {
        seen[i].fetch_add(1);
        unsigned m = most_worker.load();
        while (w > m && !most_worker.compare_exchange_weak(m, w)) {
        }
      });
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << "n " << n << " threads " << threads << " i " << i;
      EXPECT_LT(most_worker.load(), threads);
    }
  }
}

TEST(WorkerPool, ManyLoopsEachIndexOnceAndStartOncePerHelper) {
  for (unsigned threads : {1u, 2u, 4u}) {
    std::atomic<int> starts{0};
    std::vector<std::atomic<int>> started(threads);
    {
      mldsa::WorkerPool pool(threads, [&](unsigned w) {
        starts.fetch_add(1);
        started[w].fetch_add(1);
      });
      EXPECT_EQ(pool.size(), threads);
      for (int loop = 0; loop < 200; ++loop) {
        const size_t n = static_cast<size_t>(loop % 9) * 37;  // 0 too: a loop with nothing to do
        std::vector<std::atomic<int>> seen(n);
        pool.parallel_for(n, 4, [&](size_t i, unsigned w) {
          ASSERT_LT(w, pool.size());
          seen[i].fetch_add(1);
        });
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << "loop " << loop << " i " << i;
      }
    }  // joined here: every helper ran its start once, worker 0 (the caller) none
    EXPECT_EQ(starts.load(), static_cast<int>(threads) - 1);
    EXPECT_EQ(started[0].load(), 0);
    for (unsigned w = 1; w < threads; ++w) EXPECT_EQ(started[w].load(), 1) << w;
  }
}

TEST(Affinity, MaskListedAndThreadConfinedAndRestored) {
  const std::vector<int> cpus = mldsa::affinity_cpus();
  ASSERT_FALSE(cpus.empty());  // Linux: the mask is there to read
  EXPECT_EQ(mldsa::usable_cpus(), cpus.size());
  EXPECT_TRUE(std::is_sorted(cpus.begin(), cpus.end()));
  // Run on a thread of its own, so the test runner's thread keeps its mask.
  std::thread([&] {
    for (const int c : {cpus.front(), cpus.back()}) {
      ASSERT_TRUE(mldsa::confine_thread({c}));
      EXPECT_EQ(mldsa::affinity_cpus(), std::vector<int>{c});
      for (int i = 0; i < 100; ++i) ASSERT_EQ(sched_getcpu(), c);
      ASSERT_TRUE(mldsa::confine_thread(cpus));  // back to the whole mask
      EXPECT_EQ(mldsa::affinity_cpus(), cpus);
    }
    // Nothing to confine to: refused, the mask as it was.
    EXPECT_FALSE(mldsa::confine_thread({}));
    EXPECT_FALSE(mldsa::confine_thread({-1}));
    EXPECT_EQ(mldsa::affinity_cpus(), cpus);
  }).join();
  EXPECT_EQ(mldsa::affinity_cpus(), cpus);
}

}  // namespace
