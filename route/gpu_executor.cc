// gpu_executor.cc - the GPU engine (kernels/host/engine.h) as a BatchExecutor.
#include "kernels/host/engine.h"
#include "route/gpu_executor.h"
#include "route/test_hooks.h"

#include <algorithm>
#include <vector>

namespace mldsa::route {

namespace {

class GpuExecutor final : public BatchExecutor {
 public:
  explicit GpuExecutor(std::unique_ptr<mldsa::gpu::Engine> engine) : engine_(std::move(engine)) {}
  std::string description() const override { return engine_->device_description(); }
  bool supports(BatchOp) const override { return true; }
  size_t preferred_batch() const override { return engine_->resident_tasks(); }
  std::vector<uint64_t> device_items() const override { return engine_->items_by_device(); }

  // Signatures and keys go from the engine's pinned staging straight into the
  // requests' buffers: no copy here.
  bool sign(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) override {
    const size_t n = batch.size();
    sign_items_.resize(n);
    statuses_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Request& r = *batch[i];
      // One pointer per key object: the engine expands (or caches) each key once.
      sign_items_[i] = {r.priv->encoded().data(), r.mu, r.rnd, r.sig_out};
    }
    const mldsa::gpu::EngineStatus st = engine_->sign(p, sign_items_.data(), n, nullptr, statuses_.data());
    if (!st.ok()) {
      *why = st.message;
      return false;
    }
    for (size_t i = 0; i < n; ++i) batch[i]->status = statuses_[i];
    return true;
  }

  bool verify(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) override {
    items_.resize(batch.size());
    statuses_.resize(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      const Request& r = *batch[i];
      items_[i] = {};
      items_[i].pk = r.pub->encoded().data();
      items_[i].sig = r.sig;
      items_[i].sig_len = r.sig_len;
      items_[i].mu = r.mu;
    }
    const mldsa::gpu::EngineStatus st = engine_->verify(p, items_.data(), batch.size(), statuses_.data());
    if (!st.ok()) {
      *why = st.message;
      return false;
    }
    // The engine gives the core's reasons (malformed hint, wrong length, ...),
    // so signature.cc raises the same error whichever path ran.
    for (size_t i = 0; i < batch.size(); ++i) batch[i]->status = statuses_[i];
    return true;
  }

  bool keygen(const mldsa::Params& p, std::span<Request* const> batch, std::string* why) override {
    keygen_items_.resize(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) keygen_items_[i] = {batch[i]->seed, batch[i]->pk_out, batch[i]->sk_out};
    const mldsa::gpu::EngineStatus st = engine_->keygen(p, keygen_items_.data(), batch.size());
    if (!st.ok()) {
      *why = st.message;
      return false;
    }
    for (Request* r : batch) r->status = mldsa::Status::ok;
    return true;
  }

 private:
  std::unique_ptr<mldsa::gpu::Engine> engine_;
  // Reused between batches; only the dispatcher thread calls in.
  std::vector<mldsa::gpu::VerifyItem> items_;
  std::vector<mldsa::gpu::SignItem> sign_items_;
  std::vector<mldsa::gpu::KeygenItem> keygen_items_;
  std::vector<mldsa::Status> statuses_;
};

}  // namespace

std::shared_ptr<gpu::Platform> engine_platform(const TestSettings& t, std::string* why) {
  std::shared_ptr<gpu::Platform> platform = test_platform(t, why);
  if (platform == nullptr && why->empty()) platform = gpu::cuda_platform(why);
  return platform;
}

std::shared_ptr<BatchExecutor> make_gpu_executor(std::shared_ptr<gpu::Platform> platform,
                                                 const gpu::EngineConfig& config, std::string* why) {
  std::unique_ptr<mldsa::gpu::Engine> engine = mldsa::gpu::Engine::create(std::move(platform), config, why);
  if (engine == nullptr) return nullptr;
  return std::make_shared<GpuExecutor>(std::move(engine));
}

}  // namespace mldsa::route
