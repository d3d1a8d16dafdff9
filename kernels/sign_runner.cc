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
#include "kernels/key_cache.h"
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

// Expanded private keys kept in device memory across batches, per parameter
// set: a chunk with few distinct keys (a service signing many messages with a
// few keys) expands only the ones not cached. MLDSA_ACCEL_SIGN_KEY_CACHE=0
// turns it off.
constexpr uint32_t kCacheKeys = 256;

bool key_cache_enabled() {
  const char* v = std::getenv("MLDSA_ACCEL_SIGN_KEY_CACHE");
  return !(v && std::strcmp(v, "0") == 0);
}

struct CachedKeys {
  KeyCache book{kCacheKeys};
  int32_t* arena = nullptr;  // kCacheKeys expanded keys (secret)
  size_t bytes = 0;
};

}  // namespace

struct SignRunner::Device {
  int ordinal = 0;
  EngineConfig config;
  std::vector<Slot> slots;
  std::unique_ptr<CachedKeys> caches[3];  // by parameter set

  ~Device() {
    cudaSetDevice(ordinal);
    drain();
    clear_caches(true);
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

  // Zeroes (and with release, frees) every cached expanded key.
  void clear_caches(bool release) {
    for (auto& c : caches) {
      if (!c) continue;
      c->book.clear();
      if (c->arena) cudaMemset(c->arena, 0, c->bytes);
      if (release) {
        if (c->arena) cudaFree(c->arena);
        c.reset();
      }
    }
  }

  // The cache for tp's parameter set, allocated on first use; nullptr when
  // the device has no memory to spare for it.
  CachedKeys* cache_for(const TaskParams& tp) {
    std::unique_ptr<CachedKeys>& c = caches[tp.k / 2 - 2];  // k = 4, 6, 8
    if (!c) {
      auto fresh = std::make_unique<CachedKeys>();
      fresh->bytes = size_t{kCacheKeys} * sign_key_words(tp) * sizeof(int32_t);
      void* a = nullptr;
      if (cudaMalloc(&a, fresh->bytes) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
      }
      fresh->arena = static_cast<int32_t*>(a);
      c = std::move(fresh);
    }
    return c.get();
  }

  EngineStatus finish(Slot& s) {
    if (!s.busy) return {};
    MLDSA_SIGN_TRY("cudaStreamSynchronize", cudaStreamSynchronize(s.stream));
    s.busy = false;
    for (auto& c : caches)
      if (c) c->book.release_stream(static_cast<unsigned>(&s - slots.data()));
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
    clear_caches(false);  // a failed chunk may have left a slot unexpanded
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

// Staging layout, 8-aligned: in = sks (the keys to expand) | rnds | mus |
// key_index | expand slots (the first two secret); scratch = expanded keys
// (without the cache) | rho'' (secret) | schedule.
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
  // Which keys to expand, and into which slot of xkeys: all of them into the
  // chunk's scratch, or, with few distinct keys, the ones the cache lacks.
  std::vector<const uint8_t*> expand;
  std::vector<uint32_t> expand_slot;
  CachedKeys* cache =
      keys.size() <= kCacheKeys / 4 && slots.size() <= 64 && key_cache_enabled() ? cache_for(tp) : nullptr;
  if (cache) {
    const unsigned me = static_cast<unsigned>(&s - slots.data());
    std::vector<uint32_t> slot_of(keys.size());
    cache->book.begin_chunk();
    for (size_t k = 0; k < keys.size(); ++k) {
      const KeyCache::Lookup l = cache->book.lookup(keys[k], tp.sk_bytes, me);
      if (!l.ok) return {EngineError::cuda, "sign: key cache full"};  // cannot happen: at most a quarter is pinned
      // Streams still reading the slot's old key, or still expanding it.
      for (unsigned j = 0; j < slots.size(); ++j)
        if ((l.streams >> j) & 1)
          if (EngineStatus st = finish(slots[j]); !st.ok()) return st;
      if (l.fresh) {
        expand.push_back(keys[k]);
        expand_slot.push_back(l.slot);
      }
      slot_of[k] = l.slot;
    }
    for (uint32_t& i : index) i = slot_of[i];
  } else {
    expand = keys;
  }
  const size_t nexpand = expand.size();
  const size_t off_rnds = align8(nexpand * tp.sk_bytes);
  const size_t off_mus = align8(off_rnds + count * RND_BYTES);
  const size_t off_index = align8(off_mus + count * MU_BYTES);
  const size_t off_slots = align8(off_index + count * sizeof(uint32_t));
  const size_t in_bytes = off_slots + expand_slot.size() * sizeof(uint32_t);
  const size_t key_bytes = size_t{sign_key_words(tp)} * sizeof(int32_t);
  const size_t off_rhopp = cache ? 0 : nexpand * key_bytes;
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
  for (size_t k = 0; k < nexpand; ++k) std::memcpy(h + k * tp.sk_bytes, expand[k], tp.sk_bytes);
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
  if (!expand_slot.empty()) std::memcpy(h + off_slots, expand_slot.data(), expand_slot.size() * sizeof(uint32_t));

  MLDSA_SIGN_TRY("cudaMemcpyAsync", cudaMemcpyAsync(s.in.dev, h, in_bytes, cudaMemcpyHostToDevice, s.stream));
  uint8_t* d = s.in.dev;
  uint8_t* x = s.scratch.dev;
  const SignChunk c{d,
                    reinterpret_cast<const uint32_t*>(d + off_index),
                    d + off_mus,
                    d + off_rnds,
                    cache ? cache->arena : reinterpret_cast<int32_t*>(x),
                    x + off_rhopp,
                    s.out.dev,
                    static_cast<uint32_t>(nexpand),
                    cache ? reinterpret_cast<const uint32_t*>(d + off_slots) : nullptr};
  MLDSA_SIGN_TRY("launch_sign", launch_sign(tp, c, reinterpret_cast<uint32_t*>(x + off_sched),
                                            static_cast<uint32_t>(count), mode == SignScheduling::dynamic,
                                            s.stream));
  MLDSA_SIGN_TRY("cudaMemcpyAsync",
                 cudaMemcpyAsync(s.out.host, s.out.dev, count * tp.sig_bytes, cudaMemcpyDeviceToHost, s.stream));
  // Keys, rnd, the chunk's expanded keys and rho'' leave no trace in device
  // memory (cached keys stay until evicted, overwritten, or the engine ends).
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
