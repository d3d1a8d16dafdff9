// engine_config.h - what an engine is made with (EngineConfig) and what its
// calls return (EngineStatus): shared by the engine (engine.h) and its
// per-device workers (device_worker.h), so neither includes the other.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "kernels/device/device.h"

namespace mldsa::gpu {

enum class EngineError {
  none = 0,
  bad_argument,  // null pointers for a non-empty batch, an item without sk or mu
  device,        // a device call or kernel failed; see message. The engine stays usable
  device_lost,   // a device hung or failed for good; it is not used again
};

// The outcome of an engine call. On failure nothing in the outputs is to be
// trusted, so the caller can fall back to the CPU.
struct EngineStatus {
  EngineError error = EngineError::none;
  std::string message;  // "sim device 0: injected fault: launch_verify call 3", ...
  bool ok() const { return error == EngineError::none; }
};

struct EngineConfig {
  unsigned streams = 4;        // chunks in flight at once, per logical device
  size_t chunk_items = 8192;   // the most tasks per kernel launch
  // Each logical device's buffers start sized for chunks of this many tasks
  // and double as bigger batches come, up to chunk_items: an engine that
  // only sees small batches keeps a small footprint, so processes can share
  // a device.
  size_t first_chunk_items = 64;
  // gpu_memory_mb: 0, or the most bytes one logical device's chunk buffers
  // (all streams; the key caches are apart) may take: chunks are capped to fit.
  size_t buffer_bytes_limit = 0;
  // Logical devices: ordinals of the platform, repeats allowed (several
  // logical devices on one GPU, each with its own streams and buffers). Empty:
  // gpus / split below, as parse_device_list reads them.
  std::vector<int> devices;
  std::string gpus;            // gpu_devices: "0,2"; empty: every device
  std::string split;           // gpu_split: each listed device k times
  std::chrono::milliseconds timeout{20000};  // gpu_timeout_ms: a chunk's limit
  uint32_t sign_attempt_limit = kSignAttemptLimit;  // FIPS 204's 814; tests lower it
  bool sign_key_cache = true;    // gpu_sign_key_cache: the expanded private-key cache
  bool verify_key_cache = true;  // gpu_verify_key_cache: the expanded public-key cache
  // Keys each cache holds per parameter set (4..65536); a chunk with at most a
  // quarter of that many distinct keys goes through the cache.
  uint32_t key_cache_slots = 256;
  // gpu_kernels = thread|coop: the kernels every launch runs
  // (kernels/device/device.h's KernelSet). thread stays the default until the
  // cooperative kernels are measured faster on a GPU. The public-key cache
  // serves the thread kernels only (coop's verify expands its key in the block).
  KernelSet kernels = KernelSet::thread;
  // On creation each logical device signs, verifies and makes a key and the
  // engine compares the results with the core's: a device that computes
  // wrong answers is refused before it is given work.
  bool self_test = true;
  // Host threads that help stage big chunks (copy requests into pinned memory
  // and results out), shared by the devices; -1: a quarter of the CPU's
  // threads, at most 8. gpu_staging_threads.
  int staging_threads = -1;
  // Test hook: how the engine starts its host threads (default: std::thread).
  std::function<std::thread(std::function<void()>)> start_thread;
};

}  // namespace mldsa::gpu
