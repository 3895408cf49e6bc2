// Storage for large buffers: a std::vector whose large blocks (>= 1 MiB) come from mmap,
// asked for transparent huge pages (MADV_HUGEPAGE: 2 MiB pages) and populated in one call
// (MADV_POPULATE_WRITE) instead of one page fault per 4 KiB page on first touch. Weights
// (model/weight_buffer.h) stream through fewer page-table entries this way; a session's
// activations and KV cache are touched the first time by a prompt, whose time to first token
// paid every fault: on this project's VMs a fault costs about 10 us, and the 12,000 faults of
// a new session's first 128-position pass of the 7B shape took 120 ms of its 530. Measured:
// allocating and filling 1 GiB took 1.6-2.1 s with 4 KiB pages and MAP_POPULATE, 0.16-1.0 s
// this way. Both advices are hints: without them the memory works the same.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace ts::engine {

template <class T>
struct PopulatingAllocator {
  using value_type = T;
  static constexpr size_t kLarge = size_t{1} << 20;

  PopulatingAllocator() = default;
  template <class U>
  PopulatingAllocator(const PopulatingAllocator<U>&) {}  // NOLINT: rebinding

  // Large blocks start on a 2 MiB boundary, so that every whole 2 MiB of them can be a huge
  // page (a 4 KiB-aligned mapping may have none), and end at their last 4 KiB page: no memory
  // held past the block.
  static constexpr size_t kHugePage = size_t{2} << 20, kPage = 4096;
  static size_t mapped(size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kLarge) return std::allocator<T>().allocate(n);
    const size_t size = mapped(bytes);
    void* raw =
        mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto at = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (at + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned > at) munmap(raw, aligned - at);  // the head and tail around the aligned span
    if (const uintptr_t end = aligned + size; end < at + size + kHugePage)
      munmap(reinterpret_cast<void*>(end), at + size + kHugePage - end);
    void* p = reinterpret_cast<void*>(aligned);
    madvise(p, size, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
    madvise(p, size, MADV_POPULATE_WRITE);
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kLarge) return std::allocator<T>().deallocate(p, n);
    munmap(p, mapped(bytes));
  }
  template <class U>
  bool operator==(const PopulatingAllocator<U>&) const {
    return true;
  }
};

template <class T>
using LargeBuffer = std::vector<T, PopulatingAllocator<T>>;

}  // namespace ts::engine
