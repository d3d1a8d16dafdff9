// sign.cu - the signing kernels: key expansion, rho'' with the schedule's
// reset, and the rejection loop run by units under kernels/thread/sign_scheduler.h's
// schedule, one thread per unit (kernels/thread/chunk.h).
#include <algorithm>

#include "kernels/global/launch.h"
#include "kernels/thread/chunk.h"

namespace mldsa::gpu {

cudaError_t cuda_keygen_local_bytes(size_t* bytes);  // keygen.cu
cudaError_t cuda_verify_local_bytes(size_t* bytes);  // verify.cu

namespace {

constexpr unsigned kThreads = 128;

__global__ void __launch_bounds__(kThreads) expand_keys_kernel(TaskParams p, SignChunk c) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < c.nkeys) sign_expand_thread(p, c, i);
}

__global__ void __launch_bounds__(kThreads) prepare_tasks_kernel(TaskParams p, SignChunk c, SignSchedule s) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.n) sign_prepare_thread(p, c, s, i);
}

__global__ void __launch_bounds__(kThreads) sign_kernel(TaskParams p, SignChunk c, SignSchedule s, uint32_t units) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= units) return;
  SignScratch scratch;
  SignUnit u;
  for (;;) {
    const SchedStep step = sign_unit_step(p, c, s, u, scratch);
    if (step == SchedStep::stop) break;
    // Nothing picked (the tail: units cycling over finished tasks). Back off
    // briefly so spinning units leave issue slots and the atomic units to the
    // ones still signing.
    if (step == SchedStep::retry) __nanosleep(200);
  }
  sign_wipe(scratch);  // local memory outlives the thread
}

uint32_t blocks(uint32_t n) { return (n + kThreads - 1) / kThreads; }

}  // namespace

cudaError_t cuda_launch_sign_expand(const TaskParams& p, const SignChunk& c, cudaStream_t stream) {
  if (c.nkeys == 0) return cudaSuccess;
  expand_keys_kernel<<<blocks(c.nkeys), kThreads, 0, stream>>>(p, c);
  return cudaGetLastError();
}

cudaError_t cuda_launch_sign_prepare(const TaskParams& p, const SignChunk& c, const SignSchedule& s,
                                     cudaStream_t stream) {
  if (s.n == 0) return cudaSuccess;
  prepare_tasks_kernel<<<blocks(s.n), kThreads, 0, stream>>>(p, c, s);
  return cudaGetLastError();
}

cudaError_t cuda_launch_sign_loop(const TaskParams& p, const SignChunk& c, const SignSchedule& s, uint32_t units,
                                  cudaStream_t stream) {
  if (s.n == 0 || units == 0) return cudaSuccess;
  sign_kernel<<<blocks(units), kThreads, 0, stream>>>(p, c, s, units);
  return cudaGetLastError();
}

cudaError_t cuda_sign_loop_threads_per_sm(int* threads) {
  int blocks_per_sm = 0;
  const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, sign_kernel, kThreads, 0);
  if (e == cudaSuccess) *threads = blocks_per_sm * static_cast<int>(kThreads);
  return e;
}

cudaError_t cuda_kernels_local_bytes(size_t* bytes) {
  size_t most = 0;
  for (const void* k : {reinterpret_cast<const void*>(expand_keys_kernel),
                        reinterpret_cast<const void*>(prepare_tasks_kernel), reinterpret_cast<const void*>(sign_kernel)}) {
    cudaFuncAttributes a{};
    if (const cudaError_t e = cudaFuncGetAttributes(&a, k); e != cudaSuccess) return e;
    most = std::max(most, a.localSizeBytes);
  }
  size_t kg = 0, vf = 0, ckg = 0, cvf = 0, csg = 0;
  if (const cudaError_t e = cuda_keygen_local_bytes(&kg); e != cudaSuccess) return e;
  if (const cudaError_t e = cuda_verify_local_bytes(&vf); e != cudaSuccess) return e;
  if (const cudaError_t e = cuda_coop_keygen_local_bytes(&ckg); e != cudaSuccess) return e;
  if (const cudaError_t e = cuda_coop_verify_local_bytes(&cvf); e != cudaSuccess) return e;
  if (const cudaError_t e = cuda_coop_sign_local_bytes(&csg); e != cudaSuccess) return e;
  *bytes = std::max({most, kg, vf, ckg, cvf, csg});
  return cudaSuccess;
}

}  // namespace mldsa::gpu
