// sim_device.cc - the simulated device (see sim_device.h).
#include "kernels/device/sim/sim_device.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "kernels/block/chunk.h"
#include "kernels/device/sim/secret_index.h"
#include "kernels/simt/simt.h"
#include "kernels/thread/chunk.h"

namespace mldsa::gpu {

// The handles the device seam hands out: a stream is a worker thread and its
// queue; an event counts records issued and completed.
struct StreamHandle {
  struct Op {
    std::function<DeviceStatus()> run;
    std::chrono::nanoseconds modelled{0};
    bool hang = false;
    bool device_work = false;  // a launch, copy or memset: skipped without SimConfig::device_work
  };
  unsigned index = 0;
  std::mutex m;
  std::condition_variable cv;
  std::deque<Op> queue;
  bool running = false;  // an operation is executing
  bool stop = false;
  DeviceStatus pending;  // the first failure since the last synchronize
  std::thread worker;
};

struct EventHandle {
  uint64_t issued = 0;     // records made (host side)
  uint64_t completed = 0;  // records their stream has reached
};

namespace {

constexpr uint8_t kPoison = 0xA5;
// Blocks of the cooperative signing loop the host SIMT interleaves at once.
constexpr uint32_t kResidentBlocks = 16;

// Index into SimSpeed::per_task and SimStats::tasks.
enum Kernel : int { kKeygen = 0, kVerify, kExpand, kPrepare, kLoop, kVerifyExpand };

}  // namespace

// ---------------------------------------------------------------------------
// One simulated device.

class SimPlatform::SimDevice final : public Device {
 public:
  SimDevice(const SimConfig& config, int ordinal) : config_(config), ordinal_(ordinal) {
    props_.name = "simulated device " + std::to_string(ordinal) +
                  (config.device_work ? "" : " (no device work: results unchecked)");
    props_.computes = config.device_work;
    props_.memory_bytes = config.memory_bytes;
    props_.multiprocessors = config.multiprocessors;
    props_.sign_units = std::max<uint32_t>(1, config.sign_units);
    props_.coop_sign_units = std::max<uint32_t>(1, config.coop_sign_units);
  }

  ~SimDevice() override {
    {
      std::lock_guard<std::mutex> lock(m_);
      shutdown_ = true;
    }
    cv_.notify_all();
    for (auto& s : streams_) {
      {
        std::lock_guard<std::mutex> lock(s->m);
        s->stop = true;
      }
      s->cv.notify_all();
      if (s->worker.joinable()) s->worker.join();
    }
    for (auto& [base, b] : blocks_) std::free(b.base);
  }

  const DeviceProperties& properties() const override { return props_; }

  // -- memory ---------------------------------------------------------------

  DeviceStatus alloc_device(size_t bytes, void** out) override { return alloc(SimOp::alloc_device, bytes, false, out); }
  DeviceStatus alloc_pinned(size_t bytes, void** out) override { return alloc(SimOp::alloc_pinned, bytes, true, out); }
  void free_device(void* p) override { release(p, false); }
  void free_pinned(void* p) override { release(p, true); }

  // -- streams and events ---------------------------------------------------

  DeviceStatus create_stream(Stream* out) override {
    if (DeviceStatus st = admit(SimOp::create_stream).status; !st.ok()) return st;
    auto s = std::make_unique<StreamHandle>();
    s->index = static_cast<unsigned>(streams_.size());
    StreamHandle* raw = s.get();
    try {
      raw->worker = std::thread([this, raw] { serve(*raw); });
    } catch (const std::exception& e) {
      return fail(DeviceErrc::failed, std::string("create_stream: ") + e.what());
    }
    std::lock_guard<std::mutex> lock(m_);
    streams_.push_back(std::move(s));
    *out = raw;
    return {};
  }
  // Destroyed with the device: a stream's worker may still be running work
  // queued before, as with CUDA's cudaStreamDestroy.
  void destroy_stream(Stream) override {}

  DeviceStatus create_event(Event* out) override {
    if (DeviceStatus st = admit(SimOp::create_event).status; !st.ok()) return st;
    std::lock_guard<std::mutex> lock(m_);
    events_.push_back(std::make_unique<EventHandle>());
    *out = events_.back().get();
    return {};
  }
  void destroy_event(Event) override {}

  // -- queued operations ------------------------------------------------------

  DeviceStatus copy_to_device(Stream s, void* dev, const void* host, size_t bytes) override {
    return copy(SimOp::copy_to_device, s, dev, host, bytes, false);
  }
  DeviceStatus copy_to_host(Stream s, void* host, const void* dev, size_t bytes) override {
    return copy(SimOp::copy_to_host, s, host, dev, bytes, true);
  }

  DeviceStatus zero(Stream s, void* dev, size_t bytes) override {
    const Admission a = admit(SimOp::zero);
    if (!a.status.ok()) return a.status;
    if (!in_block(dev, bytes, false)) return fail(DeviceErrc::failed, "zero: not inside a device block");
    const bool broken = a.async_error;
    return enqueue(s, a, modelled_copy(bytes), [=, this]() -> DeviceStatus {
      if (broken) return async_failure(SimOp::zero);  // the secrets stay where they were
      std::memset(dev, 0, bytes);
      return {};
    }, true);
  }

  DeviceStatus record(Event e, Stream s) override {
    const Admission a = admit(SimOp::record);
    if (!a.status.ok()) return a.status;
    uint64_t target;
    {
      std::lock_guard<std::mutex> lock(m_);
      target = ++e->issued;
    }
    const bool broken = a.async_error;
    return enqueue(s, a, {}, [=, this]() -> DeviceStatus {
      {
        std::lock_guard<std::mutex> lock(m_);
        e->completed = std::max(e->completed, target);
      }
      cv_.notify_all();
      return broken ? async_failure(SimOp::record) : DeviceStatus{};
    });
  }

  DeviceStatus wait(Stream s, Event e) override {
    const Admission a = admit(SimOp::wait);
    if (!a.status.ok()) return a.status;
    uint64_t target;
    {
      std::lock_guard<std::mutex> lock(m_);
      target = e->issued;
    }
    if (target == 0) return {};  // never recorded: nothing to wait for
    const bool broken = a.async_error;
    return enqueue(s, a, {}, [=, this]() -> DeviceStatus {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return e->completed >= target || shutdown_; });
      if (e->completed < target) return {DeviceErrc::failed, name() + ": wait released at shutdown"};
      return broken ? async_failure(SimOp::wait) : DeviceStatus{};
    });
  }

  // -- kernels ----------------------------------------------------------------

  DeviceStatus launch_keygen(Stream s, KernelSet k, const TaskParams& p, const KeygenChunk& c, uint32_t n) override {
    const Admission a = admit(SimOp::launch_keygen);
    if (!a.status.ok()) return a.status;
    if (!in_block(c.seeds, size_t{n} * 32, false) || !in_block(c.pks, size_t{n} * p.pk_bytes, false) ||
        !in_block(c.sks, size_t{n} * p.sk_bytes, false))
      return fail(DeviceErrc::failed, "launch_keygen: an array outside device memory");
    const bool broken = a.async_error, corrupt = a.corrupt;
    return enqueue(s, a, modelled_launch(kKeygen, n), [=, this]() -> DeviceStatus {
      if (broken) {
        std::memset(c.pks, kPoison, size_t{n} * p.pk_bytes);
        std::memset(c.sks, kPoison, size_t{n} * p.sk_bytes);
        return async_failure(SimOp::launch_keygen);
      }
      if (k == KernelSet::coop) {
        const DeviceStatus st = run_blocks(SimOp::launch_keygen, n, coop::keygen_shared_bytes(p), 1,
                                           [&](uint32_t i) { coop::keygen_block(p, c, i); });
        if (!st.ok()) return st;
      } else {
        for (uint32_t i = 0; i < n; ++i) keygen_thread(p, c, i);
      }
      if (corrupt) c.pks[0] ^= 1;
      count_tasks(kKeygen, n);
      return {};
    }, true);
  }

  DeviceStatus launch_verify(Stream s, KernelSet k, const TaskParams& p, const VerifyChunk& c, uint32_t n) override {
    const Admission a = admit(SimOp::launch_verify);
    if (!a.status.ok()) return a.status;
    if (!in_block(c.pks, size_t{n} * p.pk_bytes, false) || !in_block(c.sigs, size_t{n} * p.sig_bytes, false) ||
        !in_block(c.mus, size_t{n} * 64, false) || !in_block(c.modes, n, false) ||
        !in_block(c.offsets, (size_t{n} + 1) * 4, false) || !in_block(c.results, n, false) ||
        (c.xpks && !in_block(c.key_index, size_t{n} * 4, false)))
      return fail(DeviceErrc::failed, "launch_verify: an array outside device memory");
    const bool broken = a.async_error, corrupt = a.corrupt;
    return enqueue(s, a, modelled_launch(kVerify, n), [=, this]() -> DeviceStatus {
      if (broken) {
        std::memset(c.results, kVerifyOk, n);  // every signature "valid": only a discarded batch is safe
        return async_failure(SimOp::launch_verify);
      }
      if (c.offsets[n] > 0 && !in_block(c.arena, c.offsets[n], false))
        return {DeviceErrc::failed, name() + ": launch_verify: the message arena outside device memory"};
      if (c.xpks)
        for (uint32_t i = 0; i < n; ++i)
          if (c.modes[i] != kVerifySkip &&
              !in_block(c.xpks + size_t{c.key_index[i]} * verify_key_words(p), verify_key_words(p) * 4, false))
            return {DeviceErrc::failed, name() + ": launch_verify: a task's expanded key outside device memory"};
      if (k == KernelSet::coop) {
        if (c.xpks) return {DeviceErrc::failed, name() + ": launch_verify: the cooperative kernel takes no expanded keys"};
        const DeviceStatus st = run_blocks(SimOp::launch_verify, n, coop::verify_shared_bytes(p), 1,
                                           [&](uint32_t i) { coop::verify_block(p, c, i); });
        if (!st.ok()) return st;
      } else {
        for (uint32_t i = 0; i < n; ++i) verify_thread(p, c, i);
      }
      if (corrupt) c.results[0] ^= 1;  // accept <-> reject
      count_tasks(kVerify, n);
      return {};
    }, true);
  }

  DeviceStatus launch_verify_expand(Stream s, const TaskParams& p, const VerifyExpandChunk& c) override {
    const Admission a = admit(SimOp::launch_verify_expand);
    if (!a.status.ok()) return a.status;
    if (!in_block(c.pks, size_t{c.nkeys} * p.pk_bytes, false) || !in_block(c.slot, size_t{c.nkeys} * 4, false))
      return fail(DeviceErrc::failed, "launch_verify_expand: an array outside device memory");
    const bool broken = a.async_error, corrupt = a.corrupt;
    return enqueue(s, a, modelled_launch(kVerifyExpand, c.nkeys), [=, this]() -> DeviceStatus {
      const size_t words = verify_key_words(p);
      for (uint32_t k = 0; k < c.nkeys; ++k) {
        if (!in_block(c.xpks + size_t{c.slot[k]} * words, words * 4, false))
          return {DeviceErrc::failed, name() + ": launch_verify_expand: a key slot outside device memory"};
        if (broken)
          std::memset(c.xpks + size_t{c.slot[k]} * words, kPoison, words * 4);
        else
          verify_expand_thread(p, c, k);
      }
      if (broken) return async_failure(SimOp::launch_verify_expand);
      if (corrupt && c.nkeys > 0) c.xpks[size_t{c.slot[0]} * words + verify_key_a(p)] ^= 1;
      count_tasks(kVerifyExpand, c.nkeys);
      return {};
    }, true);
  }

  DeviceStatus launch_sign_expand(Stream s, KernelSet k, const TaskParams& p, const SignChunk& c) override {
    const Admission a = admit(SimOp::launch_sign_expand);
    if (!a.status.ok()) return a.status;
    if (!in_block(c.sks, size_t{c.nkeys} * p.sk_bytes, false) ||
        (c.expand_slot && !in_block(c.expand_slot, size_t{c.nkeys} * 4, false)))
      return fail(DeviceErrc::failed, "launch_sign_expand: an array outside device memory");
    const bool broken = a.async_error, corrupt = a.corrupt;
    return enqueue(s, a, modelled_launch(kExpand, c.nkeys), [=, this]() -> DeviceStatus {
      const size_t words = sign_key_words(p);
      for (uint32_t i = 0; i < c.nkeys; ++i) {
        const uint32_t slot = c.expand_slot ? c.expand_slot[i] : i;
        if (!in_block(c.xkeys + slot * words, words * 4, false))
          return {DeviceErrc::failed, name() + ": launch_sign_expand: a key slot outside device memory"};
        if (broken) std::memset(c.xkeys + slot * words, kPoison, words * 4);
      }
      if (broken) return async_failure(SimOp::launch_sign_expand);
      if (k == KernelSet::coop) {
        const DeviceStatus st = run_blocks(SimOp::launch_sign_expand, c.nkeys, coop::expand_shared_bytes(p), 1,
                                           [&](uint32_t i) { coop::expand_block(p, c, i); });
        if (!st.ok()) return st;
      } else {
        for (uint32_t i = 0; i < c.nkeys; ++i) sign_expand_thread(p, c, i);
      }
      if (corrupt && c.nkeys > 0) c.xkeys[size_t{c.expand_slot ? c.expand_slot[0] : 0} * words + 8] ^= 1;
      count_tasks(kExpand, c.nkeys);
      return {};
    }, true);
  }

  // Both kernel sets prepare with the thread-per-task kernel (kernels/block/chunk.h says why).
  DeviceStatus launch_sign_prepare(Stream s, KernelSet, const TaskParams& p, const SignChunk& c,
                                   const SignSchedule& sched) override {
    const Admission a = admit(SimOp::launch_sign_prepare);
    if (!a.status.ok()) return a.status;
    const uint32_t n = sched.n;
    if (!in_block(c.key_index, size_t{n} * 4, false) || !in_block(c.mus, size_t{n} * 64, false) ||
        !in_block(c.rnds, size_t{n} * p.rnd_bytes, false) || !in_block(c.rhopps, size_t{n} * 64, false) ||
        !in_block(sched.next_task, size_t{sign_schedule_words(n)} * 4, false))
      return fail(DeviceErrc::failed, "launch_sign_prepare: an array outside device memory");
    const bool broken = a.async_error, corrupt = a.corrupt;
    return enqueue(s, a, modelled_launch(kPrepare, n), [=, this]() -> DeviceStatus {
      if (broken) {
        std::memset(c.rhopps, kPoison, size_t{n} * 64);
        return async_failure(SimOp::launch_sign_prepare);
      }
      const size_t words = sign_key_words(p);
      for (uint32_t i = 0; i < n; ++i)
        if (!in_block(c.xkeys + c.key_index[i] * words, words * 4, false))
          return {DeviceErrc::failed, name() + ": launch_sign_prepare: a task's key outside device memory"};
      for (uint32_t i = 0; i < n; ++i) sign_prepare_thread(p, c, sched, i);
      if (corrupt) c.rhopps[0] ^= 1;
      count_tasks(kPrepare, n);
      return {};
    }, true);
  }

  DeviceStatus launch_sign_loop(Stream s, KernelSet k, const TaskParams& p, const SignChunk& c,
                                const SignSchedule& sched, uint32_t units) override {
    const Admission a = admit(SimOp::launch_sign_loop);
    if (!a.status.ok()) return a.status;
    const uint32_t n = sched.n;
    if (!in_block(c.sigs, size_t{n} * p.sig_bytes, false))
      return fail(DeviceErrc::failed, "launch_sign_loop: sigs outside device memory");
    if (units == 0) return fail(DeviceErrc::failed, "launch_sign_loop: no units");
    {
      std::lock_guard<std::mutex> lock(m_);
      stats_.sign_loop_calls.push_back(call_seq_);
    }
    const bool broken = a.async_error, corrupt = a.corrupt;
    return enqueue(s, a, modelled_launch(kLoop, n), [=, this]() -> DeviceStatus {
      if (broken) {
        std::memset(c.sigs, kPoison, size_t{n} * p.sig_bytes);
        return async_failure(SimOp::launch_sign_loop);
      }
      if (k == KernelSet::coop) {
        // The units are blocks, interleaved at every barrier by the host SIMT
        // (at most kResidentBlocks at once; the rest start as blocks stop).
        const DeviceStatus st = run_blocks(SimOp::launch_sign_loop, units, coop::sign_shared_bytes(p),
                                           std::min(units, kResidentBlocks),
                                           [&](uint32_t) { coop::sign_loop_block(p, c, sched); });
        if (!st.ok()) return st;
        uint64_t handed_out = 0;
        for (uint32_t i = 0; i < n; ++i) handed_out += std::min(sched.next_attempt[i], sched.max_attempts);
        if (corrupt) c.sigs[0] ^= 1;
        count_tasks(kLoop, handed_out);
        return {};
      }
      // The units take turns, one work item each: as on a device, any unit may
      // run any task's next attempt, in any order the schedule hands out.
      std::vector<SignUnit> unit(std::min(units, std::max<uint32_t>(n, 1)));
      std::vector<uint8_t> stopped(unit.size(), 0);
      auto scratch = std::make_unique<SignScratch>();
      uint64_t attempts = 0;
      for (size_t active = unit.size(); active > 0;) {
        for (size_t u = 0; u < unit.size(); ++u) {
          if (stopped[u]) continue;
          const SchedStep step = sign_unit_step(p, c, sched, unit[u], *scratch);
          if (step == SchedStep::stop) {
            stopped[u] = 1;
            --active;
          } else if (step == SchedStep::work) {
            ++attempts;
          }
        }
      }
      sign_wipe(*scratch);
      if (corrupt) c.sigs[0] ^= 1;
      count_tasks(kLoop, attempts);
      return {};
    }, true);
  }

  // On a lost device too it waits (for the operation in progress: the rest
  // are dropped), so the host may then reuse what the stream was copying.
  DeviceStatus synchronize(Stream s, std::chrono::milliseconds timeout) override {
    const Admission a = admit(SimOp::synchronize);
    {
      std::lock_guard<std::mutex> lock(m_);
      stats_.synchronize_calls.push_back(call_seq_);
    }
    if (!a.status.ok() && a.status.code != DeviceErrc::lost) return a.status;
    std::unique_lock<std::mutex> lock(s->m);
    if (!s->cv.wait_for(lock, timeout, [&] { return s->queue.empty() && !s->running; }))
      return {DeviceErrc::timeout, name() + ": stream " + std::to_string(s->index) + " did not finish within " +
                                       std::to_string(timeout.count()) + " ms"};
    if (!a.status.ok()) return a.status;
    DeviceStatus st = std::move(s->pending);
    s->pending = {};
    if (st.ok() && lost()) return {DeviceErrc::lost, name() + ": device lost"};
    return st;
  }

  // Blocks of a cooperative kernel on the host SIMT implementation
  // (kernels/simt/): a finding of its checks (a shared-memory race, a
  // deadlock, an access outside shared memory) is the kernel's bug and fails
  // the launch as an error of the work.
  template <typename Block>
  DeviceStatus run_blocks(SimOp op, uint32_t blocks, uint32_t shared_bytes, uint32_t resident, Block block) {
    const simt::HostResult r = simt::host_launch({blocks, coop::kBlockThreads, shared_bytes},
                                                 {.resident_blocks = resident},
                                                 [&] { block(simt::block_index()); });
    if (r.ok) return {};
    return {DeviceErrc::failed, name() + ": " + sim_op_name(op) + " (cooperative kernels): " + r.error};
  }

  // -- for SimPlatform --------------------------------------------------------

  SimStats stats() const {
    std::lock_guard<std::mutex> lock(m_);
    return stats_;
  }

  // Each live block where a watched secret lies.
  void find(std::vector<std::string>& out) const {
    std::lock_guard<std::mutex> lock(m_);
    if (secrets_ == nullptr) return;
    for (const auto& entry : blocks_) {
      const auto& b = entry.second;  // not a structured binding: clang 14 cannot capture those
      secrets_->scan(b.base, b.size, [&](size_t at, size_t n) { out.push_back(where(b, at, n)); });
    }
  }
  void set_secrets(const SecretIndex* secrets) {
    std::lock_guard<std::mutex> lock(m_);
    secrets_ = secrets;
  }
  std::vector<std::string> freed_with_secrets() const {
    std::lock_guard<std::mutex> lock(m_);
    return freed_with_secrets_;
  }

 private:
  struct Block {
    uint8_t* base = nullptr;
    size_t size = 0;
    bool pinned = false;
  };
  struct Admission {
    DeviceStatus status;
    bool async_error = false;
    bool hang = false;
    bool corrupt = false;
  };

  std::string name() const { return "sim device " + std::to_string(ordinal_); }
  DeviceStatus fail(DeviceErrc code, const std::string& what) const { return {code, name() + ": " + what}; }
  DeviceStatus async_failure(SimOp op) const {
    return {DeviceErrc::failed, name() + ": injected fault: " + sim_op_name(op) + " failed while running"};
  }
  bool lost() const {
    std::lock_guard<std::mutex> lock(m_);
    return lost_;
  }

  // Counts the call and applies the faults that hit it.
  Admission admit(SimOp op) {
    std::lock_guard<std::mutex> lock(m_);
    const uint64_t k = ++stats_.calls[static_cast<size_t>(op)];
    ++call_seq_;
    const std::thread::id me = std::this_thread::get_id();
    if (std::find(stats_.callers.begin(), stats_.callers.end(), me) == stats_.callers.end())
      stats_.callers.push_back(me);
    Admission a;
    if (lost_) {
      a.status = {DeviceErrc::lost, name() + ": device lost"};
      return a;
    }
    for (const SimFault& f : config_.faults) {
      if (f.op != op || (f.device >= 0 && f.device != ordinal_) || f.nth == 0) continue;
      if (f.every ? k % f.nth != 0 : k != f.nth) continue;
      const std::string what = name() + ": injected fault: " + sim_op_name(op) + " call " + std::to_string(k);
      switch (f.kind) {
        case SimFaultKind::error: a.status = {DeviceErrc::failed, what}; break;
        case SimFaultKind::out_of_memory: a.status = {DeviceErrc::out_of_memory, what + " (out of memory)"}; break;
        case SimFaultKind::lost:
          lost_ = true;
          a.status = {DeviceErrc::lost, what + " (device lost)"};
          break;
        case SimFaultKind::async_error: a.async_error = true; break;
        case SimFaultKind::hang: a.hang = true; break;
        case SimFaultKind::corrupt: a.corrupt = true; break;
      }
      if (!a.status.ok()) break;
    }
    return a;
  }

  DeviceStatus alloc(SimOp op, size_t bytes, bool pinned, void** out) {
    const Admission a = admit(op);
    if (!a.status.ok()) return a.status;
    if (bytes == 0) return fail(DeviceErrc::failed, std::string(sim_op_name(op)) + " of 0 bytes");
    std::lock_guard<std::mutex> lock(m_);
    if (!pinned && stats_.live_device_bytes + bytes > config_.memory_bytes)
      return {DeviceErrc::out_of_memory, name() + ": out of memory (" + std::to_string(bytes) + " bytes asked, " +
                                             std::to_string(config_.memory_bytes - stats_.live_device_bytes) +
                                             " free)"};
    auto* p = static_cast<uint8_t*>(std::malloc(bytes));
    if (p == nullptr) return {DeviceErrc::out_of_memory, name() + ": host memory exhausted"};
    std::memset(p, kPoison, bytes);
    blocks_[reinterpret_cast<uintptr_t>(p)] = {p, bytes, pinned};
    (pinned ? stats_.live_pinned_bytes : stats_.live_device_bytes) += bytes;
    stats_.peak_device_bytes = std::max(stats_.peak_device_bytes, stats_.live_device_bytes);
    *out = p;
    return {};
  }

  // As cudaFree: waits for the device's work first (a hung operation blocks
  // it until the device is destroyed).
  void release(void* p, bool pinned) {
    if (p == nullptr) return;
    if (!pinned) wait_idle();
    std::lock_guard<std::mutex> lock(m_);
    auto it = blocks_.find(reinterpret_cast<uintptr_t>(p));
    if (it == blocks_.end() || it->second.pinned != pinned) std::abort();  // a bad free: the engine's bug
    const Block b = it->second;
    if (secrets_ != nullptr) {
      bool named = false;
      secrets_->scan(b.base, b.size, [&](size_t at, size_t n) {
        if (!named) freed_with_secrets_.push_back(where(b, at, n) + " (freed)");
        named = true;
      });
    }
    (pinned ? stats_.live_pinned_bytes : stats_.live_device_bytes) -= b.size;
    blocks_.erase(it);
    std::free(b.base);
  }

  void wait_idle() {
    std::vector<StreamHandle*> all;
    {
      std::lock_guard<std::mutex> lock(m_);
      for (auto& s : streams_) all.push_back(s.get());
    }
    for (StreamHandle* s : all) {
      std::unique_lock<std::mutex> lock(s->m);
      s->cv.wait(lock, [&] { return (s->queue.empty() && !s->running) || s->stop; });
    }
  }

  bool in_block(const void* p, size_t bytes, bool pinned) const {
    std::lock_guard<std::mutex> lock(m_);
    const auto addr = reinterpret_cast<uintptr_t>(p);
    auto it = blocks_.upper_bound(addr);
    if (it == blocks_.begin()) return false;
    --it;
    const Block& b = it->second;
    return b.pinned == pinned && addr >= it->first && bytes <= b.size && addr - it->first <= b.size - bytes;
  }

  DeviceStatus copy(SimOp op, Stream s, void* dst, const void* src, size_t bytes, bool to_host) {
    const Admission a = admit(op);
    if (!a.status.ok()) return a.status;
    const void* host = to_host ? dst : src;
    const void* dev = to_host ? src : dst;
    if (!in_block(dev, bytes, false)) return fail(DeviceErrc::failed, std::string(sim_op_name(op)) + ": not inside a device block");
    if (!in_block(host, bytes, true))
      return fail(DeviceErrc::failed, std::string(sim_op_name(op)) + ": host side is not pinned memory");
    const bool broken = a.async_error, corrupt = a.corrupt;
    if (to_host) count_bytes_to_host(bytes);
    return enqueue(s, a, modelled_copy(bytes), [=, this]() -> DeviceStatus {
      if (broken) {
        std::memset(dst, 0x5A, bytes);
        return async_failure(op);
      }
      std::memcpy(dst, src, bytes);
      if (corrupt && bytes > 0) static_cast<uint8_t*>(dst)[0] ^= 1;
      return {};
    }, true);
  }

  std::chrono::nanoseconds modelled_launch(int kernel, uint64_t tasks) const {
    return config_.speed.launch_latency + config_.speed.per_task[kernel] * static_cast<int64_t>(tasks);
  }
  std::chrono::nanoseconds modelled_copy(size_t bytes) const {
    if (config_.speed.copy_bytes_per_second <= 0) return {};
    return std::chrono::nanoseconds(static_cast<int64_t>(1e9 * static_cast<double>(bytes) /
                                                         config_.speed.copy_bytes_per_second));
  }

  void count_tasks(int kernel, uint64_t n) {
    std::lock_guard<std::mutex> lock(m_);
    stats_.tasks[kernel] += n;
  }
  void count_bytes_to_host(uint64_t n) {
    std::lock_guard<std::mutex> lock(m_);
    stats_.bytes_to_host += n;
  }

  DeviceStatus enqueue(Stream s, const Admission& a, std::chrono::nanoseconds modelled,
                       std::function<DeviceStatus()> run, bool device_work = false) {
    {
      std::lock_guard<std::mutex> lock(s->m);
      s->queue.push_back({std::move(run), modelled, a.hang, device_work});
    }
    s->cv.notify_all();
    return {};
  }

  // A stream's worker: its operations in order, each run once its modelled
  // time has passed.
  void serve(StreamHandle& s) {
    for (;;) {
      StreamHandle::Op op;
      {
        std::unique_lock<std::mutex> lock(s.m);
        s.cv.wait(lock, [&] { return !s.queue.empty() || s.stop; });
        if (s.queue.empty()) return;  // stopping, nothing left
        op = std::move(s.queue.front());
        s.queue.pop_front();
        s.running = true;
      }
      const auto t0 = std::chrono::steady_clock::now();
      DeviceStatus st;
      if (lost()) {
        st = {DeviceErrc::lost, name() + ": device lost"};
      } else if (op.hang) {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return shutdown_; });
        st = {DeviceErrc::failed, name() + ": hung operation released at shutdown"};
      } else {
        {
          std::unique_lock<std::mutex> lock(m_);
          cv_.wait_until(lock, t0 + op.modelled, [&] { return shutdown_; });
        }
        st = op.device_work && !config_.device_work ? DeviceStatus{} : op.run();
      }
      {
        std::lock_guard<std::mutex> lock(s.m);
        if (!st.ok() && s.pending.ok()) s.pending = std::move(st);
        s.running = false;
        // An operation leaves nothing queued behind a stop: the rest is dropped.
        if (s.stop) s.queue.clear();
      }
      s.cv.notify_all();
    }
  }

  std::string where(const Block& b, size_t at, size_t needle) const {
    return name() + (b.pinned ? " pinned" : " device") + " block of " + std::to_string(b.size) + " bytes, +" +
           std::to_string(at) + ": watched secret #" + std::to_string(needle);
  }

  const SimConfig& config_;
  const int ordinal_;
  DeviceProperties props_;
  mutable std::mutex m_;
  std::condition_variable cv_;  // event completions, shutdown
  bool shutdown_ = false;
  bool lost_ = false;
  uint64_t call_seq_ = 0;
  SimStats stats_;
  std::map<uintptr_t, Block> blocks_;
  std::vector<std::unique_ptr<StreamHandle>> streams_;
  std::vector<std::unique_ptr<EventHandle>> events_;
  const SecretIndex* secrets_ = nullptr;
  std::vector<std::string> freed_with_secrets_;
};

// ---------------------------------------------------------------------------
// The platform.

SimPlatform::SimPlatform(const SimConfig& config) : config_(config), secrets_(std::make_unique<SecretIndex>()) {
  for (int i = 0; i < config_.devices; ++i) devices_.push_back(std::make_unique<SimDevice>(config_, i));
}

SimPlatform::~SimPlatform() = default;

std::string SimPlatform::name() const { return "simulated"; }
int SimPlatform::device_count() const { return static_cast<int>(devices_.size()); }

Device* SimPlatform::device(int ordinal, std::string* why) {
  if (ordinal < 0 || ordinal >= device_count()) {
    if (why) *why = "no simulated device " + std::to_string(ordinal);
    return nullptr;
  }
  return devices_[static_cast<size_t>(ordinal)].get();
}

SimStats SimPlatform::stats(int ordinal) const { return devices_.at(static_cast<size_t>(ordinal))->stats(); }

void SimPlatform::watch_secret(const uint8_t* bytes, size_t len) {
  secrets_->add(bytes, len);
  for (auto& d : devices_) d->set_secrets(secrets_.get());
}

std::vector<std::string> SimPlatform::find_secrets() const {
  std::vector<std::string> out;
  for (const auto& d : devices_) d->find(out);
  return out;
}

std::vector<std::string> SimPlatform::freed_with_secrets() const {
  std::vector<std::string> out;
  for (const auto& d : devices_) {
    const std::vector<std::string> f = d->freed_with_secrets();
    out.insert(out.end(), f.begin(), f.end());
  }
  return out;
}

std::shared_ptr<SimPlatform> make_sim_platform(const SimConfig& config) {
  return std::make_shared<SimPlatform>(config);
}

}  // namespace mldsa::gpu
