#include "inference/engine/formats/safetensors.h"

#include <cstring>

#include "inference/engine/formats/json_reader.h"

namespace ts::engine {

namespace {

constexpr uint64_t kMaxHeader = 100ull << 20;  // the format's own limit is 100 MB

// Bytes per element of the dtypes safetensors defines (0: unknown name).
uint64_t dtypeSize(const std::string& d) {
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
  if (d == "I8" || d == "U8" || d == "BOOL" || d == "F8_E4M3" || d == "F8_E5M2") return 1;
  return 0;
}

Result<CheckpointTensor> readEntry(const std::string& name, const Json& entry, uint64_t data_start,
                                   uint64_t data_size) {
  const std::string where = "safetensors tensor '" + name + "'";
  if (!entry.is_object()) return fail(where + ": expected an object, found " + entry.type_name());
  CheckpointTensor t;
  t.name = name;
  const Json* dtype = jsonFind(entry, "dtype");
  if (!dtype || !dtype->is_string()) return fail(where + ": expected a string \"dtype\"");
  t.dtype = dtype->get<std::string>();
  const uint64_t elem = dtypeSize(t.dtype);
  if (elem == 0) return fail(where + ": unknown dtype '" + t.dtype + "'");
  const Json* shape = jsonFind(entry, "shape");
  if (!shape || !shape->is_array()) return fail(where + ": expected an array \"shape\"");
  if (shape->size() > 8)
    return fail(where + ": expected at most 8 dimensions, found " + std::to_string(shape->size()));
  uint64_t elements = 1;
  for (const Json& d : *shape) {
    const auto n = jsonInt(d);
    if (!n || *n < 0 || *n > (1ll << 40))
      return fail(where + ": expected non-negative dimensions below 2^40 in \"shape\"");
    if (*n != 0 && elements > (1ull << 50) / static_cast<uint64_t>(*n))
      return fail(where + ": shape has too many elements");
    elements *= static_cast<uint64_t>(*n);
    t.shape.push_back(static_cast<uint64_t>(*n));
  }
  const Json* range = jsonFind(entry, "data_offsets");
  if (!range || !range->is_array() || range->size() != 2 || !jsonInt((*range)[0]) ||
      !jsonInt((*range)[1]))
    return fail(where + ": expected \"data_offsets\": [begin, end]");
  const int64_t begin = *jsonInt((*range)[0]), end = *jsonInt((*range)[1]);
  if (begin < 0 || end < begin || static_cast<uint64_t>(end) > data_size)
    return fail(where + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                "] outside the " + std::to_string(data_size) + " data bytes");
  t.offset = data_start + static_cast<uint64_t>(begin);
  t.bytes = static_cast<uint64_t>(end - begin);
  if (t.bytes != elements * elem)
    return fail(where + ": expected " + std::to_string(elements * elem) + " bytes for " + t.dtype +
                " shape of " + std::to_string(elements) + " elements, found " +
                std::to_string(t.bytes));
  return t;
}

}  // namespace

Result<CheckpointFile> parseSafetensors(std::span<const uint8_t> bytes) {
  if (bytes.size() < 8)
    return fail("safetensors: expected an 8-byte header length, found a " +
                std::to_string(bytes.size()) + "-byte file");
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = header_len << 8 | bytes[i];  // little-endian
  if (header_len > kMaxHeader || header_len > bytes.size() - 8)
    return fail("safetensors: header length " + std::to_string(header_len) +
                " is past the end of the " + std::to_string(bytes.size()) + "-byte file");
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + 8), header_len);
  auto header = parseJson(text);
  if (!header) return fail("safetensors header: " + header.error());
  if (!header->is_object())
    return fail("safetensors header: expected a JSON object, found " +
                std::string(header->type_name()));
  CheckpointFile file;
  const uint64_t data_start = 8 + header_len, data_size = bytes.size() - data_start;
  for (const auto& [name, entry] : header->items()) {
    if (name == "__metadata__") continue;
    auto t = readEntry(name, entry, data_start, data_size);
    if (!t) return fail(t.error());
    file.tensors.push_back(std::move(t.value()));
  }
  return file;
}

}  // namespace ts::engine
