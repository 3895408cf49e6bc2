// Little binary records for the quantization cache: plain values, length-prefixed strings
// and arrays (a uint64 count, then the elements), written in host byte order (a cache is
// read back on the machine that wrote it). The reader never reads past its span and says
// false on anything short or of the wrong size.
#pragma once
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>

namespace ts::engine {

class ByteWriter {
 public:
  template <class T>
  void pod(const T& v) {
    bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void str(const std::string& v) {
    pod(static_cast<uint64_t>(v.size()));
    bytes += v;
  }
  template <class V>  // std::vector or WeightBuffer
  void array(const V& v) {
    pod(static_cast<uint64_t>(v.size()));
    bytes.append(reinterpret_cast<const char*>(v.data()),
                 v.size() * sizeof(typename V::value_type));
  }
  std::string bytes;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> in) : rest(in) {}
  template <class T>
  bool pod(T& v) {
    if (rest.size() < sizeof v) return false;
    std::memcpy(&v, rest.data(), sizeof v);
    rest = rest.subspan(sizeof v);
    return true;
  }
  bool str(std::string& v) {
    uint64_t n;
    if (!pod(n) || n > rest.size()) return false;
    v.assign(reinterpret_cast<const char*>(rest.data()), n);
    rest = rest.subspan(n);
    return true;
  }
  // An array of any length, or exactly `expected` elements.
  template <class V>
  bool array(V& v, std::optional<uint64_t> expected = std::nullopt) {
    using T = typename V::value_type;
    uint64_t n;
    if (!pod(n) || (expected && n != *expected) || n > rest.size() / sizeof(T)) return false;
    v.resize(n);
    std::memcpy(v.data(), rest.data(), n * sizeof(T));
    rest = rest.subspan(n * sizeof(T));
    return true;
  }
  std::span<const uint8_t> rest;  // what is left to read
};

}  // namespace ts::engine
