// batch_api.cc - the bulk C API (include/mldsa_accel/batch.h) on the router:
// keys decoded once, mu and rnd made for every item on the CPU cores, then
// Router::run_many computes the items on the CPU and the GPU; submissions
// (version 2) run the same calls on a thread of the context's.
#include "mldsa_accel/batch.h"

#include "cpu/mldsa.h"
#include "cpu/pages.h"
#include "cpu/parallel.h"
#include "provctx/reasons.h"
#include "route/router.h"
#include "route/test_hooks.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

// OpenSSL 3.5's name, absent from older headers.
#ifndef OSSL_PKEY_PARAM_ML_DSA_SEED
#define OSSL_PKEY_PARAM_ML_DSA_SEED "seed"
#endif

using mldsa::Status;
namespace prov = mldsa::prov;

struct mldsa_accel_batch {
  std::unique_ptr<mldsa::route::Router> router;
  unsigned threads = 1;
  // Submissions (mldsa_accel_*_submit): run in order on one thread, started
  // by the first; `queued` counts those whose callback has not returned.
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::function<void()>> jobs;
  size_t queued = 0;
  bool stopping = false;
  std::unique_ptr<std::thread> submitter;
  std::thread::id submitter_id;
  pid_t owner = getpid();  // a forked child has no submission thread: it runs them in submit
  // Memory for the slots of calls to come (Slots, under m): kept, not
  // faulted in again by every call.
  std::vector<mldsa::PageBuffer> spare;
  // Keys made on the CPU (key generation does not go through the router,
  // whose counters hold the signs and verifies): for items_cpu.
  std::atomic<uint64_t> keygen_cpu{0};
  // Threads kept for the calls' parallel passes (for_items), made by the
  // first call with work for more than one; pool_use: the call using them.
  std::mutex pool_use;
  std::unique_ptr<mldsa::WorkerPool> pool;
  ~mldsa_accel_batch();
};

struct mldsa_accel_key {
  const mldsa::Params* params = nullptr;
  std::unique_ptr<mldsa::PrivateKey> priv;  // private keys
  std::unique_ptr<mldsa::PublicKey> pub;    // public keys
  const mldsa::PublicKey& public_key() const { return priv ? priv->public_key() : *pub; }
};

namespace {

int status_of(Status s) {
  switch (s) {
    case Status::ok: return MLDSA_ACCEL_OK;
    case Status::verify_failed: return MLDSA_ACCEL_VERIFY_FAILED;
    case Status::bad_pk_length:
    case Status::bad_sk_length:
    case Status::bad_seed_length:
    case Status::sk_s1_out_of_range:
    case Status::sk_s2_out_of_range:
    case Status::sk_t0_mismatch:
    case Status::sk_tr_mismatch: return MLDSA_ACCEL_ERR_KEY;
    case Status::bad_sig_length:
    case Status::sig_malformed_hint: return MLDSA_ACCEL_ERR_SIGNATURE;
    case Status::context_too_long:
    case Status::context_unsupported: return MLDSA_ACCEL_ERR_CONTEXT;
    case Status::rng_failure: return MLDSA_ACCEL_ERR_RANDOM;
    default: return MLDSA_ACCEL_ERR_INTERNAL;
  }
}

// mu = H(tr || M') of an item's message and context (the key's scheme).
Status make_mu(const mldsa_accel_key& k, const uint8_t* msg, size_t msg_len, const uint8_t* ctx, size_t ctx_len,
               uint8_t mu[mldsa::MU_BYTES]) {
  mldsa::MuBuilder b;
  const Status st = b.init_message(*k.params, k.public_key().tr(), {ctx, ctx_len});
  if (st != Status::ok) return st;
  b.update({msg, msg_len});
  b.final(mu);
  return Status::ok;
}

// A call's per-item state: the request and the mu (and rnd) it points to.
struct Slot {
  mldsa::route::Request r;
  std::array<uint8_t, mldsa::MU_BYTES> mu;
  std::array<uint8_t, mldsa::MAX_RND_BYTES> rnd{};
  ~Slot() { mldsa::secure_zero(rnd.data(), rnd.size()); }
};

// A call's n slots, each made by the thread that handles its item in the
// call's parallel pass, in memory kept by the context for the next call
// (PageBuffer: populated at once). On the project's VM each first touch of a
// fresh page costs about 11 us; a 4096-item call's slots are 300 small pages
// or one huge page.
// Every slot is made before the pass returns (its function does not throw).
class Slots {
 public:
  Slots(mldsa_accel_batch& ctx, size_t n) : ctx_(ctx), n_(n) {
    const size_t bytes = n * sizeof(Slot);
    {
      std::lock_guard<std::mutex> lock(ctx.m);
      auto it = std::find_if(ctx.spare.begin(), ctx.spare.end(),
                             [&](const mldsa::PageBuffer& b) { return b.size() >= bytes; });
      if (it != ctx.spare.end()) {
        mem_ = std::move(*it);
        ctx.spare.erase(it);
      }
    }
    if (mem_.size() < bytes) mem_ = mldsa::PageBuffer(bytes);
  }
  ~Slots() {
    for (size_t i = 0; i < n_; ++i) std::destroy_at(&(*this)[i]);
    if (mem_.size() == 0 || mem_.size() > kKeepBytes) return;  // a huge call's memory is not held on to
    std::lock_guard<std::mutex> lock(ctx_.m);
    if (ctx_.spare.size() >= kKeep) return;
    try {
      ctx_.spare.push_back(std::move(mem_));
    } catch (const std::bad_alloc&) {  // not kept: unmapped here
    }
  }
  Slots(const Slots&) = delete;
  Slots& operator=(const Slots&) = delete;
  Slot& make(size_t i) { return *std::construct_at(reinterpret_cast<Slot*>(mem_.data()) + i); }
  Slot& operator[](size_t i) { return reinterpret_cast<Slot*>(mem_.data())[i]; }
  // The requests of the items marked valid, in item order.
  std::vector<mldsa::route::Request*> valid_requests(const std::vector<char>& valid) {
    std::vector<mldsa::route::Request*> rs;
    rs.reserve(n_);
    for (size_t i = 0; i < n_; ++i)
      if (valid[i]) rs.push_back(&(*this)[i].r);
    return rs;
  }

 private:
  static constexpr size_t kKeep = 4;                    // buffers kept (calls at once)
  static constexpr size_t kKeepBytes = size_t{16} << 20;  // about 50,000 items
  static_assert(alignof(Slot) <= 4096);                   // a PageBuffer starts on a page
  mldsa_accel_batch& ctx_;
  mldsa::PageBuffer mem_;
  size_t n_;
};

long count_failed(const int* first, size_t stride_bytes, size_t n) {
  long failed = 0;
  for (size_t i = 0; i < n; ++i)
    failed += *reinterpret_cast<const int*>(reinterpret_cast<const char*>(first) + i * stride_bytes) != MLDSA_ACCEL_OK;
  return failed;
}

}  // namespace

extern "C" {

const char* mldsa_accel_status_string(int status) {
  switch (status) {
    case MLDSA_ACCEL_OK: return "ok";
    case MLDSA_ACCEL_VERIFY_FAILED: return "signature does not verify";
    case MLDSA_ACCEL_ERR_ARGUMENT: return "bad argument (null pointer, unknown algorithm or buffer too small)";
    case MLDSA_ACCEL_ERR_KEY: return "malformed key";
    case MLDSA_ACCEL_ERR_CONTEXT: return "context string too long or not allowed";
    case MLDSA_ACCEL_ERR_SIGNATURE: return "malformed signature";
    case MLDSA_ACCEL_ERR_RANDOM: return "random source failed";
    case MLDSA_ACCEL_ERR_MEMORY: return "out of memory";
    case MLDSA_ACCEL_ERR_CONFIG: return "bad MLDSA_ACCEL_* setting";
    case MLDSA_ACCEL_ERR_INTERNAL: return "internal error";
    case MLDSA_ACCEL_ERR_UNSUPPORTED_KEY: return "key of an algorithm this API does not take";
    default: return "unknown status";
  }
}

mldsa_accel_batch* mldsa_accel_batch_new(int* status, char* error, size_t error_size) {
  auto fail = [&](int st, const std::string& why) -> mldsa_accel_batch* {
    if (status != nullptr) *status = st;
    if (error != nullptr && error_size > 0) {
      const size_t len = std::min(why.size(), error_size - 1);
      std::memcpy(error, why.data(), len);
      error[len] = '\0';
    }
    return nullptr;
  };
  try {
    mldsa::prov::Settings s;
    std::string why;
    if (!mldsa::prov::apply_environment(s, mldsa::route::test_hooks_built(), &why)) return fail(MLDSA_ACCEL_ERR_CONFIG, why);
    auto ctx = std::make_unique<mldsa_accel_batch>();
    ctx->router = mldsa::route::Router::create(mldsa::route::router_config(s), &why);
    if (ctx->router == nullptr) return fail(MLDSA_ACCEL_ERR_CONFIG, why);
    ctx->threads = mldsa::usable_cpus();
    if (status != nullptr) *status = MLDSA_ACCEL_OK;
    return ctx.release();
  } catch (const std::bad_alloc&) {
    return fail(MLDSA_ACCEL_ERR_MEMORY, "out of memory");
  } catch (...) {
    return fail(MLDSA_ACCEL_ERR_INTERNAL, "internal error");
  }
}

void mldsa_accel_batch_free(mldsa_accel_batch* ctx) { delete ctx; }

int mldsa_accel_key_new(const char* alg, int is_private, const uint8_t* bytes, size_t len, mldsa_accel_key** out) {
  if (out == nullptr) return MLDSA_ACCEL_ERR_ARGUMENT;
  *out = nullptr;
  const mldsa::Params* p = alg != nullptr ? mldsa::params_by_name(alg) : nullptr;
  if (p == nullptr || (bytes == nullptr && len != 0)) return MLDSA_ACCEL_ERR_ARGUMENT;
  try {
    auto k = std::make_unique<mldsa_accel_key>();
    k->params = p;
    Status st;
    if (is_private)
      st = len == mldsa::SEED_BYTES ? mldsa::PrivateKey::from_seed(*p, {bytes, len}, k->priv)
                                    : mldsa::PrivateKey::from_sk(*p, {bytes, len}, k->priv);
    else
      st = mldsa::PublicKey::decode(*p, {bytes, len}, k->pub);
    if (st != Status::ok) return MLDSA_ACCEL_ERR_KEY;
    *out = k.release();
    return MLDSA_ACCEL_OK;
  } catch (const std::bad_alloc&) {
    return MLDSA_ACCEL_ERR_MEMORY;
  }
}

void mldsa_accel_key_free(mldsa_accel_key* key) { delete key; }  // the core's key objects zero themselves

int mldsa_accel_key_public(const mldsa_accel_key* key, uint8_t* out, size_t* len) {
  if (key == nullptr || len == nullptr) return MLDSA_ACCEL_ERR_ARGUMENT;
  const auto pk = key->public_key().encoded();
  const size_t room = *len;
  *len = pk.size();
  if (out == nullptr || room < pk.size()) return MLDSA_ACCEL_ERR_ARGUMENT;
  std::memcpy(out, pk.data(), pk.size());
  return MLDSA_ACCEL_OK;
}

size_t mldsa_accel_signature_size(const mldsa_accel_key* key) { return key != nullptr ? key->params->sig_bytes : 0; }

}  // extern "C"

namespace {

// Sets an item's status and its reason (when reasons is set).
void set_result(int& status, int* reasons, size_t i, int st, int reason) {
  status = st;
  if (reasons != nullptr) reasons[i] = reason;
}
void set_result(int& status, int* reasons, size_t i, Status st) {
  set_result(status, reasons, i, status_of(st), prov::reason_of(st));
}

// Whether the router could give a device a call's items (signing always
// has rnd here); when not, each item is computed as it is prepared.
bool device_usable(mldsa_accel_batch& ctx, mldsa::route::BatchOp op) {
  static const uint8_t rnd[mldsa::MAX_RND_BYTES] = {};
  mldsa::route::Request probe;
  probe.op = op;
  probe.rnd = rnd;
  return ctx.router->device_usable(probe);
}

// Items a thread takes at a time in a call's parallel pass; a call of no
// more is computed on the calling thread alone, as batch.h promises.
constexpr size_t kGrain = MLDSA_ACCEL_CALLER_ITEMS;

// f(i, worker) for i in [0, n) on the context's threads: threads kept for
// its calls (WorkerPool) rather than started for each, which cost calls of
// 4096 verifies 6% of their rate on 2 cores of the project's VM
// (bench/RESULTS.md). One call uses them at a time; a call made while
// another has them, or in the child of a fork (where they do not exist),
// starts threads of its own, as before.
template <typename F>
void for_items(mldsa_accel_batch& ctx, size_t n, size_t grain, F f) {
  if (ctx.threads > 1 && n > grain && getpid() == ctx.owner) {
    std::unique_lock<std::mutex> use(ctx.pool_use, std::try_to_lock);
    if (use.owns_lock()) {
      if (ctx.pool == nullptr) {
        try {
          ctx.pool = std::make_unique<mldsa::WorkerPool>(ctx.threads);
        } catch (...) {  // no pool: threads of its own, below
        }
      }
      if (ctx.pool != nullptr) {
        ctx.pool->parallel_for(n, grain, f);
        return;
      }
    }
  }
  mldsa::parallel_for(n, ctx.threads, grain, f);
}

// A sign or verify call: prepare(item, slot, i) checks item i and makes its
// request in its slot, or sets its status and returns false. With a device
// to hand items to, run_many computes the prepared ones; without, each is
// computed right after it is prepared, on the same thread.
template <typename Item, typename Prepare>
long run_items(mldsa_accel_batch* ctx, mldsa::route::BatchOp op, Item* items, size_t n, int* reasons,
               Prepare prepare) {
  if (ctx == nullptr || (items == nullptr && n != 0)) return MLDSA_ACCEL_ERR_ARGUMENT;
  try {
    std::vector<char> valid(n, 0);  // written only with a device (its cache lines are shared)
    Slots slots(*ctx, n);
    const bool device = device_usable(*ctx, op);
    std::atomic<size_t> rejected{0};
    for_items(*ctx, n, kGrain, [&](size_t i, unsigned) noexcept {
      Slot& w = slots.make(i);
      if (!prepare(items[i], w, i)) {
        rejected.fetch_add(1, std::memory_order_relaxed);
      } else if (device) {
        valid[i] = 1;
      } else {
        mldsa::route::run_on_cpu(w.r);
        set_result(items[i].status, reasons, i, w.r.status);
      }
    });
    if (device) {
      ctx->router->run_many(slots.valid_requests(valid), ctx->threads);
      for (size_t i = 0; i < n; ++i)
        if (valid[i]) set_result(items[i].status, reasons, i, slots[i].r.status);
    } else {
      ctx->router->count_cpu(n - rejected.load());
    }
    return n == 0 ? 0 : count_failed(&items[0].status, sizeof *items, n);
  } catch (const std::bad_alloc&) {
    return MLDSA_ACCEL_ERR_MEMORY;
  }
}

// The calls, each item's OpenSSL reason in reasons[i] when reasons is set.
long do_sign(mldsa_accel_batch* ctx, mldsa_accel_sign_item* items, size_t n, unsigned flags, int* reasons) {
  return run_items(ctx, mldsa::route::BatchOp::sign, items, n, reasons,
                   [&](mldsa_accel_sign_item& it, Slot& w, size_t i) {
    if (it.key == nullptr || it.key->priv == nullptr || it.sig == nullptr ||
        it.sig_size < it.key->params->sig_bytes || (it.msg == nullptr && it.msg_len != 0) ||
        (it.ctx == nullptr && it.ctx_len != 0)) {
      if (it.key != nullptr && it.key->priv == nullptr)
        set_result(it.status, reasons, i, MLDSA_ACCEL_ERR_KEY, prov::R_MISSING_KEY);
      else if (it.key != nullptr && it.sig != nullptr && it.sig_size < it.key->params->sig_bytes)
        set_result(it.status, reasons, i, MLDSA_ACCEL_ERR_ARGUMENT, prov::R_BUFFER_TOO_SMALL);
      else
        set_result(it.status, reasons, i, MLDSA_ACCEL_ERR_ARGUMENT, prov::R_NULL_PARAM_DATA);
      return false;
    }
    const Status st = make_mu(*it.key, it.msg, it.msg_len, it.ctx, it.ctx_len, w.mu.data());
    if (st != Status::ok) {
      set_result(it.status, reasons, i, st);
      return false;
    }
    if (!(flags & MLDSA_ACCEL_DETERMINISTIC) &&
        RAND_priv_bytes(w.rnd.data(), static_cast<int>(it.key->params->rnd_bytes)) != 1) {
      set_result(it.status, reasons, i, MLDSA_ACCEL_ERR_RANDOM, prov::R_RNG_FAILURE);
      return false;
    }
    mldsa::route::Request& r = w.r;
    r.op = mldsa::route::BatchOp::sign;
    r.params = it.key->params;
    r.priv = it.key->priv.get();
    r.mu = w.mu.data();
    r.rnd = w.rnd.data();
    r.sig_out = it.sig;
    return true;
  });
}

long do_verify(mldsa_accel_batch* ctx, mldsa_accel_verify_item* items, size_t n, int* reasons) {
  return run_items(ctx, mldsa::route::BatchOp::verify, items, n, reasons,
                   [&](mldsa_accel_verify_item& it, Slot& w, size_t i) {
    if (it.key == nullptr || (it.sig == nullptr && it.sig_len != 0) || (it.msg == nullptr && it.msg_len != 0) ||
        (it.ctx == nullptr && it.ctx_len != 0)) {
      set_result(it.status, reasons, i, MLDSA_ACCEL_ERR_ARGUMENT,
                 it.key == nullptr ? prov::R_MISSING_KEY : prov::R_NULL_PARAM_DATA);
      return false;
    }
    const Status st = make_mu(*it.key, it.msg, it.msg_len, it.ctx, it.ctx_len, w.mu.data());
    if (st != Status::ok) {
      set_result(it.status, reasons, i, st);
      return false;
    }
    mldsa::route::Request& r = w.r;
    r.op = mldsa::route::BatchOp::verify;
    r.params = it.key->params;
    r.pub = &it.key->public_key();
    r.mu = w.mu.data();
    r.sig = it.sig;
    r.sig_len = it.sig_len;
    return true;
  });
}

long do_keygen(mldsa_accel_batch* ctx, const char* alg, mldsa_accel_keygen_item* items, size_t n, int* reasons) {
  const mldsa::Params* p = alg != nullptr ? mldsa::params_by_name(alg) : nullptr;
  if (ctx == nullptr || p == nullptr || (items == nullptr && n != 0)) return MLDSA_ACCEL_ERR_ARGUMENT;
  for_items(*ctx, n, 1, [&](size_t i, unsigned) noexcept {
    mldsa_accel_keygen_item& it = items[i];
    if (it.pk == nullptr || it.sk == nullptr || it.pk_size < p->pk_bytes || it.sk_size < p->sk_bytes) {
      set_result(it.status, reasons, i, MLDSA_ACCEL_ERR_ARGUMENT,
                 it.pk == nullptr || it.sk == nullptr ? prov::R_NULL_PARAM_DATA : prov::R_BUFFER_TOO_SMALL);
      return;
    }
    uint8_t seed[mldsa::SEED_BYTES];
    if (it.seed != nullptr) std::memcpy(seed, it.seed, sizeof seed);
    else if (!mldsa::os_random(seed, sizeof seed)) {
      set_result(it.status, reasons, i, MLDSA_ACCEL_ERR_RANDOM, prov::R_RNG_FAILURE);
      return;
    }
    std::unique_ptr<mldsa::PrivateKey> key;
    try {
      const Status st = mldsa::PrivateKey::from_seed(*p, seed, key);
      set_result(it.status, reasons, i, st);
      ctx->keygen_cpu.fetch_add(1, std::memory_order_relaxed);
      if (st == Status::ok) {
        std::memcpy(it.pk, key->public_key().encoded().data(), p->pk_bytes);
        std::memcpy(it.sk, key->encoded().data(), p->sk_bytes);
        if (it.seed_out != nullptr) std::memcpy(it.seed_out, seed, sizeof seed);
      }
    } catch (const std::bad_alloc&) {
      set_result(it.status, reasons, i, MLDSA_ACCEL_ERR_MEMORY, prov::R_INTERNAL_ERROR);
    }
    mldsa::secure_zero(seed, sizeof seed);
  });
  return n == 0 ? 0 : count_failed(&items[0].status, sizeof *items, n);
}

// Queues job (which computes a submission and calls its callback), starting
// the submission thread at the first; in a forked child runs it here.
int submit(mldsa_accel_batch* ctx, std::function<void()> job) {
  if (getpid() != ctx->owner) {
    job();
    return MLDSA_ACCEL_OK;
  }
  std::lock_guard<std::mutex> lock(ctx->m);
  if (ctx->submitter == nullptr) {
    ctx->submitter = std::make_unique<std::thread>([ctx] {
      std::unique_lock<std::mutex> l(ctx->m);
      for (;;) {
        ctx->cv.wait(l, [ctx] { return ctx->stopping || !ctx->jobs.empty(); });
        if (ctx->jobs.empty()) return;  // stopping, and nothing left
        std::function<void()> next = std::move(ctx->jobs.front());
        ctx->jobs.pop_front();
        l.unlock();
        next();
        l.lock();
        --ctx->queued;
        ctx->cv.notify_all();
      }
    });
    ctx->submitter_id = ctx->submitter->get_id();
  }
  ctx->jobs.push_back(std::move(job));
  ++ctx->queued;
  ctx->cv.notify_all();
  return MLDSA_ACCEL_OK;
}

// Calls done with a submission's results.
void complete(mldsa_accel_callback callback, void* user, int op, void* items, size_t n, long failed,
              const std::vector<int>& reasons) {
  mldsa_accel_completion c{};
  c.op = op;
  c.items = items;
  c.n = n;
  c.failed = failed;
  c.reasons = reasons.data();
  c.user = user;
  callback(&c);
}

}  // namespace

extern "C" {

mldsa_accel_batch::~mldsa_accel_batch() {
  if (getpid() != owner) {  // the parent's threads: not in this process, never joined
    (void)pool.release();
    (void)submitter.release();
    return;
  }
  if (submitter == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(m);
    stopping = true;
  }
  cv.notify_all();
  submitter->join();
}

long mldsa_accel_sign(mldsa_accel_batch* ctx, mldsa_accel_sign_item* items, size_t n, unsigned flags) {
  return do_sign(ctx, items, n, flags, nullptr);
}

long mldsa_accel_verify(mldsa_accel_batch* ctx, mldsa_accel_verify_item* items, size_t n) {
  return do_verify(ctx, items, n, nullptr);
}

long mldsa_accel_keygen(mldsa_accel_batch* ctx, const char* alg, mldsa_accel_keygen_item* items, size_t n) {
  return do_keygen(ctx, alg, items, n, nullptr);
}

int mldsa_accel_sign_submit(mldsa_accel_batch* ctx, mldsa_accel_sign_item* items, size_t n, unsigned flags,
                            mldsa_accel_callback callback, void* user) {
  if (ctx == nullptr || callback == nullptr || (items == nullptr && n != 0)) return MLDSA_ACCEL_ERR_ARGUMENT;
  try {
    return submit(ctx, [=] {
      std::vector<int> reasons(n, prov::R_INTERNAL_ERROR);
      const long failed = do_sign(ctx, items, n, flags, reasons.data());
      complete(callback, user, MLDSA_ACCEL_OP_SIGN, items, n, failed, reasons);
    });
  } catch (const std::bad_alloc&) {
    return MLDSA_ACCEL_ERR_MEMORY;
  } catch (const std::system_error&) {  // no thread could be started
    return MLDSA_ACCEL_ERR_MEMORY;
  }
}

int mldsa_accel_verify_submit(mldsa_accel_batch* ctx, mldsa_accel_verify_item* items, size_t n,
                              mldsa_accel_callback callback, void* user) {
  if (ctx == nullptr || callback == nullptr || (items == nullptr && n != 0)) return MLDSA_ACCEL_ERR_ARGUMENT;
  try {
    return submit(ctx, [=] {
      std::vector<int> reasons(n, prov::R_INTERNAL_ERROR);
      const long failed = do_verify(ctx, items, n, reasons.data());
      complete(callback, user, MLDSA_ACCEL_OP_VERIFY, items, n, failed, reasons);
    });
  } catch (const std::bad_alloc&) {
    return MLDSA_ACCEL_ERR_MEMORY;
  } catch (const std::system_error&) {
    return MLDSA_ACCEL_ERR_MEMORY;
  }
}

int mldsa_accel_keygen_submit(mldsa_accel_batch* ctx, const char* alg, mldsa_accel_keygen_item* items, size_t n,
                              mldsa_accel_callback callback, void* user) {
  const mldsa::Params* p = alg != nullptr ? mldsa::params_by_name(alg) : nullptr;
  if (ctx == nullptr || callback == nullptr || p == nullptr || (items == nullptr && n != 0))
    return MLDSA_ACCEL_ERR_ARGUMENT;
  try {
    return submit(ctx, [=] {
      std::vector<int> reasons(n, prov::R_INTERNAL_ERROR);
      const long failed = do_keygen(ctx, p->name, items, n, reasons.data());
      complete(callback, user, MLDSA_ACCEL_OP_KEYGEN, items, n, failed, reasons);
    });
  } catch (const std::bad_alloc&) {
    return MLDSA_ACCEL_ERR_MEMORY;
  } catch (const std::system_error&) {
    return MLDSA_ACCEL_ERR_MEMORY;
  }
}

int mldsa_accel_batch_wait(mldsa_accel_batch* ctx) {
  if (ctx == nullptr) return MLDSA_ACCEL_ERR_ARGUMENT;
  if (getpid() != ctx->owner) return MLDSA_ACCEL_OK;  // a child's submissions ran in submit
  std::unique_lock<std::mutex> l(ctx->m);
  if (ctx->submitter != nullptr && std::this_thread::get_id() == ctx->submitter_id) return MLDSA_ACCEL_ERR_ARGUMENT;
  ctx->cv.wait(l, [ctx] { return ctx->queued == 0; });
  return MLDSA_ACCEL_OK;
}

const char* mldsa_accel_reason_string(int reason) { return reason == 0 ? "ok" : prov::reason_text(reason); }

int mldsa_accel_key_from_pkey(const struct evp_pkey_st* pkey, int is_private, mldsa_accel_key** out) {
  if (out == nullptr) return MLDSA_ACCEL_ERR_ARGUMENT;
  *out = nullptr;
  if (pkey == nullptr) return MLDSA_ACCEL_ERR_ARGUMENT;
  const char* name = EVP_PKEY_get0_type_name(pkey);
  const mldsa::Params* p = name != nullptr ? mldsa::params_by_name(name) : nullptr;
  if (p == nullptr) return MLDSA_ACCEL_ERR_UNSUPPORTED_KEY;
  // The seed when the key has one (the smaller secret), else the expanded key.
  std::vector<uint8_t> bytes(std::max(p->sk_bytes, p->pk_bytes));
  size_t len = 0;
  const bool have = is_private
      ? EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_ML_DSA_SEED, bytes.data(), bytes.size(), &len) == 1 ||
            EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_PRIV_KEY, bytes.data(), bytes.size(), &len) == 1
      : EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_PUB_KEY, bytes.data(), bytes.size(), &len) == 1;
  const int st = have ? mldsa_accel_key_new(p->name, is_private, bytes.data(), len, out) : MLDSA_ACCEL_ERR_KEY;
  OPENSSL_cleanse(bytes.data(), bytes.size());
  return st;
}

int mldsa_accel_batch_device_items(mldsa_accel_batch* ctx, uint64_t* out, size_t* n) {
  if (ctx == nullptr || n == nullptr) return MLDSA_ACCEL_ERR_ARGUMENT;
  try {
    const std::vector<uint64_t> items = ctx->router->counters().device_items;
    const size_t room = *n;
    *n = items.size();
    if (room < items.size() || (out == nullptr && !items.empty())) return MLDSA_ACCEL_ERR_ARGUMENT;
    std::copy(items.begin(), items.end(), out);
    return MLDSA_ACCEL_OK;
  } catch (const std::bad_alloc&) {
    return MLDSA_ACCEL_ERR_MEMORY;
  }
}

int mldsa_accel_batch_stats(mldsa_accel_batch* ctx, mldsa_accel_stats* out) {
  if (ctx == nullptr || out == nullptr) return MLDSA_ACCEL_ERR_ARGUMENT;
  const mldsa::route::RouterCounters c = ctx->router->counters();
  *out = mldsa_accel_stats{};
  out->items_cpu = c.cpu + ctx->keygen_cpu.load(std::memory_order_relaxed);
  out->items_device = c.queued;
  out->batches = c.batches;
  out->device_checked = c.checks.signatures_checked + c.checks.verdicts_checked + c.checks.keys_checked;
  out->device_wrong = c.checks.wrong;
  out->device_out_of_service = c.checks.out_of_service ? 1 : 0;
  // Never waits for the engine: "starting" until it is ready.
  const std::string devices = ctx->router->engine_ready() ? ctx->router->gpu_devices() : std::string("starting");
  std::snprintf(out->devices, sizeof out->devices, "%s", devices.c_str());
  return MLDSA_ACCEL_OK;
}

}  // extern "C"
