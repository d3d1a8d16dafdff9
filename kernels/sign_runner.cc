// sign_runner.cc - batch signing on the host side: per logical device a few
// streams, each with pinned staging and device buffers; a batch is cut in
// chunks that rotate over the streams (copies in, kernels and copies out of
// different chunks overlap), and split among the devices, one host thread each.
#include "kernels/sign_runner.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unordered_map>

#include "kernels/device_list.h"
#include "kernels/sign_launch.h"
#include "kernels/task/sign.h"

namespace mldsa::gpu {
namespace {

EngineStatus cuda_error(const char* what, cudaError_t err) {
  return {EngineError::cuda, std::string(what) + ": " + cudaGetErrorString(err)};
}
#define MLDSA_SIGN_TRY(what, call)                                    \
  do {                                                                 \
    const cudaError_t e_ = (call);                                     \
    if (e_ != cudaSuccess) return cuda_error(what, e_);                \
  } while (0)

size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

// A device buffer and, when pinned, its host twin. Grows, never shrinks.
struct Buffer {
  uint8_t* host = nullptr;
  uint8_t* dev = nullptr;
  size_t cap = 0;
  bool pinned = true;

  EngineStatus reserve(size_t bytes) {
    if (bytes <= cap) return {};
    release();
    const size_t want = std::max(bytes + bytes / 4, size_t{1} << 20);
    void* d = nullptr;
    MLDSA_SIGN_TRY("cudaMalloc", cudaMalloc(&d, want));
    dev = static_cast<uint8_t*>(d);
    if (pinned) {
      void* h = nullptr;
      MLDSA_SIGN_TRY("cudaMallocHost", cudaMallocHost(&h, want));
      host = static_cast<uint8_t*>(h);
    }
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

// One stream's chunk in flight and what it owes the caller.
struct Slot {
  cudaStream_t stream = nullptr;
  Buffer in, out, scratch{nullptr, nullptr, 0, false};
  bool busy = false;
  size_t count = 0, sig_bytes = 0;
  size_t secret_in = 0, secret_scratch = 0;  // bytes at the start of in / scratch
  uint8_t* dst = nullptr;
};

}  // namespace

struct SignRunner::Device {
  int ordinal = 0;
  EngineConfig config;
  std::vector<Slot> slots;

  ~Device() {
    cudaSetDevice(ordinal);
    drain();
    for (Slot& s : slots) {
      s.in.release();
      s.out.release();
      s.scratch.release();
      if (s.stream) cudaStreamDestroy(s.stream);
    }
  }

  static void wipe_host(Slot& s) {
    if (s.secret_in) secure_zero(s.in.host, s.secret_in);
    s.secret_in = 0;
  }

  EngineStatus finish(Slot& s) {
    if (!s.busy) return {};
    MLDSA_SIGN_TRY("cudaStreamSynchronize", cudaStreamSynchronize(s.stream));
    s.busy = false;
    std::memcpy(s.dst, s.out.host, s.count * s.sig_bytes);
    wipe_host(s);
    return {};
  }

  // After a failure: every stream finished, secrets wiped on both sides.
  void drain() {
    for (Slot& s : slots) {
      if (!s.busy) continue;
      s.busy = false;
      cudaStreamSynchronize(s.stream);
      if (s.secret_in) cudaMemset(s.in.dev, 0, s.secret_in);
      if (s.secret_scratch) cudaMemset(s.scratch.dev, 0, s.secret_scratch);
      wipe_host(s);
    }
    cudaGetLastError();
  }

  EngineStatus chunk(Slot& s, const TaskParams& tp, const SignItem* items, size_t count, uint8_t* sigs,
                     SignScheduling mode);

  EngineStatus run(const TaskParams& tp, const SignItem* items, size_t n, uint8_t* sigs, SignScheduling mode) {
    MLDSA_SIGN_TRY("cudaSetDevice", cudaSetDevice(ordinal));
    size_t next = 0;
    for (size_t first = 0; first < n; first += config.chunk_items) {
      Slot& s = slots[next++ % slots.size()];
      EngineStatus st = finish(s);
      if (st.ok())
        st = chunk(s, tp, items + first, std::min(config.chunk_items, n - first), sigs + first * tp.sig_bytes, mode);
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

// Staging layout, 8-aligned: in = sks (distinct keys) | rnds | mus | key_index
// (the first two secret); scratch = expanded keys | rho'' (secret) | schedule.
EngineStatus SignRunner::Device::chunk(Slot& s, const TaskParams& tp, const SignItem* items, size_t count,
                                       uint8_t* sigs, SignScheduling mode) {
  std::unordered_map<const uint8_t*, uint32_t> key_of;
  std::vector<const uint8_t*> keys;
  std::vector<uint32_t> index(count);
  for (size_t i = 0; i < count; ++i) {
    if (!items[i].sk || !items[i].mu) return {EngineError::bad_argument, "sign: an item without sk or mu"};
    auto [it, fresh] = key_of.try_emplace(items[i].sk, static_cast<uint32_t>(keys.size()));
    if (fresh) keys.push_back(items[i].sk);
    index[i] = it->second;
  }
  const size_t nkeys = keys.size();
  const size_t off_rnds = align8(nkeys * tp.sk_bytes);
  const size_t off_mus = align8(off_rnds + count * RND_BYTES);
  const size_t off_index = align8(off_mus + count * MU_BYTES);
  const size_t in_bytes = off_index + count * sizeof(uint32_t);
  const size_t key_bytes = size_t{sign_key_words(tp)} * sizeof(int32_t);
  const size_t off_rhopp = nkeys * key_bytes;
  const size_t off_sched = align8(off_rhopp + count * 64);
  const size_t scratch_bytes = off_sched + sign_schedule_words(static_cast<uint32_t>(count)) * sizeof(uint32_t);
  if (EngineStatus st = s.in.reserve(in_bytes); !st.ok()) return st;
  if (EngineStatus st = s.scratch.reserve(scratch_bytes); !st.ok()) return st;
  if (EngineStatus st = s.out.reserve(count * tp.sig_bytes); !st.ok()) return st;
  s.busy = true;  // from here on drain() wipes
  s.count = count;
  s.sig_bytes = tp.sig_bytes;
  s.dst = sigs;
  s.secret_in = off_mus;
  s.secret_scratch = off_sched;

  uint8_t* h = s.in.host;
  for (size_t k = 0; k < nkeys; ++k) std::memcpy(h + k * tp.sk_bytes, keys[k], tp.sk_bytes);
  // Hedged items (rnd == nullptr) get fresh OS randomness: one draw for the
  // whole chunk, then the caller's rnd where given.
  const bool hedged = std::any_of(items, items + count, [](const SignItem& it) { return !it.rnd; });
  if (hedged && !os_random(h + off_rnds, count * RND_BYTES))
    return {EngineError::bad_argument, "sign: the OS random source failed"};
  for (size_t i = 0; i < count; ++i) {
    if (items[i].rnd) std::memcpy(h + off_rnds + i * RND_BYTES, items[i].rnd, RND_BYTES);
    std::memcpy(h + off_mus + i * MU_BYTES, items[i].mu, MU_BYTES);
  }
  std::memcpy(h + off_index, index.data(), count * sizeof(uint32_t));

  MLDSA_SIGN_TRY("cudaMemcpyAsync", cudaMemcpyAsync(s.in.dev, h, in_bytes, cudaMemcpyHostToDevice, s.stream));
  uint8_t* d = s.in.dev;
  uint8_t* x = s.scratch.dev;
  const SignChunk c{d,
                    reinterpret_cast<const uint32_t*>(d + off_index),
                    d + off_mus,
                    d + off_rnds,
                    reinterpret_cast<int32_t*>(x),
                    x + off_rhopp,
                    s.out.dev,
                    static_cast<uint32_t>(nkeys)};
  MLDSA_SIGN_TRY("launch_sign", launch_sign(tp, c, reinterpret_cast<uint32_t*>(x + off_sched),
                                            static_cast<uint32_t>(count), mode == SignScheduling::dynamic,
                                            s.stream));
  MLDSA_SIGN_TRY("cudaMemcpyAsync",
                 cudaMemcpyAsync(s.out.host, s.out.dev, count * tp.sig_bytes, cudaMemcpyDeviceToHost, s.stream));
  // Keys, rnd, expanded keys and rho'' leave no trace in device memory.
  MLDSA_SIGN_TRY("cudaMemsetAsync", cudaMemsetAsync(s.in.dev, 0, s.secret_in, s.stream));
  MLDSA_SIGN_TRY("cudaMemsetAsync", cudaMemsetAsync(s.scratch.dev, 0, s.secret_scratch, s.stream));
  return {};
}

std::vector<int> sign_devices(std::string* why) {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    cudaGetLastError();
    if (why) *why = e != cudaSuccess ? std::string("no CUDA device (") + cudaGetErrorString(e) + ")" : "no CUDA device";
    return {};
  }
  const char* gpus = std::getenv("MLDSA_ACCEL_GPUS");
  const char* split = std::getenv("MLDSA_ACCEL_GPU_SPLIT");
  std::vector<int> out;
  parse_device_list(gpus ? gpus : "", split ? split : "", count, out, why);
  return out;
}

EngineStatus SignRunner::create(const std::vector<int>& devices, const EngineConfig& config,
                                std::unique_ptr<SignRunner>& out) {
  if (devices.empty()) return {EngineError::bad_argument, "sign: no device"};
  std::unique_ptr<SignRunner> r(new SignRunner());
  for (int ordinal : devices) {
    auto dev = std::make_unique<Device>();
    dev->ordinal = ordinal;
    dev->config = config;
    MLDSA_SIGN_TRY("cudaSetDevice", cudaSetDevice(ordinal));
    dev->slots.resize(config.streams);
    for (Slot& s : dev->slots)
      MLDSA_SIGN_TRY("cudaStreamCreate", cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    r->devices_.push_back(std::move(dev));
  }
  out = std::move(r);
  return {};
}

SignRunner::~SignRunner() = default;

size_t SignRunner::logical_devices() const { return devices_.size(); }

EngineStatus SignRunner::sign(const Params& p, const SignItem* items, size_t n, uint8_t* sigs, SignScheduling mode) {
  if (n == 0) return {};
  if (!items || !sigs) return {EngineError::bad_argument, "sign: null buffer"};
  const TaskParams tp = task_params(p);
  // Equal contiguous shares; a device with nothing to do is left out.
  const size_t ndev = std::min(devices_.size(), n);
  const size_t share = (n + ndev - 1) / ndev;
  std::vector<EngineStatus> results(ndev);
  auto work = [&](size_t d) {
    const size_t first = d * share;
    if (first >= n) return;
    const size_t count = std::min(share, n - first);
    results[d] = devices_[d]->run(tp, items + first, count, sigs + first * tp.sig_bytes, mode);
  };
  if (ndev == 1) {
    // On the caller's thread: leave its current device as it was.
    int previous = 0;
    const bool restore = cudaGetDevice(&previous) == cudaSuccess;
    work(0);
    if (restore) cudaSetDevice(previous);
  } else {
    std::vector<std::thread> threads;
    for (size_t d = 0; d < ndev; ++d) threads.emplace_back(work, d);
    for (auto& t : threads) t.join();
  }
  for (const EngineStatus& st : results)
    if (!st.ok()) return st;
  return {};
}

}  // namespace mldsa::gpu
