// simt.h - the SIMT layer: what kernel code may use of a GPU's execution model,
// with two implementations of the same API, so one kernel source runs on a
// GPU and, thread by thread, on the CPU.
//
//   CUDA (simt_cuda.h, under nvcc's device pass): threadIdx/blockIdx, the
//     *_sync warp intrinsics, __syncthreads, dynamic shared memory.
//   Host (simt_host.h, every other compiler): each GPU thread of a block is a
//     fiber (kernels/simt/fiber.h) that runs until it reaches a barrier, a
//     warp collective or a back-off, so blocks run as a GPU may run them. The
//     host implementation is stricter than a GPU: a collective or barrier
//     that not every thread reaches, lanes meeting in different collectives,
//     a shared-memory access out of bounds, a read of shared memory never
//     written, and every shared-memory data race (two threads, at least one
//     writing, with no barrier or warp sync between them) fail the launch
//     with a message naming the threads. It can also count shared-memory
//     bank conflicts per warp access (BankStats).
//
// The API, all of it warp-uniform ("full mask": every lane of the warp
// takes part in a collective, every thread of the block in sync_block):
//   thread_index, block_index, block_size, grid_size, lane, warp_index, warps
//   sync_block (__syncthreads), sync_warp (__syncwarp)
//   shfl, shfl_xor (32- and 64-bit), ballot, any, all, popc, lanemask_lt
//   fence (__threadfence: device-wide order of this thread's global writes)
//   backoff (a spinning thread gives way: __nanosleep; on the host, the
//     other fibers run)
//   Shared<T>: a view of the block's dynamic shared memory, shared_at<T>(byte offset)
//
// Kernel code is marked MLDSA_DEV (device code under nvcc, plain functions
// on the host) and may call the thread-level MLDSA_HD code of kernels/thread/.
// Blocks are one-dimensional and a multiple of 32 threads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/thread/params.h"

#if defined(__CUDACC__)
#define MLDSA_DEV __device__
#else
#define MLDSA_DEV
#endif

namespace mldsa::gpu::simt {
inline constexpr unsigned kWarpSize = 32;
}  // namespace mldsa::gpu::simt

#if defined(__CUDACC__)
#include "kernels/simt/simt_cuda.h"
#else
#include "kernels/simt/simt_host.h"
#endif
