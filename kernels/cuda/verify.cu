// verify.cu - the Verify kernel: one thread per signature (kernels/task/chunk.h).
#include "kernels/cuda/launch.h"
#include "kernels/task/chunk.h"

namespace mldsa::gpu {
namespace {

constexpr unsigned kThreads = 128;

__global__ void __launch_bounds__(kThreads) verify_kernel(TaskParams p, VerifyChunk c, uint32_t n) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) verify_thread(p, c, i);
}

}  // namespace

cudaError_t cuda_launch_verify(const TaskParams& p, const VerifyChunk& c, uint32_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  verify_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, stream>>>(p, c, n);
  return cudaGetLastError();
}

cudaError_t cuda_verify_local_bytes(size_t* bytes) {
  cudaFuncAttributes a{};
  const cudaError_t e = cudaFuncGetAttributes(&a, verify_kernel);
  if (e == cudaSuccess) *bytes = a.localSizeBytes;
  return e;
}

}  // namespace mldsa::gpu
