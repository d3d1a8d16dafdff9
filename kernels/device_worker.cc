// device_worker.cc - one logical device's chunk pipeline: staging in pinned
// memory, copies, launches, copies back, the wiping of secrets, and what
// happens after a failure (see device_worker.h).
#include "kernels/device_worker.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "cpu/keccak.h"
#include "kernels/task/chunk.h"

namespace mldsa::gpu {
namespace {

size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

// Verify: bytes of M' one chunk may stage, per chunk item. A chunk ends early
// when its messages fill the arena; a message longer than an eighth of the
// arena has its mu computed on the host instead.
constexpr size_t kArenaPerItem = 256;
// Expanded private keys a device caches per parameter set; a chunk uses the
// cache when it has at most a quarter of that many distinct keys.
constexpr uint32_t kCacheKeys = 256;

// Staging layouts (offsets 8-aligned), one per operation. The same functions
// size the buffers when the worker is made and place a chunk's data.
struct KeygenLayout {
  size_t in_bytes, pk_total, out_bytes;
  KeygenLayout(const TaskParams& tp, size_t count)
      : in_bytes(count * SEED_BYTES), pk_total(count * tp.pk_bytes), out_bytes(pk_total + count * tp.sk_bytes) {}
};

// in = pks | sigs | mus | modes | offsets (count + 1) | arena; out = a result code per item.
struct VerifyLayout {
  size_t sigs, mus, modes, offsets, arena, in_bytes, out_bytes;
  VerifyLayout(const TaskParams& tp, size_t count, size_t arena_bytes) {
    sigs = align8(count * tp.pk_bytes);
    mus = align8(sigs + count * tp.sig_bytes);
    modes = align8(mus + count * MU_BYTES);
    offsets = align8(modes + count);
    arena = align8(offsets + (count + 1) * sizeof(uint32_t));
    in_bytes = arena + arena_bytes;
    out_bytes = count;
  }
};

// in = sks of the keys to expand (secret) | rnds (secret) | mus | key_index |
// expand slots; scratch (device only) = expanded keys, unless cached (secret)
// | rho'' (secret) | schedule; out = sigs | best attempt per task.
struct SignLayout {
  size_t rnds, mus, index, slots, in_bytes;
  size_t rhopp, sched, scratch_bytes;
  size_t best, out_bytes;
  SignLayout(const TaskParams& tp, size_t count, size_t nexpand, bool cached) {
    rnds = align8(nexpand * tp.sk_bytes);
    mus = align8(rnds + count * RND_BYTES);
    index = align8(mus + count * MU_BYTES);
    slots = align8(index + count * sizeof(uint32_t));
    in_bytes = slots + (cached ? nexpand : 0) * sizeof(uint32_t);
    rhopp = cached ? 0 : align8(nexpand * sign_key_words(tp) * sizeof(int32_t));
    sched = align8(rhopp + count * 64);
    scratch_bytes = sched + sign_schedule_words(static_cast<uint32_t>(count)) * sizeof(uint32_t);
    best = align8(count * tp.sig_bytes);
    out_bytes = best + count * sizeof(uint32_t);
  }
};

constexpr ParamSet kSets[] = {ParamSet::ML_DSA_44, ParamSet::ML_DSA_65, ParamSet::ML_DSA_87};

size_t set_index(const TaskParams& tp) { return tp.k / 2 - 2; }  // k = 4, 6, 8

}  // namespace

struct DeviceWorker::CachedKeys {
  KeyCache book{kCacheKeys};
  int32_t* arena = nullptr;  // kCacheKeys expanded keys (secret)
  size_t bytes = 0;
};

#define MLDSA_DEVICE_TRY(what, call)                     \
  do {                                                   \
    const DeviceStatus st_ = (call);                     \
    if (!st_.ok()) return failure(st_, what);            \
  } while (0)

DeviceWorker::DeviceWorker(Device& device, const EngineConfig& config) : device_(device), config_(config) {}

EngineStatus DeviceWorker::create(Device& device, const EngineConfig& config, std::unique_ptr<DeviceWorker>& out) {
  std::unique_ptr<DeviceWorker> w(new DeviceWorker(device, config));
  const size_t chunk = config.chunk_items;
  w->arena_bytes_ = chunk * kArenaPerItem;
  size_t in = 0, outb = 0, scratch = 0;
  for (ParamSet set : kSets) {
    const TaskParams tp = task_params(params(set));
    const KeygenLayout k(tp, chunk);
    const VerifyLayout v(tp, chunk, w->arena_bytes_);
    const SignLayout s(tp, chunk, chunk, false);
    in = std::max({in, k.in_bytes, v.in_bytes, s.in_bytes});
    outb = std::max({outb, k.out_bytes, v.out_bytes, s.out_bytes});
    scratch = std::max(scratch, s.scratch_bytes);
  }
  w->slots_.resize(config.streams);
  auto alloc = [&](Buffer& b, size_t bytes, bool pinned) -> EngineStatus {
    void* d = nullptr;
    if (DeviceStatus st = device.alloc_device(bytes, &d); !st.ok()) return w->failure(st, "alloc_device");
    b.dev = static_cast<uint8_t*>(d);
    b.bytes = bytes;
    if (pinned) {
      void* h = nullptr;
      if (DeviceStatus st = device.alloc_pinned(bytes, &h); !st.ok()) return w->failure(st, "alloc_pinned");
      b.host = static_cast<uint8_t*>(h);
    }
    return {};
  };
  for (Slot& s : w->slots_) {
    if (DeviceStatus st = device.create_stream(&s.stream); !st.ok()) return w->failure(st, "create_stream");
    if (DeviceStatus st = device.create_event(&s.expanded); !st.ok()) return w->failure(st, "create_event");
    if (DeviceStatus st = device.create_event(&s.done); !st.ok()) return w->failure(st, "create_event");
    if (EngineStatus st = alloc(s.in, in, true); !st.ok()) return st;
    if (EngineStatus st = alloc(s.out, outb, true); !st.ok()) return st;
    if (EngineStatus st = alloc(s.scratch, scratch, false); !st.ok()) return st;
  }
  if (config.sign_key_cache) {
    for (ParamSet set : kSets) {
      auto c = std::make_unique<CachedKeys>();
      c->bytes = size_t{kCacheKeys} * sign_key_words(task_params(params(set))) * sizeof(int32_t);
      void* a = nullptr;
      if (DeviceStatus st = device.alloc_device(c->bytes, &a); !st.ok()) return w->failure(st, "alloc_device (key cache)");
      c->arena = static_cast<int32_t*>(a);
      w->caches_.push_back(std::move(c));
    }
  }
  out = std::move(w);
  return {};
}

DeviceWorker::~DeviceWorker() {
  if (!lost_) drain();
  if (!lost_) clear_caches();
  if (lost_) {
    // Abandoned: freeing would wait for the hung work. The host side of the
    // staging is ours to wipe, once a stream's copy in progress (if any) is
    // given a moment to end; a copy queued behind a hung kernel can still
    // write its pinned buffer later, which is why those buffers are never
    // freed for reuse.
    for (Slot& s : slots_) {
      if (s.stream) device_.synchronize(s.stream, std::chrono::milliseconds(100));
      if (s.in.host) secure_zero(s.in.host, s.in.bytes);
      if (s.out.host) secure_zero(s.out.host, s.out.bytes);
    }
    return;
  }
  for (auto& c : caches_)
    if (c->arena) device_.free_device(c->arena);
  for (Slot& s : slots_) {
    for (Buffer* b : {&s.in, &s.out, &s.scratch}) {
      if (b->host) device_.free_pinned(b->host);
      if (b->dev) device_.free_device(b->dev);
    }
    if (s.expanded) device_.destroy_event(s.expanded);
    if (s.done) device_.destroy_event(s.done);
    if (s.stream) device_.destroy_stream(s.stream);
  }
}

EngineStatus DeviceWorker::failure(const DeviceStatus& st, const char* what) {
  if (st.code == DeviceErrc::timeout || st.code == DeviceErrc::lost) {
    if (!lost_) {
      lost_ = true;
      lost_reason_ = st.what;
    }
    return {EngineError::device_lost, std::string(what) + ": " + st.what + " (the device is no longer used)"};
  }
  return {EngineError::device, std::string(what) + ": " + st.what};
}

// Runs stage(slot, first, at_most, &taken) over [0, n), round-robin over the
// slots; a slot's previous chunk is finished (results delivered) before the
// slot is staged again.
template <typename Stage>
EngineStatus DeviceWorker::run(size_t n, Stage stage) {
  if (lost_) return {EngineError::device_lost, "device lost earlier: " + lost_reason_};
  EngineStatus st;
  size_t next = 0;
  for (size_t first = 0; first < n && st.ok();) {
    Slot& s = slots_[next++ % slots_.size()];
    st = finish(s);
    size_t taken = 0;
    if (st.ok()) st = stage(s, first, std::min(config_.chunk_items, n - first), &taken);
    first += taken;
  }
  for (Slot& s : slots_)
    if (st.ok()) st = finish(s);
  if (!st.ok()) drain();
  return st;
}

EngineStatus DeviceWorker::finish(Slot& s) {
  if (!s.busy) return {};
  // On failure the slot stays busy: drain() then wipes its secrets.
  MLDSA_DEVICE_TRY("synchronize", device_.synchronize(s.stream, config_.timeout));
  deliver(s);
  wipe_host(s);
  s.busy = false;
  const unsigned me = static_cast<unsigned>(&s - slots_.data());
  for (auto& c : caches_) c->book.release_stream(me);
  return {};
}

void DeviceWorker::deliver(Slot& s) {
  const TaskParams& tp = s.tp;
  switch (s.op) {
    case Op::keygen:
      std::memcpy(s.dst_a, s.out.host, s.count * tp.pk_bytes);
      std::memcpy(s.dst_b, s.out.host + s.out_secret_off, s.count * tp.sk_bytes);
      return;
    case Op::verify: {
      const uint8_t* modes = s.in.host + s.off_a;
      for (size_t i = 0; i < s.count; ++i)
        if (modes[i] != kVerifySkip) s.dst_status[i] = verify_result_status(s.out.host[i]);
      return;
    }
    case Op::sign: {
      std::memcpy(s.dst_a, s.out.host, s.count * tp.sig_bytes);
      uint32_t best;
      for (size_t i = 0; i < s.count; ++i) {
        std::memcpy(&best, s.out.host + s.off_a + i * sizeof best, sizeof best);
        s.dst_status[i] = best == kNoAttempt ? Status::sign_attempts_exhausted : Status::ok;
      }
      return;
    }
  }
}

void DeviceWorker::wipe_host(Slot& s) {
  if (s.in_secret) secure_zero(s.in.host, s.in_secret);
  if (s.out_secret) secure_zero(s.out.host + s.out_secret_off, s.out_secret);
  s.in_secret = s.out_secret = 0;
}

// Waits until s's stream has run everything queued on it. A synchronize that
// fails reports one failure (a failed call, or work that failed) and may not
// have waited, so it is asked again; ok, a timeout or a lost device ends it.
// A stream still failing after a few tries is not known to be idle.
DeviceStatus DeviceWorker::settle(Slot& s) {
  DeviceStatus st;
  for (int tries = 0; tries < 4; ++tries) {
    st = device_.synchronize(s.stream, config_.timeout);
    if (st.code != DeviceErrc::failed) return st;
  }
  return {DeviceErrc::lost, st.what + " (the stream keeps failing; it is not known to be idle)"};
}

// After a failure: every stream finished, the secrets of the chunks in flight
// zeroed on both sides, and the key caches emptied (a failed chunk may have
// left a slot half expanded). A stream that is not known to have finished,
// or whose secrets could not be zeroed, loses the device: nothing more is
// queued on it.
void DeviceWorker::drain() {
  for (Slot& s : slots_) {
    if (!s.busy) continue;
    if (!lost_) {
      DeviceStatus st = settle(s);
      if (st.ok() && s.in_secret) st = device_.zero(s.stream, s.in.dev, s.in_secret);
      if (st.ok() && s.out_secret) st = device_.zero(s.stream, s.out.dev + s.out_secret_off, s.out_secret);
      if (st.ok() && s.scratch_secret) st = device_.zero(s.stream, s.scratch.dev, s.scratch_secret);
      // The zeroes ran, or the stream is idle after a failed call to queue one.
      const DeviceStatus done = settle(s);
      if (st.ok()) st = done;
      if (done.code == DeviceErrc::timeout || done.code == DeviceErrc::lost) {
        failure(done, "drain");
      } else if (!st.ok()) {
        // The secrets could not be zeroed on the device: give it up rather
        // than leave them for the next chunk's reader.
        failure({DeviceErrc::lost, st.what + " (zeroing secrets after a failure)"}, "drain");
      }
    }
    // Settled, or lost with its copies in done (a stream that timed out is
    // stuck in a kernel, after the copy of its inputs).
    wipe_host(s);
    s.scratch_secret = 0;
    s.busy = false;
  }
  clear_caches();
}

void DeviceWorker::clear_caches() {
  for (auto& c : caches_) {
    c->book.clear();
    if (lost_ || slots_.empty() || slots_[0].stream == nullptr) continue;
    DeviceStatus st = device_.zero(slots_[0].stream, c->arena, c->bytes);
    const DeviceStatus done = settle(slots_[0]);
    if (st.ok()) st = done;
    if (!st.ok()) failure({DeviceErrc::lost, st.what + " (zeroing the key cache)"}, "clearing the key cache");
  }
}

// ---------------------------------------------------------------------------
// KeyGen

EngineStatus DeviceWorker::stage_keygen(Slot& s, const uint8_t* seeds, size_t count, uint8_t* pks, uint8_t* sks) {
  const KeygenLayout L(s.tp, count);
  s.busy = true;  // from here on drain() wipes
  s.op = Op::keygen;
  s.count = count;
  s.dst_a = pks;
  s.dst_b = sks;
  s.in_secret = L.in_bytes;
  s.out_secret_off = L.pk_total;
  s.out_secret = L.out_bytes - L.pk_total;
  s.scratch_secret = 0;
  std::memcpy(s.in.host, seeds, L.in_bytes);
  MLDSA_DEVICE_TRY("copy_to_device", device_.copy_to_device(s.stream, s.in.dev, s.in.host, L.in_bytes));
  const KeygenChunk c{s.in.dev, s.out.dev, s.out.dev + L.pk_total};
  MLDSA_DEVICE_TRY("launch_keygen", device_.launch_keygen(s.stream, config_.kernels, s.tp, c, static_cast<uint32_t>(count)));
  MLDSA_DEVICE_TRY("copy_to_host", device_.copy_to_host(s.stream, s.out.host, s.out.dev, L.out_bytes));
  // Seeds and secret keys leave no trace in device memory.
  MLDSA_DEVICE_TRY("zero", device_.zero(s.stream, s.in.dev, L.in_bytes));
  MLDSA_DEVICE_TRY("zero", device_.zero(s.stream, s.out.dev + L.pk_total, s.out_secret));
  MLDSA_DEVICE_TRY("record", device_.record(s.done, s.stream));
  return {};
}

EngineStatus DeviceWorker::keygen(const TaskParams& tp, const uint8_t* seeds, size_t n, uint8_t* pks, uint8_t* sks) {
  return run(n, [&](Slot& s, size_t first, size_t count, size_t* taken) {
    s.tp = tp;
    *taken = count;
    return stage_keygen(s, seeds + first * SEED_BYTES, count, pks + first * tp.pk_bytes, sks + first * tp.sk_bytes);
  });
}

// ---------------------------------------------------------------------------
// Verify

EngineStatus DeviceWorker::stage_verify(Slot& s, const VerifyItem* items, size_t max_count, Status* results,
                                        size_t* taken) {
  const TaskParams& tp = s.tp;
  // M' bytes an item stages: 0 for mu items, rejected ones, and messages
  // whose mu the host computes.
  auto staged = [&](const VerifyItem& it) -> size_t {
    if (it.mu || it.ctx_len > MAX_CONTEXT_BYTES) return 0;
    const size_t m = 2 + it.ctx_len + it.msg_len;
    return m > arena_bytes_ / 8 ? 0 : m;
  };
  size_t count = 0, arena_used = 0;
  for (; count < max_count; ++count) {
    const VerifyItem& it = items[count];
    if ((!it.msg && it.msg_len) || (!it.ctx && it.ctx_len))
      return {EngineError::bad_argument, "verify: an item with a null msg or ctx of non-zero length"};
    const size_t m = staged(it);
    if (arena_used + m > arena_bytes_) break;
    arena_used += m;
  }
  *taken = count;
  const VerifyLayout L(tp, count, arena_used);
  s.busy = true;
  s.op = Op::verify;
  s.count = count;
  s.dst_status = results;
  s.off_a = L.modes;
  s.in_secret = s.out_secret = s.scratch_secret = 0;

  uint8_t* h = s.in.host;
  uint8_t* modes = h + L.modes;
  uint32_t pos = 0;
  for (size_t i = 0; i < count; ++i) {
    const VerifyItem& it = items[i];
    std::memcpy(h + L.offsets + i * sizeof pos, &pos, sizeof pos);
    modes[i] = kVerifySkip;
    // What the core checks before the arithmetic, in its order.
    if (!it.pk) {
      results[i] = Status::bad_pk_length;
    } else if (!it.mu && it.ctx_len > MAX_CONTEXT_BYTES) {
      results[i] = Status::context_too_long;
    } else if (!it.sig || it.sig_len != tp.sig_bytes) {
      results[i] = Status::bad_sig_length;
    } else {
      std::memcpy(h + i * tp.pk_bytes, it.pk, tp.pk_bytes);
      std::memcpy(h + L.sigs + i * tp.sig_bytes, it.sig, tp.sig_bytes);
      uint8_t* mu = h + L.mus + i * MU_BYTES;
      const size_t m = staged(it);
      if (it.mu) {
        modes[i] = kVerifyMu;
        std::memcpy(mu, it.mu, MU_BYTES);
      } else if (m == 0) {
        // Too long to stage: mu = H(H(pk) || M') here (FIPS 204 Algorithm 3).
        uint8_t tr[TR_BYTES];
        shake256(tr, sizeof tr, it.pk, tp.pk_bytes);
        MuBuilder b;
        b.init_pure(tr, {it.ctx, it.ctx_len});
        b.update({it.msg, it.msg_len});
        b.final(mu);
        modes[i] = kVerifyMu;
      } else {
        // M' = 0 || len(ctx) || ctx || msg  (FIPS 204 Algorithm 3 line 5)
        modes[i] = kVerifyMessage;
        uint8_t* mp = h + L.arena + pos;
        mp[0] = 0;
        mp[1] = static_cast<uint8_t>(it.ctx_len);
        if (it.ctx_len) std::memcpy(mp + 2, it.ctx, it.ctx_len);
        if (it.msg_len) std::memcpy(mp + 2 + it.ctx_len, it.msg, it.msg_len);
        pos += static_cast<uint32_t>(m);
      }
    }
  }
  std::memcpy(h + L.offsets + count * sizeof pos, &pos, sizeof pos);

  const size_t in_bytes = L.arena + pos;
  MLDSA_DEVICE_TRY("copy_to_device", device_.copy_to_device(s.stream, s.in.dev, h, in_bytes));
  const uint8_t* d = s.in.dev;
  const VerifyChunk c{d,
                      d + L.sigs,
                      d + L.mus,
                      d + L.modes,
                      reinterpret_cast<const uint32_t*>(d + L.offsets),
                      d + L.arena,
                      s.out.dev};
  MLDSA_DEVICE_TRY("launch_verify", device_.launch_verify(s.stream, config_.kernels, tp, c, static_cast<uint32_t>(count)));
  MLDSA_DEVICE_TRY("copy_to_host", device_.copy_to_host(s.stream, s.out.host, s.out.dev, L.out_bytes));
  MLDSA_DEVICE_TRY("record", device_.record(s.done, s.stream));
  return {};
}

EngineStatus DeviceWorker::verify(const TaskParams& tp, const VerifyItem* items, size_t n, Status* results) {
  return run(n, [&](Slot& s, size_t first, size_t count, size_t* taken) {
    s.tp = tp;
    return stage_verify(s, items + first, count, results + first, taken);
  });
}

// ---------------------------------------------------------------------------
// Sign

EngineStatus DeviceWorker::stage_sign(Slot& s, const SignItem* items, size_t count, uint8_t* sigs, Status* results,
                                      SignScheduling mode) {
  const TaskParams& tp = s.tp;
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
  // Another stream's chunk still expanding a key this chunk finds cached, or
  // still reading a slot this chunk evicts, is waited for on the device.
  const unsigned me = static_cast<unsigned>(&s - slots_.data());
  CachedKeys* cache = !caches_.empty() && keys.size() <= kCacheKeys / 4 && slots_.size() <= 64
                          ? caches_[set_index(tp)].get()
                          : nullptr;
  std::vector<const uint8_t*> expand;
  std::vector<uint32_t> expand_slot;
  std::vector<Event> waits;
  if (cache) {
    std::vector<uint32_t> slot_of(keys.size());
    cache->book.begin_chunk();
    for (size_t k = 0; k < keys.size(); ++k) {
      const KeyCache::Lookup l = cache->book.lookup(keys[k], tp.sk_bytes, me);
      if (!l.ok) return {EngineError::device, "sign: key cache full"};  // cannot happen: at most a quarter is pinned
      for (unsigned j = 0; j < slots_.size(); ++j)
        if ((l.streams >> j) & 1) waits.push_back(l.fresh ? slots_[j].done : slots_[j].expanded);
      if (l.fresh) {
        expand.push_back(keys[k]);
        expand_slot.push_back(l.slot);
      }
      slot_of[k] = l.slot;
    }
    for (uint32_t& i : index) i = slot_of[i];
    std::sort(waits.begin(), waits.end());
    waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
  } else {
    expand = keys;
  }
  const size_t nexpand = expand.size();
  const SignLayout L(tp, count, nexpand, cache != nullptr);
  s.busy = true;  // from here on drain() wipes
  s.op = Op::sign;
  s.count = count;
  s.dst_a = sigs;
  s.dst_status = results;
  s.off_a = L.best;
  s.in_secret = L.mus;  // keys and rnds
  s.out_secret = 0;
  s.scratch_secret = L.sched;  // expanded keys and rho''

  uint8_t* h = s.in.host;
  for (size_t k = 0; k < nexpand; ++k) std::memcpy(h + k * tp.sk_bytes, expand[k], tp.sk_bytes);
  // Hedged items (rnd == nullptr) get fresh OS randomness: one draw for the
  // whole chunk, then the caller's rnd where given.
  const bool hedged = std::any_of(items, items + count, [](const SignItem& it) { return !it.rnd; });
  if (hedged && !os_random(h + L.rnds, count * RND_BYTES))
    return {EngineError::bad_argument, "sign: the OS random source failed"};
  for (size_t i = 0; i < count; ++i) {
    if (items[i].rnd) std::memcpy(h + L.rnds + i * RND_BYTES, items[i].rnd, RND_BYTES);
    std::memcpy(h + L.mus + i * MU_BYTES, items[i].mu, MU_BYTES);
  }
  std::memcpy(h + L.index, index.data(), count * sizeof(uint32_t));
  if (!expand_slot.empty()) std::memcpy(h + L.slots, expand_slot.data(), expand_slot.size() * sizeof(uint32_t));

  MLDSA_DEVICE_TRY("copy_to_device", device_.copy_to_device(s.stream, s.in.dev, h, L.in_bytes));
  for (Event e : waits) MLDSA_DEVICE_TRY("wait", device_.wait(s.stream, e));
  uint8_t* d = s.in.dev;
  uint8_t* x = s.scratch.dev;
  const SignChunk c{d,
                    reinterpret_cast<const uint32_t*>(d + L.index),
                    d + L.mus,
                    d + L.rnds,
                    cache ? cache->arena : reinterpret_cast<int32_t*>(x),
                    x + L.rhopp,
                    s.out.dev,
                    static_cast<uint32_t>(nexpand),
                    cache ? reinterpret_cast<const uint32_t*>(d + L.slots) : nullptr};
  if (nexpand > 0) MLDSA_DEVICE_TRY("launch_sign_expand", device_.launch_sign_expand(s.stream, config_.kernels, tp, c));
  MLDSA_DEVICE_TRY("record", device_.record(s.expanded, s.stream));
  const bool dynamic = mode == SignScheduling::dynamic;
  const SignSchedule sched = sign_schedule_at(reinterpret_cast<uint32_t*>(x + L.sched), static_cast<uint32_t>(count),
                                              dynamic, config_.sign_attempt_limit);
  MLDSA_DEVICE_TRY("launch_sign_prepare", device_.launch_sign_prepare(s.stream, config_.kernels, tp, c, sched));
  const uint32_t units =
      dynamic ? std::min<uint32_t>(device_.properties().units(config_.kernels), static_cast<uint32_t>(count))
              : static_cast<uint32_t>(count);
  MLDSA_DEVICE_TRY("launch_sign_loop", device_.launch_sign_loop(s.stream, config_.kernels, tp, c, sched, std::max(units, 1u)));
  MLDSA_DEVICE_TRY("copy_to_host", device_.copy_to_host(s.stream, s.out.host, s.out.dev, count * tp.sig_bytes));
  MLDSA_DEVICE_TRY("copy_to_host", device_.copy_to_host(s.stream, s.out.host + L.best, sched.best,
                                                        count * sizeof(uint32_t)));
  // Keys, rnd, the chunk's expanded keys and rho'' leave no trace in device
  // memory (cached keys stay until evicted, the cache is cleared, or the
  // engine ends).
  MLDSA_DEVICE_TRY("zero", device_.zero(s.stream, s.in.dev, s.in_secret));
  MLDSA_DEVICE_TRY("zero", device_.zero(s.stream, s.scratch.dev, s.scratch_secret));
  MLDSA_DEVICE_TRY("record", device_.record(s.done, s.stream));
  return {};
}

EngineStatus DeviceWorker::sign(const TaskParams& tp, const SignItem* items, size_t n, uint8_t* sigs,
                                Status* results, SignScheduling mode) {
  return run(n, [&](Slot& s, size_t first, size_t count, size_t* taken) {
    s.tp = tp;
    *taken = count;
    return stage_sign(s, items + first, count, sigs + first * tp.sig_bytes, results + first, mode);
  });
}

}  // namespace mldsa::gpu
