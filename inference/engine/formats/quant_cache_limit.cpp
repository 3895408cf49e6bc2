#include "inference/engine/formats/quant_cache_limit.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "inference/engine/formats/quant_cache.h"

namespace ts::engine {
namespace fs = std::filesystem;
namespace {

struct CacheFile {
  fs::path path;
  uint64_t bytes;
  fs::file_time_type used;
};

std::vector<CacheFile> cacheFiles() {
  std::vector<CacheFile> files;
  std::error_code ec;
  const std::string dir = quantCacheDir();
  if (dir.empty() || !fs::is_directory(dir, ec)) return files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec) || e.path().extension() != ".tsq") continue;
    files.push_back({e.path(), static_cast<uint64_t>(e.file_size(ec)), e.last_write_time(ec)});
  }
  std::sort(files.begin(), files.end(),
            [](const CacheFile& a, const CacheFile& b) { return a.used < b.used; });
  return files;
}

}  // namespace

uint64_t quantCacheLimit() {
  if (const char* mb = std::getenv("TOKENSCOPE_CACHE_LIMIT_MB"); mb && *mb)
    return std::strtoull(mb, nullptr, 10) << 20;
  return uint64_t{20} << 30;
}

QuantCacheUsage quantCacheUsage() {
  QuantCacheUsage u;
  u.dir = quantCacheDir();
  for (const CacheFile& f : cacheFiles()) {
    u.bytes += f.bytes;
    ++u.files;
  }
  return u;
}

int pruneQuantCache(uint64_t limit, const std::string& keep) {
  std::vector<CacheFile> files = cacheFiles();
  uint64_t total = 0;
  for (const CacheFile& f : files) total += f.bytes;
  int removed = 0;
  std::error_code ec;
  for (const CacheFile& f : files) {  // oldest first
    if (total <= limit) break;
    if (!keep.empty() && fs::equivalent(f.path, keep, ec)) continue;
    if (fs::remove(f.path, ec)) {
      total -= f.bytes;
      ++removed;
    }
  }
  return removed;
}

int clearQuantCache() {
  int removed = 0;
  std::error_code ec;
  for (const CacheFile& f : cacheFiles()) removed += fs::remove(f.path, ec) ? 1 : 0;
  return removed;
}

void touchQuantCache(const std::string& path) {
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
}

}  // namespace ts::engine
