// engine.h - the GPU batch engine (target mldsa_gpu): batched ML-DSA KeyGen,
// Verify and Sign on a platform's devices (kernels/device/device.h: CUDA, or the
// simulated device), returning exactly what the core (cpu/) returns.
//
// Plain C++: includes no CUDA header, so the provider, tests and benchmarks
// compile it with the host compiler. No OpenSSL.
//
// Inside: one host thread per logical device, which makes every call to its
// device (none runs on the caller's thread); per logical device a few streams,
// each with pinned staging and device buffers that start small and double
// with the batches seen, up to the config's limits (engine_config.h). A batch is split in equal contiguous shares among the live
// devices; a share is cut in chunks that rotate over the device's streams, so
// copies in, kernels and copies out of different chunks overlap. Kernels are
// thread-per-task (kernels/thread/) or, by config.kernels, one block per task
// (kernels/block/). Signing schedules the rejection
// loop dynamically (kernels/thread/sign_scheduler.h) and keeps expanded private keys
// in device memory across batches (LRU, zeroed on eviction) when a chunk has
// few distinct keys. A chunk that does not finish within the timeout marks
// its device lost: it is not used again (its memory is left, not freed, as
// freeing would wait for the hung work).
// Public keys are cached the same way (A^, NTT(t1 * 2^d) and tr), so a chunk
// with few distinct keys skips ExpandA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cpu/mldsa.h"
#include "kernels/device/device.h"
#include "kernels/host/batch_items.h"
#include "kernels/host/engine_config.h"

namespace mldsa::gpu {

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
  // p.pk_bytes, sks n * p.sk_bytes (sks null: the public keys alone, see
  // KeygenItem).
  EngineStatus keygen(const Params& p, const uint8_t* seeds, size_t n, uint8_t* pks, uint8_t* sks);

  // results[i] = what mldsa::verify_mu (or verify, for msg/ctx items) says of
  // items[i]: ok, verify_failed, sig_malformed_hint, bad_sig_length,
  // context_too_long, bad_pk_length (no pk).
  EngineStatus verify(const Params& p, const VerifyItem* items, size_t n, Status* results);

  // ML-DSA signatures from mu (see SignItem in kernels/host/batch_items.h), each
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
