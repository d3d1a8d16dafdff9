// sign_scheduler.h - dynamic scheduling of FIPS 204's rejection loop over a
// fixed set of execution units (GPU threads), as a state machine that compiles
// for the host too: tests/kernels/sign_task_test.cc drives it with simulated
// and with real host threads, kernels/global/sign.cu and coop_sign.cu with GPU
// threads.
//
// Work item = one attempt (one kappa) of one task. A unit that is idle takes
// the next task nobody owns yet (it becomes the task's owner and runs its
// attempts 0, 1, ... until the task has an accepted one). When every task has
// an owner, idle units speculate: they pick an unfinished task and run its next
// attempt number not yet handed out. Per task, best = the smallest accepted
// attempt (atomic min); its signature is written under a per-task lock, so the
// output is the signature of the smallest accepted kappa: the sequential FIPS
// 204 result, whatever ran in which order.
//
// Why this is exact: attempt numbers of a task are handed out in increasing
// order (an atomic counter per task); one that is handed out is either run or
// skipped because a smaller attempt was already accepted. So every attempt
// below the final best was run and rejected. And no task is lost: its owner
// keeps going until some attempt of the task is accepted.
//
// The loop limit: attempt numbers at or above max_attempts are never run
// (FIPS 204 Appendix C's bound, 814, as the core's sign_mu). A task whose
// attempts below the limit are all rejected ends with best == kNoAttempt: the
// host reports Status::sign_attempts_exhausted for it, as the core does. (It
// cannot happen with a valid key; a corrupt expanded key must not hang the
// device.)
//
// Plain per-batch loop (no dynamic scheduling, to measure the gain): as many
// units as tasks, speculate = 0; each unit then owns one task and loops.
#pragma once

#include <cstdint>

#include "kernels/thread/params.h"

namespace mldsa::gpu {

inline constexpr uint32_t kNoAttempt = 0xFFFFFFFFu;
// FIPS 204 Appendix C: 814 attempts (ML-DSA-44's bound, the largest of the
// three), the core's kMaxSignAttempts.
inline constexpr uint32_t kSignAttemptLimit = 814;

// The shared state of one batch: device memory on the GPU, host memory in the
// tests. Counters start at zero, best[] at kNoAttempt, lock[] at zero.
struct SignSchedule {
  uint32_t n = 0;             // tasks
  uint32_t speculate = 0;     // 0: units only run attempts of the tasks they own
  uint32_t max_attempts = kSignAttemptLimit;  // attempt numbers >= this are never run
  uint32_t* next_task = nullptr;    // 1 word: the next task without an owner
  uint32_t* spec_cursor = nullptr;  // 1 word: round-robin position of speculation
  uint32_t* done = nullptr;         // 1 word: tasks whose owner has finished
  uint32_t* next_attempt = nullptr; // n: the next attempt number to hand out
  uint32_t* best = nullptr;         // n: smallest accepted attempt so far
  uint32_t* lock = nullptr;         // n: held while a signature is written
};

// The schedule's words for n tasks (device memory on the GPU): 3 counters,
// then next_attempt, best and lock (n each).
inline constexpr uint32_t sign_schedule_words(uint32_t n) { return 3 + 3 * n; }
inline constexpr uint32_t sign_schedule_best_offset(uint32_t n) { return 3 + n; }
inline SignSchedule sign_schedule_at(uint32_t* words, uint32_t n, bool speculate, uint32_t max_attempts) {
  SignSchedule s;
  s.n = n;
  s.speculate = speculate ? 1 : 0;
  s.max_attempts = max_attempts;
  s.next_task = words;
  s.spec_cursor = words + 1;
  s.done = words + 2;
  s.next_attempt = words + 3;
  s.best = words + sign_schedule_best_offset(n);
  s.lock = words + 3 + 2 * size_t{n};
  return s;
}

// Task i's words back to their start state (and, for task 0, the counters):
// one thread per task runs it before the loop starts.
MLDSA_HD inline void sched_reset_task(const SignSchedule& s, uint32_t i) {
  s.next_attempt[i] = 0;
  s.best[i] = kNoAttempt;
  s.lock[i] = 0;
  if (i == 0) *s.next_task = *s.spec_cursor = *s.done = 0;
}

enum : uint32_t { kUnitIdle = 0, kUnitOwner = 1, kUnitSpeculative = 2 };

// One unit's registers.
struct SignUnit {
  uint32_t role = kUnitIdle;
  uint32_t task = 0;
  uint32_t attempt = 0;
};

// The atomics: CUDA's on the device, the compiler's builtins on the host (so
// real host threads can run the same code in the tests).
MLDSA_HD inline uint32_t sched_fetch_add(uint32_t* p, uint32_t v) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(p, v);
#else
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
#endif
}
MLDSA_HD inline uint32_t sched_fetch_min(uint32_t* p, uint32_t v) {
#if defined(__CUDA_ARCH__)
  return atomicMin(p, v);
#else
  uint32_t old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (v < old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
#endif
}
MLDSA_HD inline uint32_t sched_load(const uint32_t* p) {
#if defined(__CUDA_ARCH__)
  return *static_cast<const volatile uint32_t*>(p);
#else
  return __atomic_load_n(p, __ATOMIC_SEQ_CST);
#endif
}
// One try at the lock (the cooperative kernels back off between tries, so
// a unit spinning on the host SIMT lets the holder's block run).
MLDSA_HD inline bool sched_try_lock(uint32_t* p) {
#if defined(__CUDA_ARCH__)
  if (atomicCAS(p, 0u, 1u) != 0u) return false;
  __threadfence();
  return true;
#else
  uint32_t expected = 0;
  return __atomic_compare_exchange_n(p, &expected, 1u, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
#endif
}
MLDSA_HD inline void sched_lock(uint32_t* p) {
  while (!sched_try_lock(p)) {
  }
}
MLDSA_HD inline void sched_unlock(uint32_t* p) {
#if defined(__CUDA_ARCH__)
  __threadfence();  // the signature's bytes before the release
  atomicExch(p, 0u);
#else
  __atomic_store_n(p, 0u, __ATOMIC_RELEASE);
#endif
}

enum class SchedStep : uint32_t {
  work,   // run attempt u.attempt of task u.task, then sched_complete
  retry,  // nothing picked this time (a finished task, or one just finished): call again
  stop,   // nothing left for this unit
};

// One try at giving the unit its next work item. Never waits: a caller loops
// while it gets SchedStep::retry (the tests' simulated units yield instead).
MLDSA_HD inline SchedStep sched_acquire(const SignSchedule& s, SignUnit& u) {
  if (u.role == kUnitIdle) {
    if (sched_load(s.next_task) < s.n) {
      const uint32_t t = sched_fetch_add(s.next_task, 1);
      if (t < s.n) {
        u.role = kUnitOwner;
        u.task = t;
      }
    }
    if (u.role == kUnitIdle) {
      if (!s.speculate || sched_load(s.done) >= s.n) return SchedStep::stop;
      const uint32_t t = sched_fetch_add(s.spec_cursor, 1) % s.n;
      if (sched_load(&s.best[t]) != kNoAttempt) return SchedStep::retry;  // finished or about to be
      u.role = kUnitSpeculative;
      u.task = t;
    }
  }
  const uint32_t r = sched_fetch_add(&s.next_attempt[u.task], 1);
  // Past the loop limit, or a smaller attempt was accepted: r is never run.
  // For the owner the task is over (every attempt below r is handed out; the
  // ones still running finish before their units stop).
  if (r >= s.max_attempts || sched_load(&s.best[u.task]) < r) {
    if (u.role == kUnitOwner) sched_fetch_add(s.done, 1);
    u.role = kUnitIdle;
    return SchedStep::retry;
  }
  u.attempt = r;
  return SchedStep::work;
}

// Records the outcome of the unit's attempt. When it was accepted and is the
// smallest accepted so far, write() stores its signature (under the task's
// lock, and only while it is still the smallest).
template <typename Write>
MLDSA_HD inline void sched_complete(const SignSchedule& s, SignUnit& u, bool accepted, Write&& write) {
  if (accepted) {
    const uint32_t old = sched_fetch_min(&s.best[u.task], u.attempt);
    if (u.attempt < old) {
      sched_lock(&s.lock[u.task]);
      if (sched_load(&s.best[u.task]) == u.attempt) write();
      sched_unlock(&s.lock[u.task]);
    }
    if (u.role == kUnitOwner) sched_fetch_add(s.done, 1);
    u.role = kUnitIdle;
  } else if (u.role == kUnitSpeculative) {
    u.role = kUnitIdle;  // one attempt per pick: spread speculation over the tasks left
  }
}

}  // namespace mldsa::gpu
