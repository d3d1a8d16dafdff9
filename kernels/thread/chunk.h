// chunk.h - a chunk of tasks as it lies in device memory, and what thread i of
// each kernel does with it. The CUDA kernels (kernels/global/*.cu) are these
// functions behind blockIdx/threadIdx; the simulated device
// (kernels/device/sim/sim_device.cc) calls the same functions over i on host threads. So
// the code a device runs is the code CI runs.
#pragma once

#include "kernels/thread/sign_scheduler.h"
#include "kernels/thread/keygen.h"
#include "kernels/thread/sign.h"
#include "kernels/thread/verify.h"

namespace mldsa::gpu {

// ---------------------------------------------------------------------------
// KeyGen: seed i -> pk i, sk i.

struct KeygenChunk {
  const uint8_t* seeds;  // n * 32 (secret)
  uint8_t* pks;          // n * pk_bytes
  uint8_t* sks;          // n * sk_bytes (secret)
};

MLDSA_HD inline void keygen_thread(const TaskParams& p, const KeygenChunk& c, uint32_t i) {
  keygen_task(p, c.seeds + size_t{i} * 32, c.pks + size_t{i} * p.pk_bytes, c.sks + size_t{i} * p.sk_bytes);
}

// ---------------------------------------------------------------------------
// Verify: one signature per thread; the verdict as a code the host maps to
// mldsa::Status, so a GPU reject carries the CPU's reason.

inline constexpr uint8_t kVerifyMu = 0, kVerifyMessage = 1, kVerifySkip = 2;  // modes; results: verify.h

struct VerifyChunk {
  const uint8_t* pks;       // n * pk_bytes; unused with xpks
  const uint8_t* sigs;      // n * sig_bytes
  const uint8_t* mus;       // n * 64, for mode kVerifyMu
  const uint8_t* modes;     // n; kVerifySkip: rejected on the host already
  const uint32_t* offsets;  // n + 1: M' of task i is arena[offsets[i], offsets[i+1])
  const uint8_t* arena;
  uint8_t* results;         // n
  // The device's public-key cache: task i's key is expanded at slot
  // key_index[i] of xpks (verify_key_words each). nullptr: keys from pks.
  const int32_t* xpks;
  const uint32_t* key_index;  // n
};

MLDSA_HD inline void verify_thread(const TaskParams& p, const VerifyChunk& c, uint32_t i) {
  const uint8_t mode = c.modes[i];
  if (mode == kVerifySkip) {
    c.results[i] = kVerifyFailed;
    return;
  }
  const uint8_t* pk = c.pks + size_t{i} * p.pk_bytes;
  const int32_t* xpk = c.xpks ? c.xpks + size_t{c.key_index[i]} * verify_key_words(p) : nullptr;
  alignas(8) uint8_t mu[64];
  if (mode == kVerifyMessage) {
    const uint8_t* mprime = c.arena + c.offsets[i];
    const size_t len = c.offsets[i + 1] - c.offsets[i];
    if (xpk)
      message_mu_from_tr(p, reinterpret_cast<const uint8_t*>(xpk), mprime, len, mu);
    else
      message_mu_task(p, pk, mprime, len, mu);
  } else {
    for (int b = 0; b < 64; ++b) mu[b] = c.mus[size_t{i} * 64 + b];
  }
  c.results[i] = verify_task(p, pk, xpk, mu, c.sigs + size_t{i} * p.sig_bytes);
}

// The public keys a verify chunk needs in the cache and lacks: key k (pk
// bytes at pks + k * pk_bytes) expands into slot[k] of xpks. One thread per key.
struct VerifyExpandChunk {
  const uint8_t* pks;
  const uint32_t* slot;
  int32_t* xpks;
  uint32_t nkeys;
};

MLDSA_HD inline void verify_expand_thread(const TaskParams& p, const VerifyExpandChunk& c, uint32_t k) {
  verify_expand_key(p, c.pks + size_t{k} * p.pk_bytes, c.xpks + size_t{c.slot[k]} * verify_key_words(p));
}

// ---------------------------------------------------------------------------
// Sign: three kernels. Expansion of the chunk's keys (one thread per key),
// rho'' and the schedule's reset (one thread per task), then the rejection
// loop run by units under kernels/thread/sign_scheduler.h's schedule.

struct SignChunk {
  const uint8_t* sks;         // nkeys * sk_bytes (secret): the keys to expand
  const uint32_t* key_index;  // n: the expanded key task i uses (a slot of xkeys)
  const uint8_t* mus;         // n * 64
  const uint8_t* rnds;        // n * rnd_bytes (secret when hedged)
  int32_t* xkeys;             // expanded keys, sign_key_words each (secret): per chunk or the key cache
  uint8_t* rhopps;            // n * 64 (secret scratch)
  uint8_t* sigs;              // n * sig_bytes
  uint32_t nkeys;
  const uint32_t* expand_slot;  // nkeys: the xkeys slot key i expands into; nullptr: slot i
};

MLDSA_HD inline void sign_expand_thread(const TaskParams& p, const SignChunk& c, uint32_t i) {
  const uint32_t slot = c.expand_slot ? c.expand_slot[i] : i;
  sign_expand_key(p, c.sks + size_t{i} * p.sk_bytes, c.xkeys + size_t{slot} * sign_key_words(p));
}

MLDSA_HD inline void sign_prepare_thread(const TaskParams& p, const SignChunk& c, const SignSchedule& s, uint32_t i) {
  sign_rhopp(p, c.xkeys + size_t{c.key_index[i]} * sign_key_words(p), c.rnds + size_t{i} * p.rnd_bytes,
             c.mus + size_t{i} * 64, c.rhopps + size_t{i} * 64);
  sched_reset_task(s, i);
}

// One step of a signing unit: acquire a work item and, when there is one, run
// that attempt and record its outcome. Returns what acquire said (work, retry
// or stop). scratch is the unit's; the caller wipes it when the unit stops.
MLDSA_HD inline SchedStep sign_unit_step(const TaskParams& p, const SignChunk& c, const SignSchedule& s, SignUnit& u,
                                         SignScratch& scratch) {
  const SchedStep step = sched_acquire(s, u);
  if (step != SchedStep::work) return step;
  const uint32_t t = u.task;
  const int32_t* key = c.xkeys + size_t{c.key_index[t]} * sign_key_words(p);
  const bool accepted = sign_attempt(p, key, c.mus + size_t{t} * 64, c.rhopps + size_t{t} * 64, u.attempt, scratch);
  sched_complete(s, u, accepted, [&] { sign_encode(p, scratch, c.sigs + size_t{t} * p.sig_bytes); });
  return step;
}

}  // namespace mldsa::gpu
