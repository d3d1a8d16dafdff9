// device_worker.cc - one logical device's chunk pipeline: staging in pinned
// memory, copies, launches, copies back, the wiping of secrets, and what
// happens after a failure (see device_worker.h).
#include "kernels/host/device_worker.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <span>
#include <unordered_map>

#include "cpu/keccak.h"
#include "kernels/thread/chunk.h"

namespace mldsa::gpu {
namespace {

size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

// Verify: bytes of M' one chunk may stage, per chunk item. A chunk ends early
// when its messages fill the arena; a message longer than an eighth of the
// arena has its mu computed on the host instead.
constexpr size_t kArenaPerItem = 256;

// Staging layouts (offsets 8-aligned), one per operation. The same functions
// size the buffers when the worker is made and place a chunk's data.
struct KeygenLayout {
  size_t in_bytes, pk_total, out_bytes;
  KeygenLayout(const TaskParams& tp, size_t count)
      : in_bytes(count * SEED_BYTES), pk_total(count * tp.pk_bytes), out_bytes(pk_total + count * tp.sk_bytes) {}
};

// in = pks | sigs | mus | modes | offsets (count + 1) | key_index | expand
// slots | arena; out = a result code per item. Without the public-key cache
// pks has every item's key (npks = count); with it, the keys to expand into
// the cache (npks of them, at the slots), and key_index the item's slot.
struct VerifyLayout {
  size_t sigs, mus, modes, offsets, index, slots, arena, in_bytes, out_bytes;
  VerifyLayout(const TaskParams& tp, size_t count, size_t arena_bytes, size_t npks, bool cached) {
    sigs = align8(npks * tp.pk_bytes);
    mus = align8(sigs + count * tp.sig_bytes);
    modes = align8(mus + count * MU_BYTES);
    offsets = align8(modes + count);
    index = align8(offsets + (count + 1) * sizeof(uint32_t));
    slots = align8(index + (cached ? count : 0) * sizeof(uint32_t));
    arena = align8(slots + (cached ? npks : 0) * sizeof(uint32_t));
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
    mus = align8(rnds + count * tp.rnd_bytes);
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

constexpr ParamSet kSets[] = {ParamSet::ML_DSA_44,  ParamSet::ML_DSA_65,  ParamSet::ML_DSA_87,
                              ParamSet::DILITHIUM2, ParamSet::DILITHIUM3, ParamSet::DILITHIUM5};
static_assert(std::size(kSets) == PARAM_SET_COUNT);

// The key caches are per shape (k = 4, 6, 8), shared by ML-DSA and round 3:
// an expanded key has one layout in both schemes (kernels/thread/verify.h, sign.h),
// and signing keys, found by their sk bytes, cannot meet the other scheme's
// (its sk is 32 bytes shorter).
constexpr size_t kShapes = 3;
size_t set_index(const TaskParams& tp) { return tp.k / 2 - 2; }

// What one stream's buffers take for chunks of up to `chunk` tasks of any
// parameter set: staging in (pinned and device), results out (pinned and
// device), and device-only scratch.
struct SlotBytes {
  size_t in = 0, out = 0, scratch = 0;
  size_t device() const { return in + out + scratch; }
};
SlotBytes slot_bytes(const EngineConfig& config, size_t chunk) {
  SlotBytes b;
  const size_t arena = chunk * kArenaPerItem;
  for (ParamSet set : kSets) {
    const TaskParams tp = task_params(params(set));
    const KeygenLayout k(tp, chunk);
    const VerifyLayout v(tp, chunk, arena, chunk, false);
    const VerifyLayout vc(tp, chunk, arena, std::min<size_t>(chunk, config.key_cache_slots / 4), true);
    const SignLayout sl(tp, chunk, chunk, false);
    b.in = std::max({b.in, k.in_bytes, v.in_bytes, vc.in_bytes, sl.in_bytes});
    b.out = std::max({b.out, k.out_bytes, v.out_bytes, sl.out_bytes});
    b.scratch = std::max(b.scratch, sl.scratch_bytes);
  }
  return b;
}

}  // namespace

// Expanded keys (private ones for signing, public ones for verification) a
// device caches per parameter set (EngineConfig::key_cache_slots); a chunk
// uses the cache when it has at most a quarter of that many distinct keys.
struct DeviceWorker::CachedKeys {
  explicit CachedKeys(uint32_t slots) : book(slots) {}
  KeyCache book;
  int32_t* arena = nullptr;  // the expanded keys (secret, for signing keys); made on first use
  size_t bytes = 0;
  bool refused = false;      // the device had no room for it: chunks expand their own keys
};

#define MLDSA_DEVICE_TRY(what, call)                     \
  do {                                                   \
    const DeviceStatus st_ = (call);                     \
    if (!st_.ok()) return failure(st_, what);            \
  } while (0)

DeviceWorker::DeviceWorker(Device& device, const EngineConfig& config, HostPool& pool)
    : device_(device), config_(config), pool_(pool) {}

EngineStatus DeviceWorker::create(Device& device, const EngineConfig& config, HostPool& pool,
                                  std::unique_ptr<DeviceWorker>& out) {
  std::unique_ptr<DeviceWorker> w(new DeviceWorker(device, config, pool));
  // The biggest chunk: the batch limit, and what fits in the memory limit.
  w->limit_ = config.chunk_items;
  if (config.buffer_bytes_limit) {
    auto fits = [&](size_t chunk) { return config.streams * slot_bytes(config, chunk).device() <= config.buffer_bytes_limit; };
    size_t lo = 0, hi = config.chunk_items;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo + 1) / 2;
      if (fits(mid)) lo = mid; else hi = mid - 1;
    }
    if (lo == 0)
      return {EngineError::device, "gpu_memory_mb: " + std::to_string(config.buffer_bytes_limit) +
                                       " bytes do not hold one task per stream (" +
                                       std::to_string(config.streams * slot_bytes(config, 1).device()) + " needed)"};
    w->limit_ = lo;
  }
  w->slots_.resize(config.streams);
  for (Slot& s : w->slots_) {
    if (DeviceStatus st = device.create_stream(&s.stream); !st.ok()) return w->failure(st, "create_stream");
    if (DeviceStatus st = device.create_event(&s.expanded); !st.ok()) return w->failure(st, "create_event");
    if (DeviceStatus st = device.create_event(&s.done); !st.ok()) return w->failure(st, "create_event");
  }
  const char* what = "";
  if (DeviceStatus st = w->make_buffers(std::min(std::max<size_t>(config.first_chunk_items, 1), w->limit_), &what);
      !st.ok())
    return w->failure(st, what);
  // The key caches are made when a parameter set's first chunk uses one
  // (plan_keys): a process that signs with one set holds no other set's.
  auto make_caches = [&](std::vector<std::unique_ptr<CachedKeys>>& caches, uint32_t (*words)(const TaskParams&)) {
    for (ParamSet set : std::span(kSets, kShapes)) {  // the ML-DSA sets: one per shape
      auto c = std::make_unique<CachedKeys>(config.key_cache_slots);
      c->bytes = size_t{config.key_cache_slots} * words(task_params(params(set))) * sizeof(int32_t);
      caches.push_back(std::move(c));
    }
  };
  if (config.sign_key_cache) make_caches(w->sign_caches_, sign_key_words);
  // The cooperative verify expands each key in its block: no public-key cache.
  if (config.verify_key_cache && config.kernels == KernelSet::thread) make_caches(w->verify_caches_, verify_key_words);
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
  for (auto* caches : {&sign_caches_, &verify_caches_})
    for (auto& c : *caches)
      if (c->arena) device_.free_device(c->arena);
  for (Slot& s : slots_) {
    for (Buffer* b : {&s.in, &s.out, &s.scratch}) free_buffer(*b);
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

void DeviceWorker::free_buffer(Buffer& b) {
  if (b.host) device_.free_pinned(b.host);
  if (b.dev) device_.free_device(b.dev);
  b = {};
}

// Every stream's buffers for chunks of `chunk` tasks, made afresh while no
// chunk is in flight. All or nothing: on a failure what was made is freed
// and the current buffers stay. The old ones hold no secret (each chunk
// zeroes its secrets on both sides before the slot is free).
DeviceStatus DeviceWorker::make_buffers(size_t chunk, const char** what) {
  const SlotBytes want = slot_bytes(config_, chunk);
  std::vector<Buffer> made(3 * slots_.size());
  DeviceStatus st;
  for (size_t i = 0; i < made.size() && st.ok(); ++i) {
    const size_t bytes = i % 3 == 0 ? want.in : i % 3 == 1 ? want.out : want.scratch;
    void* d = nullptr;
    *what = "alloc_device";
    if (st = device_.alloc_device(bytes, &d); !st.ok()) break;
    made[i].dev = static_cast<uint8_t*>(d);
    made[i].bytes = bytes;
    if (i % 3 == 2) continue;  // scratch: device only
    void* h = nullptr;
    *what = "alloc_pinned";
    if (st = device_.alloc_pinned(bytes, &h); !st.ok()) break;
    made[i].host = static_cast<uint8_t*>(h);
  }
  if (!st.ok()) {
    for (Buffer& b : made) free_buffer(b);
    return st;
  }
  for (size_t k = 0; k < slots_.size(); ++k) {
    Slot& s = slots_[k];
    for (Buffer* b : {&s.in, &s.out, &s.scratch}) free_buffer(*b);
    s.in = made[3 * k];
    s.out = made[3 * k + 1];
    s.scratch = made[3 * k + 2];
  }
  capacity_ = chunk;
  arena_bytes_ = chunk * kArenaPerItem;
  return {};
}

// Before a batch of n tasks: buffers for chunks of that many (doubling, up to
// limit_), so an engine that only sees small batches stays small. A device
// out of memory keeps the chunks it has and stops growing; the batch runs in
// more, smaller chunks.
EngineStatus DeviceWorker::grow(size_t n) {
  const size_t want = std::min(n, limit_);
  if (want <= capacity_) return {};
  size_t next = capacity_;
  while (next < want) next *= 2;
  const char* what = "";
  const DeviceStatus st = make_buffers(std::min(next, limit_), &what);
  if (st.ok() || st.code == DeviceErrc::failed) return {};  // failed: try again with the next batch
  if (st.code == DeviceErrc::out_of_memory) {
    limit_ = capacity_;
    return {};
  }
  return failure(st, what);
}

// Runs stage(slot, first, at_most, &taken) over [0, n), round-robin over the
// slots; a slot's previous chunk is finished (results delivered) before the
// slot is staged again.
template <typename Stage>
EngineStatus DeviceWorker::run(size_t n, Stage stage) {
  if (lost_) return {EngineError::device_lost, "device lost earlier: " + lost_reason_};
  EngineStatus st = grow(n);
  size_t next = 0;
  for (size_t first = 0; first < n && st.ok();) {
    Slot& s = slots_[next++ % slots_.size()];
    st = finish(s);
    size_t taken = 0;
    if (st.ok()) st = stage(s, first, std::min(capacity_, n - first), &taken);
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
  for (auto* caches : {&sign_caches_, &verify_caches_})
    for (auto& c : *caches) c->book.release_stream(me);
  return {};
}

// A chunk's items in pieces on the staging helpers, when there are enough of
// them to pay for the hand-off (a piece copies some 100 KiB or more).
template <typename Fn>
void DeviceWorker::each(size_t n, Fn fn) {
  constexpr size_t kGrain = 64;
  pool_.parallel_for(n, kGrain, fn);
}

// Results from pinned memory straight to where each item wants them.
void DeviceWorker::deliver(Slot& s) {
  const TaskParams& tp = s.tp;
  switch (s.op) {
    case Op::keygen:
      each(s.count, [&](size_t first, size_t last) {
        for (size_t i = first; i < last; ++i) {
          std::memcpy(s.keygen_items[i].pk, s.out.host + i * tp.pk_bytes, tp.pk_bytes);
          if (s.keygen_items[i].sk)
            std::memcpy(s.keygen_items[i].sk, s.out.host + s.out_secret_off + i * tp.sk_bytes, tp.sk_bytes);
        }
      });
      return;
    case Op::verify: {
      const uint8_t* modes = s.in.host + s.off_a;
      for (size_t i = 0; i < s.count; ++i)
        if (modes[i] != kVerifySkip) s.dst_status[i] = verify_result_status(s.out.host[i]);
      return;
    }
    case Op::sign:
      each(s.count, [&](size_t first, size_t last) {
        uint32_t best;
        for (size_t i = first; i < last; ++i) {
          uint8_t* dst = s.sign_items[i].sig ? s.sign_items[i].sig : s.dst_sigs + i * tp.sig_bytes;
          std::memcpy(dst, s.out.host + i * tp.sig_bytes, tp.sig_bytes);
          std::memcpy(&best, s.out.host + s.off_a + i * sizeof best, sizeof best);
          s.dst_status[i] = best == kNoAttempt ? Status::sign_attempts_exhausted : Status::ok;
        }
      });
      return;
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
  for (auto* caches : {&sign_caches_, &verify_caches_})
  for (auto& c : *caches) {
    c->book.clear();
    if (lost_ || c->arena == nullptr || slots_.empty() || slots_[0].stream == nullptr) continue;
    DeviceStatus st = device_.zero(slots_[0].stream, c->arena, c->bytes);
    const DeviceStatus done = settle(slots_[0]);
    if (st.ok()) st = done;
    if (!st.ok()) failure({DeviceErrc::lost, st.what + " (zeroing the key cache)"}, "clearing the key cache");
  }
}

// ---------------------------------------------------------------------------
// The keys of a chunk: each distinct one (by pointer) expanded once for the
// chunk, or, when there are few, looked up in the device's cache of expanded
// keys for the parameter set, expanding only the ones it lacks. Another
// stream's chunk still expanding a key this chunk finds cached, or still
// reading a slot this chunk evicts, is waited for on the device (events),
// not on the host.

template <typename KeyOf>
EngineStatus DeviceWorker::plan_keys(Slot& s, std::vector<std::unique_ptr<CachedKeys>>& caches, size_t key_bytes,
                                     size_t count, KeyOf key_of, KeyPlan& plan) {
  std::unordered_map<const uint8_t*, uint32_t> number;
  std::vector<const uint8_t*> keys;
  plan.index.assign(count, 0);
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* key = key_of(i);
    if (key == nullptr) continue;  // an item the host rejected: no key
    auto [it, fresh] = number.try_emplace(key, static_cast<uint32_t>(keys.size()));
    if (fresh) keys.push_back(key);
    plan.index[i] = it->second;
  }
  plan.cache = !caches.empty() && keys.size() <= config_.key_cache_slots / 4 && slots_.size() <= 64
                   ? caches[set_index(s.tp)].get()
                   : nullptr;
  if (plan.cache != nullptr && plan.cache->arena == nullptr) {
    void* a = nullptr;
    const DeviceStatus st = plan.cache->refused ? DeviceStatus{DeviceErrc::out_of_memory, ""}
                                                : device_.alloc_device(plan.cache->bytes, &a);
    if (st.code == DeviceErrc::timeout || st.code == DeviceErrc::lost) return failure(st, "alloc_device (key cache)");
    if (st.ok()) {
      plan.cache->arena = static_cast<int32_t*>(a);
    } else {
      plan.cache->refused = st.code == DeviceErrc::out_of_memory;  // another error: try again next chunk
      plan.cache = nullptr;
    }
  }
  if (plan.cache == nullptr) {
    plan.expand = std::move(keys);
    return {};
  }
  const unsigned me = static_cast<unsigned>(&s - slots_.data());
  std::vector<uint32_t> slot_of(keys.size());
  plan.cache->book.begin_chunk();
  for (size_t k = 0; k < keys.size(); ++k) {
    const KeyCache::Lookup l = plan.cache->book.lookup(keys[k], key_bytes, me);
    if (!l.ok) return {EngineError::device, "key cache full"};  // cannot happen: at most a quarter is pinned
    for (unsigned j = 0; j < slots_.size(); ++j)
      if ((l.streams >> j) & 1) plan.waits.push_back(l.fresh ? slots_[j].done : slots_[j].expanded);
    if (l.fresh) {
      plan.expand.push_back(keys[k]);
      plan.expand_slot.push_back(l.slot);
    }
    slot_of[k] = l.slot;
  }
  for (size_t i = 0; i < count; ++i)
    if (key_of(i) != nullptr) plan.index[i] = slot_of[plan.index[i]];
  std::sort(plan.waits.begin(), plan.waits.end());
  plan.waits.erase(std::unique(plan.waits.begin(), plan.waits.end()), plan.waits.end());
  return {};
}

// ---------------------------------------------------------------------------
// KeyGen

EngineStatus DeviceWorker::stage_keygen(Slot& s, const KeygenItem* items, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (!items[i].seed || !items[i].pk) return {EngineError::bad_argument, "keygen: an item without seed or pk"};
  const KeygenLayout L(s.tp, count);
  // The expanded secret keys cross PCIe only when an item of the chunk wants them.
  bool want_sk = false;
  for (size_t i = 0; i < count; ++i) want_sk |= items[i].sk != nullptr;
  s.busy = true;  // from here on drain() wipes
  s.op = Op::keygen;
  s.count = count;
  s.keygen_items = items;
  s.in_secret = L.in_bytes;
  s.out_secret_off = L.pk_total;
  s.out_secret = L.out_bytes - L.pk_total;
  s.scratch_secret = 0;
  for (size_t i = 0; i < count; ++i) std::memcpy(s.in.host + i * SEED_BYTES, items[i].seed, SEED_BYTES);
  MLDSA_DEVICE_TRY("copy_to_device", device_.copy_to_device(s.stream, s.in.dev, s.in.host, L.in_bytes));
  const KeygenChunk c{s.in.dev, s.out.dev, s.out.dev + L.pk_total};
  MLDSA_DEVICE_TRY("launch_keygen", device_.launch_keygen(s.stream, config_.kernels, s.tp, c, static_cast<uint32_t>(count)));
  MLDSA_DEVICE_TRY("copy_to_host",
                    device_.copy_to_host(s.stream, s.out.host, s.out.dev, want_sk ? L.out_bytes : L.pk_total));
  // Seeds and secret keys leave no trace in device memory.
  MLDSA_DEVICE_TRY("zero", device_.zero(s.stream, s.in.dev, L.in_bytes));
  MLDSA_DEVICE_TRY("zero", device_.zero(s.stream, s.out.dev + L.pk_total, s.out_secret));
  MLDSA_DEVICE_TRY("record", device_.record(s.done, s.stream));
  return {};
}

EngineStatus DeviceWorker::keygen(const TaskParams& tp, const KeygenItem* items, size_t n) {
  return run(n, [&](Slot& s, size_t first, size_t count, size_t* taken) {
    s.tp = tp;
    *taken = count;
    return stage_keygen(s, items + first, count);
  });
}

// ---------------------------------------------------------------------------
// Verify

EngineStatus DeviceWorker::stage_verify(Slot& s, const VerifyItem* items, size_t max_count, Status* results,
                                        size_t* taken) {
  const TaskParams& tp = s.tp;
  // What the core checks before the arithmetic, in its order: ok for an item
  // that goes to the device.
  auto host_status = [&](const VerifyItem& it) {
    if (!it.pk) return Status::bad_pk_length;
    if (!it.mu && tp.round3 && it.ctx_len) return Status::context_unsupported;
    if (!it.mu && it.ctx_len > MAX_CONTEXT_BYTES) return Status::context_too_long;
    if (!it.sig || it.sig_len != tp.sig_bytes) return Status::bad_sig_length;
    return Status::ok;
  };
  // M' bytes an item stages: 0 for mu items, rejected ones, and messages
  // whose mu the host computes. Round 3's M' is the message alone.
  const size_t prefix = tp.round3 ? 0 : 2;
  auto staged = [&](const VerifyItem& it) -> size_t {
    if (it.mu || host_status(it) != Status::ok) return 0;
    const size_t m = prefix + it.ctx_len + it.msg_len;
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
  KeyPlan plan;
  if (EngineStatus st = plan_keys(s, verify_caches_, tp.pk_bytes, count,
                                  [&](size_t i) { return host_status(items[i]) == Status::ok ? items[i].pk : nullptr; },
                                  plan);
      !st.ok())
    return st;
  const bool cached = plan.cache != nullptr;
  const size_t nexpand = cached ? plan.expand.size() : 0;
  const VerifyLayout L(tp, count, arena_used, cached ? nexpand : count, cached);
  s.busy = true;
  s.op = Op::verify;
  s.count = count;
  s.dst_status = results;
  s.off_a = L.modes;
  s.in_secret = s.out_secret = s.scratch_secret = 0;

  uint8_t* h = s.in.host;
  uint8_t* modes = h + L.modes;
  // Each item's M' place in the arena first (a prefix sum), so the items can
  // then be staged in pieces on the helpers.
  uint32_t pos = 0;
  for (size_t i = 0; i < count; ++i) {
    std::memcpy(h + L.offsets + i * sizeof pos, &pos, sizeof pos);
    pos += static_cast<uint32_t>(staged(items[i]));
  }
  std::memcpy(h + L.offsets + count * sizeof pos, &pos, sizeof pos);
  each(std::max(count, nexpand), [&](size_t first, size_t last) {
    for (size_t k = first; k < std::min(last, nexpand); ++k)
      std::memcpy(h + k * tp.pk_bytes, plan.expand[k], tp.pk_bytes);
    for (size_t i = first; i < std::min(last, count); ++i) {
      const VerifyItem& it = items[i];
      modes[i] = kVerifySkip;
      if (const Status st = host_status(it); st != Status::ok) {
        results[i] = st;
        continue;
      }
      if (!cached) std::memcpy(h + i * tp.pk_bytes, it.pk, tp.pk_bytes);
      std::memcpy(h + L.sigs + i * tp.sig_bytes, it.sig, tp.sig_bytes);
      uint8_t* mu = h + L.mus + i * MU_BYTES;
      const size_t m = staged(it);
      if (it.mu) {
        modes[i] = kVerifyMu;
        std::memcpy(mu, it.mu, MU_BYTES);
      } else if (m == 0) {
        // Too long to stage: mu = H(H(pk) || M') here (FIPS 204 Algorithm 3).
        uint8_t tr[TR_BYTES];
        shake256(tr, tp.tr_bytes, it.pk, tp.pk_bytes);
        MuBuilder b;
        if (tp.round3)
          b.init_internal({tr, tp.tr_bytes});
        else
          b.init_pure(tr, {it.ctx, it.ctx_len});
        b.update({it.msg, it.msg_len});
        b.final(mu);
        modes[i] = kVerifyMu;
      } else {
        // M' = 0 || len(ctx) || ctx || msg  (FIPS 204 Algorithm 3 line 5); msg in round 3
        modes[i] = kVerifyMessage;
        uint32_t at;
        std::memcpy(&at, h + L.offsets + i * sizeof at, sizeof at);
        uint8_t* mp = h + L.arena + at;
        if (prefix) {
          mp[0] = 0;
          mp[1] = static_cast<uint8_t>(it.ctx_len);
        }
        if (it.ctx_len) std::memcpy(mp + prefix, it.ctx, it.ctx_len);
        if (it.msg_len) std::memcpy(mp + prefix + it.ctx_len, it.msg, it.msg_len);
      }
    }
  });
  if (cached) {
    std::memcpy(h + L.index, plan.index.data(), count * sizeof(uint32_t));
    if (nexpand) std::memcpy(h + L.slots, plan.expand_slot.data(), nexpand * sizeof(uint32_t));
  }

  const size_t in_bytes = L.arena + pos;
  MLDSA_DEVICE_TRY("copy_to_device", device_.copy_to_device(s.stream, s.in.dev, h, in_bytes));
  for (Event e : plan.waits) MLDSA_DEVICE_TRY("wait", device_.wait(s.stream, e));
  const uint8_t* d = s.in.dev;
  if (nexpand > 0) {
    const VerifyExpandChunk x{d, reinterpret_cast<const uint32_t*>(d + L.slots), plan.cache->arena,
                              static_cast<uint32_t>(nexpand)};
    MLDSA_DEVICE_TRY("launch_verify_expand", device_.launch_verify_expand(s.stream, tp, x));
  }
  MLDSA_DEVICE_TRY("record", device_.record(s.expanded, s.stream));
  const VerifyChunk c{d,
                      d + L.sigs,
                      d + L.mus,
                      d + L.modes,
                      reinterpret_cast<const uint32_t*>(d + L.offsets),
                      d + L.arena,
                      s.out.dev,
                      cached ? plan.cache->arena : nullptr,
                      cached ? reinterpret_cast<const uint32_t*>(d + L.index) : nullptr};
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
  for (size_t i = 0; i < count; ++i)
    if (!items[i].sk || !items[i].mu) return {EngineError::bad_argument, "sign: an item without sk or mu"};
  KeyPlan plan;
  if (EngineStatus st = plan_keys(s, sign_caches_, tp.sk_bytes, count, [&](size_t i) { return items[i].sk; }, plan);
      !st.ok())
    return st;
  const CachedKeys* cache = plan.cache;
  const std::vector<uint32_t>& index = plan.index;
  const std::vector<const uint8_t*>& expand = plan.expand;
  const std::vector<uint32_t>& expand_slot = plan.expand_slot;
  const std::vector<Event>& waits = plan.waits;
  const size_t nexpand = expand.size();
  const SignLayout L(tp, count, nexpand, cache != nullptr);
  for (size_t i = 0; i < count; ++i)
    if (!items[i].sig && !sigs) return {EngineError::bad_argument, "sign: an item without a place for its signature"};
  s.busy = true;  // from here on drain() wipes
  s.op = Op::sign;
  s.count = count;
  s.sign_items = items;
  s.dst_sigs = sigs;
  s.dst_status = results;
  s.off_a = L.best;
  s.in_secret = L.mus;  // keys and rnds
  s.out_secret = 0;
  s.scratch_secret = L.sched;  // expanded keys and rho''

  uint8_t* h = s.in.host;
  // Hedged items (rnd == nullptr) get fresh OS randomness: one draw for the
  // whole chunk, then the caller's rnd where given.
  const bool hedged = std::any_of(items, items + count, [](const SignItem& it) { return !it.rnd; });
  if (hedged && !os_random(h + L.rnds, count * tp.rnd_bytes))
    return {EngineError::bad_argument, "sign: the OS random source failed"};
  each(std::max(nexpand, count), [&](size_t first, size_t last) {
    for (size_t k = first; k < std::min(last, nexpand); ++k) std::memcpy(h + k * tp.sk_bytes, expand[k], tp.sk_bytes);
    for (size_t i = first; i < std::min(last, count); ++i) {
      if (items[i].rnd) std::memcpy(h + L.rnds + i * tp.rnd_bytes, items[i].rnd, tp.rnd_bytes);
      std::memcpy(h + L.mus + i * MU_BYTES, items[i].mu, MU_BYTES);
    }
  });
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
    return stage_sign(s, items + first, count, sigs ? sigs + first * tp.sig_bytes : nullptr, results + first, mode);
  });
}

}  // namespace mldsa::gpu
