#include "inference/engine/formats/pytorch_writer.h"

#include <filesystem>
#include <optional>

#include "inference/engine/formats/atomic_file.h"
#include "inference/engine/formats/zip_writer.h"

namespace ts::engine {
namespace {

// Pickle opcodes, protocol 2, as the pickle module writes them.
class Pickle {
 public:
  std::string s;
  void op(char c) { s += c; }
  void memo() {  // LONG_BINPUT of the next memo index
    op('r');
    u32(next_memo_++);
  }
  uint32_t lastMemo() const { return next_memo_ - 1; }
  void get(uint32_t index) {  // LONG_BINGET
    op('j');
    u32(index);
  }
  void global(const std::string& module, const std::string& name) {
    s += 'c' + module + '\n' + name + '\n';
    memo();
  }
  void text(const std::string& v) {  // BINUNICODE
    op('X');
    u32(static_cast<uint32_t>(v.size()));
    s += v;
  }
  void integer(uint64_t v) {
    if (v < 256) {
      op('K');
      s += static_cast<char>(v);
    } else if (v < 65536) {
      op('M');
      s += static_cast<char>(v & 0xFF);
      s += static_cast<char>(v >> 8);
    } else if (v < 0x80000000u) {
      op('J');
      u32(static_cast<uint32_t>(v));
    } else {  // LONG1, 8 bytes (a sign byte is not needed below 2^63)
      op('\x8a');
      s += static_cast<char>(8);
      for (int i = 0; i < 8; ++i) s += static_cast<char>(v >> (8 * i) & 0xFF);
    }
  }
  void tuple(const std::vector<uint64_t>& values) {
    op('(');
    for (uint64_t v : values) integer(v);
    op('t');
  }

 private:
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) s += static_cast<char>(v >> (8 * i) & 0xFF);
  }
  uint32_t next_memo_ = 0;
};

const char* storageName(TensorType type) {
  return type == TensorType::BF16  ? "BFloat16Storage"
         : type == TensorType::F16 ? "HalfStorage"
                                   : "FloatStorage";
}

}  // namespace

std::string torchStateDictPickle(const std::vector<TorchTensorSpec>& tensors) {
  Pickle p;
  p.op('\x80');
  p.s += '\x02';
  p.global("collections", "OrderedDict");
  const uint32_t ordered_dict = p.lastMemo();
  p.op(')');
  p.op('R');
  p.memo();
  std::optional<uint32_t> rebuild;
  std::vector<std::pair<TensorType, uint32_t>> storage_types;
  p.op('(');
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TorchTensorSpec& t = tensors[i];
    p.text(t.name);
    if (rebuild) {
      p.get(*rebuild);
    } else {
      p.global("torch._utils", "_rebuild_tensor_v2");
      rebuild = p.lastMemo();
    }
    p.op('(');
    p.op('(');  // the persistent id
    p.text("storage");
    std::optional<uint32_t> type;
    for (auto [known, index] : storage_types)
      if (known == t.type) type = index;
    if (type) {
      p.get(*type);
    } else {
      p.global("torch", storageName(t.type));
      storage_types.emplace_back(t.type, p.lastMemo());
    }
    p.text(std::to_string(i));
    p.text("cpu");
    uint64_t numel = 1;
    for (uint64_t d : t.shape) numel *= d;
    p.integer(numel);
    p.op('t');
    p.op('Q');  // BINPERSID
    p.integer(0);
    p.tuple(t.shape);
    std::vector<uint64_t> stride(t.shape.size(), 1);
    for (size_t d = t.shape.size(); d-- > 1;) stride[d - 1] = stride[d] * t.shape[d];
    p.tuple(stride);
    p.op('\x89');  // requires_grad False
    p.get(ordered_dict);
    p.op(')');
    p.op('R');  // backward_hooks = OrderedDict()
    p.op('t');
    p.op('R');
    if ((i + 1) % 1000 == 0 && i + 1 < tensors.size()) {  // pickle's SETITEMS batches
      p.op('u');
      p.op('(');
    }
  }
  p.op('u');
  p.op('.');
  return p.s;
}

Result<bool> writePytorchCheckpoint(
    const std::string& path, const std::vector<TorchTensorSpec>& tensors,
    const std::function<Result<std::vector<uint8_t>>(size_t)>& bytes, bool zip64) {
  for (const TorchTensorSpec& t : tensors)
    if (t.type != TensorType::F32 && t.type != TensorType::F16 && t.type != TensorType::BF16)
      return fail("tensor '" + t.name + "': expected F32, F16 or BF16, found " + typeName(t.type));
  const std::string archive = std::filesystem::path(path).stem().string();
  AtomicFileWriter file(path);
  if (!file.ok()) return fail("cannot write " + path + ".partial");
  ZipWriter zip(file, zip64);
  const std::string pickle = torchStateDictPickle(tensors);
  zip.add(archive + "/data.pkl", {reinterpret_cast<const uint8_t*>(pickle.data()), pickle.size()});
  for (size_t i = 0; i < tensors.size(); ++i) {
    auto data = bytes(i);
    if (!data) return fail(data.error());
    uint64_t numel = 1;
    for (uint64_t d : tensors[i].shape) numel *= d;
    if (data->size() != rowBytes(tensors[i].type, numel))
      return fail("tensor '" + tensors[i].name + "': expected " +
                  std::to_string(rowBytes(tensors[i].type, numel)) + " bytes, found " +
                  std::to_string(data->size()));
    zip.add(archive + "/data/" + std::to_string(i), data.value());
    if (!file.ok()) return fail("writing " + path + " failed (disk full?)");
  }
  zip.add(archive + "/version", {reinterpret_cast<const uint8_t*>("3\n"), 2});
  zip.finish();
  return file.commit();
}

}  // namespace ts::engine
