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
// Not yet here: the public-key cache (A^ and tr of recently seen public keys).
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
#include "kernels/sign_item.h"

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

// One verification. Either mu (64 bytes, external mu / Algorithm 7 line 6
// done by the caller), or the pure ML-DSA inputs msg and ctx (FIPS 204
// Algorithm 3: M' = 0 || len(ctx) || ctx || msg; tr = H(pk) and mu are
// computed on the device, or on the host for a message too long to stage).
struct VerifyItem {
  const uint8_t* pk = nullptr;  // params.pk_bytes
  const uint8_t* sig = nullptr;
  size_t sig_len = 0;
  const uint8_t* mu = nullptr;  // when set, msg and ctx are ignored
  const uint8_t* msg = nullptr;
  size_t msg_len = 0;
  const uint8_t* ctx = nullptr;
  size_t ctx_len = 0;
};

struct EngineConfig {
  unsigned streams = 4;        // chunks in flight at once, per logical device
  size_t chunk_items = 8192;   // tasks per kernel launch; sizes the buffers
  // Logical devices: ordinals of the platform, repeats allowed (several
  // logical devices on one GPU, each with its own streams and buffers). Empty:
  // gpus / split below, as parse_device_list reads them.
  std::vector<int> devices;
  std::string gpus;            // MLDSA_ACCEL_GPUS: "0,2"; empty: every device
  std::string split;           // MLDSA_ACCEL_GPU_SPLIT: each listed device k times
  std::chrono::milliseconds timeout{20000};  // MLDSA_ACCEL_GPU_TIMEOUT_MS: a chunk's limit
  uint32_t sign_attempt_limit = kSignAttemptLimit;  // FIPS 204's 814; tests lower it
  bool sign_key_cache = true;  // MLDSA_ACCEL_SIGN_KEY_CACHE=0 turns the expanded-key cache off
  // MLDSA_ACCEL_GPU_KERNELS=thread|coop: the kernels every launch runs
  // (kernels/device.h's KernelSet). thread stays the default until the
  // cooperative kernels are measured faster on a GPU.
  KernelSet kernels = KernelSet::thread;
  // On creation each logical device signs, verifies and makes a key and the
  // engine compares the results with the core's: a device that computes
  // wrong answers is refused before it is given work.
  bool self_test = true;
  // Test hook: how the engine starts its host threads (default: std::thread).
  std::function<std::thread(std::function<void()>)> start_thread;
};

// The MLDSA_ACCEL_GPUS, MLDSA_ACCEL_GPU_SPLIT, MLDSA_ACCEL_GPU_TIMEOUT_MS,
// MLDSA_ACCEL_SIGN_KEY_CACHE and MLDSA_ACCEL_GPU_KERNELS settings over cfg;
// false with *why on bad text.
bool engine_config_from_environment(EngineConfig& cfg, std::string* why);

class Engine {
 public:
  // An engine on platform's devices (config.devices or gpus/split), or
  // nullptr with *why set: no device, a device that could not be opened,
  // buffers that could not be allocated, a failed self-test.
  static std::unique_ptr<Engine> create(std::shared_ptr<Platform> platform, const EngineConfig& config,
                                        std::string* why);
  // On default_platform() (MLDSA_ACCEL_SIM_DEVICES or CUDA) with the
  // environment's settings over config.
  static std::unique_ptr<Engine> create(std::string* why, EngineConfig config = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // ML-DSA.KeyGen_internal for n seeds (32 bytes each, back to back): pks gets
  // n * p.pk_bytes, sks n * p.sk_bytes. Device and staging memory that held
  // seeds or secret keys is zeroed after use.
  EngineStatus keygen(const Params& p, const uint8_t* seeds, size_t n, uint8_t* pks, uint8_t* sks);

  // results[i] = what mldsa::verify_mu (or verify, for msg/ctx items) says of
  // items[i]: ok, verify_failed, sig_malformed_hint, bad_sig_length,
  // context_too_long, bad_pk_length (no pk).
  EngineStatus verify(const Params& p, const VerifyItem* items, size_t n, Status* results);

  // ML-DSA signatures from mu (see SignItem in kernels/sign_item.h): sigs gets
  // n * p.sig_bytes, byte-equal to the core's sign_mu for the same sk, mu and
  // rnd, and results[i] ok, or sign_attempts_exhausted when no attempt below
  // the loop limit was accepted (sigs[i] then undefined). Memory that held
  // keys, rnd or rho'' is zeroed after use. A chunk with at most 64 distinct
  // keys takes them from the device's expanded-key cache (256 keys per
  // parameter set, LRU, zeroed on eviction and when the engine ends); a chunk
  // with more expands its keys once for the chunk.
  EngineStatus sign(const Params& p, const SignItem* items, size_t n, uint8_t* sigs, Status* results,
                    SignScheduling mode = SignScheduling::dynamic);

  // "NVIDIA H200 (sm_90, 132 SMs)"; several devices: "2 x ..." or a list.
  const std::string& device_description() const;
  size_t logical_devices() const;
  size_t live_devices() const;  // not lost

  struct Impl;

 private:
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mldsa::gpu
