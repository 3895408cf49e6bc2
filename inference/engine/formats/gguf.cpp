#include "inference/engine/formats/gguf.h"

#include <cstring>

namespace ts::engine {
namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF", little endian
constexpr uint64_t kMaxArray = 1ull << 28;
constexpr uint32_t kMaxDims = 4;
constexpr int kMaxDepth = 4;  // arrays of arrays

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> b) : b_(b) {}
  size_t pos() const { return pos_; }
  size_t left() const { return b_.size() - pos_; }

  template <class T>
  bool read(T& out, const char* what) {
    if (left() < sizeof(T)) return truncated(what, sizeof(T));
    std::memcpy(&out, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool readString(std::string& out, const char* what) {
    uint64_t n = 0;
    if (!read(n, what)) return false;
    if (n > left()) {
      error_ = std::string(what) + ": string of " + std::to_string(n) + " bytes at offset " +
               std::to_string(pos_) + ", but only " + std::to_string(left()) +
               " bytes remain in the file";
      return false;
    }
    out.assign(reinterpret_cast<const char*>(b_.data() + pos_), n);
    pos_ += n;
    return true;
  }
  bool truncated(const char* what, size_t need) {
    error_ = std::string("truncated file: expected ") + std::to_string(need) + " more bytes for " +
             what + " at offset " + std::to_string(pos_) + ", found " + std::to_string(left());
    return false;
  }
  std::string error_;

 private:
  std::span<const uint8_t> b_;
  size_t pos_ = 0;
};

bool readValue(Reader& r, uint32_t type, GgufValue& out, const std::string& key, int depth) {
  const char* what = "a metadata value";
  switch (type) {
    case 0: {
      uint8_t v = 0;
      if (!r.read(v, what)) return false;
      out.v = uint64_t{v};
      return true;
    }
    case 1: {
      int8_t v = 0;
      if (!r.read(v, what)) return false;
      out.v = int64_t{v};
      return true;
    }
    case 2: {
      uint16_t v = 0;
      if (!r.read(v, what)) return false;
      out.v = uint64_t{v};
      return true;
    }
    case 3: {
      int16_t v = 0;
      if (!r.read(v, what)) return false;
      out.v = int64_t{v};
      return true;
    }
    case 4: {
      uint32_t v = 0;
      if (!r.read(v, what)) return false;
      out.v = uint64_t{v};
      return true;
    }
    case 5: {
      int32_t v = 0;
      if (!r.read(v, what)) return false;
      out.v = int64_t{v};
      return true;
    }
    case 6: {
      float v = 0;
      if (!r.read(v, what)) return false;
      out.v = double{v};
      return true;
    }
    case 7: {
      uint8_t v = 0;
      if (!r.read(v, what)) return false;
      if (v > 1) {
        r.error_ = "metadata '" + key + "': expected a bool (0 or 1), found " + std::to_string(v);
        return false;
      }
      out.v = v == 1;
      return true;
    }
    case 8: {
      std::string s;
      if (!r.readString(s, "a metadata string")) return false;
      out.v = std::move(s);
      return true;
    }
    case 9: {
      uint32_t elem_type = 0;
      uint64_t count = 0;
      if (!r.read(elem_type, "an array type") || !r.read(count, "an array length")) return false;
      if (depth >= kMaxDepth) {
        r.error_ = "metadata '" + key + "': arrays nested deeper than " + std::to_string(kMaxDepth);
        return false;
      }
      if (count > kMaxArray || count > r.left()) {
        r.error_ = "metadata '" + key + "': array of " + std::to_string(count) +
                   " elements is larger than the file allows (" + std::to_string(r.left()) +
                   " bytes remain)";
        return false;
      }
      auto arr = std::make_shared<GgufArray>();
      arr->resize(count);
      for (uint64_t i = 0; i < count; ++i)
        if (!readValue(r, elem_type, (*arr)[i], key, depth + 1)) return false;
      out.v = std::move(arr);
      return true;
    }
    case 10: {
      uint64_t v = 0;
      if (!r.read(v, what)) return false;
      out.v = v;
      return true;
    }
    case 11: {
      int64_t v = 0;
      if (!r.read(v, what)) return false;
      out.v = v;
      return true;
    }
    case 12: {
      double v = 0;
      if (!r.read(v, what)) return false;
      out.v = v;
      return true;
    }
    default:
      r.error_ =
          "metadata '" + key + "': expected a value type 0..12, found " + std::to_string(type);
      return false;
  }
}

}  // namespace

std::optional<int64_t> GgufValue::asInt() const {
  if (auto* u = std::get_if<uint64_t>(&v)) return static_cast<int64_t>(*u);
  if (auto* i = std::get_if<int64_t>(&v)) return *i;
  return std::nullopt;
}
std::optional<double> GgufValue::asFloat() const {
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto i = asInt()) return static_cast<double>(*i);
  return std::nullopt;
}
const std::string* GgufValue::asString() const {
  return std::get_if<std::string>(&v);
}
const GgufArray* GgufValue::asArray() const {
  auto* p = std::get_if<std::shared_ptr<GgufArray>>(&v);
  return p ? p->get() : nullptr;
}

uint64_t GgufTensor::elements() const {
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;
  return n;
}

const GgufValue* GgufFile::find(const std::string& key) const {
  auto it = metadata.find(key);
  return it == metadata.end() ? nullptr : &it->second;
}

const GgufTensor* GgufFile::tensor(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

Result<GgufFile> parseGguf(std::span<const uint8_t> bytes) {
  Reader r(bytes);
  GgufFile file;
  uint32_t magic = 0;
  if (!r.read(magic, "the GGUF magic")) return fail(r.error_);
  if (magic != kMagic) {
    char found[5] = {};
    std::memcpy(found, &magic, 4);
    for (char& c : found)
      if (c && (c < 32 || c > 126)) c = '?';
    return fail(std::string("not a GGUF file: expected magic 'GGUF', found '") + found + "'");
  }
  if (!r.read(file.version, "the GGUF version")) return fail(r.error_);
  if (file.version != 2 && file.version != 3)
    return fail("unsupported GGUF version: expected 2 or 3, found " + std::to_string(file.version));
  uint64_t n_tensors = 0, n_kv = 0;
  if (!r.read(n_tensors, "the tensor count") || !r.read(n_kv, "the metadata count"))
    return fail(r.error_);
  // Every entry takes more than one byte: larger counts cannot be real.
  if (n_kv > r.left() || n_tensors > r.left() || n_kv + n_tensors > r.left())
    return fail("absurd counts: " + std::to_string(n_tensors) + " tensors and " +
                std::to_string(n_kv) + " metadata entries cannot fit in the " +
                std::to_string(bytes.size()) + "-byte file");
  for (uint64_t i = 0; i < n_kv; ++i) {
    std::string key;
    uint32_t type = 0;
    if (!r.readString(key, "a metadata key") || !r.read(type, "a metadata type"))
      return fail(r.error_);
    GgufValue value;
    if (!readValue(r, type, value, key, 0)) return fail(r.error_);
    file.metadata[key] = std::move(value);
  }
  if (const GgufValue* a = file.find("general.alignment")) {
    const auto align = a->asInt();
    if (!align || *align <= 0 || (*align & (*align - 1)) != 0)
      return fail("general.alignment: expected a power of two, found " +
                  std::to_string(align.value_or(0)));
    file.alignment = static_cast<uint64_t>(*align);
  }
  for (uint64_t i = 0; i < n_tensors; ++i) {
    GgufTensor t;
    uint32_t n_dims = 0, type = 0;
    if (!r.readString(t.name, "a tensor name") || !r.read(n_dims, "a tensor rank"))
      return fail(r.error_);
    if (n_dims == 0 || n_dims > kMaxDims)
      return fail("tensor '" + t.name + "': expected 1 to 4 dimensions, found " +
                  std::to_string(n_dims));
    t.dims.resize(n_dims);
    for (auto& d : t.dims)
      if (!r.read(d, "a tensor dimension")) return fail(r.error_);
    if (!r.read(type, "a tensor type") || !r.read(t.offset, "a tensor offset"))
      return fail(r.error_);
    const auto known = tensorTypeFromGgml(type);
    if (!known)
      return fail(
          "unsupported tensor type " + ggmlTypeName(type) + " in tensor '" + t.name +
          "' (supported: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, "
          "Q6_K)");
    t.type = *known;
    uint64_t elements = 1;
    for (uint64_t d : t.dims) {
      if (d == 0 || elements > (1ull << 40) / d)
        return fail("tensor '" + t.name + "': absurd shape (a dimension of " + std::to_string(d) +
                    ")");
      elements *= d;
    }
    const TypeLayout layout = layoutOf(t.type);
    if (t.dims[0] % layout.block_elems != 0)
      return fail("tensor '" + t.name + "': rows of " + std::to_string(t.dims[0]) +
                  " elements are not a whole number of " + typeName(t.type) + " blocks of " +
                  std::to_string(layout.block_elems));
    t.bytes = elements / layout.block_elems * layout.block_bytes;
    file.tensors.push_back(std::move(t));
  }
  const uint64_t data_start = (r.pos() + file.alignment - 1) / file.alignment * file.alignment;
  for (auto& t : file.tensors) {
    if (t.offset % file.alignment != 0)
      return fail("tensor '" + t.name + "': offset " + std::to_string(t.offset) +
                  " is not a multiple of the alignment " + std::to_string(file.alignment));
    t.offset += data_start;
    if (t.offset > bytes.size() || t.bytes > bytes.size() - t.offset)
      return fail("tensor '" + t.name + "': data at offset " + std::to_string(t.offset) + " (+" +
                  std::to_string(t.bytes) + " bytes) runs past the end of the " +
                  std::to_string(bytes.size()) + "-byte file");
  }
  return file;
}

}  // namespace ts::engine
