// device_worker.h - one logical device of the engine: its streams, the pinned
// and device buffers of each, the expanded-key caches, and the chunk pipeline
// of keygen, verify and sign on them. Internal to kernels/.
//
// Single-threaded: the engine's host thread for this logical device creates
// it, makes every call and destroys it, so all of a device's calls happen on
// threads the engine owns. Plain C++ against kernels/device/device.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/device/device.h"
#include "kernels/host/batch_items.h"
#include "kernels/host/engine_config.h"
#include "kernels/host/host_threads.h"
#include "kernels/host/key_cache.h"

namespace mldsa::gpu {

class DeviceWorker {
 public:
  // Streams, events, the key caches when enabled, and buffers for chunks of
  // config.first_chunk_items tasks of any parameter set. The buffers grow
  // (doubling) when a batch is bigger, up to config.chunk_items and what
  // config.buffer_bytes_limit holds; a batch no bigger than an earlier one
  // allocates and frees nothing.
  // pool: the engine's staging helpers (used for big chunks; may have none).
  static EngineStatus create(Device& device, const EngineConfig& config, HostPool& pool,
                             std::unique_ptr<DeviceWorker>& out);
  ~DeviceWorker();
  DeviceWorker(const DeviceWorker&) = delete;
  DeviceWorker& operator=(const DeviceWorker&) = delete;

  // As Engine's, for this device's share of a batch.
  EngineStatus keygen(const TaskParams& tp, const KeygenItem* items, size_t n);
  EngineStatus verify(const TaskParams& tp, const VerifyItem* items, size_t n, Status* results);
  // sigs: the batch's contiguous output for items without a sig of their own.
  EngineStatus sign(const TaskParams& tp, const SignItem* items, size_t n, uint8_t* sigs, Status* results,
                    SignScheduling mode);

  // Tasks per chunk the buffers hold now, and the most they may grow to.
  size_t chunk_capacity() const { return capacity_; }
  size_t chunk_limit() const { return limit_; }

  // A device that timed out or failed for good: every call fails at once.
  bool lost() const { return lost_; }
  const std::string& lost_reason() const { return lost_reason_; }
  const DeviceProperties& properties() const { return device_.properties(); }

  enum class Op : uint8_t { keygen, verify, sign };
  struct Buffer {
    uint8_t* host = nullptr;  // pinned; nullptr for device-only buffers
    uint8_t* dev = nullptr;
    size_t bytes = 0;
  };
  // One stream, its buffers, and what its chunk in flight owes the caller.
  struct Slot {
    Stream stream = nullptr;
    Event expanded = nullptr;  // recorded after the chunk's key expansion
    Event done = nullptr;      // recorded after the chunk's last operation
    Buffer in, out, scratch;
    bool busy = false;
    Op op = Op::keygen;
    size_t count = 0;
    TaskParams tp{};
    // Where results go, and which staged bytes are secret.
    const KeygenItem* keygen_items = nullptr;
    const SignItem* sign_items = nullptr;
    uint8_t* dst_sigs = nullptr;  // sign: the contiguous output, for items without a sig
    Status* dst_status = nullptr;
    size_t off_a = 0;          // verify: modes in in.host; sign: best words in out.host
    size_t in_secret = 0;      // bytes at the start of in
    size_t out_secret_off = 0, out_secret = 0;
    size_t scratch_secret = 0; // bytes at the start of scratch
  };
  struct CachedKeys;
  // A chunk's keys: per item the slot of its expanded key (in the cache, or,
  // without it, the chunk's own expansion of its distinct keys), the keys to
  // expand and where, and the other streams' events to wait for.
  struct KeyPlan {
    CachedKeys* cache = nullptr;
    std::vector<uint32_t> index;
    std::vector<const uint8_t*> expand;
    std::vector<uint32_t> expand_slot;  // with the cache
    std::vector<Event> waits;
  };

 private:
  DeviceWorker(Device& device, const EngineConfig& config, HostPool& pool);

  EngineStatus failure(const DeviceStatus& st, const char* what);
  template <typename Stage>
  EngineStatus run(size_t n, Stage stage);
  EngineStatus finish(Slot& s);
  void free_buffer(Buffer& b);
  DeviceStatus make_buffers(size_t chunk, const char** what);
  EngineStatus grow(size_t n);
  DeviceStatus settle(Slot& s);
  void deliver(Slot& s);
  void wipe_host(Slot& s);
  void drain();
  void clear_caches();
  // fn(first, last) over [0, n): on the staging helpers for a big chunk.
  template <typename Fn>
  void each(size_t n, Fn fn);
  template <typename KeyOf>
  EngineStatus plan_keys(Slot& s, std::vector<std::unique_ptr<CachedKeys>>& caches, size_t key_bytes, size_t count,
                         KeyOf key_of, KeyPlan& plan);
  EngineStatus stage_keygen(Slot& s, const KeygenItem* items, size_t count);
  EngineStatus stage_verify(Slot& s, const VerifyItem* items, size_t max_count, Status* results, size_t* taken);
  EngineStatus stage_sign(Slot& s, const SignItem* items, size_t count, uint8_t* sigs, Status* results,
                          SignScheduling mode);

  Device& device_;
  const EngineConfig config_;
  HostPool& pool_;
  std::vector<Slot> slots_;
  std::vector<std::unique_ptr<CachedKeys>> sign_caches_, verify_caches_;  // by parameter set, when enabled
  size_t capacity_ = 0;     // tasks per chunk the buffers hold
  size_t limit_ = 0;        // ... at most (the batch and memory limits, or where the device ran out)
  size_t arena_bytes_ = 0;  // verify: M' bytes one chunk can stage
  bool lost_ = false;
  std::string lost_reason_;
};

}  // namespace mldsa::gpu
