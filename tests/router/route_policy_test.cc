// route_policy_test.cc - the measured routing policy on synthetic timings
// (a clock of its own): what it decides with the CPU unmeasured, a device
// faster or slower than the CPU, probes and their back-off, the fitted
// line, following a device whose speed changes, and lanes kept apart.
#include "route/route_policy.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mldsa::route {
namespace {

const Params& p44() { return params(ParamSet::ML_DSA_44); }
const Params& p65() { return params(ParamSet::ML_DSA_65); }

constexpr int64_t kUs = 1000;
constexpr int64_t kMs = 1000 * kUs;

RoutePolicy::Demand demand(size_t batch, size_t cpu) { return {batch, cpu}; }

// Feeds the device lane batches of the sizes given, T(n) = a + b n.
void feed_device(RoutePolicy& rp, const Params& p, BatchOp op, double a, double b, std::initializer_list<size_t> sizes) {
  for (size_t n : sizes) rp.device_sample(p, op, n, static_cast<int64_t>(a + b * static_cast<double>(n)));
}

// One core's cost per request cpu_ns, and a device line (50 us + 0.5 us an
// item, fitted through batches of 64 and 32) that beats it at batch 64.
void line_says_device(RoutePolicy& rp, const Params& p, BatchOp op, int64_t cpu_ns) {
  rp.cpu_sample(p, op, cpu_ns);
  feed_device(rp, p, op, 50e3, 500, {64, 32});
}

// n completions of (p, op) on the CPU, or on the device in batches of 64
// (82 us each), in the rate window that starts at t; returns its end.
int64_t cpu_window(RoutePolicy& rp, const Params& p, BatchOp op, int64_t t, int n) {
  for (int i = 0; i < n; ++i) rp.cpu_done(p, op);
  return t + RoutePolicy::kRateWindow;
}
int64_t device_window(RoutePolicy& rp, const Params& p, BatchOp op, int64_t t, int n) {
  for (int i = 0; i < n / 64; ++i) rp.device_sample(p, op, 64, 82 * kUs);
  return t + RoutePolicy::kRateWindow;
}

TEST(RoutePolicy, NothingGoesToTheDeviceBeforeTheCpuIsMeasured) {
  RoutePolicy rp(16, 4096);
  for (int64_t t = 0; t < 10; ++t) EXPECT_FALSE(rp.use_device(p44(), BatchOp::sign, demand(64, 16), t * kMs));
  EXPECT_EQ(rp.model(p44(), BatchOp::sign).probes, 0u);
}

TEST(RoutePolicy, AnUnmeasuredDeviceIsProbedForOneWindowThenAfterTheInterval) {
  RoutePolicy rp(16, 4096);
  rp.cpu_sample(p44(), BatchOp::sign, 200 * kUs);
  const int64_t t0 = 1000 * kMs;
  EXPECT_TRUE(rp.use_device(p44(), BatchOp::sign, demand(16, 16), t0));  // opens a probe
  EXPECT_TRUE(rp.use_device(p44(), BatchOp::sign, demand(16, 16), t0 + RoutePolicy::kProbeWindow - 1));
  EXPECT_FALSE(rp.use_device(p44(), BatchOp::sign, demand(16, 16), t0 + RoutePolicy::kProbeWindow));
  EXPECT_FALSE(rp.use_device(p44(), BatchOp::sign, demand(16, 16), t0 + RoutePolicy::kMinProbeInterval - 1));
  EXPECT_TRUE(rp.use_device(p44(), BatchOp::sign, demand(16, 16), t0 + RoutePolicy::kMinProbeInterval));
  EXPECT_EQ(rp.model(p44(), BatchOp::sign).probes, 2u);
}

TEST(RoutePolicy, TheLineThroughTwoBatchSizesIsFitted) {
  RoutePolicy rp(16, 4096);
  feed_device(rp, p44(), BatchOp::verify, 80e3, 2e3, {64});
  EXPECT_FALSE(rp.model(p44(), BatchOp::verify).fitted) << "one batch is not a model";
  feed_device(rp, p44(), BatchOp::verify, 80e3, 2e3, {512, 64, 4096, 1024});
  const RoutePolicy::LaneModel m = rp.model(p44(), BatchOp::verify);
  EXPECT_TRUE(m.fitted);
  EXPECT_NEAR(m.a_ns, 80e3, 80e3 * 0.01);
  EXPECT_NEAR(m.b_ns, 2e3, 2e3 * 0.01);
  EXPECT_EQ(m.batches, 5u);
  EXPECT_EQ(m.last_batch, 1024u);
}

TEST(RoutePolicy, OneBatchSizeGivesTheCostPerItem) {
  RoutePolicy rp(16, 4096);
  feed_device(rp, p44(), BatchOp::sign, 0, 5e3, {100, 100, 100});
  const RoutePolicy::LaneModel m = rp.model(p44(), BatchOp::sign);
  EXPECT_TRUE(m.fitted);
  EXPECT_EQ(m.a_ns, 0);
  EXPECT_NEAR(m.b_ns, 5e3, 1);
}

TEST(RoutePolicy, AFasterDeviceGetsTheBulkAndALoneRequestStaysOnTheCpu) {
  RoutePolicy rp(16, 65536);
  rp.cpu_sample(p44(), BatchOp::sign, 200 * kUs);  // 16 cores: 80k sign/s
  // 300 us + 1 us/item: 64 in flight -> 64 / 364 us = 176k/s.
  feed_device(rp, p44(), BatchOp::sign, 300e3, 1e3, {64, 256});
  const int64_t t = 10 * kMs;
  EXPECT_TRUE(rp.use_device(p44(), BatchOp::sign, demand(64, 16), t));
  EXPECT_EQ(rp.model(p44(), BatchOp::sign).probes, 0u) << "chosen by the model, not as a probe";
  // One request in flight: 1 / 301 us against 1 / 200 us. The first such
  // request opens the lane's first probe window; after it, the CPU.
  EXPECT_TRUE(rp.use_device(p44(), BatchOp::sign, demand(1, 1), t));
  EXPECT_EQ(rp.model(p44(), BatchOp::sign).probes, 1u);
  EXPECT_FALSE(rp.use_device(p44(), BatchOp::sign, demand(1, 1), t + RoutePolicy::kProbeWindow));
  EXPECT_TRUE(rp.use_device(p44(), BatchOp::sign, demand(64, 16), t + RoutePolicy::kProbeWindow));
  EXPECT_EQ(rp.model(p44(), BatchOp::sign).probes, 1u);
}

TEST(RoutePolicy, ASlowerDeviceIsOnlyProbedAndLessAndLessOften) {
  RoutePolicy rp(16, 65536);
  rp.cpu_sample(p44(), BatchOp::verify, 60 * kUs);  // 16 cores: 267k verify/s
  // The device: 2 ms + 30 us/item: 16 in flight -> 6.8k/s.
  int64_t t = 0;
  int64_t last_probe = -1;
  std::vector<int64_t> gaps;
  for (; t < 60'000 * kMs; t += kMs) {
    if (!rp.use_device(p44(), BatchOp::verify, demand(16, 16), t)) continue;
    if (t < last_probe + RoutePolicy::kProbeWindow) continue;  // inside the window already open
    if (last_probe >= 0) gaps.push_back(t - last_probe);
    last_probe = t;
    feed_device(rp, p44(), BatchOp::verify, 2e6, 30e3, {16});  // the probe's batch
  }
  ASSERT_GE(gaps.size(), 4u);
  // Each gap is at least the one before (doubling up to the ceiling).
  for (size_t i = 1; i < gaps.size(); ++i) EXPECT_GE(gaps[i], gaps[i - 1]);
  EXPECT_GE(gaps.back(), RoutePolicy::kMaxProbeInterval / 2);
  EXPECT_LE(gaps.back(), RoutePolicy::kMaxProbeInterval + kMs);
  // What the probes cost: windows of kProbeWindow out of a minute.
  const RoutePolicy::LaneModel m = rp.model(p44(), BatchOp::verify);
  EXPECT_LE(static_cast<double>(m.probes) * RoutePolicy::kProbeWindow, 0.02 * 60'000 * kMs);
}

// A probe takes every request of its window until the line says the device
// is slower per item than a core; then what the line says fits in one
// window: a slow device's probes stay short however many requests wait.
TEST(RoutePolicy, ASlowDevicesProbeTakesWhatItsWindowHolds) {
  // The probe at t on a fresh policy whose device line is a + b n.
  auto probe_size = [](double a, double b, int64_t t) {
    RoutePolicy rp(2, 1024);
    rp.cpu_sample(p44(), BatchOp::sign, 100 * kUs);
    if (b > 0) feed_device(rp, p44(), BatchOp::sign, a, b, {16, 4});
    int64_t taken = 0;
    for (int i = 0; i < 200; ++i) taken += rp.use_device(p44(), BatchOp::sign, demand(64, 1), t + i) ? 1 : 0;
    return taken;
  };
  const int64_t due = RoutePolicy::kMaxProbeInterval + kMs;  // past any back-off
  EXPECT_EQ(probe_size(0, 0, 0), 200) << "no line yet: the whole window";
  // 3 ms + 60 us per item: faster than a core at large batches, whole windows still.
  EXPECT_EQ(probe_size(3e6, 60e3, due), 200);
  // 500 us per item (5x slower than a core): 4 fit in a 2 ms window.
  EXPECT_EQ(probe_size(0, 500e3, due), 4);
  // 5 ms per item (one item outlasts the window): the smallest probe, 2.
  EXPECT_EQ(probe_size(0, 5e6, due), 2);
}

TEST(RoutePolicy, ADeviceThatSpeedsUpIsFollowed) {
  RoutePolicy rp(2, 65536);
  rp.cpu_sample(p44(), BatchOp::sign, 200 * kUs);  // 2 cores: 10k/s
  // Slow at first: 20 ms + 1 ms/item (32 in a batch: 615/s).
  for (int i = 0; i < 20; ++i) feed_device(rp, p44(), BatchOp::sign, 20e6, 1e6, {8, 32});
  EXPECT_TRUE(rp.use_device(p44(), BatchOp::sign, demand(32, 2), 0));  // the first probe
  // Until the next probe (the interval has grown to its ceiling): the CPU.
  for (int64_t t = RoutePolicy::kProbeWindow; t < RoutePolicy::kMaxProbeInterval; t += 10 * kMs)
    ASSERT_FALSE(rp.use_device(p44(), BatchOp::sign, demand(32, 2), t)) << "the slow device chosen at " << t;
  // Then fast (a probe's batches show it): 100 us + 2 us/item (32: 195k/s),
  // and chosen by the model at once, outside any probe.
  for (int i = 0; i < 60; ++i) feed_device(rp, p44(), BatchOp::sign, 100e3, 2e3, {8, 32});
  const uint64_t probes = rp.model(p44(), BatchOp::sign).probes;
  EXPECT_TRUE(rp.use_device(p44(), BatchOp::sign, demand(32, 2), RoutePolicy::kMaxProbeInterval / 2));
  EXPECT_EQ(rp.model(p44(), BatchOp::sign).probes, probes);
  const RoutePolicy::LaneModel m = rp.model(p44(), BatchOp::sign);
  EXPECT_NEAR(m.b_ns, 2e3, 2e3 * 0.25);
}

TEST(RoutePolicy, MoreCpuParallelismNeedsAFasterDevice) {
  RoutePolicy rp(64, 65536);
  rp.cpu_sample(p44(), BatchOp::verify, 100 * kUs);
  feed_device(rp, p44(), BatchOp::verify, 200e3, 5e3, {64, 512});
  // 512 in a batch: 512 / 2.76 ms = 185k/s. One core: 10k/s; 8: 80k/s; 64: 640k/s.
  rp.use_device(p44(), BatchOp::verify, demand(1, 1), 0);  // spends the first probe
  const int64_t t = RoutePolicy::kProbeWindow;
  EXPECT_TRUE(rp.use_device(p44(), BatchOp::verify, demand(512, 1), t));
  EXPECT_TRUE(rp.use_device(p44(), BatchOp::verify, demand(512, 8), t));
  EXPECT_FALSE(rp.use_device(p44(), BatchOp::verify, demand(512, 64), t));
  // The batch size is capped by max_batch.
  RoutePolicy small(64, 16);
  small.cpu_sample(p44(), BatchOp::verify, 100 * kUs);
  feed_device(small, p44(), BatchOp::verify, 200e3, 5e3, {8, 16});
  small.use_device(p44(), BatchOp::verify, demand(1, 1), 0);
  EXPECT_FALSE(small.use_device(p44(), BatchOp::verify, demand(512, 8), t)) << "a batch of 512 counted past max_batch";
}

TEST(RoutePolicy, LanesAreSeparate) {
  RoutePolicy rp(16, 4096);
  rp.cpu_sample(p44(), BatchOp::sign, 200 * kUs);
  feed_device(rp, p44(), BatchOp::sign, 100e3, 1e3, {64, 256});
  EXPECT_EQ(rp.model(p65(), BatchOp::sign).batches, 0u);
  EXPECT_EQ(rp.model(p44(), BatchOp::verify).batches, 0u);
  EXPECT_EQ(rp.model(p65(), BatchOp::sign).cpu_ns, 0);
  EXPECT_FALSE(rp.use_device(p65(), BatchOp::sign, demand(64, 16), 0)) << "ML-DSA-65's CPU was never measured";
  const std::string text = rp.describe();
  EXPECT_NE(text.find("ML-DSA-44 sign: cpu 200.0 us, device 100.0 us + 1.000 us/item (2 batches"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("ML-DSA-65"), std::string::npos) << text;
}

// The line leaves out the host's work per queued request: what each path
// delivers decides when the two disagree.
TEST(RoutePolicy, ADeviceThatDeliversLessThanTheCpuIsLeftForABackOff) {
  RoutePolicy rp(1, 4096);
  const Params& p = p44();
  const BatchOp op = BatchOp::verify;
  line_says_device(rp, p, op, 10 * kUs);  // one core: 100k/s; 64 in 82 us on the device: 780k/s
  auto cpu_window = [&](int64_t t, int n) { return mldsa::route::cpu_window(rp, p, op, t, n); };
  auto device_window = [&](int64_t t, int n) { return mldsa::route::device_window(rp, p, op, t, n); };
  const RoutePolicy::Demand d{64, 1, true};  // ASYNC jobs
  int64_t t = 0;
  EXPECT_TRUE(rp.use_device(p, op, d, t)) << "the line alone: device";  // opens the first window
  t = cpu_window(t, 4000);                                               // 80k/s delivered on the CPU
  EXPECT_TRUE(rp.use_device(p, op, d, t));
  t = device_window(t, 2048);                                            // 41k/s on the device: less
  EXPECT_FALSE(rp.use_device(p, op, d, t)) << "delivered less than the CPU: back to it";
  EXPECT_TRUE(rp.use_device(p, op, demand(64, 1), t)) << "blocking threads: the line decides";
  EXPECT_NEAR(rp.model(p, op).device_rate, 2048 / 0.05, 1);
  EXPECT_NEAR(rp.model(p, op).cpu_rate, 4000 / 0.05, 1);
  EXPECT_FALSE(rp.use_device(p, op, d, t + RoutePolicy::kMinProbeInterval - 1)) << "no probes while it waits";
  t += RoutePolicy::kMinProbeInterval;
  t = cpu_window(t, 4000);  // the CPU's window in between (any gap of CPU work counts as one)
  EXPECT_TRUE(rp.use_device(p, op, d, t)) << "the back-off over: the device again";
  t = device_window(t, 2048);
  EXPECT_FALSE(rp.use_device(p, op, d, t));
  EXPECT_FALSE(rp.use_device(p, op, d, t + 2 * RoutePolicy::kMinProbeInterval - 1)) << "the back-off doubles";
  t += 2 * RoutePolicy::kMinProbeInterval;
  EXPECT_TRUE(rp.use_device(p, op, d, t));
  t = device_window(t, 16384);  // 328k/s: more than the CPU
  EXPECT_TRUE(rp.use_device(p, op, d, t)) << "a device that delivers more keeps the work";
  t = device_window(t, 16384);
  EXPECT_TRUE(rp.use_device(p, op, d, t));
  // A window with too few completions, or closed late (a gap in the load), measures nothing.
  t = device_window(t, 0);
  EXPECT_TRUE(rp.use_device(p, op, d, t));
  device_window(t, 128);
  t += 3 * RoutePolicy::kRateWindow;
  EXPECT_TRUE(rp.use_device(p, op, d, t));
  EXPECT_NEAR(rp.model(p, op).device_rate, 16384 / 0.05, 1);
  const std::string text = rp.describe();
  EXPECT_NE(text.find("delivered 80000/s on the cpu, 327680/s on the device"), std::string::npos) << text;
  // Most on the device, some on the CPU: what that mix delivers is judged.
  cpu_window(t, 900);
  t = device_window(t, 1024);  // 38.5k/s in all
  EXPECT_FALSE(rp.use_device(p, op, d, t));
  EXPECT_NEAR(rp.model(p, op).device_rate, 1924 / 0.05, 1);
}

// A lane that went to the device before any CPU window was measured gets
// one, to have something to compare the device's delivery with, unless the
// device delivers twice what one core's line would or more.
TEST(RoutePolicy, ADeviceWindowWithNoCpuWindowToCompareSendsOneWindowToTheCpu) {
  RoutePolicy rp(1, 4096);
  const Params& p = p44();
  const BatchOp op = BatchOp::verify;
  line_says_device(rp, p, op, 10 * kUs);
  const RoutePolicy::Demand d{64, 1, true};
  int64_t t = 0;
  EXPECT_TRUE(rp.use_device(p, op, d, t));
  for (int i = 0; i < 32; ++i) rp.device_sample(p, op, 64, 82 * kUs);
  t += RoutePolicy::kRateWindow;
  EXPECT_FALSE(rp.use_device(p, op, d, t)) << "no CPU rate yet: one window to measure it";
  for (int i = 0; i < 1000; ++i) rp.cpu_done(p, op);  // 20k/s: less than the device's 41k/s
  t += RoutePolicy::kRateWindow;
  EXPECT_FALSE(rp.use_device(p, op, d, t));  // this call closes the CPU window
  EXPECT_NEAR(rp.model(p, op).cpu_rate, 1000 / 0.05, 1);
  EXPECT_TRUE(rp.use_device(p, op, d, t + RoutePolicy::kRateWindow / 2)) << "measured, and the device delivers more";

  // A device that delivers twice one core's line or more needs no CPU window.
  RoutePolicy fast(1, 4096);
  line_says_device(fast, p, op, 10 * kUs);
  t = 0;
  EXPECT_TRUE(fast.use_device(p, op, d, t));
  for (int i = 0; i < 256; ++i) fast.device_sample(p, op, 64, 82 * kUs);  // 328k/s
  t += RoutePolicy::kRateWindow;
  EXPECT_TRUE(fast.use_device(p, op, d, t));
  EXPECT_NEAR(fast.model(p, op).device_rate, 16384 / 0.05, 1);
}

// A device that wins a close call against a CPU rate measured over a second
// ago gets the CPU measured again: a low first reading (here 30k/s, where the
// CPU does 80k/s) must not keep the lane on a device that delivers 50k/s. A
// device with a clear lead (2x) keeps the lane without.
TEST(RoutePolicy, ACloseCallAgainstAnOldCpuRateMeasuresTheCpuAgain) {
  RoutePolicy rp(1, 4096);
  const Params& p = p44();
  const BatchOp op = BatchOp::verify;
  line_says_device(rp, p, op, 40 * kUs);  // one core: 25k/s
  const RoutePolicy::Demand d{64, 1, true};
  auto cpu_window = [&](int64_t t, int n) { return mldsa::route::cpu_window(rp, p, op, t, n); };
  auto device_window = [&](int64_t t, int n) { return mldsa::route::device_window(rp, p, op, t, n); };
  int64_t t = 0;
  EXPECT_TRUE(rp.use_device(p, op, d, t));  // opens the first window
  t = cpu_window(t, 1500);                  // a low reading: 30k/s
  EXPECT_TRUE(rp.use_device(p, op, d, t));
  EXPECT_NEAR(rp.model(p, op).cpu_rate, 30e3, 1);
  const int64_t measured = t;
  while (t + RoutePolicy::kRateWindow - measured <= RoutePolicy::kCpuRateRefresh) {
    t = device_window(t, 2560);  // 51k/s: more than the reading, less than twice it
    EXPECT_TRUE(rp.use_device(p, op, d, t)) << "the reading is recent: the device keeps the lane (t = " << t << ")";
  }
  t = device_window(t, 2560);
  EXPECT_FALSE(rp.use_device(p, op, d, t)) << "a close call against an old reading: one window on the CPU";
  t = cpu_window(t, 4000);  // 80k/s
  EXPECT_FALSE(rp.use_device(p, op, d, t));  // closes the CPU window
  EXPECT_NEAR(rp.model(p, op).cpu_rate, 80e3, 1);
  t += RoutePolicy::kRateWindow / 2;
  EXPECT_TRUE(rp.use_device(p, op, d, t)) << "the window over: the line decides";
  t = device_window(t, 2560);
  EXPECT_FALSE(rp.use_device(p, op, d, t)) << "the device delivers less than the CPU now measured: back-off";

  // Twice the CPU's rate or more: no CPU window, however old the reading.
  RoutePolicy fast(1, 4096);
  line_says_device(fast, p, op, 40 * kUs);
  t = 0;
  EXPECT_TRUE(fast.use_device(p, op, d, t));
  t = mldsa::route::cpu_window(fast, p, op, t, 1500);
  EXPECT_TRUE(fast.use_device(p, op, d, t));
  for (int64_t start = t; t - start <= 3 * RoutePolicy::kCpuRateRefresh;) {
    t = mldsa::route::device_window(fast, p, op, t, 3072);  // 61k/s: over twice 30k/s
    EXPECT_TRUE(fast.use_device(p, op, d, t)) << "t = " << t;
  }
}

TEST(RoutePolicy, CpuSamplesAverage) {
  RoutePolicy rp(4, 1024);
  rp.cpu_sample(p44(), BatchOp::sign, 100 * kUs);
  EXPECT_EQ(rp.model(p44(), BatchOp::sign).cpu_ns, 100e3);
  for (int i = 0; i < 100; ++i) rp.cpu_sample(p44(), BatchOp::sign, 300 * kUs);
  EXPECT_NEAR(rp.model(p44(), BatchOp::sign).cpu_ns, 300e3, 1e3);
  rp.cpu_sample(p44(), BatchOp::sign, 0);  // a sample that measured nothing is ignored
  EXPECT_NEAR(rp.model(p44(), BatchOp::sign).cpu_ns, 300e3, 1e3);
}

}  // namespace
}  // namespace mldsa::route
