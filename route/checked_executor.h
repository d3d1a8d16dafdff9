// checked_executor.h - nothing a device computed leaves unchecked: an
// executor around another (the GPU engine) that checks its outputs on the
// CPU before the batch queue releases them.
//
//   sign:   every signature the device made is verified with the key's public
//           key (a verify costs about a quarter of a sign on the CPU); one
//           that does not verify, or a status other than ok, is signed again
//           on the CPU. A faulty signature is never released (it can leak
//           the key), and every released one verifies.
//   verify: every reject is re-checked (rejects are rare in real work, so
//           this costs little), and one accept in audit_every (1: all) is
//           re-checked, chosen from a counter with a random start. A verdict
//           that differs redoes the whole batch on the CPU: a device that
//           flipped one verdict may have flipped others.
//   keygen: no check costs less than the keygen itself (t1 needs A*s1+s2),
//           so every key is recomputed on the CPU and compared.
// Each wrong result is counted; after fault_limit of them the device is out
// of service (the router sends everything to the CPU from then on).
#pragma once

#include "route/request.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace mldsa::route {

struct CheckStats {
  uint64_t signatures_checked = 0;  // device signatures verified on the CPU
  uint64_t verdicts_checked = 0;    // device verdicts re-checked on the CPU (rejects and audited accepts)
  uint64_t keys_checked = 0;        // device keys recomputed on the CPU
  uint64_t wrong = 0;               // device results found wrong (each recomputed on the CPU)
  uint64_t batches_redone = 0;      // verify batches redone on the CPU after a wrong verdict
  bool out_of_service = false;      // fault_limit wrong results seen
};

class CheckedExecutor final : public BatchExecutor {
 public:
  // audit_every >= 1 (1: every accept); fault_limit >= 1.
  CheckedExecutor(std::shared_ptr<BatchExecutor> inner, uint64_t audit_every, uint64_t fault_limit);

  std::string description() const override { return inner_->description(); }
  bool supports(BatchOp op) const override { return inner_->supports(op); }
  size_t preferred_batch() const override { return inner_->preferred_batch(); }
  std::vector<uint64_t> device_items() const override { return inner_->device_items(); }
  bool sign(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) override;
  bool verify(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) override;
  bool keygen(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) override;

  bool out_of_service() const { return wrong_.load(std::memory_order_relaxed) >= fault_limit_; }
  CheckStats stats() const;

 private:
  void found_wrong(uint64_t n);

  const std::shared_ptr<BatchExecutor> inner_;
  const uint64_t audit_every_, fault_limit_;
  std::atomic<uint64_t> next_audit_;  // counts accepts; one in audit_every_ is re-checked
  std::atomic<uint64_t> signatures_{0}, verdicts_{0}, keys_{0}, wrong_{0}, redone_{0};
};

}  // namespace mldsa::route
