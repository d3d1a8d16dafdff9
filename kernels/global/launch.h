// launch.h - the CUDA kernels (keygen.cu, verify.cu, sign.cu, coop_*.cu) as
// cuda_device.cc sees them: each enqueues one kernel on a stream and returns
// that launch's own error. Internal to kernels/global/.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/thread/sign_scheduler.h"
#include "kernels/thread/params.h"

namespace mldsa::gpu {

struct KeygenChunk;
struct VerifyChunk;
struct VerifyExpandChunk;
struct SignChunk;

cudaError_t cuda_launch_keygen(const TaskParams& p, const KeygenChunk& c, uint32_t n, cudaStream_t stream);
cudaError_t cuda_launch_verify(const TaskParams& p, const VerifyChunk& c, uint32_t n, cudaStream_t stream);
cudaError_t cuda_launch_verify_expand(const TaskParams& p, const VerifyExpandChunk& c, cudaStream_t stream);
cudaError_t cuda_launch_sign_expand(const TaskParams& p, const SignChunk& c, cudaStream_t stream);
cudaError_t cuda_launch_sign_prepare(const TaskParams& p, const SignChunk& c, const SignSchedule& s,
                                     cudaStream_t stream);
cudaError_t cuda_launch_sign_loop(const TaskParams& p, const SignChunk& c, const SignSchedule& s, uint32_t units,
                                  cudaStream_t stream);

// The cooperative kernels (coop_*.cu, kernels/block/chunk.h): a block per
// task; the loop's units are blocks. sign_prepare is the thread kernel's.
cudaError_t cuda_launch_coop_keygen(const TaskParams& p, const KeygenChunk& c, uint32_t n, cudaStream_t stream);
cudaError_t cuda_launch_coop_verify(const TaskParams& p, const VerifyChunk& c, uint32_t n, cudaStream_t stream);
cudaError_t cuda_launch_coop_sign_expand(const TaskParams& p, const SignChunk& c, cudaStream_t stream);
cudaError_t cuda_launch_coop_sign_loop(const TaskParams& p, const SignChunk& c, const SignSchedule& s, uint32_t units,
                                       cudaStream_t stream);

// The signing loop kernel's resident threads per multiprocessor (occupancy
// query), on the calling thread's current device; the cooperative loop's
// resident blocks.
cudaError_t cuda_sign_loop_threads_per_sm(int* threads);
cudaError_t cuda_coop_sign_loop_blocks_per_sm(int* blocks);
// The largest local memory (stack) any of our kernels needs per thread.
cudaError_t cuda_kernels_local_bytes(size_t* bytes);
cudaError_t cuda_coop_keygen_local_bytes(size_t* bytes);
cudaError_t cuda_coop_verify_local_bytes(size_t* bytes);
cudaError_t cuda_coop_sign_local_bytes(size_t* bytes);

}  // namespace mldsa::gpu
