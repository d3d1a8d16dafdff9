// simt_host.h - the SIMT layer (simt.h) on the CPU, and the launcher that runs
// a grid of blocks of fibers (kernels/simt/simt_host.cc). Included by simt.h
// on every compiler but nvcc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace mldsa::gpu::simt {

namespace host {

// What a running fiber knows about itself (the runtime's thread record
// starts with it).
struct ThreadInfo {
  uint32_t thread = 0, block = 0, block_threads = 0, grid_blocks = 0;
};
// The fiber running on this OS thread; nullptr outside a host launch.
extern constinit thread_local const ThreadInfo* t_info;

enum class Coll : uint8_t { sync, shfl32, shfl64, shfl_xor32, shfl_xor64, ballot, any, all };
uint64_t collective(Coll kind, uint64_t value, uint32_t arg);
void sync_block();
void backoff();
void fence();
// Checks (bounds, races, uninitialised reads) and records (bank conflicts) one
// shared-memory access of this thread; returns where to access (a scratch
// word instead of memory outside the block's shared memory).
void* shared_access(void* p, size_t bytes, bool write);
uint8_t* shared_base();

}  // namespace host

inline unsigned thread_index() { return host::t_info->thread; }
inline unsigned block_index() { return host::t_info->block; }
inline unsigned block_size() { return host::t_info->block_threads; }
inline unsigned grid_size() { return host::t_info->grid_blocks; }
inline unsigned lane() { return host::t_info->thread % kWarpSize; }
inline unsigned warp_index() { return host::t_info->thread / kWarpSize; }
inline unsigned warps() { return host::t_info->block_threads / kWarpSize; }

inline void sync_block() { host::sync_block(); }
inline void sync_warp() { host::collective(host::Coll::sync, 0, 0); }

inline uint32_t shfl(uint32_t v, unsigned src) {
  return static_cast<uint32_t>(host::collective(host::Coll::shfl32, v, src));
}
inline int32_t shfl(int32_t v, unsigned src) {
  return static_cast<int32_t>(shfl(static_cast<uint32_t>(v), src));
}
inline uint64_t shfl(uint64_t v, unsigned src) { return host::collective(host::Coll::shfl64, v, src); }
inline uint32_t shfl_xor(uint32_t v, unsigned mask) {
  return static_cast<uint32_t>(host::collective(host::Coll::shfl_xor32, v, mask));
}
inline int32_t shfl_xor(int32_t v, unsigned mask) {
  return static_cast<int32_t>(shfl_xor(static_cast<uint32_t>(v), mask));
}
inline uint64_t shfl_xor(uint64_t v, unsigned mask) { return host::collective(host::Coll::shfl_xor64, v, mask); }
inline uint32_t ballot(bool p) { return static_cast<uint32_t>(host::collective(host::Coll::ballot, p, 0)); }
inline bool any(bool p) { return host::collective(host::Coll::any, p, 0) != 0; }
inline bool all(bool p) { return host::collective(host::Coll::all, p, 0) != 0; }
inline unsigned popc(uint32_t v) { return static_cast<unsigned>(__builtin_popcount(v)); }
inline uint32_t lanemask_lt() { return (1u << lane()) - 1u; }

inline void fence() { host::fence(); }
inline void backoff() { host::backoff(); }

// A view of the block's shared memory. Every element access goes through
// host::shared_access, which is what lets the runtime find races. Kernel
// code reads elements into named types (T x = s[i]), never auto: on the host
// auto would keep the proxy and read later.
template <typename T>
class Shared {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  class Ref {
   public:
    explicit Ref(T* p) : p_(p) {}
    operator T() const { return *static_cast<T*>(host::shared_access(p_, sizeof(T), false)); }
    Ref& operator=(T v) {
      *static_cast<T*>(host::shared_access(p_, sizeof(T), true)) = v;
      return *this;
    }
    Ref& operator=(const Ref& o) { return *this = static_cast<T>(o); }
    Ref& operator+=(T v) { return *this = static_cast<T>(static_cast<T>(*this) + v); }
    Ref& operator-=(T v) { return *this = static_cast<T>(static_cast<T>(*this) - v); }
    Ref& operator^=(T v) { return *this = static_cast<T>(static_cast<T>(*this) ^ v); }
    Ref& operator|=(T v) { return *this = static_cast<T>(static_cast<T>(*this) | v); }
    Ref& operator&=(T v) { return *this = static_cast<T>(static_cast<T>(*this) & v); }

   private:
    T* p_;
  };

  Shared() = default;
  explicit Shared(T* p) : p_(p) {}
  Ref operator[](size_t i) const { return Ref(p_ + i); }
  Shared operator+(size_t i) const { return Shared(p_ + i); }
  // The plain pointer, unchecked: for thread-level code (kernels/thread/) that
  // one thread runs over data the block has finished writing.
  T* raw() const { return p_; }
  template <typename U>
  Shared<U> as() const {
    return Shared<U>(reinterpret_cast<U*>(p_));
  }

 private:
  T* p_ = nullptr;
};

template <typename T>
inline Shared<T> shared_at(size_t byte_offset) {
  return Shared<T>(reinterpret_cast<T*>(host::shared_base() + byte_offset));
}

// ---------------------------------------------------------------------------
// The launcher.

struct HostGrid {
  uint32_t blocks = 1;
  uint32_t threads = kWarpSize;  // per block, a multiple of 32
  size_t shared_bytes = 0;       // dynamic shared memory per block
};

// Shared-memory bank conflicts (32 banks of 4 bytes), counted per warp-wide
// access: the k-th shared access of every lane of a warp is one instruction.
// Accesses of 8 (16) bytes are served per half (quarter) warp, as on NVIDIA
// GPUs. ideal: wavefronts without conflicts; extra = wavefronts - ideal.
struct BankStats {
  uint64_t accesses = 0, wavefronts = 0, ideal = 0;
  uint32_t worst = 0;  // the largest number of wavefronts one group needed
  uint64_t extra() const { return wavefronts - ideal; }
};

struct HostOptions {
  bool check_races = true;        // bounds are always checked
  bool reverse = false;           // threads take turns in descending order
  uint32_t resident_blocks = 1;   // blocks interleaved at once (the rest start as blocks finish)
  BankStats* banks = nullptr;     // when set, count bank conflicts
};

struct HostResult {
  bool ok = true;
  std::string error;   // the first problem found, "block 2: ..."
  uint64_t problems = 0;
};

using HostKernel = void (*)(void* ctx);
HostResult host_run(const HostGrid& grid, const HostOptions& options, HostKernel kernel, void* ctx);

// Runs f() as every thread of every block of grid.
template <typename F>
HostResult host_launch(const HostGrid& grid, const HostOptions& options, F&& f) {
  using Fn = std::remove_reference_t<F>;
  return host_run(grid, options, [](void* c) { (*static_cast<Fn*>(c))(); }, const_cast<void*>(static_cast<const void*>(&f)));
}

}  // namespace mldsa::gpu::simt
