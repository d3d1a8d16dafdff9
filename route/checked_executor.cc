// checked_executor.cc - the CPU's checks of what a device returned.
#include "route/checked_executor.h"

#include "cpu/parallel.h"

#include <openssl/rand.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

namespace mldsa::route {

namespace {

// f(i) for every i in [0, n) on every core the process may use: a batch of
// device signatures is checked in a share of the time the device took to
// make them, not one after another on the dispatcher thread.
template <typename F>
void parallel_for(size_t n, F f) {
  mldsa::parallel_for(n, mldsa::usable_cpus(), 4, [&](size_t i, unsigned) { f(i); });
}

}  // namespace

CheckedExecutor::CheckedExecutor(std::shared_ptr<BatchExecutor> inner, uint64_t audit_every, uint64_t fault_limit)
    : inner_(std::move(inner)), audit_every_(std::max<uint64_t>(1, audit_every)),
      fault_limit_(std::max<uint64_t>(1, fault_limit)) {
  // Which accepts are audited is not predictable from their place in a batch.
  uint64_t start = 0;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&start), sizeof start) != 1) start = 0;
  next_audit_.store(start, std::memory_order_relaxed);
}

void CheckedExecutor::found_wrong(uint64_t n) {
  if (n != 0) wrong_.fetch_add(n, std::memory_order_relaxed);
}

bool CheckedExecutor::sign(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) {
  if (!inner_->sign(p, batch, why)) return false;
  std::atomic<uint64_t> wrong{0};
  parallel_for(batch.size(), [&](size_t i) {
    Request& r = *batch[i];
    if (r.status == mldsa::Status::ok &&
        mldsa::verify_mu(r.priv->public_key(), {r.mu, mldsa::MU_BYTES}, {r.sig_out, p.sig_bytes}) ==
            mldsa::Status::ok)
      return;
    wrong.fetch_add(1, std::memory_order_relaxed);
    run_on_cpu(r);
  });
  signatures_.fetch_add(batch.size(), std::memory_order_relaxed);
  found_wrong(wrong.load());
  return true;
}

bool CheckedExecutor::verify(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) {
  if (!inner_->verify(p, batch, why)) return false;
  std::vector<size_t> recheck;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (batch[i]->status != mldsa::Status::ok ||
        next_audit_.fetch_add(1, std::memory_order_relaxed) % audit_every_ == 0)
      recheck.push_back(i);
  }
  std::atomic<uint64_t> wrong{0};
  parallel_for(recheck.size(), [&](size_t k) {
    const Request& r = *batch[recheck[k]];
    if (mldsa::verify_mu(*r.pub, {r.mu, mldsa::MU_BYTES}, {r.sig, r.sig_len}) != r.status)
      wrong.fetch_add(1, std::memory_order_relaxed);
  });
  verdicts_.fetch_add(recheck.size(), std::memory_order_relaxed);
  if (wrong.load() != 0) {
    found_wrong(wrong.load());
    redone_.fetch_add(1, std::memory_order_relaxed);
    parallel_for(batch.size(), [&](size_t i) { run_on_cpu(*batch[i]); });
  }
  return true;
}

bool CheckedExecutor::keygen(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) {
  if (!inner_->keygen(p, batch, why)) return false;
  std::atomic<uint64_t> wrong{0};
  parallel_for(batch.size(), [&](size_t i) {
    Request& r = *batch[i];
    std::vector<uint8_t> pk(p.pk_bytes), sk(p.sk_bytes);
    Request cpu;
    cpu.op = BatchOp::keygen;
    cpu.params = r.params;
    cpu.seed = r.seed;
    cpu.pk_out = pk.data();
    cpu.sk_out = sk.data();
    run_on_cpu(cpu);
    if (r.status != cpu.status || (cpu.status == mldsa::Status::ok &&
                                   (std::memcmp(pk.data(), r.pk_out, pk.size()) != 0 ||
                                    std::memcmp(sk.data(), r.sk_out, sk.size()) != 0))) {
      wrong.fetch_add(1, std::memory_order_relaxed);
      r.status = cpu.status;
      if (cpu.status == mldsa::Status::ok) {
        std::memcpy(r.pk_out, pk.data(), pk.size());
        std::memcpy(r.sk_out, sk.data(), sk.size());
      }
    }
    mldsa::secure_zero(sk.data(), sk.size());
  });
  keys_.fetch_add(batch.size(), std::memory_order_relaxed);
  found_wrong(wrong.load());
  return true;
}

CheckStats CheckedExecutor::stats() const {
  CheckStats s;
  s.signatures_checked = signatures_.load(std::memory_order_relaxed);
  s.verdicts_checked = verdicts_.load(std::memory_order_relaxed);
  s.keys_checked = keys_.load(std::memory_order_relaxed);
  s.wrong = wrong_.load(std::memory_order_relaxed);
  s.batches_redone = redone_.load(std::memory_order_relaxed);
  s.out_of_service = out_of_service();
  return s;
}

}  // namespace mldsa::route
