// pages.h - large buffers whose pages are made present in one call
// (MADV_POPULATE_WRITE) and then written once, before they are used. On the
// project's VM a page first touched by a store costs about 11 us and the
// kernel filling a fresh page for read() more again; populated in one call
// and cleared, 16 MiB took 4 ms instead of 45 (bench/RESULTS.md).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

namespace mldsa {

class PageBuffer {
 public:
  PageBuffer() = default;
  explicit PageBuffer(size_t size) : size_(size) {
    if (size == 0) return;
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<uint8_t*>(p);
#ifdef MADV_POPULATE_WRITE
    (void)madvise(p, size, MADV_POPULATE_WRITE);  // older kernels: the memset faults them in
#endif
    std::memset(p, 0, size);
  }
  ~PageBuffer() {
    if (data_ != nullptr) munmap(data_, size_);
  }
  PageBuffer(PageBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  PageBuffer& operator=(PageBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace mldsa
