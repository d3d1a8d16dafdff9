// engine.h - the GPU batch engine (target mldsa_gpu): batched ML-DSA KeyGen,
// Verify and Sign on a platform's devices (kernels/device.h: CUDA, or the
// simulated device), returning exactly what the core (cpu/) returns.
//
// Plain C++: includes no CUDA header, so the provider, tests and benchmarks
// compile it with the host compiler. No OpenSSL.
//
// Inside: one host thread per logical device, which makes every call to its
// device (none runs on the caller's thread); per logical device a few streams,
// each with pinned staging and device buffers allocated when the engine is
// made, sized for a chunk of the largest parameter set, so no batch grows or
// frees them. A batch is split in equal contiguous shares among the live
// devices; a share is cut in chunks that rotate over the device's streams, so
// copies in, kernels and copies out of different chunks overlap. Kernels are
// thread-per-task (kernels/task/) or, by config.kernels, one block per task
// (kernels/coop/). Signing schedules the rejection
// loop dynamically (kernels/sign_scheduler.h) and keeps expanded private keys
// in device memory across batches (LRU, zeroed on eviction) when a chunk has
// few distinct keys. A chunk that does not finish within the timeout marks
// its device lost: it is not used again (its memory is left, not freed, as
// freeing would wait for the hung work).
// Public keys are cached the same way (A^, NTT(t1 * 2^d) and tr), so a chunk
// with few distinct keys skips ExpandA.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cpu/mldsa.h"
#include "kernels/device.h"
#include "kernels/batch_items.h"

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
  // (kernels/device.h's KernelSet). thread stays the default until the
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

class Engine {
 public:
  // An engine on platform's devices (config.devices or gpus/split), or
  // nullptr with *why set: no device, a device that could not be opened,
  // buffers that could not be allocated, a failed self-test.
  static std::unique_ptr<Engine> create(std::shared_ptr<Platform> platform, const EngineConfig& config,
                                        std::string* why);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // ML-DSA.KeyGen_internal for n items, each key written where its item
  // says. Device and staging memory that held seeds or secret keys is zeroed
  // after use.
  EngineStatus keygen(const Params& p, const KeygenItem* items, size_t n);
  // The same for n seeds back to back (32 bytes each): pks gets n *
  // p.pk_bytes, sks n * p.sk_bytes.
  EngineStatus keygen(const Params& p, const uint8_t* seeds, size_t n, uint8_t* pks, uint8_t* sks);

  // results[i] = what mldsa::verify_mu (or verify, for msg/ctx items) says of
  // items[i]: ok, verify_failed, sig_malformed_hint, bad_sig_length,
  // context_too_long, bad_pk_length (no pk).
  EngineStatus verify(const Params& p, const VerifyItem* items, size_t n, Status* results);

  // ML-DSA signatures from mu (see SignItem in kernels/batch_items.h), each
  // written to its item's sig, or, with sigs set, to sigs + i * p.sig_bytes;
  // byte-equal to the core's sign_mu for the same sk, mu and rnd. results[i]
  // ok, or sign_attempts_exhausted when no attempt below the loop limit was
  // accepted (the signature is then undefined). Memory that held
  // keys, rnd or rho'' is zeroed after use. A chunk with few distinct keys
  // takes them from the device's expanded-key cache (key_cache_slots per
  // parameter set, LRU, zeroed on eviction and when the engine ends); a chunk
  // with more expands its keys once for the chunk.
  EngineStatus sign(const Params& p, const SignItem* items, size_t n, uint8_t* sigs, Status* results,
                    SignScheduling mode = SignScheduling::dynamic);

  // "NVIDIA H200 (sm_90, 132 SMs)"; several devices: "2 x ..." or a list.
  const std::string& device_description() const;
  size_t logical_devices() const;
  // Items each logical device was given so far (sign, verify and keygen),
  // by logical device index.
  std::vector<uint64_t> items_by_device() const;
  size_t live_devices() const;  // not lost
  // Tasks the live devices run at once (the occupancy query's signing units,
  // once per physical device): the batch size that fills them.
  size_t resident_tasks() const;

  struct Impl;

 private:
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mldsa::gpu
