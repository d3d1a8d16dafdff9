// chunk.h - what block i of each cooperative kernel does with a chunk as it
// lies in device memory (the chunk structs of kernels/thread/chunk.h), and the
// shared memory each needs. The CUDA kernels (kernels/global/coop_*.cu) are
// these functions behind blockIdx; the simulated device runs them on the
// host SIMT implementation (kernels/simt/). The signing kernels' rho'' and
// schedule reset stay thread-per-task (sign_prepare_thread): one SHAKE256
// of 128 bytes per task, for which one state per thread is the cheapest.
#pragma once

#include "kernels/block/keygen.h"
#include "kernels/block/sign.h"
#include "kernels/block/verify.h"
#include "kernels/thread/chunk.h"

namespace mldsa::gpu::coop {

MLDSA_HD inline uint32_t keygen_shared_bytes(const TaskParams& p) { return KeygenShared(p).bytes; }
MLDSA_HD inline uint32_t verify_shared_bytes(const TaskParams& p) { return VerifyShared(p).bytes; }
MLDSA_HD inline uint32_t expand_shared_bytes(const TaskParams& p) { return ExpandShared(p).bytes; }
MLDSA_HD inline uint32_t sign_shared_bytes(const TaskParams& p) { return SignShared(p).bytes; }

// Block i: seed i -> pk i, sk i.
MLDSA_DEV inline void keygen_block(const TaskParams& p, const KeygenChunk& c, uint32_t i) {
  block_keygen(p, c.seeds + size_t{i} * 32, c.pks + size_t{i} * p.pk_bytes, c.sks + size_t{i} * p.sk_bytes);
}

// Block i: signature i's verdict (as verify_thread).
MLDSA_DEV inline void verify_block(const TaskParams& p, const VerifyChunk& c, uint32_t i) {
  const uint8_t mode = c.modes[i];
  uint8_t r = kVerifyFailed;
  if (mode != kVerifySkip)
    r = block_verify(p, c.pks + size_t{i} * p.pk_bytes, c.sigs + size_t{i} * p.sig_bytes, mode == kVerifyMessage,
                     c.mus + size_t{i} * 64, c.arena + c.offsets[i], c.offsets[i + 1] - c.offsets[i]);
  if (simt::thread_index() == 0) c.results[i] = r;
}

// Block i: key i of the chunk into its slot of xkeys.
MLDSA_DEV inline void expand_block(const TaskParams& p, const SignChunk& c, uint32_t i) {
  const uint32_t slot = c.expand_slot ? c.expand_slot[i] : i;
  block_expand_key(p, c.sks + size_t{i} * p.sk_bytes, c.xkeys + size_t{slot} * sign_key_words(p));
}

// Every block is a signing unit of the schedule.
MLDSA_DEV inline void sign_loop_block(const TaskParams& p, const SignChunk& c, const SignSchedule& s) {
  block_sign_unit(p, SignShared(p), s, c.xkeys, c.key_index, c.mus, c.rhopps, c.sigs);
}

}  // namespace mldsa::gpu::coop
