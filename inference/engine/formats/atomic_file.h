// Writes a file under a temporary name and renames it into place, so readers never see a
// half-written file and a failed write (full disk) leaves nothing behind.
#pragma once
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "inference/engine/core/result.h"

namespace ts::engine {

Result<bool> writeFileAtomically(const std::string& path,
                                 const std::vector<std::string_view>& parts);

// The same, streamed: write() appends (a model written tensor by tensor never holds the
// whole file), commit() renames PATH.partial to PATH; destroyed uncommitted (an error,
// cancellation), it removes the partial file.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  bool ok() const { return static_cast<bool>(out_); }
  void write(const void* data, size_t bytes);
  void write(std::string_view bytes) { write(bytes.data(), bytes.size()); }
  uint64_t offset() const { return offset_; }  // bytes written so far
  Result<bool> commit();

 private:
  std::string path_, tmp_;
  std::ofstream out_;
  uint64_t offset_ = 0;
  bool committed_ = false;
};

}  // namespace ts::engine
