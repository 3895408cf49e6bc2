#include "inference/engine/formats/zip_writer.h"

#include <array>

namespace ts::engine {
namespace {

constexpr uint64_t kAlign = 64;
constexpr uint64_t k4G = 0xFFFFFFFF;

constexpr std::array<uint32_t, 256> crcTable() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kCrc = crcTable();

// Little-endian fields into a header.
struct Fields {
  std::string s;
  Fields& u16(uint64_t v) { return put(v, 2); }
  Fields& u32(uint64_t v) { return put(v, 4); }
  Fields& u64(uint64_t v) { return put(v, 8); }
  Fields& put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s += static_cast<char>(v >> (8 * i) & 0xFF);
    return *this;
  }
};

}  // namespace

uint32_t crc32(std::span<const uint8_t> data, uint32_t crc) {
  crc = ~crc;
  for (uint8_t b : data) crc = kCrc[(crc ^ b) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

void ZipWriter::add(const std::string& name, std::span<const uint8_t> data) {
  Entry e{name, out_.offset(), data.size(), crc32(data)};
  const bool zip64 = always_zip64_ || e.size >= k4G;
  Fields extra;
  if (zip64) extra.u16(0x0001).u16(16).u64(e.size).u64(e.size);
  // Padding as torch writes it: an extra field "FB" of 'Z's that ends where the data begins.
  const uint64_t unpadded = e.header + 30 + name.size() + extra.s.size() + 4;
  const uint64_t pad = (kAlign - unpadded % kAlign) % kAlign;
  extra.u16(0x4246).u16(pad);
  extra.s.append(pad, 'Z');
  Fields h;
  h.u32(0x04034b50).u16(zip64 ? 45 : 20).u16(0).u16(0).u16(0).u16(0x21).u32(e.crc);
  h.u32(zip64 ? k4G : e.size).u32(zip64 ? k4G : e.size).u16(name.size()).u16(extra.s.size());
  out_.write(h.s);
  out_.write(name);
  out_.write(extra.s);
  out_.write(data.data(), data.size());
  entries_.push_back(std::move(e));
}

void ZipWriter::finish() {
  const uint64_t directory = out_.offset();
  for (const Entry& e : entries_) {
    const bool big_size = always_zip64_ || e.size >= k4G,
               big_offset = always_zip64_ || e.header >= k4G;
    Fields extra;
    if (big_size || big_offset) {
      extra.u16(0x0001).u16((big_size ? 16 : 0) + (big_offset ? 8 : 0));
      if (big_size) extra.u64(e.size).u64(e.size);
      if (big_offset) extra.u64(e.header);
    }
    Fields h;
    h.u32(0x02014b50).u16(big_size || big_offset ? 45 : 20).u16(big_size || big_offset ? 45 : 20);
    h.u16(0).u16(0).u16(0).u16(0x21).u32(e.crc);
    h.u32(big_size ? k4G : e.size).u32(big_size ? k4G : e.size);
    h.u16(e.name.size()).u16(extra.s.size()).u16(0).u16(0).u16(0).u32(0);
    h.u32(big_offset ? k4G : e.header);
    out_.write(h.s);
    out_.write(e.name);
    out_.write(extra.s);
  }
  const uint64_t directory_end = out_.offset(), size = directory_end - directory;
  const bool zip64 = always_zip64_ || directory >= k4G || entries_.size() >= 0xFFFF;
  if (zip64) {
    Fields z;
    z.u32(0x06064b50).u64(44).u16(45).u16(45).u32(0).u32(0);
    z.u64(entries_.size()).u64(entries_.size()).u64(size).u64(directory);
    z.u32(0x07064b50).u32(0).u64(directory_end).u32(1);  // the locator
    out_.write(z.s);
  }
  Fields end;
  const uint64_t n = zip64 ? 0xFFFF : entries_.size();
  end.u32(0x06054b50).u16(0).u16(0).u16(n).u16(n);
  end.u32(zip64 ? k4G : size).u32(zip64 ? k4G : directory).u16(0);
  out_.write(end.s);
}

}  // namespace ts::engine
