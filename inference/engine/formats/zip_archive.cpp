#include "inference/engine/formats/zip_archive.h"

#include <algorithm>
#include <optional>

namespace ts::engine {
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kCentralHeader = 0x02014b50;
constexpr uint32_t kEndOfDirectory = 0x06054b50;
constexpr uint32_t kZip64EndOfDirectory = 0x06064b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr uint16_t kZip64Extra = 0x0001;
constexpr size_t kEndSize = 22, kCentralSize = 46, kLocalSize = 30, kLocatorSize = 20,
                 kZip64EndSize = 56;
constexpr uint64_t kMaxRecords = 1u << 20;  // a 13B checkpoint shard has ~300

// Little-endian integers at `at`; the caller checked the range.
uint64_t le(std::span<const uint8_t> b, uint64_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | b[at + i];
  return v;
}

bool inside(std::span<const uint8_t> b, uint64_t at, uint64_t n) {
  return at <= b.size() && n <= b.size() - at;
}

std::string sizeText(std::span<const uint8_t> b) {
  return "the " + std::to_string(b.size()) + "-byte file";
}

// The last end-of-central-directory record: 22 bytes plus a comment of up to 64 KiB.
std::optional<uint64_t> findEnd(std::span<const uint8_t> b) {
  if (b.size() < kEndSize) return std::nullopt;
  const uint64_t last = b.size() - kEndSize;
  const uint64_t first = last > 0xFFFF ? last - 0xFFFF : 0;
  for (uint64_t at = last + 1; at-- > first;)
    if (le(b, at, 4) == kEndOfDirectory && at + kEndSize + le(b, at + 20, 2) == b.size()) return at;
  return std::nullopt;
}

struct Directory {
  uint64_t entries = 0, offset = 0, size = 0;
};

Result<Directory> readDirectory(std::span<const uint8_t> b) {
  const auto end = findEnd(b);
  if (!end)
    return fail("expected a ZIP end-of-central-directory record at the end of " + sizeText(b) +
                ", found none (a truncated file, or not a ZIP archive)");
  Directory d{le(b, *end + 10, 2), le(b, *end + 16, 4), le(b, *end + 12, 4)};
  if (le(b, *end + 4, 2) != 0 || le(b, *end + 6, 2) != 0)
    return fail("expected a single-part ZIP archive, found a multi-part one");
  const bool zip64 = d.entries == 0xFFFF || d.offset == 0xFFFFFFFF || d.size == 0xFFFFFFFF;
  if (*end >= kLocatorSize && le(b, *end - kLocatorSize, 4) == kZip64Locator) {
    const uint64_t at = le(b, *end - kLocatorSize + 8, 8);
    if (!inside(b, at, kZip64EndSize) || le(b, at, 4) != kZip64EndOfDirectory)
      return fail("expected a ZIP64 end-of-central-directory record at byte " + std::to_string(at) +
                  ", found " + (inside(b, at, 4) ? "other bytes" : "the end of " + sizeText(b)));
    d = {le(b, at + 32, 8), le(b, at + 48, 8), le(b, at + 40, 8)};
  } else if (zip64) {
    return fail(
        "expected a ZIP64 end-of-central-directory locator before the end record, "
        "found none");
  }
  if (d.entries > kMaxRecords)
    return fail("expected at most " + std::to_string(kMaxRecords) + " ZIP records, found " +
                std::to_string(d.entries));
  if (!inside(b, d.offset, d.size))
    return fail("the ZIP central directory [" + std::to_string(d.offset) + ", +" +
                std::to_string(d.size) + ") lies past the end of " + sizeText(b) +
                " (a truncated file?)");
  return d;
}

// The ZIP64 extra field of a central entry replaces, in this order, those of uncompressed
// size, compressed size and local header offset that read 0xFFFFFFFF.
Result<bool> applyZip64Extra(std::span<const uint8_t> extra, uint64_t& size, uint64_t& packed,
                             uint64_t& local) {
  for (uint64_t at = 0; at + 4 <= extra.size();) {
    const uint64_t id = le(extra, at, 2), n = le(extra, at + 2, 2);
    if (at + 4 + n > extra.size()) break;
    if (id == kZip64Extra) {
      uint64_t field = at + 4;
      for (uint64_t* v : {&size, &packed, &local}) {
        if (*v != 0xFFFFFFFF) continue;
        if (field + 8 > at + 4 + n)
          return fail(
              "expected a ZIP64 extra field with 8 bytes per size or offset over 4 GiB, "
              "found one of " +
              std::to_string(n) + " bytes");
        *v = le(extra, field, 8);
        field += 8;
      }
      return true;
    }
    at += 4 + n;
  }
  if (size == 0xFFFFFFFF || packed == 0xFFFFFFFF || local == 0xFFFFFFFF)
    return fail("expected a ZIP64 extra field for a record over 4 GiB, found none");
  return true;
}

}  // namespace

const ZipRecord* ZipArchive::find(std::string_view name) const {
  const auto it = index.find(std::string(name));
  return it == index.end() ? nullptr : &records[it->second];
}

Result<ZipArchive> parseZip(std::span<const uint8_t> b) {
  auto dir = readDirectory(b);
  if (!dir) return fail(dir.error());
  ZipArchive zip;
  uint64_t at = dir->offset;
  const uint64_t directory_end = dir->offset + dir->size;
  for (uint64_t i = 0; i < dir->entries; ++i) {
    const std::string where = "ZIP central directory entry " + std::to_string(i);
    if (at + kCentralSize > directory_end || le(b, at, 4) != kCentralHeader)
      return fail(where + ": expected a central header at byte " + std::to_string(at) + ", found " +
                  (at + kCentralSize > directory_end ? "the directory's end" : "other bytes"));
    const uint64_t flags = le(b, at + 8, 2), method = le(b, at + 10, 2);
    uint64_t packed = le(b, at + 20, 4), size = le(b, at + 24, 4), local = le(b, at + 42, 4);
    const uint64_t name_len = le(b, at + 28, 2), extra_len = le(b, at + 30, 2),
                   comment_len = le(b, at + 32, 2);
    const uint64_t next = at + kCentralSize + name_len + extra_len + comment_len;
    if (next > directory_end) return fail(where + ": its name and fields pass the directory's end");
    ZipRecord r;
    r.name.assign(reinterpret_cast<const char*>(b.data() + at + kCentralSize), name_len);
    if (auto ok = applyZip64Extra(b.subspan(at + kCentralSize + name_len, extra_len), size, packed,
                                  local);
        !ok)
      return fail("ZIP record '" + r.name + "': " + ok.error());
    if (flags & 1)
      return fail("ZIP record '" + r.name + "': expected no encryption, found it encrypted");
    if (method == 0 && packed != size)
      return fail("ZIP record '" + r.name + "': stored with " + std::to_string(packed) +
                  " bytes for " + std::to_string(size) + " bytes of content");
    // The local header repeats the name; its extra field (torch's alignment padding) may
    // differ from the central one, so the data starts after the local lengths.
    if (!inside(b, local, kLocalSize) || le(b, local, 4) != kLocalHeader)
      return fail("ZIP record '" + r.name + "': expected its local header at byte " +
                  std::to_string(local) + ", found " +
                  (inside(b, local, kLocalSize) ? "other bytes" : "the end of " + sizeText(b)));
    const uint64_t local_name = le(b, local + 26, 2), local_extra = le(b, local + 28, 2);
    if (!inside(b, local + kLocalSize, local_name) ||
        std::string_view(reinterpret_cast<const char*>(b.data() + local + kLocalSize),
                         local_name) != r.name)
      return fail("ZIP record '" + r.name + "': its local header names another record ('" +
                  std::string(reinterpret_cast<const char*>(b.data() + local + kLocalSize),
                              inside(b, local + kLocalSize, local_name)
                                  ? std::min<uint64_t>(local_name, 64)
                                  : 0) +
                  "')");
    r.offset = local + kLocalSize + local_name + local_extra;
    r.size = packed;
    r.method = static_cast<uint16_t>(method);
    if (!inside(b, r.offset, r.size))
      return fail("ZIP record '" + r.name + "': its " + std::to_string(r.size) +
                  " bytes from byte " + std::to_string(r.offset) + " pass the end of " +
                  sizeText(b) + " (a truncated file?)");
    if (!zip.index.emplace(r.name, zip.records.size()).second)
      return fail("ZIP record '" + r.name + "' appears twice in the central directory");
    zip.records.push_back(std::move(r));
    at = next;
  }
  return zip;
}

}  // namespace ts::engine
