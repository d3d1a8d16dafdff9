// batch_items.h - what a caller of the GPU engine (kernels/host/engine.h) passes
// per task. Inputs are read, and outputs written, in the caller's memory: the
// engine stages each input into pinned memory once and writes each result
// from pinned memory straight to where the item says. Plain C++, no CUDA.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mldsa::gpu {

// One ML-DSA.KeyGen_internal (FIPS 204 Algorithm 6), or round-3 KeyGen.
struct KeygenItem {
  const uint8_t* seed = nullptr;  // 32 bytes (secret)
  uint8_t* pk = nullptr;          // params.pk_bytes out
  // params.sk_bytes out (secret), or nullptr: the public key alone comes
  // back, for callers that keep the seed (the provider's default private-key
  // form, the bulk tool's): a chunk of such items copies only the public keys
  // over PCIe (1,312-2,592 bytes a key instead of 3,872-7,488).
  uint8_t* sk = nullptr;
};

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
  // params.rnd_bytes bytes, as the core's sign_mu takes them (32 for ML-DSA,
  // 64 for round 3): zero bytes sign deterministically. nullptr: hedged, the
  // engine draws rnd from the OS random source on the host.
  const uint8_t* rnd = nullptr;
  // params.sig_bytes out; nullptr: the batch's contiguous sigs buffer.
  uint8_t* sig = nullptr;
};

// One verification. Either mu (64 bytes, external mu / Algorithm 7 line 6
// done by the caller), or the pure ML-DSA inputs msg and ctx (FIPS 204
// Algorithm 3: M' = 0 || len(ctx) || ctx || msg; tr = H(pk) and mu are
// computed on the device, or on the host for a message too long to stage).
// Round 3: M' = msg, and a non-empty ctx is Status::context_unsupported.
struct VerifyItem {
  const uint8_t* pk = nullptr;  // params.pk_bytes
  const uint8_t* sig = nullptr;
  size_t sig_len = 0;
  const uint8_t* mu = nullptr;  // when set, msg and ctx are ignored
  const uint8_t* msg = nullptr;
  size_t msg_len = 0;
  const uint8_t* ctx = nullptr;
  size_t ctx_len = 0;
};

// How the rejection loop is scheduled (kernels/thread/sign_scheduler.h).
enum class SignScheduling {
  dynamic,   // a fixed set of threads; finished ones take new tasks, then speculate
  per_task,  // the plain per-batch loop: one thread per task loops over its own kappa
};

}  // namespace mldsa::gpu
