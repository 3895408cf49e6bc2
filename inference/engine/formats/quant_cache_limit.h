// The conversion cache's size limit: after a conversion is written, the least recently
// used files (by modification time; a cache hit touches its file) are removed until the
// cache fits. The model manager shows the usage and can clear it.
#pragma once
#include <cstdint>
#include <string>

namespace ts::engine {

struct QuantCacheUsage {
  std::string dir;     // quantCacheDir()
  uint64_t bytes = 0;  // of its .tsq files
  int files = 0;
};

// $TOKENSCOPE_CACHE_LIMIT_MB when set (MiB), else 20 GiB.
uint64_t quantCacheLimit();
QuantCacheUsage quantCacheUsage();
// Removes the oldest .tsq files until the total is at most `limit` bytes, never `keep`.
// Returns how many were removed.
int pruneQuantCache(uint64_t limit, const std::string& keep = "");
int clearQuantCache();  // every .tsq file; returns how many were removed
// Marks a cache file as just used (a hit), so that pruning removes it last.
void touchQuantCache(const std::string& path);

}  // namespace ts::engine
