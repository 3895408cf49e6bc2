// ZIP archives as torch.save writes them (PyTorch's zip format, torch >= 1.6): records
// stored uncompressed, ZIP64 records once the archive passes 4 GiB. A pure parser over the
// archive's bytes: the end-of-central-directory record (or its ZIP64 form), then every
// central-directory entry, each checked against its local header, so that a record's data
// can be used where it lies (a memory-mapped file's pages). CRCs are not verified: that
// would read every byte of a 15 GB checkpoint at each load; truncation and bad offsets are
// caught by the structure itself.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "inference/engine/core/result.h"

namespace ts::engine {

struct ZipRecord {
  std::string name;
  uint64_t offset = 0;  // of the record's data, from the start of the archive
  uint64_t size = 0;    // bytes as stored (compressed size)
  uint16_t method = 0;  // 0: stored; anything else is compressed (callers refuse it)
};

struct ZipArchive {
  std::vector<ZipRecord> records;  // in central-directory order, each name once
  const ZipRecord* find(std::string_view name) const;
  std::unordered_map<std::string, size_t> index;  // name -> records[i]
};

// Every range is checked against bytes.size(): a record's data lies wholly inside.
Result<ZipArchive> parseZip(std::span<const uint8_t> bytes);

}  // namespace ts::engine
