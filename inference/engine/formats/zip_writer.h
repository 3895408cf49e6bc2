// Writes a ZIP archive the way torch.save does: every record stored (no compression) with
// its data starting at a multiple of 64 bytes (padding in the local header's extra field),
// so a reader maps tensors where they lie; ZIP64 fields for records or offsets past 4 GiB
// (or, for tests, always). Records stream into an AtomicFileWriter one at a time.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "inference/engine/formats/atomic_file.h"

namespace ts::engine {

class ZipWriter {
 public:
  explicit ZipWriter(AtomicFileWriter& out, bool always_zip64 = false)
      : out_(out), always_zip64_(always_zip64) {}
  // One record: a local header, padding, then the bytes.
  void add(const std::string& name, std::span<const uint8_t> data);
  // The central directory and the end records (the caller then commits the file).
  void finish();

 private:
  struct Entry {
    std::string name;
    uint64_t header = 0, size = 0;
    uint32_t crc = 0;
  };
  AtomicFileWriter& out_;
  bool always_zip64_;
  std::vector<Entry> entries_;
};

// CRC-32 (ISO-HDLC, as ZIP stores it) of `data`, continuing from `crc`.
uint32_t crc32(std::span<const uint8_t> data, uint32_t crc = 0);

}  // namespace ts::engine
