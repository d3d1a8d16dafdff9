// route_policy.cc - see route_policy.h.
#include "route/route_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace mldsa::route {

namespace {

const char* op_name(size_t op) {
  switch (static_cast<BatchOp>(op)) {
    case BatchOp::sign: return "sign";
    case BatchOp::verify: return "verify";
    case BatchOp::keygen: return "keygen";
  }
  return "?";
}

// Older batches count for less: a device whose speed changes (clocks, other
// work on it) is followed within a few dozen batches (weight 0.9 per batch).
constexpr double kForget = 0.9;

}  // namespace

RoutePolicy::RoutePolicy(unsigned cores, size_t max_batch)
    : cores_(std::max(1u, cores)), max_batch_(std::max<size_t>(1, max_batch)) {}

RoutePolicy::Lane* RoutePolicy::lane(const mldsa::Params& p, BatchOp op) {
  const size_t slot = static_cast<size_t>(p.id);
  if (slot >= kParamSlots) return nullptr;
  Lane* l = &lanes_[slot * kBatchOps + static_cast<size_t>(op)];
  if (l->params.load(std::memory_order_relaxed) == nullptr) l->params.store(&p, std::memory_order_relaxed);
  return l;
}

const RoutePolicy::Lane* RoutePolicy::lane(const mldsa::Params& p, BatchOp op) const {
  const size_t slot = static_cast<size_t>(p.id);
  return slot < kParamSlots ? &lanes_[slot * kBatchOps + static_cast<size_t>(op)] : nullptr;
}

void RoutePolicy::close_window(Lane& l, int64_t now) {
  int64_t start = l.window_start.load(std::memory_order_relaxed);
  if (start >= 0 && now - start < kRateWindow) return;
  if (!l.window_start.compare_exchange_strong(start, now, std::memory_order_relaxed)) return;
  const uint64_t dev = l.done_device.load(std::memory_order_relaxed);
  const uint64_t cpu = l.done_cpu.load(std::memory_order_relaxed);
  const uint64_t d_dev = dev - l.window_device.exchange(dev, std::memory_order_relaxed);
  const uint64_t d_cpu = cpu - l.window_cpu.exchange(cpu, std::memory_order_relaxed);
  // The first window, too few completions, or a gap in the load (closed
  // late): no rate.
  if (start < 0 || now <= start || d_dev + d_cpu < kRateItems || now - start > 2 * kRateWindow) return;
  const double span = static_cast<double>(now - start);
  if (d_dev >= d_cpu) {  // most on the device: what routing to it delivers
    const double rate = static_cast<double>(d_dev + d_cpu) / span;
    l.device_rate.store(rate, std::memory_order_relaxed);
    const double cpu_rate = l.cpu_rate.load(std::memory_order_relaxed);
    const int64_t interval = l.host_bound_interval.load(std::memory_order_relaxed);
    const double cpu_ns = l.cpu_ns.load(std::memory_order_relaxed);
    const int64_t cpu_age = now - l.cpu_rate_at.load(std::memory_order_relaxed);
    if (cpu_rate > 0 && cpu_age <= kMaxProbeInterval && rate < cpu_rate) {
      l.host_bound_until.store(now + interval, std::memory_order_relaxed);
      l.host_bound_interval.store(std::min(kMaxProbeInterval, 2 * interval), std::memory_order_relaxed);
    } else {
      l.host_bound_interval.store(kMinProbeInterval, std::memory_order_relaxed);
      // A close call against a CPU rate older than kCpuRateRefresh (or none:
      // the device took the lane before a CPU window closed): one window on
      // the CPU to measure it again. The reference is the CPU's rate or one
      // core's cpu_ns line, whichever is higher: either alone can be off (a
      // window the host was busy elsewhere, a sample inflated by page faults),
      // and a device that beat a low one kept the lane at 0.73x the CPU.
      const double line = cpu_ns > 0 ? 1 / cpu_ns : 0;
      const double reference = cpu_rate > line ? cpu_rate : line;
      if ((cpu_rate <= 0 || cpu_age > kCpuRateRefresh) && rate < kClearLead * reference)
        l.host_bound_until.store(now + kRateWindow + kRateWindow / 2, std::memory_order_relaxed);
    }
  } else if (d_dev * 10 <= d_dev + d_cpu) {  // a CPU window: 90% or more on the CPU
    // A higher rate counts at once, a lower one 10% a window: one window
    // the host was busy elsewhere must not make a slower device look better.
    const double rate = static_cast<double>(d_dev + d_cpu) / span;
    const double old = l.cpu_rate.load(std::memory_order_relaxed);
    l.cpu_rate.store(rate >= old ? rate : old - 0.1 * (old - rate), std::memory_order_relaxed);
    l.cpu_rate_at.store(now, std::memory_order_relaxed);
  }
}

void RoutePolicy::cpu_done(const mldsa::Params& p, BatchOp op) {
  if (Lane* l = lane(p, op)) l->done_cpu.fetch_add(1, std::memory_order_relaxed);
}

bool RoutePolicy::use_device(const mldsa::Params& p, BatchOp op, Demand d, int64_t now) {
  Lane* l = lane(p, op);
  if (l == nullptr) return false;
  close_window(*l, now);
  // The device delivered less than the CPU lately: the CPU, until the back-off ends.
  if (d.async && now < l->host_bound_until.load(std::memory_order_relaxed)) return false;
  if (now < l->probe_until.load(std::memory_order_relaxed) &&
      l->probe_left.fetch_sub(1, std::memory_order_relaxed) > 0)
    return true;
  const double cpu_ns = l->cpu_ns.load(std::memory_order_relaxed);
  if (cpu_ns <= 0) return false;  // the CPU is measured first
  if (l->fitted.load(std::memory_order_relaxed)) {
    const double n = static_cast<double>(std::clamp<size_t>(d.batch, 1, max_batch_));
    const double t = l->a.load(std::memory_order_relaxed) + l->b.load(std::memory_order_relaxed) * n;
    const double c = static_cast<double>(std::clamp<size_t>(d.cpu_parallel, 1, cores_));
    // n / t > kMargin * c / cpu_ns, without dividing by a zero t.
    if (n * cpu_ns > kMargin * c * t) return true;
  }
  // No line yet, or the CPU wins: a probe window when one is due.
  int64_t due = l->next_probe.load(std::memory_order_relaxed);
  if (now < due) return false;
  const int64_t interval = l->interval.load(std::memory_order_relaxed);
  if (!l->next_probe.compare_exchange_strong(due, now + interval, std::memory_order_relaxed)) return false;
  // The probe's size: every request of the window, unless the line says no
  // batch makes the device faster than one core (its cost per item above
  // the CPU's); then what the line says the device runs in one window.
  int64_t items = std::numeric_limits<int64_t>::max() / 2;
  const double a = l->a.load(std::memory_order_relaxed), b = l->b.load(std::memory_order_relaxed);
  if (l->fitted.load(std::memory_order_relaxed) && b > cpu_ns) {
    const double fit = (static_cast<double>(kProbeWindow) - a) / b;
    // (1e-9: a fit that is exact up to rounding still gets its whole items)
    items = static_cast<int64_t>(std::clamp(fit * (1 + 1e-9), 2.0, static_cast<double>(max_batch_)));
  }
  l->probe_left.store(items - 1, std::memory_order_relaxed);  // this request is the first
  l->probe_until.store(now + kProbeWindow, std::memory_order_relaxed);
  l->probes.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void RoutePolicy::cpu_sample(const mldsa::Params& p, BatchOp op, int64_t ns) {
  Lane* l = lane(p, op);
  if (l == nullptr || ns <= 0) return;
  // A running average (1/8 per sample); concurrent samples may overwrite
  // each other, which loses a sample, never the average.
  const double old = l->cpu_ns.load(std::memory_order_relaxed);
  const double v = static_cast<double>(ns);
  l->cpu_ns.store(old <= 0 ? v : old + (v - old) / 8, std::memory_order_relaxed);
}

void RoutePolicy::device_sample(const mldsa::Params& p, BatchOp op, size_t n, int64_t ns) {
  Lane* l = lane(p, op);
  if (l == nullptr || n == 0 || ns <= 0) return;
  const double x = static_cast<double>(n), t = static_cast<double>(ns);
  double a = 0, b = 0;
  {
    std::lock_guard<std::mutex> lock(l->m);
    l->s0 = kForget * l->s0 + 1;
    l->s1 = kForget * l->s1 + x;
    l->s2 = kForget * l->s2 + x * x;
    l->t0 = kForget * l->t0 + t;
    l->t1 = kForget * l->t1 + x * t;
    const double det = l->s0 * l->s2 - l->s1 * l->s1;
    if (det > 1e-9 * l->s0 * l->s2) {
      b = (l->s0 * l->t1 - l->s1 * l->t0) / det;
      a = (l->t0 - b * l->s1) / l->s0;
    }
    // One batch size only, or a line with a negative part: the cost per item
    // through the origin (T(n) = b n), exact at the sizes seen.
    if (!(det > 1e-9 * l->s0 * l->s2) || a < 0 || b < 0) {
      a = 0;
      b = l->t1 / l->s2;
    }
  }
  l->a.store(a, std::memory_order_relaxed);
  l->b.store(b, std::memory_order_relaxed);
  l->last_batch.store(n, std::memory_order_relaxed);
  l->done_device.fetch_add(n, std::memory_order_relaxed);
  const uint64_t seen = l->batches.fetch_add(1, std::memory_order_relaxed) + 1;
  if (seen >= 2) l->fitted.store(true, std::memory_order_relaxed);
  // Probe less often while the CPU wins at this batch size, often once the
  // device does.
  const double cpu_ns = l->cpu_ns.load(std::memory_order_relaxed);
  const double c = static_cast<double>(std::min<size_t>(n, cores_));
  const bool device_wins = cpu_ns > 0 && x * cpu_ns > kMargin * c * (a + b * x);
  const int64_t interval = l->interval.load(std::memory_order_relaxed);
  l->interval.store(device_wins ? kMinProbeInterval : std::min(kMaxProbeInterval, 2 * interval),
                    std::memory_order_relaxed);
}

RoutePolicy::LaneModel RoutePolicy::model(const mldsa::Params& p, BatchOp op) const {
  LaneModel m;
  const Lane* l = lane(p, op);
  if (l == nullptr) return m;
  m.cpu_ns = l->cpu_ns.load(std::memory_order_relaxed);
  m.a_ns = l->a.load(std::memory_order_relaxed);
  m.b_ns = l->b.load(std::memory_order_relaxed);
  m.fitted = l->fitted.load(std::memory_order_relaxed);
  m.batches = l->batches.load(std::memory_order_relaxed);
  m.probes = l->probes.load(std::memory_order_relaxed);
  m.last_batch = l->last_batch.load(std::memory_order_relaxed);
  m.cpu_rate = l->cpu_rate.load(std::memory_order_relaxed) * 1e9;
  m.device_rate = l->device_rate.load(std::memory_order_relaxed) * 1e9;
  return m;
}

std::string RoutePolicy::describe() const {
  std::string out;
  for (size_t i = 0; i < kLanes; ++i) {
    const Lane& l = lanes_[i];
    const mldsa::Params* p = l.params.load(std::memory_order_relaxed);
    const double cpu = l.cpu_ns.load(std::memory_order_relaxed);
    const uint64_t batches = l.batches.load(std::memory_order_relaxed);
    if (p == nullptr || (cpu <= 0 && batches == 0)) continue;
    char line[300], cpu_text[32] = "unmeasured";
    if (cpu > 0) std::snprintf(cpu_text, sizeof cpu_text, "%.1f us", cpu / 1e3);
    std::snprintf(line, sizeof line, "%s%s %s: cpu %s, device %.1f us + %.3f us/item (%llu batches, %llu probes)",
                  out.empty() ? "" : "; ", p->name, op_name(i % kBatchOps), cpu_text,
                  l.a.load(std::memory_order_relaxed) / 1e3, l.b.load(std::memory_order_relaxed) / 1e3,
                  static_cast<unsigned long long>(batches),
                  static_cast<unsigned long long>(l.probes.load(std::memory_order_relaxed)));
    out += line;
    const double cr = l.cpu_rate.load(std::memory_order_relaxed), dr = l.device_rate.load(std::memory_order_relaxed);
    if (cr > 0 || dr > 0) {
      std::snprintf(line, sizeof line, ", delivered %.0f/s on the cpu, %.0f/s on the device", cr * 1e9, dr * 1e9);
      out += line;
    }
  }
  return out.empty() ? "nothing measured yet" : out;
}

}  // namespace mldsa::route
