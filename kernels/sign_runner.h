// sign_runner.h - the host side of batch signing on one or several GPUs:
// staging, streams, chunking, the split of a batch among devices. Engine::sign
// (kernels/engine.h) is the public entry; this is internal to kernels/.
// Plain C++ (no CUDA header).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cpu/mldsa.h"
#include "kernels/engine.h"
#include "kernels/sign_item.h"

namespace mldsa::gpu {

// The CUDA devices batch signing uses: MLDSA_ACCEL_GPUS ("0,2": those
// ordinals, in that order) or every visible device. MLDSA_ACCEL_GPU_SPLIT=k
// (a test knob) lists each of them k times: k logical devices on one GPU, each
// with its own streams and buffers, so the multi-device path runs on a
// machine with one GPU. Empty with *why set when none is usable.
std::vector<int> sign_devices(std::string* why);

class SignRunner {
 public:
  // One logical device per entry of devices (ordinals may repeat).
  static EngineStatus create(const std::vector<int>& devices, const EngineConfig& config,
                             std::unique_ptr<SignRunner>& out);
  ~SignRunner();
  SignRunner(const SignRunner&) = delete;
  SignRunner& operator=(const SignRunner&) = delete;

  // sigs gets n * p.sig_bytes. The batch is split in equal contiguous shares,
  // one per logical device, each signed on its own host thread. Device and
  // staging memory that held keys, rnd or rho'' is zeroed after use.
  EngineStatus sign(const Params& p, const SignItem* items, size_t n, uint8_t* sigs, SignScheduling mode);

  size_t logical_devices() const;

  struct Device;

 private:
  SignRunner() = default;
  std::vector<std::unique_ptr<Device>> devices_;
};

}  // namespace mldsa::gpu
