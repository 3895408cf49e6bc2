#include "inference/engine/formats/atomic_file.h"

#include <filesystem>

namespace ts::engine {
namespace fs = std::filesystem;

AtomicFileWriter::AtomicFileWriter(std::string path)
    : path_(std::move(path)),
      tmp_(path_ + ".partial"),
      out_(tmp_, std::ios::binary | std::ios::trunc) {}

AtomicFileWriter::~AtomicFileWriter() {
  if (committed_) return;
  out_.close();
  std::error_code ec;
  fs::remove(tmp_, ec);
}

void AtomicFileWriter::write(const void* data, size_t bytes) {
  out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  offset_ += bytes;
}

Result<bool> AtomicFileWriter::commit() {
  if (!out_.is_open()) return fail("cannot write " + tmp_);
  out_.flush();
  if (!out_) return fail("writing " + path_ + " failed (disk full?)");
  out_.close();
  std::error_code ec;
  fs::rename(tmp_, path_, ec);
  if (ec) return fail("cannot rename " + tmp_ + " to " + path_ + ": " + ec.message());
  committed_ = true;
  return true;
}

Result<bool> writeFileAtomically(const std::string& path,
                                 const std::vector<std::string_view>& parts) {
  AtomicFileWriter out(path);
  if (!out.ok()) return fail("cannot write " + path + ".partial");
  for (auto part : parts) out.write(part);
  return out.commit();
}

}  // namespace ts::engine
