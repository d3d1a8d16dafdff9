// coop_verify.cu - the cooperative Verify kernel: one block of 128 threads
// per signature (kernels/block/chunk.h).
#include "kernels/block/chunk.h"
#include "kernels/global/launch.h"

namespace mldsa::gpu {
namespace {

// Blocks per SM the registers must allow (sm_90: 64 Ki registers). ptxas puts
// this kernel at 160 registers with the one-state-per-lane ExpandA sponge
// (80 without it): 3 blocks of 128 threads (12 warps per SM). Left to itself
// ptxas takes 168 and spills; 4 blocks would cap it at 128 registers and
// spill ~140 bytes per thread. Shared memory (~45 KiB a block) allows 4-5.
constexpr unsigned kMinBlocks = 3;

__global__ void __launch_bounds__(coop::kBlockThreads, kMinBlocks) coop_verify_kernel(TaskParams p, VerifyChunk c) {
  coop::verify_block(p, c, blockIdx.x);
}

}  // namespace

cudaError_t cuda_launch_coop_verify(const TaskParams& p, const VerifyChunk& c, uint32_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  coop_verify_kernel<<<n, coop::kBlockThreads, coop::verify_shared_bytes(p), stream>>>(p, c);
  return cudaGetLastError();
}

cudaError_t cuda_coop_verify_local_bytes(size_t* bytes) {
  cudaFuncAttributes a{};
  const cudaError_t e = cudaFuncGetAttributes(&a, coop_verify_kernel);
  if (e == cudaSuccess) *bytes = a.localSizeBytes;
  return e;
}

}  // namespace mldsa::gpu
