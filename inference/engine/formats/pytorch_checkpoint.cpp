#include "inference/engine/formats/pytorch_checkpoint.h"

#include <cstring>

#include "inference/engine/formats/torch_pickle.h"
#include "inference/engine/formats/zip_archive.h"

namespace ts::engine {
namespace {

struct StorageType {
  const char* name;
  const char* dtype;
  uint64_t bytes;
};
constexpr StorageType kStorageTypes[] = {
    {"BFloat16Storage", "BF16", 2}, {"HalfStorage", "F16", 2}, {"FloatStorage", "F32", 4},
    {"DoubleStorage", "F64", 8},    {"ByteStorage", "U8", 1},  {"CharStorage", "I8", 1},
    {"ShortStorage", "I16", 2},     {"IntStorage", "I32", 4},  {"LongStorage", "I64", 8},
    {"BoolStorage", "BOOL", 1}};

const StorageType* storageType(const std::string& name) {
  for (const StorageType& t : kStorageTypes)
    if (name == t.name) return &t;
  return nullptr;
}

std::string shapeText(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// The record that holds data.pkl: "<archive>/data.pkl" with one folder level.
const ZipRecord* pickleRecord(const ZipArchive& zip) {
  for (const ZipRecord& r : zip.records) {
    const size_t slash = r.name.find('/');
    if (slash != std::string::npos && r.name.compare(slash, std::string::npos, "/data.pkl") == 0)
      return &r;
  }
  return nullptr;
}

// Row-major contiguity: each dimension's stride is the product of the later sizes (a size
// of 1 may have any stride, as torch leaves it).
bool contiguous(const TorchTensorRef& t) {
  uint64_t expected = 1;
  for (size_t d = t.shape.size(); d-- > 0;) {
    if (t.shape[d] != 1 && static_cast<uint64_t>(t.stride[d]) != expected) return false;
    expected *= t.shape[d];
  }
  return true;
}

Result<CheckpointTensor> locate(const TorchTensorRef& t, const ZipArchive& zip,
                                const std::string& prefix) {
  const std::string where = "tensor '" + t.name + "'";
  const StorageType* type = storageType(t.storage_type);
  if (!type) return fail(where + ": unknown storage type " + t.storage_type);
  const std::string record_name = prefix + "data/" + t.storage_key;
  const ZipRecord* record = zip.find(record_name);
  if (!record)
    return fail(where + ": expected its storage in the record '" + record_name +
                "', found no such record");
  if (record->method != 0)
    return fail("record '" + record_name +
                "': expected it stored uncompressed, found compression "
                "method " +
                std::to_string(record->method));
  if (t.storage_numel > record->size / type->bytes)
    return fail(where + ": its storage of " + std::to_string(t.storage_numel) + " " + type->dtype +
                " elements passes the end of its record '" + record_name + "' (" +
                std::to_string(record->size) + " bytes)");
  uint64_t elements = 1;
  for (uint64_t d : t.shape) {
    if (d != 0 && elements > (uint64_t{1} << 50) / d)
      return fail(where + ": expected at most 2^50 elements, found shape " + shapeText(t.shape));
    elements *= d;
  }
  // (storage_numel was checked against the record: offset * bytes cannot overflow)
  if (t.offset > t.storage_numel || elements > t.storage_numel - t.offset)
    return fail(where + ": elements [" + std::to_string(t.offset) + ", +" +
                std::to_string(elements) + ") pass the end of its storage of " +
                std::to_string(t.storage_numel) + " elements");
  if (!contiguous(t))
    return fail(where + ": expected a contiguous tensor (row-major strides), found shape " +
                shapeText(t.shape) + " with other strides: save it with .contiguous()");
  CheckpointTensor out;
  out.name = t.name;
  out.dtype = type->dtype;
  out.shape = t.shape;
  out.offset = record->offset + t.offset * type->bytes;
  out.bytes = elements * type->bytes;
  return out;
}

}  // namespace

bool looksLikeZip(std::span<const uint8_t> bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), "PK\x03\x04", 4) == 0;
}

Result<CheckpointFile> parsePytorchCheckpoint(std::span<const uint8_t> bytes) {
  if (!looksLikeZip(bytes)) {
    if (bytes.size() >= 2 && bytes[0] == 0x80 && bytes[1] <= 5)
      return fail(
          "expected torch.save's zip format (PyTorch 1.6 or later), found the legacy "
          "pickle format: save it again with a recent PyTorch, or convert it to "
          "safetensors");
    return fail("expected a PyTorch checkpoint (a ZIP archive), found other bytes");
  }
  auto zip = parseZip(bytes);
  if (!zip) return fail(zip.error());
  const ZipRecord* pickle = pickleRecord(zip.value());
  if (!pickle) return fail("expected a record '<archive>/data.pkl' in the ZIP archive, found none");
  if (pickle->method != 0)
    return fail("record '" + pickle->name +
                "': expected it stored uncompressed, found "
                "compression method " +
                std::to_string(pickle->method));
  const std::string prefix = pickle->name.substr(0, pickle->name.size() - 8);  // "<archive>/"
  if (const ZipRecord* order = zip->find(prefix + "byteorder")) {
    const std::string_view text(reinterpret_cast<const char*>(bytes.data() + order->offset),
                                order->method == 0 ? order->size : 0);
    if (text != "little")
      return fail("expected little-endian storages (record 'byteorder': little), found '" +
                  std::string(text.substr(0, 16)) + "'");
  }
  auto refs = readTorchStateDict(bytes.subspan(pickle->offset, pickle->size));
  if (!refs) return fail(refs.error());
  CheckpointFile file;
  for (const TorchTensorRef& t : refs.value()) {
    auto located = locate(t, zip.value(), prefix);
    if (!located) return fail(located.error());
    file.tensors.push_back(std::move(located.value()));
  }
  return file;
}

}  // namespace ts::engine
