// Storage for large buffers: a std::vector whose large blocks (>= 1 MiB) come from mmap,
// asked for transparent huge pages (MADV_HUGEPAGE: 2 MiB pages) and populated in one call
// (MADV_POPULATE_WRITE) instead of one page fault per 4 KiB page on first touch. Weights
// (model/weight_buffer.h) stream through fewer page-table entries this way; a session's
// activations and KV cache are touched the first time by a prompt, whose time to first token
// paid every fault: on this project's VMs a fault costs about 10 us, and the 12,000 faults of
// a new session's first 128-position pass of the 7B shape took 120 ms of its 530. Measured:
// allocating and filling 1 GiB took 1.6-2.1 s with 4 KiB pages and MAP_POPULATE, 0.16-1.0 s
// this way. Both advices are hints: without them the memory works the same.
//
// ScratchBuffer: the same, for what sessions allocate and free again (activations, KV cache
// blocks): a freed large block is kept (up to kScratchKeep bytes in all) and handed to the
// next request of the same size, so that a new session's first prompt does not map, zero and
// unmap its ~55 MB again (7B shape, 128 positions, Q4_0: a fresh session's first pass took
// 15-26 ms longer than its second, 3-7 ms with the blocks kept). And its elements start
// undefined, as malloc's: resize does not zero them (a pass's activations change width
// 4,096 <-> 11,008 values per position every layer, and zeroing the growth was 1.7% of a
// 128-position pass); its users write every element before reading it, or assign / fill.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ts::engine {

// The kept scratch blocks (large_buffer.cpp), shared by every thread: takeScratch hands back
// a kept block of exactly `bytes` (then no longer kept) or null; keepScratch keeps p unless
// that would hold more than kScratchKeep bytes (false: the caller unmaps it);
// releaseScratch unmaps every kept block and returns their bytes.
constexpr size_t kScratchKeep = size_t{256} << 20;
void* takeScratch(size_t bytes);
bool keepScratch(void* p, size_t bytes);
size_t releaseScratch();
size_t keptScratchBytes();

template <class T, bool kRecycle = false>
struct PopulatingAllocator {
  using value_type = T;
  static constexpr size_t kLarge = size_t{1} << 20;
  template <class U>
  struct rebind {
    using other = PopulatingAllocator<U, kRecycle>;
  };

  PopulatingAllocator() = default;
  template <class U>
  PopulatingAllocator(const PopulatingAllocator<U, kRecycle>&) {}  // NOLINT: rebinding

  // Large blocks start on a 2 MiB boundary, so that every whole 2 MiB of them can be a huge
  // page (a 4 KiB-aligned mapping may have none), and end at their last 4 KiB page: no memory
  // held past the block.
  static constexpr size_t kHugePage = size_t{2} << 20, kPage = 4096;
  static size_t mapped(size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kLarge) return std::allocator<T>().allocate(n);
    const size_t size = mapped(bytes);
    if constexpr (kRecycle)
      if (void* kept = takeScratch(size)) return static_cast<T*>(kept);
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
    if constexpr (kRecycle)
      if (keepScratch(p, mapped(bytes))) return;
    munmap(p, mapped(bytes));
  }
  // resize's new elements: value-initialized (zeros), default-initialized for scratch
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    if constexpr (kRecycle)
      ::new (static_cast<void*>(p)) U;
    else
      ::new (static_cast<void*>(p)) U();
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const PopulatingAllocator<U, kRecycle>&) const {
    return true;
  }
};

template <class T>
using LargeBuffer = std::vector<T, PopulatingAllocator<T>>;
template <class T>
using ScratchBuffer = std::vector<T, PopulatingAllocator<T, true>>;

}  // namespace ts::engine
