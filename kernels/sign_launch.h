// sign_launch.h - the signing kernels (sign_scheduler.cu) as the host sees
// them. Internal to kernels/.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/sign_scheduler.h"
#include "kernels/task/params.h"

namespace mldsa::gpu {

// Device pointers of one signing chunk of n tasks over nkeys distinct keys.
struct SignChunk {
  const uint8_t* sks;         // nkeys * sk_bytes (secret): the keys to expand
  const uint32_t* key_index;  // n: the expanded key task i uses (a slot of xkeys)
  const uint8_t* mus;         // n * 64
  const uint8_t* rnds;        // n * 32 (secret when hedged)
  int32_t* xkeys;             // expanded keys, sign_key_words each (secret): per chunk or the key cache
  uint8_t* rhopps;            // n * 64 (secret scratch)
  uint8_t* sigs;              // n * sig_bytes
  uint32_t nkeys;
  const uint32_t* expand_slot;  // nkeys: the xkeys slot key i expands into; nullptr: slot i
};

// The schedule's device words for n tasks: 3 counters, then next_attempt,
// best and lock (n each).
inline uint32_t sign_schedule_words(uint32_t n) { return 3 + 3 * n; }
SignSchedule sign_schedule_at(uint32_t* words, uint32_t n, bool speculate);

// How many units (threads) the dynamic schedule runs: as many as the device
// holds resident at once, at most n (more would speculate from the start; the
// units freed by finished tasks speculate on the tail anyway).
uint32_t sign_dynamic_units(uint32_t n);

// Enqueues key expansion, rho'' (and the schedule's reset) and the signing
// kernel for a chunk. dynamic: a fixed set of units with speculation;
// otherwise the plain per-batch loop (one thread per task, each loops over
// its own kappa).
cudaError_t launch_sign(const TaskParams& p, const SignChunk& chunk, uint32_t* schedule_words, uint32_t n,
                        bool dynamic, cudaStream_t stream);

}  // namespace mldsa::gpu
