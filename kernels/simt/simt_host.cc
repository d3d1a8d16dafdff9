// simt_host.cc - the host implementation of the SIMT layer (simt.h): a grid
// of blocks, each GPU thread a fiber (fiber.h), on the calling OS thread.
//
// Scheduling: the threads of the resident blocks form a ring; a thread runs
// until it waits (barrier, collective) or backs off, then switches straight
// to the next runnable thread of the ring. A block's last thread to finish
// returns to the launcher, which starts the next block in its place. When no
// thread can run and some have not finished, the launch has deadlocked (a
// barrier or collective some threads never reach): it stops with a report.
//
// Race detection, per byte of shared memory (kept per word until a word is
// accessed in parts): the last writer, and the
// readers since, each with the block-barrier count and its warp's
// sync_warp count at the access. Two accesses by different threads, one a
// write, are ordered iff a block barrier completed between them, or they
// are in one warp and a sync_warp completed between them. Anything else is
// a race (read after write, write after read, write after write), reported
// with both threads. Warp shuffles and votes do not order memory (CUDA does
// not promise it). A reader set spanning the writer's own later sync is
// judged conservatively (several readers of one warp keep the latest sync
// count among them).
#include "kernels/simt/simt.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/simt/fiber.h"

namespace mldsa::gpu::simt {

namespace host {
constinit thread_local const ThreadInfo* t_info = nullptr;
}  // namespace host

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr size_t kStackBytes = 512 * 1024;  // instrumented frames are larger
#else
constexpr size_t kStackBytes = 64 * 1024;
#endif
constexpr size_t kMaxSharedBytes = 227 * 1024;  // sm_90's largest dynamic shared memory per block
constexpr uint8_t kSharedPoison = 0xA5;         // shared memory starts undefined on a GPU

enum class State : uint8_t { ready, at_barrier, in_collective, exited };

const char* coll_name(host::Coll c) {
  switch (c) {
    case host::Coll::sync: return "sync_warp";
    case host::Coll::shfl32: return "shfl (32-bit)";
    case host::Coll::shfl64: return "shfl (64-bit)";
    case host::Coll::shfl_xor32: return "shfl_xor (32-bit)";
    case host::Coll::shfl_xor64: return "shfl_xor (64-bit)";
    case host::Coll::ballot: return "ballot";
    case host::Coll::any: return "any";
    case host::Coll::all: return "all";
  }
  return "?";
}

// The race detector's record of one byte of shared memory (12 bytes). An
// epoch is the block's clock (it ticks at every barrier and warp sync) at
// the last ordering point the accessing warp had passed.
struct Shadow {
  int16_t writer = -1;  // -1: never written
  int16_t reader = -1;  // since the last write: -1 none, >= 0 one thread, kReaders - w several of warp w, kMixed
  uint32_t w_epoch = 0, r_epoch = 0;  // r_epoch: the latest among the readers
};
constexpr int16_t kReaders = -2, kMixed = -64;

struct Warp {
  uint64_t gen = 0;  // collectives completed
  uint32_t arrived = 0;
  host::Coll kind = host::Coll::sync;
  uint32_t epoch = 0;  // the block's clock at this warp's last completed sync_warp
  uint64_t val[2][kWarpSize] = {};
  uint32_t arg[2][kWarpSize] = {};
};

struct Block;

struct Thread {
  host::ThreadInfo info;  // what the kernel reads through t_info
  Block* block = nullptr;
  Warp* warp = nullptr;
  State state = State::exited;
  uint64_t wait_gen = 0;
  size_t ring = 0;  // position in the ring
  Context ctx;
  FiberStack* stack = nullptr;
  std::vector<std::pair<uint32_t, uint8_t>> trace;  // shared accesses (offset, bytes), for BankStats
};

struct Block {
  bool live = false;
  uint32_t index = 0;
  uint32_t threads = 0, exited = 0;
  uint64_t bar_gen = 0;
  uint32_t arrived = 0;
  uint32_t clock = 0, bar_epoch = 0;  // the race detector's clock, and its value at the last barrier
  std::vector<Warp> warps;
  std::unique_ptr<uint8_t[]> shared_mem;
  uint8_t* shared = nullptr;  // 16-byte aligned
  // The race detector's records: one per 4-byte word, until a word is
  // accessed in parts; then one per byte of it (split).
  std::vector<Shadow> words, bytes;
  std::vector<uint8_t> split;
  std::vector<Thread> thread;
};

// Stacks outlive launches: a thread's pool grows to the largest launch it ran.
thread_local std::vector<std::unique_ptr<FiberStack>> t_stacks;

class Runner;
thread_local Runner* t_runner = nullptr;

class Runner {
 public:
  Runner(const HostGrid& g, const HostOptions& o, HostKernel k, void* c) : grid_(g), opt_(o), kernel_(k), ctx_(c) {}

  HostResult run() {
    if (grid_.threads == 0 || grid_.threads % kWarpSize != 0 || grid_.threads > 1024) {
      problem("launch: " + std::to_string(grid_.threads) + " threads per block (a multiple of 32, at most 1024)");
      return result_;
    }
    if (grid_.shared_bytes > kMaxSharedBytes) {
      problem("launch: " + std::to_string(grid_.shared_bytes) + " bytes of shared memory per block (at most " +
              std::to_string(kMaxSharedBytes) + ")");
      return result_;
    }
    if (grid_.blocks == 0) return result_;
    const uint32_t resident = std::max(1u, std::min(opt_.resident_blocks, grid_.blocks));
    blocks_.resize(resident);
    const size_t nthreads = size_t{resident} * grid_.threads;
    while (t_stacks.size() < nthreads) t_stacks.push_back(std::make_unique<FiberStack>(kStackBytes));
    ring_.reserve(nthreads);
    for (Block& b : blocks_) {
      b.thread = std::vector<Thread>(grid_.threads);
      b.warps.resize(grid_.threads / kWarpSize);
      b.shared_mem = std::make_unique<uint8_t[]>(grid_.shared_bytes + 16);
      b.shared = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(b.shared_mem.get()) + 15) & ~uintptr_t{15});
      if (opt_.check_races) {
        b.words.resize((grid_.shared_bytes + 3) / 4);
        b.bytes.resize(b.words.size() * 4);
        b.split.resize(b.words.size());
      }
      for (Thread& t : b.thread) {
        t.block = &b;
        t.ring = ring_.size();
        t.stack = t_stacks[ring_.size()].get();
        ring_.push_back(&t);
      }
    }
    Runner* outer = t_runner;
    const host::ThreadInfo* outer_info = host::t_info;
    t_runner = this;
    for (Block& b : blocks_) start_block(b);
    size_t cursor = opt_.reverse ? ring_.size() - 1 : 0;
    for (;;) {
      if (aborted_) break;
      Thread* next = find_runnable(cursor);
      if (next == nullptr) {
        if (std::any_of(blocks_.begin(), blocks_.end(), [](const Block& b) { return b.live; })) deadlock();
        break;
      }
      cursor = next->ring;
      resume(main_, *next);
      host::t_info = nullptr;
      current_ = nullptr;
      // A block finished (its last thread came back here): start the next one in its place.
      for (Block& b : blocks_)
        if (b.live && b.exited == b.threads) finish_block(b);
    }
    t_runner = outer;
    host::t_info = outer_info;
    return result_;
  }

  // --- called from the fibers -------------------------------------------------

  Thread& current() { return *current_; }

  void problem(const std::string& what) {
    if (result_.problems++ == 0) {
      result_.ok = false;
      result_.error = what;
    }
  }
  void problem_in(const Block& b, const std::string& what) { problem("block " + std::to_string(b.index) + ": " + what); }

  // The calling thread waits until its state lets it run again. The threads
  // it waits for are first looked for in its own warp (a collective) or
  // block (a barrier), so a warp's collectives do not scan idle warps.
  void wait(Thread& t) {
    const size_t group = t.state == State::in_collective ? kWarpSize : t.state == State::at_barrier ? grid_.threads : 0;
    Thread* next = nullptr;
    if (group > 0) {
      const size_t base = t.ring / group * group;
      next = find_in(base, group, t.ring - base + (opt_.reverse ? group - 1 : 1));
    }
    if (next == nullptr || next == &t) next = find_runnable(t.ring + (opt_.reverse ? ring_.size() - 1 : 1));
    if (next == &t) {
      t.state = State::ready;
      return;
    }
    if (next == nullptr) {
      switch_context(t.ctx, main_);  // the launcher finds the deadlock; t is never resumed
      return;
    }
    resume(t.ctx, *next);
  }

  void backoff(Thread& t) {
    t.state = State::ready;
    wait(t);
  }

  [[noreturn]] void exit_thread(Thread& t) {
    t.state = State::exited;
    Block& b = *t.block;
    ++b.exited;
    Thread* next = b.exited == b.threads ? nullptr : find_runnable(t.ring + (opt_.reverse ? ring_.size() - 1 : 1));
    if (next == nullptr) {
      switch_context(t.ctx, main_, true);
    } else {
      resume(t.ctx, *next, true);
    }
    __builtin_unreachable();
  }

  uint64_t collective(host::Coll kind, uint64_t value, uint32_t arg) {
    Thread& t = current();
    Block& b = *t.block;
    const unsigned lane = t.info.thread % kWarpSize;
    Warp& w = *t.warp;
    const uint64_t gen = w.gen;
    const unsigned slot = static_cast<unsigned>(gen & 1);
    if (w.arrived == 0) {
      w.kind = kind;
    } else if (w.kind != kind) {
      problem_in(b, "warp " + std::to_string(t.info.thread / kWarpSize) + ": lane " + std::to_string(lane) + " is in " +
                        coll_name(kind) + " while other lanes are in " + coll_name(w.kind));
    }
    w.val[slot][lane] = value;
    w.arg[slot][lane] = arg;
    if (++w.arrived == kWarpSize) {
      w.arrived = 0;
      ++w.gen;
      if (kind == host::Coll::sync) w.epoch = ++b.clock;
    } else {
      t.state = State::in_collective;
      t.wait_gen = gen;
      wait(t);
    }
    const uint64_t* v = w.val[slot];
    switch (kind) {
      case host::Coll::sync: return 0;
      case host::Coll::shfl32: return static_cast<uint32_t>(v[arg % kWarpSize]);
      case host::Coll::shfl64: return v[arg % kWarpSize];
      case host::Coll::shfl_xor32: return static_cast<uint32_t>(v[(lane ^ arg) % kWarpSize]);
      case host::Coll::shfl_xor64: return v[(lane ^ arg) % kWarpSize];
      case host::Coll::ballot:
      case host::Coll::any:
      case host::Coll::all: {
        uint32_t bits = 0;
        for (unsigned l = 0; l < kWarpSize; ++l) bits |= static_cast<uint32_t>(v[l] != 0) << l;
        if (kind == host::Coll::ballot) return bits;
        return kind == host::Coll::any ? bits != 0 : bits == 0xFFFFFFFFu;
      }
    }
    return 0;
  }

  void sync_block() {
    Thread& t = current();
    Block& b = *t.block;
    const uint64_t gen = b.bar_gen;
    if (++b.arrived == b.threads) {
      b.arrived = 0;
      ++b.bar_gen;
      b.bar_epoch = ++b.clock;
      return;
    }
    t.state = State::at_barrier;
    t.wait_gen = gen;
    wait(t);
  }

  void* shared_access(void* p, size_t bytes, bool write) {
    Thread& t = current();
    Block& b = *t.block;
    const auto addr = reinterpret_cast<uintptr_t>(p), base = reinterpret_cast<uintptr_t>(b.shared);
    if (addr < base || addr - base > grid_.shared_bytes || bytes > grid_.shared_bytes - (addr - base)) {
      problem_in(b, "thread " + std::to_string(t.info.thread) + " " + (write ? "writes" : "reads") + " " +
                        std::to_string(bytes) + " bytes outside the block's " + std::to_string(grid_.shared_bytes) +
                        " bytes of shared memory (offset " + std::to_string(static_cast<int64_t>(addr - base)) + ")");
      std::memset(scratch_, 0, sizeof scratch_);
      return scratch_;
    }
    const size_t off = addr - base;
    if (opt_.banks) t.trace.emplace_back(static_cast<uint32_t>(off), static_cast<uint8_t>(bytes));
    if (opt_.check_races) {
      const uint32_t warp = t.info.thread / kWarpSize;
      const Access a{static_cast<int16_t>(t.info.thread), static_cast<int16_t>(warp), b.bar_epoch,
                     std::max(b.bar_epoch, b.warps[warp].epoch), write};
      if (off % 4 == 0 && bytes % 4 == 0) {
        for (size_t w = off / 4; w < (off + bytes) / 4; ++w) {
          if (!b.split[w]) {
            check(b, a, b.words[w], 4 * w);
          } else {
            for (size_t i = 4 * w; i < 4 * w + 4; ++i) check(b, a, b.bytes[i], i);
          }
        }
      } else {
        for (size_t i = off; i < off + bytes; ++i) {
          const size_t w = i / 4;
          if (!b.split[w]) {
            b.split[w] = 1;
            for (size_t k = 0; k < 4; ++k) b.bytes[4 * w + k] = b.words[w];
          }
          check(b, a, b.bytes[i], i);
        }
      }
    }
    return p;
  }

  uint8_t* shared_base() { return current().block->shared; }

 private:
  bool runnable(const Thread& t) const {
    switch (t.state) {
      case State::ready: return true;
      case State::at_barrier: return t.block->bar_gen != t.wait_gen;
      case State::in_collective: return t.warp->gen != t.wait_gen;
      case State::exited: return false;
    }
    return false;
  }

  // The first runnable thread of ring positions [base, base + n), starting
  // at base + from % n and wrapping, in the run order; nullptr when none is.
  Thread* find_in(size_t base, size_t n, size_t from) {
    size_t i = from % n;
    for (size_t k = 0; k < n; ++k) {
      if (runnable(*ring_[base + i])) return ring_[base + i];
      if (opt_.reverse) {
        i = i == 0 ? n - 1 : i - 1;
      } else {
        i = i + 1 == n ? 0 : i + 1;
      }
    }
    return nullptr;
  }
  Thread* find_runnable(size_t from) { return find_in(0, ring_.size(), from); }

  void resume(Context& from, Thread& to, bool finished = false) {
    to.state = State::ready;
    current_ = &to;
    host::t_info = &to.info;
    switch_context(from, to.ctx, finished);
  }

  static void entry(void* p) {
    fiber_started();
    Thread& t = *static_cast<Thread*>(p);
    Runner& r = *t_runner;
    r.kernel_(r.ctx_);
    r.exit_thread(t);
  }

  void start_block(Block& b) {
    if (next_block_ >= grid_.blocks) {
      b.live = false;
      return;
    }
    b.live = true;
    b.index = next_block_++;
    b.threads = grid_.threads;
    b.exited = 0;
    b.bar_gen = 0;
    b.arrived = 0;
    b.clock = b.bar_epoch = 0;
    for (Warp& w : b.warps) w = Warp{};
    std::memset(b.shared, kSharedPoison, grid_.shared_bytes);
    std::fill(b.words.begin(), b.words.end(), Shadow{});
    std::fill(b.split.begin(), b.split.end(), 0);
    for (uint32_t i = 0; i < grid_.threads; ++i) {
      Thread& t = b.thread[i];
      t.info = {i, b.index, grid_.threads, grid_.blocks};
      t.warp = &b.warps[i / kWarpSize];
      t.state = State::ready;
      t.trace.clear();
      make_context(t.ctx, *t.stack, &Runner::entry, &t);
    }
  }

  void finish_block(Block& b) {
    if (opt_.banks) count_banks(b);
    start_block(b);
  }

  void deadlock() {
    for (const Block& b : blocks_) {
      if (!b.live) continue;
      uint32_t at_barrier = 0, in_coll = 0, exited = 0;
      std::string colls;
      for (const Thread& t : b.thread) {
        if (t.state == State::at_barrier) ++at_barrier;
        if (t.state == State::exited) ++exited;
        if (t.state == State::in_collective) {
          ++in_coll;
          const Warp& w = b.warps[t.info.thread / kWarpSize];
          const std::string name = std::string(" ") + coll_name(w.kind) + " (warp " + std::to_string(t.info.thread / kWarpSize) + ")";
          if (colls.find(name) == std::string::npos) colls += name;
        }
      }
      if (at_barrier + in_coll == 0) continue;
      problem_in(b, "deadlock: " + std::to_string(at_barrier) + " threads wait at a block barrier, " +
                        std::to_string(in_coll) + " in a warp collective" + (colls.empty() ? "" : ":" + colls) + ", " +
                        std::to_string(exited) + " have exited (a barrier or collective not every thread reaches)");
    }
    aborted_ = true;
  }

  // One shared access: who, the epoch of the block's last barrier, and the
  // accessing warp's epoch (its last barrier or sync_warp, whichever is later).
  struct Access {
    int16_t me, warp;
    uint32_t bar, cur;
    bool write;
    // An earlier access by `who` at `epoch` is ordered before this one.
    bool after(int16_t who, uint32_t epoch) const {
      return who == me || epoch < bar || (who / static_cast<int16_t>(kWarpSize) == warp && epoch < cur);
    }
  };

  // Checks one access against the record s of the byte (or word) at off, then updates s.
  void check(const Block& b, const Access& a, Shadow& s, size_t off) {
    if (!a.write) {
      if (s.writer == -1) {
        problem_in(b, "thread " + std::to_string(a.me) + " reads shared byte " + std::to_string(off) +
                          ", which no thread of the block has written");
      } else if (!a.after(s.writer, s.w_epoch)) {
        race(b, a, off, "read after write", "thread " + std::to_string(s.writer) + " wrote it");
      }
      if (s.reader == -1 || s.r_epoch < a.bar) {  // earlier readers are before a barrier
        s.reader = a.me;
        s.r_epoch = a.cur;
      } else if (s.reader != a.me) {
        const int16_t rw = s.reader >= 0 ? static_cast<int16_t>(s.reader / static_cast<int16_t>(kWarpSize))
                           : s.reader == kMixed ? int16_t{-1}
                                                : static_cast<int16_t>(kReaders - s.reader);
        s.reader = rw == a.warp ? static_cast<int16_t>(kReaders - a.warp) : kMixed;
        s.r_epoch = std::max(s.r_epoch, a.cur);
      } else {
        s.r_epoch = a.cur;
      }
      return;
    }
    if (s.writer != -1 && !a.after(s.writer, s.w_epoch))
      race(b, a, off, "write after write", "thread " + std::to_string(s.writer) + " wrote it");
    if (s.reader != -1 && s.r_epoch >= a.bar && s.reader != a.me) {
      const bool my_warp = s.reader >= 0 ? s.reader / static_cast<int16_t>(kWarpSize) == a.warp
                                         : s.reader == kReaders - a.warp;
      if (!(my_warp && s.r_epoch < a.cur))
        race(b, a, off, "write after read",
             s.reader >= 0 ? "thread " + std::to_string(s.reader) + " read it" : "several threads read it");
    }
    s.writer = a.me;
    s.w_epoch = a.cur;
    s.reader = -1;
  }

  void race(const Block& b, const Access& a, size_t off, const char* kind, const std::string& other) {
    problem_in(b, std::string("shared memory race (") + kind + ") at byte " + std::to_string(off) + ": thread " +
                      std::to_string(a.me) + " " + (a.write ? "writes" : "reads") + " it, " + other +
                      ", with no sync_block or sync_warp between");
  }

  // The k-th shared access of every lane of a warp as one instruction.
  void count_banks(const Block& b) {
    BankStats& st = *opt_.banks;
    for (size_t w = 0; w < b.warps.size(); ++w) {
      const Thread* lanes = &b.thread[w * kWarpSize];
      size_t n = lanes[0].trace.size();
      for (unsigned l = 1; l < kWarpSize; ++l) n = std::min(n, lanes[l].trace.size());
      for (size_t k = 0; k < n; ++k) {
        const unsigned bytes = lanes[0].trace[k].second;
        const unsigned group = bytes <= 4 ? 32 : bytes == 8 ? 16 : 8;
        ++st.accesses;
        for (unsigned g0 = 0; g0 < kWarpSize; g0 += group) {
          uint32_t words[32][32];
          uint32_t count[32] = {};
          for (unsigned l = g0; l < g0 + group; ++l) {
            const uint32_t off = lanes[l].trace[k].first, nb = lanes[l].trace[k].second;
            for (uint32_t word = off / 4; word <= (off + nb - 1) / 4; ++word) {
              const unsigned bank = word % 32;
              bool seen = false;
              for (uint32_t i = 0; i < count[bank]; ++i) seen = seen || words[bank][i] == word;
              if (!seen && count[bank] < 32) words[bank][count[bank]++] = word;
            }
          }
          const uint32_t fronts = std::max(1u, *std::max_element(count, count + 32));
          st.wavefronts += fronts;
          st.ideal += 1;
          st.worst = std::max(st.worst, fronts);
        }
      }
    }
  }

  const HostGrid& grid_;
  const HostOptions& opt_;
  HostKernel kernel_;
  void* ctx_;
  HostResult result_;
  std::vector<Block> blocks_;
  std::vector<Thread*> ring_;
  Context main_;
  Thread* current_ = nullptr;
  uint32_t next_block_ = 0;
  bool aborted_ = false;
  alignas(16) uint8_t scratch_[16] = {};
};

}  // namespace

namespace host {

uint64_t collective(Coll kind, uint64_t value, uint32_t arg) { return t_runner->collective(kind, value, arg); }
void sync_block() { t_runner->sync_block(); }
void backoff() { t_runner->backoff(t_runner->current()); }
void fence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
void* shared_access(void* p, size_t bytes, bool write) { return t_runner->shared_access(p, bytes, write); }
uint8_t* shared_base() { return t_runner->shared_base(); }

}  // namespace host

HostResult host_run(const HostGrid& grid, const HostOptions& options, HostKernel kernel, void* ctx) {
  Runner r(grid, options, kernel, ctx);
  return r.run();
}

}  // namespace mldsa::gpu::simt
