// verify.cu - the Verify kernel: one thread per signature (kernels/task/verify.h).
#include "kernels/launch.h"
#include "kernels/task/verify.h"

namespace mldsa::gpu {
namespace {

constexpr unsigned kThreads = 128;

__global__ void __launch_bounds__(kThreads) verify_kernel(TaskParams p, VerifyChunk c, uint32_t n) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint8_t mode = c.modes[i];
  if (mode == kVerifyReject) {
    c.ok[i] = 0;
    return;
  }
  const uint8_t* pk = c.pks + size_t{i} * p.pk_bytes;
  uint8_t mu[64];
  if (mode == kVerifyMessage) {
    message_mu_task(p, pk, c.arena + c.offsets[i], c.offsets[i + 1] - c.offsets[i], mu);
  } else {
    for (int b = 0; b < 64; ++b) mu[b] = c.mus[size_t{i} * 64 + b];
  }
  c.ok[i] = verify_task(p, pk, mu, c.sigs + size_t{i} * p.sig_bytes) ? 1 : 0;
}

}  // namespace

cudaError_t launch_verify(const TaskParams& p, const VerifyChunk& chunk, uint32_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  verify_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, stream>>>(p, chunk, n);
  return cudaGetLastError();
}

}  // namespace mldsa::gpu
