// launch.h - the kernel launchers (keygen.cu, verify.cu) as the host engine
// sees them. Internal to kernels/.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/task/params.h"

namespace mldsa::gpu {

// Device pointers of one verify chunk of n tasks.
struct VerifyChunk {
  const uint8_t* pks;       // n * pk_bytes
  const uint8_t* sigs;      // n * sig_bytes
  const uint8_t* mus;       // n * 64, for mode kVerifyMu
  const uint8_t* modes;     // n
  const uint32_t* offsets;  // n + 1: M' of task i is arena[offsets[i], offsets[i+1])
  const uint8_t* arena;
  uint8_t* ok;              // n
};
inline constexpr uint8_t kVerifyMu = 0, kVerifyMessage = 1, kVerifyReject = 2;

// Enqueue one kernel on stream; returns the launch error, if any.
cudaError_t launch_keygen(const TaskParams& p, const uint8_t* seeds, uint8_t* pks, uint8_t* sks, uint32_t n,
                          cudaStream_t stream);
cudaError_t launch_verify(const TaskParams& p, const VerifyChunk& chunk, uint32_t n, cudaStream_t stream);

}  // namespace mldsa::gpu
