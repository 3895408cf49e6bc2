#include "inference/engine/formats/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ts::engine {
namespace {

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

// Streaming the weights once per token through 4 KiB pages walks 512x more page-table
// entries than through 2 MiB ones, and the CPU's prefetchers stop at every 4 KiB page
// (measured here: a two-thread read of a 1.2 GB file mapped in 4 KiB pages ran at
// 0.75-0.87x of the same bytes in 2 MiB pages; in 2 MiB pages at 0.98-1.03x). The advice
// comes before the pages are mapped: a fault in a MADV_HUGEPAGE mapping reads what is not
// cached yet into 2 MiB page-cache folios (on file systems with large folios: xfs, ext4
// from Linux 6.16), and folios of that size are then mapped whole. Hints: without them the
// mapping works the same.
// In steps of 64 MiB, each reported to `progress` (false: stop, and say so).
bool mapAllPages(void* p, size_t size, const MappedFile::Progress& progress) {
  madvise(p, size, MADV_HUGEPAGE);
  constexpr size_t kStep = size_t{64} << 20;
  const long page = sysconf(_SC_PAGESIZE);
  auto* bytes = static_cast<uint8_t*>(p);
  for (size_t at = 0; at < size; at += kStep) {
    const size_t n = std::min(kStep, size - at);
    if (madvise(bytes + at, n, MADV_POPULATE_READ) != 0) {
      // Before Linux 5.14: touch one byte per page.
      volatile uint8_t sink = 0;
      for (size_t k = 0; k < n; k += static_cast<size_t>(page)) sink = sink ^ bytes[at + k];
    }
    if (progress && !progress(at + n)) return false;
  }
  return true;
}

// A free address aligned to 2 MiB for `size` bytes (the file's huge folios can only be
// mapped whole where virtual address and file offset agree modulo 2 MiB), or null.
void* hugeAlignedAddress(size_t size) {
  constexpr size_t kHuge = size_t{2} << 20;
  void* reserved = mmap(nullptr, size + kHuge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (reserved == MAP_FAILED) return nullptr;
  const auto base = reinterpret_cast<uintptr_t>(reserved);
  const uintptr_t aligned = (base + kHuge - 1) & ~(kHuge - 1);
  // Keep [aligned, aligned + size) reserved (the file is mapped over it with MAP_FIXED);
  // give back the rest.
  if (aligned > base) munmap(reserved, aligned - base);
  const uintptr_t end = base + size + kHuge, used = aligned + size;
  if (end > used) munmap(reinterpret_cast<void*>(used), end - used);
  return reinterpret_cast<void*>(aligned);
}

}  // namespace

Result<std::shared_ptr<MappedFile>> MappedFile::open(const std::string& path, Access access,
                                                     const Progress& progress) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail("cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail("cannot open " + path + ": not a regular file");
  }
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->path_ = path;
  file->size_ = static_cast<size_t>(st.st_size);
  if (file->size_ > 0) {
    void* at = access == Access::Whole ? hugeAlignedAddress(file->size_) : nullptr;
    void* p = mmap(at, file->size_, PROT_READ, MAP_PRIVATE | (at ? MAP_FIXED : 0), fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      if (at) munmap(at, file->size_);  // the reservation the file was to replace
      ::close(fd);
      return fail("cannot map " + path + ": " + std::strerror(err));
    }
    file->data_ = static_cast<const uint8_t*>(p);
    // Whole reads map every page up front: one fault per page on first touch costs more
    // than the bytes' copy would.
    if (access == Access::Whole && !mapAllPages(p, file->size_, progress)) {
      ::close(fd);
      return fail(kMapCancelled);  // ~MappedFile unmaps
    }
  }
  ::close(fd);  // the mapping stays valid
  return file;
}

MappedFile::~MappedFile() {
  if (data_) munmap(const_cast<uint8_t*>(data_), size_);
}

void MappedFile::release(std::span<const uint8_t> range) const {
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<uintptr_t>(range.data()) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<uintptr_t>(range.data()) + range.size()) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace ts::engine
