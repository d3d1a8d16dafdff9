// pages.h - large buffers whose pages are made present in one call
// (MADV_POPULATE_WRITE) and then written once, before they are used. On the
// project's VM a page first touched by a store costs about 11 us and the
// kernel filling a fresh page for read() more again; populated in one call
// and cleared, 16 MiB took 4 ms instead of 45 (bench/RESULTS.md). A buffer
// of 1 MiB or more is rounded up to whole 2 MiB pages and asks for
// transparent huge pages (MADV_HUGEPAGE, where the system's setting is
// "madvise"): one fault a 2 MiB page, 16 MiB made present in 1.4 ms where
// 4 KiB pages populated at once took 27 (bench_file_threads). Where huge
// pages are off, it is 4 KiB pages as before.
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
  explicit PageBuffer(size_t size) {
    if (size == 0) return;
    const bool huge = size >= kHugeFrom;
    if (huge) size = (size + kHuge - 1) & ~(kHuge - 1);
    // A huge page needs a 2 MiB-aligned start: map a page more, trim the rest.
    const size_t mapped = huge ? size + kHuge : size;
    void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    auto* start = static_cast<uint8_t*>(p);
    if (huge) {
      const uintptr_t at = reinterpret_cast<uintptr_t>(p);
      start = static_cast<uint8_t*>(p) + (((at + kHuge - 1) & ~(kHuge - 1)) - at);
      const size_t head = static_cast<size_t>(start - static_cast<uint8_t*>(p));
      if (head > 0) munmap(p, head);
      if (mapped - head - size > 0) munmap(start + size, mapped - head - size);
#ifdef MADV_HUGEPAGE
      (void)madvise(start, size, MADV_HUGEPAGE);  // refused where huge pages are off: 4 KiB pages
#endif
    }
    data_ = start;
    size_ = size;
#ifdef MADV_POPULATE_WRITE
    (void)madvise(data_, size_, MADV_POPULATE_WRITE);  // older kernels: the memset faults them in
#endif
    std::memset(data_, 0, size_);
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
  // What was asked for, or more: a huge buffer's whole 2 MiB pages.
  size_t size() const { return size_; }

 private:
  static constexpr size_t kHuge = size_t{2} << 20;
  static constexpr size_t kHugeFrom = size_t{1} << 20;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace mldsa
