// coop_keygen.cu - the cooperative KeyGen kernel: one block of 128 threads
// per seed (kernels/block/chunk.h).
#include "kernels/block/chunk.h"
#include "kernels/global/launch.h"

namespace mldsa::gpu {
namespace {

// Blocks per SM the registers must allow (sm_90: 64 Ki registers). ptxas
// (bench/RESULTS.md) puts this kernel at 126 registers, set by the
// one-state-per-lane sponge of ExpandS/ExpandA: 4 blocks of 128 threads
// fill the register file (16 warps per SM); asking for 5 would cap it at 102
// registers (ptxas took 96) and spill ~170 bytes per thread. Shared memory (~40-45 KiB a
// block) would allow 5.
constexpr unsigned kMinBlocks = 4;

__global__ void __launch_bounds__(coop::kBlockThreads, kMinBlocks) coop_keygen_kernel(TaskParams p, KeygenChunk c) {
  coop::keygen_block(p, c, blockIdx.x);
}

}  // namespace

cudaError_t cuda_launch_coop_keygen(const TaskParams& p, const KeygenChunk& c, uint32_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  coop_keygen_kernel<<<n, coop::kBlockThreads, coop::keygen_shared_bytes(p), stream>>>(p, c);
  return cudaGetLastError();
}

cudaError_t cuda_coop_keygen_local_bytes(size_t* bytes) {
  cudaFuncAttributes a{};
  const cudaError_t e = cudaFuncGetAttributes(&a, coop_keygen_kernel);
  if (e == cudaSuccess) *bytes = a.localSizeBytes;
  return e;
}

}  // namespace mldsa::gpu
