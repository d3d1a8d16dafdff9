// sign_item.h - what a caller of the GPU engine's batch signing passes per
// signature (Engine::sign in kernels/engine.h). Plain C++, no CUDA.
#pragma once

#include <cstdint>

namespace mldsa::gpu {

// One ML-DSA signature from mu (FIPS 204 Algorithm 7 from line 7 on; the
// core's sign_mu). The host computes mu with mldsa::MuBuilder for every
// interface (pure ML-DSA with its context, HashML-DSA, Sign_internal) or takes
// an external mu; the device does the rest.
struct SignItem {
  // skEncode bytes (params.sk_bytes) of a key the core accepted
  // (PrivateKey::encoded()); the device does not re-check them. Items that
  // use one key should pass one pointer: a chunk expands it once (or finds
  // it in the device's expanded-key cache, matched by the sk bytes).
  const uint8_t* sk = nullptr;
  const uint8_t* mu = nullptr;   // 64 bytes
  // 32 bytes: deterministic signing passes 32 zero bytes. nullptr: hedged,
  // the engine draws rnd from the OS random source on the host.
  const uint8_t* rnd = nullptr;
};

// How the rejection loop is scheduled (kernels/sign_scheduler.h).
enum class SignScheduling {
  dynamic,   // a fixed set of threads; finished ones take new tasks, then speculate
  per_task,  // the plain per-batch loop: one thread per task loops over its own kappa
};

}  // namespace mldsa::gpu
