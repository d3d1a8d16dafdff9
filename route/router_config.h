// router_config.h - what the router, the GPU engine and the test machinery are
// configured with, made from the module's settings (provctx/settings.h, the
// one table of keys and variables).
#pragma once

#include "kernels/host/engine.h"
#include "provctx/settings.h"
#include "route/batch_queue.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace mldsa::route {

enum class GpuMode { automatic, on, off };
enum class GpuPolicy { measured, always };

// The test rows of the settings, as the test build's hooks read them
// (route/test_hooks.h); the shipped module never looks at them.
struct TestSettings {
  unsigned sim_devices = 0;  // 0: CUDA, not the simulated device
  uint64_t sim_memory_mb = 0;  // 0: the simulated device's default
  std::string sim_speed, sim_faults;
  bool sim_device_work = true;
  std::string executor;      // "cpu": the core on the dispatcher thread stands in for the GPU
  unsigned fail_every = 0;   // every k-th batch fails after corrupting its outputs
};

struct RouterConfig {
  GpuMode gpu = GpuMode::automatic;
  GpuPolicy policy = GpuPolicy::measured;
  size_t min_inflight = 8;
  QueueLimits limits;
  bool max_batch_set = false, queue_depth_set = false;  // else sized from the devices
  std::chrono::milliseconds error_cooldown{1000};  // after an executor error, new work goes to the CPU
  uint64_t verify_audit = 1;  // one device accept in this many re-checked on the CPU (1: all)
  uint64_t fault_limit = 3;    // wrong device results before the device is taken out of service
  // Not a setting: only the route policy's tests turn it off, to model an
  // ideal device whose cost is not the CPU's checks of it.
  bool check_device_results = true;
  std::string cpu_backend;                          // empty: leave the core's choice alone
  bool report = false;                              // print where the work went at the end
  gpu::EngineConfig engine;                         // chunk_items follows limits.max_batch
  TestSettings test;
};

// The router's, the engine's and the test machinery's configurations from
// the module's settings (already checked against the table's grammars).
RouterConfig router_config(const prov::Settings& s);
gpu::EngineConfig engine_config(const prov::Settings& s);

}  // namespace mldsa::route
