// engine.h - the GPU batch engine (target mldsa_cuda): batched ML-DSA KeyGen,
// Verify and Sign on CUDA devices, returning exactly what the core (cpu/)
// returns.
//
// Plain C++: includes no CUDA header, so the provider, tests and benchmarks
// compile it with the host compiler. No OpenSSL.
//
// Inside: a fixed pool of device buffers and pinned host staging buffers,
// allocated on first use and grown when a batch needs more, and a few CUDA
// streams. A batch is cut into chunks; while the GPU works on one chunk in one
// stream, the host stages the next into another, so copies in, kernels and
// copies out overlap. Kernels are thread-per-task for now (kernels/task/).
// Signing (Engine::sign) runs through kernels/sign_runner.h: its own streams
// and buffers per device, on every device MLDSA_ACCEL_GPUS lists, with the
// rejection loop scheduled dynamically (kernels/sign_scheduler.h).
// Expanded private keys are cached in device memory across batches (LRU,
// zeroed on eviction) when a chunk has few distinct keys.
// Not yet here: the public-key cache (A^ and tr of recently seen public keys).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cpu/mldsa.h"
#include "kernels/sign_item.h"

namespace mldsa::gpu {

enum class EngineError {
  none = 0,
  bad_argument,  // null pointers for a non-empty batch
  cuda,          // a CUDA call or kernel launch failed; see message
};

// The outcome of an engine call. On failure nothing in the outputs is to be
// trusted; the engine stays usable (unless the device itself is lost, which
// the next call reports again), so the caller can fall back to the CPU.
struct EngineStatus {
  EngineError error = EngineError::none;
  std::string message;  // "cudaMemcpyAsync: out of memory", ...
  bool ok() const { return error == EngineError::none; }
};

// One verification. Either mu (64 bytes, external mu / Algorithm 7 line 6
// done by the caller), or the pure ML-DSA inputs msg and ctx (FIPS 204
// Algorithm 3: M' = 0 || len(ctx) || ctx || msg; tr = H(pk) and mu are
// computed on the device). A wrong sig_len or a ctx over 255 bytes is a reject.
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
  unsigned streams = 4;       // chunks in flight at once
  size_t chunk_items = 32768; // tasks per kernel launch
};

class Engine {
 public:
  // An engine on CUDA device 0, or nullptr with *why set ("no CUDA device",
  // the driver's error) when there is none.
  static std::unique_ptr<Engine> create(std::string* why, const EngineConfig& config = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // ML-DSA.KeyGen_internal for n seeds (32 bytes each, back to back): pks gets
  // n * p.pk_bytes, sks n * p.sk_bytes. Device and staging memory that held
  // seeds or secret keys is zeroed after use.
  EngineStatus keygen(const Params& p, const uint8_t* seeds, size_t n, uint8_t* pks, uint8_t* sks);

  // ok[i] = 1 if items[i] verifies, else 0.
  EngineStatus verify(const Params& p, const VerifyItem* items, size_t n, uint8_t* ok);

  // ML-DSA signatures from mu (see SignItem in kernels/sign_item.h): sigs gets
  // n * p.sig_bytes, byte-equal to the core's sign_mu for the same sk, mu and
  // rnd. Runs on the devices sign_devices() lists (MLDSA_ACCEL_GPUS; the
  // batch is split among them), with its own streams and buffers, set up on
  // the first call. Memory that held keys, rnd or rho'' is zeroed after use.
  // A chunk with at most 64 distinct keys takes them from the device's
  // expanded-key cache (256 keys per parameter set, LRU, zeroed on eviction;
  // MLDSA_ACCEL_SIGN_KEY_CACHE=0 turns it off); a chunk with more expands its
  // keys once for the chunk.
  EngineStatus sign(const Params& p, const SignItem* items, size_t n, uint8_t* sigs,
                    SignScheduling mode = SignScheduling::dynamic);

  // "NVIDIA H200 (sm_90, 132 SMs)".
  const std::string& device_description() const;

  struct Impl;

 private:
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mldsa::gpu
