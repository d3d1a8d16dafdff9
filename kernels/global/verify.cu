// verify.cu - the Verify kernel (one thread per signature) and the public-key
// expansion for the device's key cache (one thread per key); kernels/thread/chunk.h.
#include "kernels/global/launch.h"
#include "kernels/thread/chunk.h"

namespace mldsa::gpu {
namespace {

constexpr unsigned kThreads = 128;

__global__ void __launch_bounds__(kThreads) verify_kernel(TaskParams p, VerifyChunk c, uint32_t n) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) verify_thread(p, c, i);
}

__global__ void __launch_bounds__(kThreads) verify_expand_kernel(TaskParams p, VerifyExpandChunk c) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < c.nkeys) verify_expand_thread(p, c, k);
}

}  // namespace

cudaError_t cuda_launch_verify_expand(const TaskParams& p, const VerifyExpandChunk& c, cudaStream_t stream) {
  if (c.nkeys == 0) return cudaSuccess;
  verify_expand_kernel<<<(c.nkeys + kThreads - 1) / kThreads, kThreads, 0, stream>>>(p, c);
  return cudaGetLastError();
}

cudaError_t cuda_launch_verify(const TaskParams& p, const VerifyChunk& c, uint32_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  verify_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, stream>>>(p, c, n);
  return cudaGetLastError();
}

cudaError_t cuda_verify_local_bytes(size_t* bytes) {
  cudaFuncAttributes a{}, b{};
  cudaError_t e = cudaFuncGetAttributes(&a, verify_kernel);
  if (e == cudaSuccess) e = cudaFuncGetAttributes(&b, verify_expand_kernel);
  if (e == cudaSuccess) *bytes = a.localSizeBytes > b.localSizeBytes ? a.localSizeBytes : b.localSizeBytes;
  return e;
}

}  // namespace mldsa::gpu
