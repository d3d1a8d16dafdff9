// simt_cuda.h - the SIMT layer (simt.h) on CUDA: the intrinsics themselves.
// Included by simt.h under nvcc only.
#pragma once

namespace mldsa::gpu::simt {

inline constexpr unsigned kFullMask = 0xFFFFFFFFu;

__device__ inline unsigned thread_index() { return threadIdx.x; }
__device__ inline unsigned block_index() { return blockIdx.x; }
__device__ inline unsigned block_size() { return blockDim.x; }
__device__ inline unsigned grid_size() { return gridDim.x; }
__device__ inline unsigned lane() { return threadIdx.x & (kWarpSize - 1); }
__device__ inline unsigned warp_index() { return threadIdx.x / kWarpSize; }
__device__ inline unsigned warps() { return blockDim.x / kWarpSize; }

__device__ inline void sync_block() { __syncthreads(); }
__device__ inline void sync_warp() { __syncwarp(kFullMask); }

__device__ inline uint32_t shfl(uint32_t v, unsigned src) { return __shfl_sync(kFullMask, v, static_cast<int>(src)); }
__device__ inline int32_t shfl(int32_t v, unsigned src) { return __shfl_sync(kFullMask, v, static_cast<int>(src)); }
__device__ inline uint64_t shfl(uint64_t v, unsigned src) {
  return __shfl_sync(kFullMask, static_cast<unsigned long long>(v), static_cast<int>(src));
}
__device__ inline uint32_t shfl_xor(uint32_t v, unsigned mask) {
  return __shfl_xor_sync(kFullMask, v, static_cast<int>(mask));
}
__device__ inline int32_t shfl_xor(int32_t v, unsigned mask) {
  return __shfl_xor_sync(kFullMask, v, static_cast<int>(mask));
}
__device__ inline uint64_t shfl_xor(uint64_t v, unsigned mask) {
  return __shfl_xor_sync(kFullMask, static_cast<unsigned long long>(v), static_cast<int>(mask));
}
__device__ inline uint32_t ballot(bool p) { return __ballot_sync(kFullMask, p); }
__device__ inline bool any(bool p) { return __any_sync(kFullMask, p) != 0; }
__device__ inline bool all(bool p) { return __all_sync(kFullMask, p) != 0; }
__device__ inline unsigned popc(uint32_t v) { return static_cast<unsigned>(__popc(v)); }
__device__ inline uint32_t lanemask_lt() { return (1u << lane()) - 1u; }

__device__ inline void fence() { __threadfence(); }
__device__ inline void backoff() { __nanosleep(200); }

// The block's dynamic shared memory (the launch's third <<<>>> argument).
extern __shared__ __align__(16) unsigned char g_simt_shared[];

template <typename T>
class Shared {
 public:
  Shared() = default;
  __device__ explicit Shared(T* p) : p_(p) {}
  __device__ T& operator[](size_t i) const { return p_[i]; }
  __device__ Shared operator+(size_t i) const { return Shared(p_ + i); }
  __device__ T* raw() const { return p_; }
  template <typename U>
  __device__ Shared<U> as() const {
    return Shared<U>(reinterpret_cast<U*>(p_));
  }

 private:
  T* p_ = nullptr;
};

template <typename T>
__device__ inline Shared<T> shared_at(size_t byte_offset) {
  return Shared<T>(reinterpret_cast<T*>(g_simt_shared + byte_offset));
}

}  // namespace mldsa::gpu::simt
