// A read-only memory map of a whole file; the parsers work on its bytes (a span), apart
// from the opening (calm's tensors_parse / tensors_open split).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "inference/engine/core/result.h"

namespace ts::engine {

class MappedFile {
 public:
  // Whole: every byte will be read (weights): pages are mapped up front. Sparse: only parts
  // (a vocabulary, a header), mapped on first touch.
  enum class Access { Sparse, Whole };
  // Whole reads are told the bytes mapped so far (about every 64 MiB: a 15 GB checkpoint
  // read from disk takes minutes); false stops and fails with kMapCancelled.
  using Progress = std::function<bool(uint64_t bytes_mapped)>;
  static Result<std::shared_ptr<MappedFile>> open(const std::string& path,
                                                  Access access = Access::Sparse,
                                                  const Progress& progress = {});
  static constexpr const char* kMapCancelled = "mapping cancelled";
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }
  // Unmaps the pages that lie wholly inside `range` (a part of bytes()) from this process:
  // bytes it reads no more (repacked elsewhere) stop counting in its resident memory.
  // Reading them again maps them again from the file.
  void release(std::span<const uint8_t> range) const;

 private:
  MappedFile() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;
};

}  // namespace ts::engine
