// block.h - what every cooperative kernel's block has: 128 threads (4 warps),
// a shared-memory layout laid out by a plan that the launcher and the kernel
// compute alike, the twiddle table and one NTT scratch per warp, and the
// block-wide helpers (copies between global and shared memory, flags
// combined over warps, wiping).
//
// Why 128 threads per block, by counting for sm_90 (64 Ki registers, 228 KiB
// shared memory and 64 warps per SM): a task is a block, and a task's
// polynomials come in vectors of k = 4..8 and l = 4..7, so 4 warps (one
// polynomial each at a time) keep most warps busy on every vector (l = 5 or
// k = 6 leave 1-2 of 8 warp-slots idle in the second round; 8 warps would
// idle 3-4 of 8 on ML-DSA-44 every time). Shared memory stays under 48 KiB
// per block (no opt-in launch attribute); ptxas's registers per thread (see
// bench/RESULTS.md, the ptxas check) then set how many blocks an SM holds.
#pragma once

#include "kernels/warp/poly.h"

namespace mldsa::gpu::coop {

inline constexpr unsigned kBlockThreads = 128;
inline constexpr unsigned kBlockWarps = kBlockThreads / simt::kWarpSize;
inline constexpr uint32_t kSharedBudget = 48 * 1024;
inline constexpr uint32_t kPolyBytes = kPolyWords * 4;

// A bump allocator over the block's dynamic shared memory (16-byte aligned
// regions).
struct SharedPlan {
  uint32_t bytes = 0;
  MLDSA_HD uint32_t take(uint32_t n) {
    const uint32_t at = bytes;
    bytes = (bytes + n + 15) & ~15u;
    return at;
  }
};

// The regions every kernel starts with.
struct BlockBase {
  uint32_t zetas = 0, scratch = 0;
  MLDSA_HD void plan(SharedPlan& s) {
    zetas = s.take(kN * 4);
    scratch = s.take(kBlockWarps * kNttScratchWords * 4);
  }
  MLDSA_DEV Shared<int32_t> zeta_table() const { return simt::shared_at<int32_t>(zetas); }
  MLDSA_DEV Shared<int32_t> warp_scratch() const {
    return simt::shared_at<int32_t>(scratch + simt::warp_index() * kNttScratchWords * 4);
  }
};

// n bytes from global src to shared dst, by the whole block: 8 bytes per
// thread per step where both are 8-byte aligned (a warp moves 256
// contiguous bytes), else one byte per thread per step (still contiguous
// across the warp).
MLDSA_DEV inline void block_copy_in(Shared<uint8_t> dst, const uint8_t* src, size_t n) {
  const unsigned t = simt::thread_index(), nt = simt::block_size();
  if (((reinterpret_cast<uintptr_t>(src) | reinterpret_cast<uintptr_t>(dst.raw())) & 7) == 0) {
    Shared<uint64_t> d = dst.as<uint64_t>();
    const uint64_t* s = reinterpret_cast<const uint64_t*>(src);
    for (size_t i = t; i < n / 8; i += nt) d[i] = s[i];
    for (size_t i = n / 8 * 8 + t; i < n; i += nt) dst[i] = src[i];
  } else {
    for (size_t i = t; i < n; i += nt) dst[i] = src[i];
  }
}
MLDSA_DEV inline void block_copy_out(uint8_t* dst, Shared<uint8_t> src, size_t n) {
  const unsigned t = simt::thread_index(), nt = simt::block_size();
  if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src.raw())) & 7) == 0) {
    Shared<uint64_t> s = src.as<uint64_t>();
    uint64_t* d = reinterpret_cast<uint64_t*>(dst);
    for (size_t i = t; i < n / 8; i += nt) d[i] = s[i];
    for (size_t i = n / 8 * 8 + t; i < n; i += nt) dst[i] = src[i];
  } else {
    for (size_t i = t; i < n; i += nt) dst[i] = static_cast<uint8_t>(src[i]);
  }
}

// Zeroes the block's shared memory (it outlives the block on a GPU: the
// kernels that held secrets call this last).
MLDSA_DEV inline void block_wipe_shared(uint32_t bytes) {
  simt::sync_block();
  Shared<uint32_t> s = simt::shared_at<uint32_t>(0);
  for (uint32_t i = simt::thread_index(); i < bytes / 4; i += simt::block_size()) s[i] = 0;
}

// One flag word per warp (written by its lane 0), combined after a barrier.
MLDSA_DEV inline void warp_flag(Shared<uint32_t> flags, uint32_t v) {
  if (simt::lane() == 0) flags[simt::warp_index()] = v;
}
MLDSA_DEV inline uint32_t block_or(Shared<uint32_t> flags) {
  uint32_t v = 0;
  for (unsigned w = 0; w < kBlockWarps; ++w) v |= flags[w];
  return v;
}
MLDSA_DEV inline uint32_t block_sum(Shared<uint32_t> flags) {
  uint32_t v = 0;
  for (unsigned w = 0; w < kBlockWarps; ++w) v += flags[w];
  return v;
}

}  // namespace mldsa::gpu::coop
