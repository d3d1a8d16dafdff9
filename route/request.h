// request.h - one keygen, sign or verify request as the router and the batch
// queue carry it, the core computing it on the CPU, and what executes batches
// of them (the GPU engine, or a test executor).
#pragma once

#include "cpu/mldsa.h"
#include "route/completion.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace mldsa::route {

enum class BatchOp : uint8_t { sign = 0, verify = 1, keygen = 2 };
inline constexpr size_t kBatchOps = 3;
const char* batch_op_name(BatchOp op);

// One operation. Inputs point into the caller's memory.
//   sign:   priv, mu, rnd (nullptr: fresh OS randomness) -> sig_out (sig_bytes)
//   verify: pub, mu, sig/sig_len                          -> status ok / verify_failed / ...
//   keygen: seed                                          -> pk_out, sk_out
struct Request {
  BatchOp op = BatchOp::sign;
  const mldsa::Params* params = nullptr;
  const mldsa::PrivateKey* priv = nullptr;
  const mldsa::PublicKey* pub = nullptr;
  const uint8_t* mu = nullptr;
  const uint8_t* rnd = nullptr;
  const uint8_t* sig = nullptr;
  size_t sig_len = 0;
  const uint8_t* seed = nullptr;
  uint8_t* sig_out = nullptr;
  uint8_t* pk_out = nullptr;
  uint8_t* sk_out = nullptr;

  mldsa::Status status = mldsa::Status::internal_error;
  Completion completion;
};

// The request computed right here by the core: the CPU path and every fallback.
void run_on_cpu(Request& r);

// What the dispatcher hands batches to; all items of a batch share one
// parameter set and operation, and are in request order. A call either fills
// every item's status (and outputs) and returns true, or returns false with
// *why set: a whole-batch error, after which no output of it is trusted.
class BatchExecutor {
 public:
  virtual ~BatchExecutor() = default;
  virtual std::string description() const = 0;
  virtual bool supports(BatchOp op) const = 0;
  virtual bool sign(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) = 0;
  virtual bool verify(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) = 0;
  virtual bool keygen(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) = 0;
  // The batch size that fills the devices (resident tasks); 0: no preference.
  virtual size_t preferred_batch() const { return 0; }
  // Items each device was given so far, by device index; empty: not known.
  virtual std::vector<uint64_t> device_items() const { return {}; }
};

}  // namespace mldsa::route
