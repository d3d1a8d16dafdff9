// sim_device.h - the simulated device: the device seam (kernels/device/device.h) on
// host threads, so the engine, the router and every kernel run in CI and in
// the tests without a GPU.
//
// - Each stream is a host worker thread that runs its queued operations in
//   order; events and waits order work across streams as CUDA's do.
// - A launch runs the same task code as the CUDA kernels (kernels/thread/chunk.h)
//   over the launch's tasks on the stream's worker; the signing loop runs its
//   units interleaved (one attempt each, in turn), so the dynamic schedule and
//   its speculation run as on a device. The cooperative kernels
//   (kernels/block/chunk.h) run block by block on the host SIMT implementation
//   (kernels/simt/), their signing units interleaved at every barrier; its
//   race, barrier and bounds checks fail the launch.
// - "Device memory" and "pinned memory" are host memory the simulation owns:
//   new blocks are filled with 0xA5 (never zero, so reliance on zeroed memory
//   shows), copies must stay inside blocks and stage through pinned blocks,
//   kernels' arrays must lie in device blocks, and tests can search every live
//   block for a secret, and learn whether a block was freed still holding one.
// - A speed model (launch latency, time per task per kernel, copy bandwidth):
//   an operation's effects appear once its modelled time has passed (it runs
//   then), so a missing wait between streams shows as wrong data.
// - Faults: fail the k-th (or every k-th) call of a kind, now or when the
//   stream is synchronized, run out of memory, lose the device, or hang (an
//   operation that never finishes until the device is destroyed).
//
// Test machinery: its own target (mldsa_gpu_sim), which the shipped module
// does not link. The test build selects it with MLDSA_ACCEL_SIM_DEVICES=N
// and the other MLDSA_ACCEL_SIM_* settings (provctx/settings.h,
// route/test_hooks.cc).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "kernels/device/device.h"

namespace mldsa::gpu {

// The kinds of calls, for fault injection and the call counts.
enum class SimOp : uint8_t {
  alloc_device,
  alloc_pinned,
  create_stream,
  create_event,
  copy_to_device,
  copy_to_host,
  zero,
  record,
  wait,
  launch_keygen,
  launch_verify,
  launch_verify_expand,
  launch_sign_expand,
  launch_sign_prepare,
  launch_sign_loop,
  synchronize,
};
inline constexpr size_t kSimOps = 16;
const char* sim_op_name(SimOp op);  // "launch_sign_loop"

enum class SimFaultKind : uint8_t {
  error,        // the call itself fails (a bad launch, a failed copy call)
  async_error,  // the call succeeds; its operation fails when it runs (its outputs garbage), reported by
                // the stream's next synchronize
  out_of_memory,
  lost,         // this call and every later one on the device fail with DeviceErrc::lost
  hang,         // the operation never finishes (until the device is destroyed)
  corrupt,      // the operation runs, then one byte of its output is flipped, and nothing is reported
};
// async_error, hang and corrupt apply to queued operations (copies, zero,
// record, wait, launches; corrupt to copies and launches); on the other calls
// they change nothing.


struct SimFault {
  int device = -1;  // the device ordinal it applies to; -1: every device
  SimOp op = SimOp::launch_keygen;
  uint64_t nth = 1;     // the nth call of op on the device (from 1) ...
  bool every = false;   // ... or every nth call
  SimFaultKind kind = SimFaultKind::error;
};

struct SimSpeed {
  std::chrono::nanoseconds launch_latency{0};      // per kernel launch
  // Per task: keygen, verify, sign_expand, sign_prepare, sign_loop, verify_expand.
  std::chrono::nanoseconds per_task[6] = {};
  double copy_bytes_per_second = 0;                // 0: copies take what memcpy takes
};

struct SimConfig {
  int devices = 1;
  size_t memory_bytes = size_t{4} << 30;  // per device: allocations beyond it fail with out_of_memory
  uint32_t multiprocessors = 4;
  uint32_t sign_units = 64;               // what the occupancy query answers (thread-per-task loop)
  uint32_t coop_sign_units = 8;           // the same for the cooperative loop (blocks)
  SimSpeed speed;
  std::vector<SimFault> faults;
  // false: the device does no work: kernels, copies and memsets move no data
  // and take only their modelled time (events and waits still order them), so
  // the host side (staging into pinned memory, the pipeline, delivery to the
  // callers) is measured alone, as a real device's DMA and kernels would not
  // use the host's cores. Results are then garbage: for benchmarks of the host
  // side only, never with a self-test or a check of the results.
  bool device_work = true;
};

// "latency_us=20,keygen_ns=80,verify_ns=80,vexpand_ns=60,sign_ns=300,expand_ns=100,prepare_ns=10,
// copy_gbps=25" (any subset). False with *why on bad text.
bool parse_sim_speed(std::string_view text, SimSpeed& out, std::string* why);
// Comma list of OP:N[:KIND] or OP:everyN[:KIND]; OP is a sim_op_name, KIND
// error (default), async_error, out_of_memory, lost, hang or corrupt; a
// leading "dD/" limits it to device D: "launch_sign_loop:1:hang",
// "d1/copy_to_host:every3".
bool parse_sim_faults(std::string_view text, std::vector<SimFault>& out, std::string* why);
struct SimStats {
  uint64_t calls[kSimOps] = {};  // by SimOp
  // Tasks run by each kernel: keygen, verify, sign_expand, sign_prepare, the
  // loop units' attempts, verify_expand (public keys expanded into the cache).
  uint64_t tasks[6] = {};
  uint64_t live_device_bytes = 0, live_pinned_bytes = 0;
  uint64_t bytes_to_host = 0;  // copied device -> host (PCIe's return direction)
  uint64_t peak_device_bytes = 0;
  // The order of calls: the call index (over all kinds) of every launch of the
  // signing loop, and of every synchronize.
  std::vector<uint64_t> sign_loop_calls, synchronize_calls;
  std::vector<std::thread::id> callers;  // the threads that made calls, each once
};

class SimPlatform final : public Platform {
 public:
  explicit SimPlatform(const SimConfig& config);
  ~SimPlatform() override;  // releases hung operations, joins every stream worker, frees every block
  SimPlatform(const SimPlatform&) = delete;
  SimPlatform& operator=(const SimPlatform&) = delete;

  std::string name() const override;
  int device_count() const override;
  Device* device(int ordinal, std::string* why) override;

  const SimConfig& config() const { return config_; }
  SimStats stats(int ordinal) const;

  // Secrets to look for: where a watched byte string lies in any live device
  // or pinned block, and the blocks that were freed while holding one (each
  // named once). Call watch_secret while no engine is using the platform.
  void watch_secret(const uint8_t* bytes, size_t len);
  std::vector<std::string> find_secrets() const;
  std::vector<std::string> freed_with_secrets() const;

  class SimDevice;
  class SecretIndex;

 private:
  SimConfig config_;
  std::unique_ptr<SecretIndex> secrets_;
  std::vector<std::unique_ptr<SimDevice>> devices_;
};

std::shared_ptr<SimPlatform> make_sim_platform(const SimConfig& config);

}  // namespace mldsa::gpu
