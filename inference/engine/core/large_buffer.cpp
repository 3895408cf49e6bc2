#include "inference/engine/core/large_buffer.h"

#include <sys/mman.h>

#include <mutex>
#include <utility>
#include <vector>

namespace ts::engine {
namespace {

struct KeptBlocks {
  std::mutex mutex;
  std::vector<std::pair<void*, size_t>> blocks;  // (start, mapped bytes)
  size_t bytes = 0;
};

KeptBlocks& kept() {
  static KeptBlocks* blocks = new KeptBlocks;  // never destroyed: buffers may outlive main's
  return *blocks;
}

}  // namespace

void* takeScratch(size_t bytes) {
  KeptBlocks& k = kept();
  std::lock_guard lock(k.mutex);
  for (auto it = k.blocks.begin(); it != k.blocks.end(); ++it)
    if (it->second == bytes) {
      void* p = it->first;
      k.blocks.erase(it);
      k.bytes -= bytes;
      return p;
    }
  return nullptr;
}

bool keepScratch(void* p, size_t bytes) {
  KeptBlocks& k = kept();
  std::lock_guard lock(k.mutex);
  if (k.bytes + bytes > kScratchKeep) return false;
  k.blocks.emplace_back(p, bytes);
  k.bytes += bytes;
  return true;
}

size_t releaseScratch() {
  KeptBlocks& k = kept();
  std::lock_guard lock(k.mutex);
  for (const auto& [p, bytes] : k.blocks) munmap(p, bytes);
  const size_t released = k.bytes;
  k.blocks.clear();
  k.bytes = 0;
  return released;
}

size_t keptScratchBytes() {
  KeptBlocks& k = kept();
  std::lock_guard lock(k.mutex);
  return k.bytes;
}

}  // namespace ts::engine
