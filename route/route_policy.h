// route_policy.h - whether a bulk request is worth the GPU, from what each
// side was measured to cost.
//
// Per lane (parameter set x operation) it keeps:
//   cpu_ns   what one request takes on a CPU core: an average of the thread
//            CPU time of sampled CPU-routed requests (the router times one in
//            kCpuSampleEvery, so a decision costs a few relaxed loads);
//   T(n)     what a device batch of n takes, a + b*n: a least-squares line
//            through the batches the executor ran (wall time of the call,
//            older batches weighing less).
// With a batch of n requests to be had (Demand::batch) and the CPU able to
// run c of them at once (Demand::cpu_parallel, at most cores), the device's
// rate is n / T(n) (n at most max_batch), the CPU's c / cpu_ns; a request
// goes to the device while the first beats the second by kMargin.
//
// A lane without a line yet (fewer than two batch sizes seen), or whose line
// says "CPU", still probes the device now and then: for one probe window
// the lane's bulk requests go to the device, and the batches that makes are
// measured. A probe takes every bulk request of its window, as the device
// would get them if chosen (a probe of a few, the rest on the CPU, measures a
// device starved of the host's cores on a small machine), unless the line
// says no batch makes the device faster than one core: then it takes what
// the line says the device runs in kProbeWindow (at least 2), so a device
// 10x slower than the CPU costs a few milliseconds a probe, not the whole
// of what 64 ASYNC jobs had in flight (a batch of 64 was 32 ms there).
// Probe intervals double (up to kMaxProbeInterval) while the CPU keeps
// winning and restart at kMinProbeInterval once the device wins, so a device
// slower than the CPU costs a few short probe batches a minute.
//
// What the line leaves out is the host's work for a queued request (the
// submitting thread's queueing, pausing and resuming, the engine's staging):
// with 64 ASYNC jobs on one thread a queued verify cost more than verifying
// on the spot, so a device the line rated 10x the CPU ran at 0.6x of it.
// So for requests from ASYNC jobs the policy also watches what each path
// delivers: the bulk requests of a lane completed per kRateWindow, on the
// device (batches) and on the CPU. (Jobs keep a thread busy, so a window
// counts what a path can do; a few blocking threads deliver what their
// latency allows, which the line already weighs for them.)
// A window with kRateItems completions or more, closed within two windows'
// time (no gap in the load), measures: with 90% of them or more on the CPU,
// the CPU's rate; with most on the device, what routing to the device
// delivers. When that is less than the latest CPU window's, the lane stays
// on the CPU (no probes either) for a back-off that doubles
// (kMinProbeInterval to kMaxProbeInterval) each time the device is tried and
// loses again, and restarts once it wins. A device window that wins against
// a CPU rate older than kCpuRateRefresh, or none, by less than kClearLead
// times the higher of that rate and one core's cpu_ns line sends the lane to
// the CPU for one window, to measure it again: a close call is not left to a
// stale or low reading (a CPU window costs a device twice as fast at most a
// few percent of its rate a second). Below the CPU's capacity both paths
// deliver what is asked, so a verdict there costs nothing.
//
// Readers never lock: every value a decision reads is an atomic that the
// writers (sampled CPU requests, the dispatcher after a batch) store.
#pragma once

#include "cpu/mldsa.h"
#include "route/batch_queue.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace mldsa::route {

class RoutePolicy {
 public:
  static constexpr double kMargin = 1.10;                    // the device must be predicted 10% faster
  static constexpr unsigned kCpuSampleEvery = 8;             // CPU requests timed: one in this many
  static constexpr int64_t kMinProbeInterval = 100'000'000;  // ns
  static constexpr int64_t kMaxProbeInterval = 5'000'000'000;
  static constexpr int64_t kProbeWindow = 2'000'000;         // ns of bulk requests sent to the device
  static constexpr int64_t kRateWindow = 50'000'000;         // ns over which delivered rates are counted
  static constexpr uint64_t kRateItems = 32;                 // completions a window needs to count
  static constexpr int64_t kCpuRateRefresh = 1'000'000'000;  // ns: a CPU rate older is measured again...
  static constexpr double kClearLead = 2.0;                  // ...unless the device delivers this many times it

  // cores: the CPU's threads the requests can use; max_batch: the queue's.
  RoutePolicy(unsigned cores, size_t max_batch);

  struct Demand {
    size_t batch = 1;         // requests a device batch would hold now
    size_t cpu_parallel = 1;  // requests the CPU would run at once
    bool async = false;       // from an ASYNC job (the delivered-rate check applies)
  };
  // Whether the next bulk request of (p, op) goes to the device, at now
  // (steady_clock ns).
  bool use_device(const mldsa::Params& p, BatchOp op, Demand d, int64_t now);

  // A CPU-routed request's thread CPU time.
  void cpu_sample(const mldsa::Params& p, BatchOp op, int64_t ns);
  // A batch of n the device completed in ns (wall time of the executor call).
  void device_sample(const mldsa::Params& p, BatchOp op, size_t n, int64_t ns);
  // A bulk request completed on the CPU (every one, not just the sampled).
  void cpu_done(const mldsa::Params& p, BatchOp op);

  struct LaneModel {
    double cpu_ns = 0;        // 0: not measured yet
    double a_ns = 0, b_ns = 0;
    bool fitted = false;      // a line through at least two batch sizes
    uint64_t batches = 0;     // device samples taken
    uint64_t probes = 0;      // probe windows opened
    size_t last_batch = 0;    // the latest device batch's size
    // Delivered per second (0: not yet): the CPU's windows (a rise counts at
    // once, a fall 10% a window), and the latest device window.
    double cpu_rate = 0, device_rate = 0;
  };
  LaneModel model(const mldsa::Params& p, BatchOp op) const;
  // Each measured lane, "; " between them: "ML-DSA-44 sign: cpu 212.4 us,
  // device 80.0 us + 1.900 us/item (12 batches, 3 probes)", for the provider's
  // parameters.
  std::string describe() const;

  unsigned cores() const { return cores_; }
  size_t max_batch() const { return max_batch_; }

 private:
  static constexpr size_t kParamSlots = mldsa::PARAM_SET_COUNT;  // ParamSet ids
  static constexpr size_t kLanes = kParamSlots * kBatchOps;

  struct Lane {
    std::atomic<double> cpu_ns{0};
    std::atomic<double> a{0}, b{0};
    std::atomic<bool> fitted{false};
    std::atomic<int64_t> probe_until{0}, next_probe{0}, interval{kMinProbeInterval};
    std::atomic<int64_t> probe_left{0};  // requests the open probe may still take
    std::atomic<uint64_t> batches{0}, probes{0};
    std::atomic<size_t> last_batch{0};
    // Delivered rates (see above): completions, the window they are counted in.
    std::atomic<uint64_t> done_device{0}, done_cpu{0};
    std::atomic<int64_t> window_start{-1};
    std::atomic<uint64_t> window_device{0}, window_cpu{0};  // the counts at window_start
    std::atomic<double> cpu_rate{0}, device_rate{0};        // per ns
    std::atomic<int64_t> cpu_rate_at{0};                     // when cpu_rate was last measured
    std::atomic<int64_t> host_bound_until{0}, host_bound_interval{kMinProbeInterval};
    std::atomic<const mldsa::Params*> params{nullptr};
    // The fit's weighted sums, updated under m (the dispatcher alone, in practice).
    std::mutex m;
    double s0 = 0, s1 = 0, s2 = 0, t0 = 0, t1 = 0;
  };
  Lane* lane(const mldsa::Params& p, BatchOp op);
  // Closes the lane's rate window when kRateWindow has passed (one caller).
  void close_window(Lane& l, int64_t now);
  const Lane* lane(const mldsa::Params& p, BatchOp op) const;

  const unsigned cores_;
  const size_t max_batch_;
  Lane lanes_[kLanes];
};

}  // namespace mldsa::route
