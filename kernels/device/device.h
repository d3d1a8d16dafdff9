// device.h - the one seam between the GPU engine and a device.
//
// The engine (kernels/host/engine.h, kernels/host/device_worker.h) reaches a device only
// through this interface: device and pinned host memory, streams, events and
// waits, copies, memset, the launch of each of our kernels, and the device's
// count, properties and occupancy. Two implementations:
//   - CUDA (kernels/device/cuda/cuda_device.cc): the CUDA runtime, only where CUDA is
//     built;
//   - the simulated device (kernels/device/sim/sim_device.h), always built: streams are
//     host workers that run their operations in order, a launch runs the same
//     task code (kernels/thread/chunk.h) on host threads, "device memory" is host
//     memory the simulation owns and tests can inspect; with a speed model and
//     injected faults.
// Every device's calls take the device explicitly (no "current device"), so
// no thread's CUDA state leaks between devices or into the application.
//
// Plain C++, no CUDA header, no OpenSSL.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "kernels/thread/sign_scheduler.h"
#include "kernels/thread/params.h"

namespace mldsa::gpu {

struct KeygenChunk;
struct VerifyChunk;
struct VerifyExpandChunk;
struct SignChunk;

// Which kernels a launch runs. thread: one GPU thread per task
// (kernels/thread/chunk.h); coop: one block of 128 threads per task, warps
// sharing each polynomial (kernels/block/chunk.h, on the SIMT layer
// kernels/simt/). Both compute the same bytes and share the expanded-key
// layout; sign_prepare is the same kernel for both.
enum class KernelSet : uint8_t { thread = 0, coop = 1 };
inline const char* kernel_set_name(KernelSet k) { return k == KernelSet::coop ? "coop" : "thread"; }

enum class DeviceErrc : uint8_t {
  ok = 0,
  failed,         // the call (or work queued before a synchronize) failed
  out_of_memory,
  timeout,        // synchronize: the stream's work did not finish in time
  lost,           // the device is unusable from now on
};

struct DeviceStatus {
  DeviceErrc code = DeviceErrc::ok;
  std::string what;  // "cudaMemcpyAsync: an illegal memory access was encountered", "sim device 1: ..."
  bool ok() const { return code == DeviceErrc::ok; }
};

struct DeviceProperties {
  std::string name;           // "NVIDIA H200 (sm_90, 132 SMs)", "simulated device 0"
  size_t memory_bytes = 0;    // device memory
  uint32_t multiprocessors = 0;
  // Units of the signing loop resident at once (the occupancy query times
  // the multiprocessors): how many units the dynamic schedule runs; threads
  // of the thread-per-task loop, blocks of the cooperative one.
  uint32_t sign_units = 0;
  uint32_t coop_sign_units = 0;
  uint32_t units(KernelSet k) const { return k == KernelSet::coop ? coop_sign_units : sign_units; }
  // false: a simulated device doing no work (SimConfig::device_work), whose
  // results are garbage: no self-test can pass on it, so none is run.
  bool computes = true;
};

// Opaque handles, owned by the device that made them.
struct StreamHandle;
struct EventHandle;
using Stream = StreamHandle*;
using Event = EventHandle*;

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceProperties& properties() const = 0;

  // Memory: device memory only the device's operations touch, and pinned
  // host memory the copies stage through.
  virtual DeviceStatus alloc_device(size_t bytes, void** out) = 0;
  virtual void free_device(void* p) = 0;
  virtual DeviceStatus alloc_pinned(size_t bytes, void** out) = 0;
  virtual void free_pinned(void* p) = 0;

  virtual DeviceStatus create_stream(Stream* out) = 0;
  virtual void destroy_stream(Stream s) = 0;
  virtual DeviceStatus create_event(Event* out) = 0;
  virtual void destroy_event(Event e) = 0;

  // Queued on stream s, run in order. An error returned here is the call's
  // own (a bad launch); errors of the work itself show at synchronize().
  virtual DeviceStatus copy_to_device(Stream s, void* dev, const void* host, size_t bytes) = 0;
  virtual DeviceStatus copy_to_host(Stream s, void* host, const void* dev, size_t bytes) = 0;
  virtual DeviceStatus zero(Stream s, void* dev, size_t bytes) = 0;
  // record: e completes when s's work queued so far has; wait: s's later work
  // waits for e's latest record (nothing, if e was never recorded).
  virtual DeviceStatus record(Event e, Stream s) = 0;
  virtual DeviceStatus wait(Stream s, Event e) = 0;

  // The kernels of set k (kernels/thread/chunk.h's threads, or
  // kernels/block/chunk.h's blocks): n tasks; expand: c.nkeys keys; loop:
  // units signing units (threads or blocks), each running the schedule
  // until it says stop.
  virtual DeviceStatus launch_keygen(Stream s, KernelSet k, const TaskParams& p, const KeygenChunk& c, uint32_t n) = 0;
  virtual DeviceStatus launch_verify(Stream s, KernelSet k, const TaskParams& p, const VerifyChunk& c, uint32_t n) = 0;
  // The public-key cache's expansion (thread kernels only): c.nkeys keys.
  virtual DeviceStatus launch_verify_expand(Stream s, const TaskParams& p, const VerifyExpandChunk& c) = 0;
  virtual DeviceStatus launch_sign_expand(Stream s, KernelSet k, const TaskParams& p, const SignChunk& c) = 0;
  virtual DeviceStatus launch_sign_prepare(Stream s, KernelSet k, const TaskParams& p, const SignChunk& c,
                                           const SignSchedule& sched) = 0;
  virtual DeviceStatus launch_sign_loop(Stream s, KernelSet k, const TaskParams& p, const SignChunk& c,
                                        const SignSchedule& sched, uint32_t units) = 0;

  // Host side: waits until everything queued on s has run, at most timeout.
  // DeviceErrc::timeout when it has not (the work may still be running).
  virtual DeviceStatus synchronize(Stream s, std::chrono::milliseconds timeout) = 0;
};

// The devices of one kind. Devices live as long as their platform; a device
// object may be shared by several logical devices of an engine.
class Platform {
 public:
  virtual ~Platform() = default;
  virtual std::string name() const = 0;  // "CUDA 13.0", "simulated"
  virtual int device_count() const = 0;
  // Opens (on first call) and returns device ordinal; nullptr with *why set.
  virtual Device* device(int ordinal, std::string* why) = 0;
};

// The CUDA devices; nullptr with *why set where CUDA is not built in or no
// device is present ("built without CUDA", "no CUDA device (...)").
std::shared_ptr<Platform> cuda_platform(std::string* why);

}  // namespace mldsa::gpu
