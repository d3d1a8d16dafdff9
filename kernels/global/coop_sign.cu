// coop_sign.cu - the cooperative signing kernels: key expansion (a block
// per key) and the rejection loop (a block per signing unit) under
// kernels/thread/sign_scheduler.h's schedule (kernels/block/chunk.h). rho'' and the
// schedule's reset are sign.cu's prepare kernel, the same for both sets.
#include <algorithm>

#include "kernels/block/chunk.h"
#include "kernels/global/launch.h"

namespace mldsa::gpu {
namespace {

// Blocks per SM the registers must allow (sm_90: 64 Ki registers), from
// ptxas (bench/RESULTS.md). Expansion (once per key, cached): 88 registers,
// 5 blocks (6 would cap it at 80 and spill 28 bytes per thread). The loop:
// 128 registers (the attempt alone is 80; the unit's schedule, the encoder
// and loop-invariant offsets around it make 128), 4 blocks of 128 threads,
// 16 warps per SM; 5 would cap it at 102 and spill ~130 bytes per thread.
// Shared memory (~20-30 KiB a block) allows 7-11.
constexpr unsigned kExpandMinBlocks = 5, kLoopMinBlocks = 4;

__global__ void __launch_bounds__(coop::kBlockThreads, kExpandMinBlocks) coop_expand_kernel(TaskParams p, SignChunk c) {
  coop::expand_block(p, c, blockIdx.x);
}

__global__ void __launch_bounds__(coop::kBlockThreads, kLoopMinBlocks)
    coop_sign_kernel(TaskParams p, SignChunk c, SignSchedule s) {
  coop::sign_loop_block(p, c, s);
}

// The largest shared memory of the loop kernel (ML-DSA-87's): what the
// occupancy query is asked for, so the unit count holds for every set.
uint32_t loop_shared_bytes() {
  uint32_t most = 0;
  for (ParamSet set : {ParamSet::ML_DSA_44, ParamSet::ML_DSA_65, ParamSet::ML_DSA_87})
    most = std::max(most, coop::sign_shared_bytes(task_params(params(set))));
  return most;
}

}  // namespace

cudaError_t cuda_launch_coop_sign_expand(const TaskParams& p, const SignChunk& c, cudaStream_t stream) {
  if (c.nkeys == 0) return cudaSuccess;
  coop_expand_kernel<<<c.nkeys, coop::kBlockThreads, coop::expand_shared_bytes(p), stream>>>(p, c);
  return cudaGetLastError();
}

cudaError_t cuda_launch_coop_sign_loop(const TaskParams& p, const SignChunk& c, const SignSchedule& s, uint32_t units,
                                       cudaStream_t stream) {
  if (s.n == 0 || units == 0) return cudaSuccess;
  coop_sign_kernel<<<units, coop::kBlockThreads, coop::sign_shared_bytes(p), stream>>>(p, c, s);
  return cudaGetLastError();
}

cudaError_t cuda_coop_sign_loop_blocks_per_sm(int* blocks) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, coop_sign_kernel, coop::kBlockThreads,
                                                       loop_shared_bytes());
}

cudaError_t cuda_coop_sign_local_bytes(size_t* bytes) {
  size_t most = 0;
  for (const void* k : {reinterpret_cast<const void*>(coop_expand_kernel), reinterpret_cast<const void*>(coop_sign_kernel)}) {
    cudaFuncAttributes a{};
    if (const cudaError_t e = cudaFuncGetAttributes(&a, k); e != cudaSuccess) return e;
    most = std::max(most, a.localSizeBytes);
  }
  *bytes = most;
  return cudaSuccess;
}

}  // namespace mldsa::gpu
