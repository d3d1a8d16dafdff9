// sign_scheduler.cu - the signing kernels: key expansion, rho'', and the
// rejection loop run by units under kernels/sign_scheduler.h's schedule, one
// thread per unit (kernels/task/sign.h).
#include "kernels/sign_launch.h"
#include "kernels/task/sign.h"

namespace mldsa::gpu {
namespace {

constexpr unsigned kThreads = 128;

__global__ void __launch_bounds__(kThreads) expand_keys_kernel(TaskParams p, SignChunk c) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= c.nkeys) return;
  const uint32_t slot = c.expand_slot ? c.expand_slot[i] : i;
  sign_expand_key(p, c.sks + size_t{i} * p.sk_bytes, c.xkeys + size_t{slot} * sign_key_words(p));
}

// rho'' per task, and the schedule's per-task words reset.
__global__ void __launch_bounds__(kThreads) prepare_tasks_kernel(TaskParams p, SignChunk c, SignSchedule s) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= s.n) return;
  sign_rhopp(c.xkeys + size_t{c.key_index[i]} * sign_key_words(p), c.rnds + size_t{i} * 32, c.mus + size_t{i} * 64,
             c.rhopps + size_t{i} * 64);
  s.next_attempt[i] = 0;
  s.best[i] = kNoAttempt;
  s.lock[i] = 0;
  if (i == 0) *s.next_task = *s.spec_cursor = *s.done = 0;
}

__global__ void __launch_bounds__(kThreads) sign_kernel(TaskParams p, SignChunk c, SignSchedule s) {
  SignScratch scratch;
  SignUnit u;
  for (;;) {
    const SchedStep step = sched_acquire(s, u);
    if (step == SchedStep::stop) break;
    if (step == SchedStep::retry) {
      // Nothing picked (the tail: units cycling over finished tasks). Back
      // off briefly so spinning units leave issue slots and the atomic units
      // to the ones still signing.
      __nanosleep(200);
      continue;
    }
    const uint32_t t = u.task;
    const int32_t* key = c.xkeys + size_t{c.key_index[t]} * sign_key_words(p);
    const bool accepted = sign_attempt(p, key, c.mus + size_t{t} * 64, c.rhopps + size_t{t} * 64, u.attempt, scratch);
    sched_complete(s, u, accepted, [&] { sign_encode(p, scratch, c.sigs + size_t{t} * p.sig_bytes); });
  }
  sign_wipe(scratch);  // local memory outlives the thread
}

}  // namespace

SignSchedule sign_schedule_at(uint32_t* words, uint32_t n, bool speculate) {
  SignSchedule s;
  s.n = n;
  s.speculate = speculate ? 1 : 0;
  s.next_task = words;
  s.spec_cursor = words + 1;
  s.done = words + 2;
  s.next_attempt = words + 3;
  s.best = words + 3 + n;
  s.lock = words + 3 + 2 * size_t{n};
  return s;
}

uint32_t sign_dynamic_units(uint32_t n) {
  int device = 0, sms = 0, blocks = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, sign_kernel, kThreads, 0) != cudaSuccess || blocks <= 0) {
    cudaGetLastError();
    return n;
  }
  const uint64_t resident = uint64_t{static_cast<uint32_t>(sms)} * static_cast<uint32_t>(blocks) * kThreads;
  return static_cast<uint32_t>(resident < n ? resident : n);
}

cudaError_t launch_sign(const TaskParams& p, const SignChunk& chunk, uint32_t* schedule_words, uint32_t n,
                        bool dynamic, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const SignSchedule s = sign_schedule_at(schedule_words, n, dynamic);
  if (chunk.nkeys > 0)  // all cached: nothing to expand
    expand_keys_kernel<<<(chunk.nkeys + kThreads - 1) / kThreads, kThreads, 0, stream>>>(p, chunk);
  prepare_tasks_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, stream>>>(p, chunk, s);
  const uint32_t units = dynamic ? sign_dynamic_units(n) : n;
  sign_kernel<<<(units + kThreads - 1) / kThreads, kThreads, 0, stream>>>(p, chunk, s);
  return cudaGetLastError();
}

}  // namespace mldsa::gpu
