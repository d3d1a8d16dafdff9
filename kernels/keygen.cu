// keygen.cu - the KeyGen kernel: one thread per seed (kernels/task/keygen.h).
#include "kernels/launch.h"
#include "kernels/task/keygen.h"

namespace mldsa::gpu {
namespace {

constexpr unsigned kThreads = 128;

__global__ void __launch_bounds__(kThreads) keygen_kernel(TaskParams p, const uint8_t* seeds, uint8_t* pks,
                                                           uint8_t* sks, uint32_t n) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  keygen_task(p, seeds + size_t{i} * 32, pks + size_t{i} * p.pk_bytes, sks + size_t{i} * p.sk_bytes);
}

}  // namespace

cudaError_t launch_keygen(const TaskParams& p, const uint8_t* seeds, uint8_t* pks, uint8_t* sks, uint32_t n,
                          cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  keygen_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, stream>>>(p, seeds, pks, sks, n);
  return cudaGetLastError();
}

}  // namespace mldsa::gpu
