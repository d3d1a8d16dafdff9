// engine.cc - the host side of the GPU batch engine: device memory, pinned
// staging, streams, chunking, error handling. Plain C++ against the CUDA
// runtime API; the kernels are in keygen.cu and verify.cu.
#include "kernels/engine.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "kernels/launch.h"
#include "kernels/sign_runner.h"
#include "kernels/task/params.h"

namespace mldsa::gpu {
namespace {

// Turns a failed CUDA call into an EngineStatus naming the call.
#define MLDSA_CUDA_TRY(call)                                                               \
  do {                                                                                      \
    const cudaError_t mldsa_err_ = (call);                                                  \
    if (mldsa_err_ != cudaSuccess) return cuda_failure(#call, mldsa_err_);                  \
  } while (0)

EngineStatus cuda_failure(const char* call, cudaError_t err) {
  std::string what(call);
  what = what.substr(0, what.find('('));
  return {EngineError::cuda, what + ": " + cudaGetErrorString(err)};
}

size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

// Pinned host memory and device memory of the same size: one direction of one
// stream's staging. Grows (never shrinks) to the largest chunk seen.
struct Staging {
  uint8_t* host = nullptr;
  uint8_t* dev = nullptr;
  size_t cap = 0;

  EngineStatus reserve(size_t bytes) {
    if (bytes <= cap) return {};
    release();
    const size_t want = std::max(bytes + bytes / 4, size_t{1} << 20);
    void* h = nullptr;
    void* d = nullptr;
    MLDSA_CUDA_TRY(cudaMallocHost(&h, want));
    const cudaError_t err = cudaMalloc(&d, want);
    if (err != cudaSuccess) {
      cudaFreeHost(h);
      return cuda_failure("cudaMalloc", err);
    }
    host = static_cast<uint8_t*>(h);
    dev = static_cast<uint8_t*>(d);
    cap = want;
    return {};
  }
  void release() {
    if (host) cudaFreeHost(host);
    if (dev) cudaFree(dev);
    host = dev = nullptr;
    cap = 0;
  }
};

// One stream and its staging, and what its chunk in flight still owes the
// caller when the stream is done.
struct Slot {
  cudaStream_t stream = nullptr;
  Staging in, out;
  bool busy = false;
  size_t count = 0;
  // keygen: user destinations and where the secrets sit in staging.
  uint8_t* dst_pks = nullptr;
  uint8_t* dst_sks = nullptr;
  size_t pk_bytes = 0, sk_bytes = 0;
  size_t secret_in_bytes = 0;  // seeds at the start of in
  // verify: user destination.
  uint8_t* dst_ok = nullptr;
};

}  // namespace

struct Engine::Impl {
  EngineConfig config;
  std::string description;
  std::vector<Slot> slots;
  std::mutex mu;  // one batch at a time
  std::unique_ptr<SignRunner> signer;  // batch signing (kernels/sign_runner.h), made on first use

  ~Impl() {
    drain();
    for (Slot& s : slots) {
      s.in.release();
      s.out.release();
      if (s.stream) cudaStreamDestroy(s.stream);
    }
  }

  // Waits for the slot's chunk and hands its results to the caller; wipes
  // the staged secrets.
  EngineStatus finish(Slot& s) {
    if (!s.busy) return {};
    // On failure the slot stays busy: drain() wipes its secrets on both sides.
    MLDSA_CUDA_TRY(cudaStreamSynchronize(s.stream));
    s.busy = false;
    if (s.dst_ok) {
      std::memcpy(s.dst_ok, s.out.host, s.count);
    } else {
      std::memcpy(s.dst_pks, s.out.host, s.count * s.pk_bytes);
      std::memcpy(s.dst_sks, s.out.host + s.count * s.pk_bytes, s.count * s.sk_bytes);
    }
    wipe_host(s);
    return {};
  }

  static void wipe_host(Slot& s) {
    if (s.secret_in_bytes) secure_zero(s.in.host, s.secret_in_bytes);
    if (s.sk_bytes) secure_zero(s.out.host + s.count * s.pk_bytes, s.count * s.sk_bytes);
    s.secret_in_bytes = 0;
    s.sk_bytes = 0;
  }

  // After a failure: let every stream finish, wipe secrets on both sides,
  // and clear the runtime's last error so the next call starts clean.
  void drain() {
    for (Slot& s : slots) {
      if (!s.busy) continue;
      s.busy = false;
      cudaStreamSynchronize(s.stream);
      if (s.secret_in_bytes) cudaMemset(s.in.dev, 0, s.secret_in_bytes);
      if (s.sk_bytes) cudaMemset(s.out.dev + s.count * s.pk_bytes, 0, s.count * s.sk_bytes);
      wipe_host(s);
    }
    cudaGetLastError();
  }

  EngineStatus keygen(const TaskParams& tp, const uint8_t* seeds, size_t n, uint8_t* pks, uint8_t* sks);
  EngineStatus verify(const TaskParams& tp, const VerifyItem* items, size_t n, uint8_t* ok);
  EngineStatus keygen_chunk(Slot& s, const TaskParams& tp, const uint8_t* seeds, size_t count, uint8_t* pks,
                            uint8_t* sks);
  EngineStatus verify_chunk(Slot& s, const TaskParams& tp, const VerifyItem* items, size_t count, uint8_t* ok);

  // Runs chunk(slot, first, count) over [0, n), round-robin over the slots.
  template <typename Chunk>
  EngineStatus run(size_t n, Chunk chunk) {
    size_t next = 0;
    for (size_t first = 0; first < n; first += config.chunk_items) {
      Slot& s = slots[next++ % slots.size()];
      EngineStatus st = finish(s);
      if (st.ok()) st = chunk(s, first, std::min(config.chunk_items, n - first));
      if (!st.ok()) {
        drain();
        return st;
      }
    }
    for (Slot& s : slots) {
      EngineStatus st = finish(s);
      if (!st.ok()) {
        drain();
        return st;
      }
    }
    return {};
  }
};

EngineStatus Engine::Impl::keygen_chunk(Slot& s, const TaskParams& tp, const uint8_t* seeds, size_t count,
                                        uint8_t* pks, uint8_t* sks) {
  const size_t in_bytes = count * SEED_BYTES;
  const size_t pk_total = count * tp.pk_bytes, sk_total = count * tp.sk_bytes;
  if (EngineStatus st = s.in.reserve(in_bytes); !st.ok()) return st;
  if (EngineStatus st = s.out.reserve(pk_total + sk_total); !st.ok()) return st;
  s.busy = true;  // from here on drain() must wipe
  s.count = count;
  s.dst_ok = nullptr;
  s.dst_pks = pks;
  s.dst_sks = sks;
  s.pk_bytes = tp.pk_bytes;
  s.sk_bytes = tp.sk_bytes;
  s.secret_in_bytes = in_bytes;
  std::memcpy(s.in.host, seeds, in_bytes);
  MLDSA_CUDA_TRY(cudaMemcpyAsync(s.in.dev, s.in.host, in_bytes, cudaMemcpyHostToDevice, s.stream));
  MLDSA_CUDA_TRY(launch_keygen(tp, s.in.dev, s.out.dev, s.out.dev + pk_total, static_cast<uint32_t>(count), s.stream));
  MLDSA_CUDA_TRY(cudaMemcpyAsync(s.out.host, s.out.dev, pk_total + sk_total, cudaMemcpyDeviceToHost, s.stream));
  // Seeds and secret keys leave no trace in device memory.
  MLDSA_CUDA_TRY(cudaMemsetAsync(s.in.dev, 0, in_bytes, s.stream));
  MLDSA_CUDA_TRY(cudaMemsetAsync(s.out.dev + pk_total, 0, sk_total, s.stream));
  return {};
}

EngineStatus Engine::Impl::keygen(const TaskParams& tp, const uint8_t* seeds, size_t n, uint8_t* pks,
                                  uint8_t* sks) {
  return run(n, [&](Slot& s, size_t first, size_t count) {
    return keygen_chunk(s, tp, seeds + first * SEED_BYTES, count, pks + first * tp.pk_bytes,
                        sks + first * tp.sk_bytes);
  });
}

// In-staging layout of a verify chunk (all offsets 8-aligned):
// pks | sigs | mus | modes | offsets (count + 1, uint32) | arena (the M's).
EngineStatus Engine::Impl::verify_chunk(Slot& s, const TaskParams& tp, const VerifyItem* items, size_t count,
                                        uint8_t* ok) {
  size_t arena_bytes = 0;
  for (size_t i = 0; i < count; ++i) {
    const VerifyItem& it = items[i];
    if (!it.mu && it.ctx_len <= MAX_CONTEXT_BYTES) arena_bytes += 2 + it.ctx_len + it.msg_len;
  }
  if (arena_bytes > UINT32_MAX) return {EngineError::bad_argument, "messages of one chunk exceed 4 GiB"};
  const size_t off_pks = 0;
  const size_t off_sigs = align8(off_pks + count * tp.pk_bytes);
  const size_t off_mus = align8(off_sigs + count * tp.sig_bytes);
  const size_t off_modes = align8(off_mus + count * MU_BYTES);
  const size_t off_offsets = align8(off_modes + count);
  const size_t off_arena = align8(off_offsets + (count + 1) * sizeof(uint32_t));
  const size_t in_bytes = off_arena + arena_bytes;
  if (EngineStatus st = s.in.reserve(in_bytes); !st.ok()) return st;
  if (EngineStatus st = s.out.reserve(count); !st.ok()) return st;
  s.busy = true;
  s.count = count;
  s.dst_ok = ok;
  s.secret_in_bytes = 0;
  s.pk_bytes = s.sk_bytes = 0;

  uint8_t* h = s.in.host;
  uint8_t* modes = h + off_modes;
  uint32_t* offsets = reinterpret_cast<uint32_t*>(h + off_offsets);
  uint32_t pos = 0;
  for (size_t i = 0; i < count; ++i) {
    const VerifyItem& it = items[i];
    offsets[i] = pos;
    const bool well_formed = it.pk && it.sig && it.sig_len == tp.sig_bytes &&
                             (it.mu || ((it.msg || it.msg_len == 0) && (it.ctx || it.ctx_len == 0) &&
                                        it.ctx_len <= MAX_CONTEXT_BYTES));
    if (!well_formed) {
      modes[i] = kVerifyReject;
      continue;
    }
    std::memcpy(h + off_pks + i * tp.pk_bytes, it.pk, tp.pk_bytes);
    std::memcpy(h + off_sigs + i * tp.sig_bytes, it.sig, tp.sig_bytes);
    if (it.mu) {
      modes[i] = kVerifyMu;
      std::memcpy(h + off_mus + i * MU_BYTES, it.mu, MU_BYTES);
    } else {
      // M' = 0 || len(ctx) || ctx || msg  (FIPS 204 Algorithm 3 line 5)
      modes[i] = kVerifyMessage;
      uint8_t* m = h + off_arena + pos;
      m[0] = 0;
      m[1] = static_cast<uint8_t>(it.ctx_len);
      if (it.ctx_len) std::memcpy(m + 2, it.ctx, it.ctx_len);
      if (it.msg_len) std::memcpy(m + 2 + it.ctx_len, it.msg, it.msg_len);
      pos += static_cast<uint32_t>(2 + it.ctx_len + it.msg_len);
    }
  }
  offsets[count] = pos;

  MLDSA_CUDA_TRY(cudaMemcpyAsync(s.in.dev, h, in_bytes, cudaMemcpyHostToDevice, s.stream));
  const uint8_t* d = s.in.dev;
  const VerifyChunk chunk{d + off_pks,
                          d + off_sigs,
                          d + off_mus,
                          d + off_modes,
                          reinterpret_cast<const uint32_t*>(d + off_offsets),
                          d + off_arena,
                          s.out.dev};
  MLDSA_CUDA_TRY(launch_verify(tp, chunk, static_cast<uint32_t>(count), s.stream));
  MLDSA_CUDA_TRY(cudaMemcpyAsync(s.out.host, s.out.dev, count, cudaMemcpyDeviceToHost, s.stream));
  return {};
}

EngineStatus Engine::Impl::verify(const TaskParams& tp, const VerifyItem* items, size_t n, uint8_t* ok) {
  return run(n, [&](Slot& s, size_t first, size_t count) {
    return verify_chunk(s, tp, items + first, count, ok + first);
  });
}

// ---------------------------------------------------------------------------

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

std::unique_ptr<Engine> Engine::create(std::string* why, const EngineConfig& config) {
  auto fail = [&](std::string reason) -> std::unique_ptr<Engine> {
    if (why) *why = std::move(reason);
    return nullptr;
  };
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return fail(std::string("no CUDA device (") + cudaGetErrorString(err) + ")");
  }
  if (count == 0) return fail("no CUDA device");
  if (config.streams == 0 || config.chunk_items == 0 || config.chunk_items > UINT32_MAX)
    return fail("bad engine configuration (streams and chunk_items must be positive)");

  auto impl = std::make_unique<Impl>();
  impl->config = config;
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaSetDevice(0); e != cudaSuccess) return fail(std::string("cudaSetDevice: ") + cudaGetErrorString(e));
  if (cudaError_t e = cudaGetDeviceProperties(&prop, 0); e != cudaSuccess)
    return fail(std::string("cudaGetDeviceProperties: ") + cudaGetErrorString(e));
  impl->description = std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) +
                      ", " + std::to_string(prop.multiProcessorCount) + " SMs)";
  impl->slots.resize(config.streams);
  for (Slot& s : impl->slots)
    if (cudaError_t e = cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking); e != cudaSuccess)
      return fail(std::string("cudaStreamCreate: ") + cudaGetErrorString(e));
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

EngineStatus Engine::keygen(const Params& p, const uint8_t* seeds, size_t n, uint8_t* pks, uint8_t* sks) {
  if (n == 0) return {};
  if (!seeds || !pks || !sks) return {EngineError::bad_argument, "keygen: null buffer"};
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->keygen(task_params(p), seeds, n, pks, sks);
}

EngineStatus Engine::verify(const Params& p, const VerifyItem* items, size_t n, uint8_t* ok) {
  if (n == 0) return {};
  if (!items || !ok) return {EngineError::bad_argument, "verify: null buffer"};
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->verify(task_params(p), items, n, ok);
}

EngineStatus Engine::sign(const Params& p, const SignItem* items, size_t n, uint8_t* sigs, SignScheduling mode) {
  if (n == 0) return {};
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (!impl_->signer) {
    std::string why;
    const std::vector<int> devices = sign_devices(&why);
    if (devices.empty()) return {EngineError::bad_argument, "sign: " + why};
    if (EngineStatus st = SignRunner::create(devices, impl_->config, impl_->signer); !st.ok()) return st;
  }
  return impl_->signer->sign(p, items, n, sigs, mode);
}

const std::string& Engine::device_description() const { return impl_->description; }

}  // namespace mldsa::gpu
