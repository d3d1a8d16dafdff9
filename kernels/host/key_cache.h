// key_cache.h - the bookkeeping of a device's cache of expanded private keys
// (kernels/host/device_worker.cc holds the device memory): which cache slot holds
// which key, least recently used first out, and which streams may still read
// a slot. Plain C++, tested on the CPU (tests/kernels/sign_task_test.cc).
//
// A key is identified by its full skEncode bytes (a host copy, zeroed when
// the key leaves the cache). Slots a chunk uses are pinned until the next
// chunk begins, so one chunk never evicts its own keys.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "cpu/mldsa.h"

namespace mldsa::gpu {

class KeyCache {
 public:
  struct Lookup {
    bool ok = false;      // false: every slot is pinned by this chunk
    uint32_t slot = 0;
    bool fresh = false;   // a miss: the caller expands the key into slot
    // Streams to finish before the chunk's kernels may use the slot: on a
    // miss, those whose work may still read the slot's old key; on a hit, the
    // one whose chunk expands the key, while it may still be in flight.
    uint64_t streams = 0;
  };

  explicit KeyCache(uint32_t capacity) : entries_(capacity) {}
  ~KeyCache() { clear(); }
  KeyCache(const KeyCache&) = delete;
  KeyCache& operator=(const KeyCache&) = delete;

  uint32_t capacity() const { return static_cast<uint32_t>(entries_.size()); }

  void begin_chunk() { ++generation_; }

  // The slot of key sk for a chunk staged on stream (< 64).
  Lookup lookup(const uint8_t* sk, size_t len, unsigned stream) {
    std::string key(reinterpret_cast<const char*>(sk), len);
    const uint64_t bit = uint64_t{1} << stream;
    Lookup out;
    if (auto it = index_.find(key); it != index_.end()) {
      Entry& e = entries_[it->second];
      e.last_use = ++clock_;
      e.generation = generation_;
      out = {true, it->second, false, e.expanding & ~bit};
      e.streams |= bit;
    } else {
      uint32_t victim = capacity();
      for (uint32_t i = 0; i < capacity(); ++i) {
        const Entry& e = entries_[i];
        if (e.generation == generation_ && e.used) continue;  // pinned by this chunk
        if (victim == capacity() || !e.used || (entries_[victim].used && e.last_use < entries_[victim].last_use))
          victim = i;
        if (!e.used) break;
      }
      if (victim < capacity()) {
        Entry& e = entries_[victim];
        if (e.used) forget(victim);
        out = {true, victim, true, e.streams & ~bit};
        e = Entry{true, ++clock_, generation_, bit, bit};
        index_.emplace(key, victim);
      }
    }
    secure_zero(key.data(), key.size());
    return out;
  }

  // The stream's work has finished: it reads no slot any more.
  void release_stream(unsigned stream) {
    for (Entry& e : entries_) {
      e.streams &= ~(uint64_t{1} << stream);
      e.expanding &= ~(uint64_t{1} << stream);
    }
  }

  // Drops every key (after a failure, or when the device memory is wiped).
  void clear() {
    for (uint32_t i = 0; i < capacity(); ++i)
      if (entries_[i].used) forget(i);
    for (Entry& e : entries_) e = Entry{};
  }

 private:
  struct Entry {
    bool used = false;
    uint64_t last_use = 0, generation = 0;
    uint64_t streams = 0;    // streams whose work in flight reads the slot
    uint64_t expanding = 0;  // the stream whose work in flight expands the key into it
  };
  void forget(uint32_t slot) {
    for (auto it = index_.begin(); it != index_.end(); ++it) {
      if (it->second != slot) continue;
      auto node = index_.extract(it);
      secure_zero(node.key().data(), node.key().size());
      break;
    }
    entries_[slot].used = false;
  }

  std::vector<Entry> entries_;
  std::unordered_map<std::string, uint32_t> index_;
  uint64_t clock_ = 0, generation_ = 1;
};

}  // namespace mldsa::gpu
