// keygen.cu - the KeyGen kernel: one thread per seed (kernels/thread/chunk.h).
#include "kernels/global/launch.h"
#include "kernels/thread/chunk.h"

namespace mldsa::gpu {
namespace {

constexpr unsigned kThreads = 128;

__global__ void __launch_bounds__(kThreads) keygen_kernel(TaskParams p, KeygenChunk c, uint32_t n) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) keygen_thread(p, c, i);
}

}  // namespace

cudaError_t cuda_launch_keygen(const TaskParams& p, const KeygenChunk& c, uint32_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  keygen_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, stream>>>(p, c, n);
  return cudaGetLastError();
}

cudaError_t cuda_keygen_local_bytes(size_t* bytes) {
  cudaFuncAttributes a{};
  const cudaError_t e = cudaFuncGetAttributes(&a, keygen_kernel);
  if (e == cudaSuccess) *bytes = a.localSizeBytes;
  return e;
}

}  // namespace mldsa::gpu
