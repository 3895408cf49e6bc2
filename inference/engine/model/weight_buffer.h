// Storage for weights: a std::vector whose large blocks (>= 1 MiB) come from mmap, asked
// for transparent huge pages (MADV_HUGEPAGE: 2 MiB pages, so streaming the weights once
// per token walks 512x fewer page-table entries) and populated in one call
// (MADV_POPULATE_WRITE) instead of one page fault per page on first touch. Measured on
// this project's VMs: allocating and filling 1 GiB took 1.6-2.1 s with 4 KiB pages and
// MAP_POPULATE, 0.16-1.0 s this way; int4 decode of a 4-layer 7B shape went from 54-59
// to 57-62 tok/s. Both advices are hints: without them the memory works the same.
#pragma once
#include <sys/mman.h>

#include <cstddef>
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

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kLarge) return std::allocator<T>().allocate(n);
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    madvise(p, bytes, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
    madvise(p, bytes, MADV_POPULATE_WRITE);
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kLarge) return std::allocator<T>().deallocate(p, n);
    munmap(p, bytes);
  }
  template <class U>
  bool operator==(const PopulatingAllocator<U>&) const {
    return true;
  }
};

template <class T>
using WeightBuffer = std::vector<T, PopulatingAllocator<T>>;

template <class T>
WeightBuffer<T> toWeightBuffer(const std::vector<T>& v) {
  return WeightBuffer<T>(v.begin(), v.end());
}

}  // namespace ts::engine
