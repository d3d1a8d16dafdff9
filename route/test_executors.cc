// test_executors.cc - the test executor and the fault-injection wrapper.
#include "route/test_executors.h"

#include <atomic>
#include <cstring>

namespace mldsa::route {

namespace {

class CpuExecutor final : public BatchExecutor {
 public:
  std::string description() const override { return "cpu-test (the core, on the dispatcher thread)"; }
  bool supports(BatchOp) const override { return true; }
  bool sign(const mldsa::Params&, std::span<Request* const> b, std::string*) override { return each(b); }
  bool verify(const mldsa::Params&, std::span<Request* const> b, std::string*) override { return each(b); }
  bool keygen(const mldsa::Params&, std::span<Request* const> b, std::string*) override { return each(b); }

 private:
  static bool each(std::span<Request* const> batch) {
    for (Request* r : batch) run_on_cpu(*r);
    return true;
  }
};

class FaultyExecutor final : public BatchExecutor {
 public:
  FaultyExecutor(std::shared_ptr<BatchExecutor> inner, unsigned every_k)
      : inner_(std::move(inner)), every_k_(every_k == 0 ? 1 : every_k) {}
  std::string description() const override {
    return inner_->description() + ", failing every " + std::to_string(every_k_) + " batch(es)";
  }
  bool supports(BatchOp op) const override { return inner_->supports(op); }
  bool sign(const mldsa::Params& p, std::span<Request* const> b, std::string* why) override {
    return maybe_fail(inner_->sign(p, b, why), b, why);
  }
  bool verify(const mldsa::Params& p, std::span<Request* const> b, std::string* why) override {
    return maybe_fail(inner_->verify(p, b, why), b, why);
  }
  bool keygen(const mldsa::Params& p, std::span<Request* const> b, std::string* why) override {
    return maybe_fail(inner_->keygen(p, b, why), b, why);
  }

 private:
  bool maybe_fail(bool ok, std::span<Request* const> batch, std::string* why) {
    const uint64_t n = ++count_;
    if (n % every_k_ != 0) return ok;
    // Wrong answers everywhere: only a full recomputation gets them right.
    for (Request* r : batch) {
      const mldsa::Params& p = *r->params;
      if (r->sig_out != nullptr) std::memset(r->sig_out, 0xa5, p.sig_bytes);
      if (r->pk_out != nullptr) std::memset(r->pk_out, 0xa5, p.pk_bytes);
      if (r->sk_out != nullptr) std::memset(r->sk_out, 0xa5, p.sk_bytes);
      r->status = r->status == mldsa::Status::ok ? mldsa::Status::verify_failed : mldsa::Status::ok;
    }
    *why = "injected fault (batch " + std::to_string(n) + ")";
    return false;
  }

  std::shared_ptr<BatchExecutor> inner_;
  const unsigned every_k_;
  std::atomic<uint64_t> count_{0};
};

}  // namespace

std::shared_ptr<BatchExecutor> make_cpu_executor() { return std::make_shared<CpuExecutor>(); }

std::shared_ptr<BatchExecutor> with_faults(std::shared_ptr<BatchExecutor> inner, unsigned every_k) {
  return std::make_shared<FaultyExecutor>(std::move(inner), every_k);
}

}  // namespace mldsa::route
