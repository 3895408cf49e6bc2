#include "inference/engine/formats/checkpoint_shards.h"

#include <set>
#include <tuple>

#include "inference/engine/formats/json_reader.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/formats/pytorch_checkpoint.h"
#include "inference/engine/formats/safetensors.h"

namespace ts::engine {
namespace fs = std::filesystem;
namespace {

std::string shapeText(const std::vector<uint64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// The files an index's weight_map names, each once and in name order.
Result<std::vector<fs::path>> indexedFiles(const fs::path& dir, const std::string& index_name) {
  auto json = readJsonFile((dir / index_name).string());
  if (!json) return fail(json.error());
  const Json* map = jsonFind(json.value(), "weight_map");
  if (!map || !map->is_object())
    return fail(index_name + ": expected an object \"weight_map\", found " +
                (map ? map->type_name() : "none"));
  std::set<std::string> names;
  for (const auto& [tensor, file] : map->items()) {
    if (!file.is_string())
      return fail(index_name + ": weight_map['" + tensor + "']: expected a file name, found " +
                  file.type_name());
    const std::string& name = file.get_ref<const std::string&>();
    if (name.empty() || name.find('/') != std::string::npos || name.find("..") != std::string::npos)
      return fail(index_name + ": expected a file name in the folder, found '" + name + "'");
    names.insert(name);
  }
  if (names.empty()) return fail(index_name + ": its weight_map names no file");
  std::vector<fs::path> files;
  for (const auto& name : names) {
    if (!fs::exists(dir / name))
      return fail("shard " + name + " named by " + index_name +
                  " is missing (an unfinished download?)");
    files.push_back(dir / name);
  }
  return files;
}

}  // namespace

const char* checkpointFormatName(CheckpointFormat format) {
  return format == CheckpointFormat::Pytorch ? "pytorch" : "safetensors";
}

Result<CheckpointFileList> checkpointFiles(const fs::path& dir) {
  for (auto [format, single, index] :
       {std::tuple{CheckpointFormat::Safetensors, "model.safetensors",
                   "model.safetensors.index.json"},
        std::tuple{CheckpointFormat::Pytorch, "pytorch_model.bin",
                   "pytorch_model.bin.index.json"}}) {
    CheckpointFileList list{format, {}};
    if (fs::exists(dir / index)) {
      auto files = indexedFiles(dir, index);
      if (!files) return fail(files.error());
      list.files = std::move(files.value());
      return list;
    }
    if (fs::exists(dir / single)) {
      list.files.push_back(dir / single);
      return list;
    }
  }
  return fail(
      "expected model.safetensors, pytorch_model.bin or their .index.json shards, found "
      "none of them");
}

Result<CheckpointShards> CheckpointShards::open(const fs::path& dir, const MapProgress& progress) {
  return openWith(dir, true, progress);
}

Result<CheckpointShards> CheckpointShards::inspect(const fs::path& dir) {
  return openWith(dir, false, {});
}

Result<CheckpointShards> CheckpointShards::openWith(const fs::path& dir, bool whole,
                                                    const MapProgress& progress) {
  auto list = checkpointFiles(dir);
  if (!list) return fail(list.error());
  uint64_t total = 0, before = 0;
  std::error_code ec;
  for (const fs::path& path : list->files) total += fs::file_size(path, ec);
  CheckpointShards shards;
  shards.format_ = list->format;
  for (const fs::path& path : list->files) {
    const MappedFile::Progress mapped = [&](uint64_t done) {
      return !progress || progress(before + done, total);
    };
    auto file = MappedFile::open(
        path.string(), whole ? MappedFile::Access::Whole : MappedFile::Access::Sparse, mapped);
    if (!file)
      return fail(file.error() == MappedFile::kMapCancelled ? kLoadCancelled : file.error());
    before += file.value()->bytes().size();
    auto parsed = list->format == CheckpointFormat::Pytorch
                      ? parsePytorchCheckpoint(file.value()->bytes())
                      : parseSafetensors(file.value()->bytes());
    if (!parsed) return fail(path.filename().string() + ": " + parsed.error());
    for (size_t i = 0; i < parsed->tensors.size(); ++i)
      shards.tensors_[parsed->tensors[i].name] = {shards.files_.size(), i};
    shards.files_.push_back(file.value());
    shards.parsed_.push_back(std::move(parsed.value()));
  }
  return shards;
}

Result<CheckpointShards::Found> CheckpointShards::find(const std::string& name,
                                                       const std::vector<uint64_t>& shape) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) {
    std::string where;
    for (size_t i = 0; i < files_.size() && i < 3; ++i)
      where += (i ? ", " : "") + fs::path(files_[i]->path()).filename().string();
    if (files_.size() > 3) where += ", ...";
    return fail("missing tensor '" + name + "' (expected in " + where + ")");
  }
  const auto [file, index] = it->second;
  const CheckpointTensor& t = parsed_[file].tensors[index];
  if (t.shape != shape)
    return fail("tensor '" + name + "': expected shape " + shapeText(shape) + ", found " +
                shapeText(t.shape));
  const auto type = t.type();
  if (!type)
    return fail("tensor '" + name + "' is stored as " + t.dtype +
                ", which this engine cannot load (supported: F32, F16, BF16)");
  return Found{&t, *type, &files_[file]};
}

Result<QuantMatrix> CheckpointShards::matrix(const std::string& name, uint64_t rows,
                                             uint64_t cols) const {
  auto f = find(name, {rows, cols});
  if (!f) return fail(f.error());
  const std::shared_ptr<MappedFile>& file = *f->file;
  const uint8_t* data = file->bytes().data() + f->tensor->offset;
  if (reinterpret_cast<uintptr_t>(data) % layoutOf(f->type).block_bytes == 0)
    return QuantMatrix::stored(f->type, data, static_cast<int>(rows), static_cast<int>(cols), file);
  // Elements off their alignment (an archive rewritten by another ZIP tool): a copy.
  auto copy = std::make_shared<std::vector<uint8_t>>(data, data + f->tensor->bytes);
  return QuantMatrix::stored(f->type, copy->data(), static_cast<int>(rows), static_cast<int>(cols),
                             copy);
}

Result<WeightBuffer<float>> CheckpointShards::read(const std::string& name,
                                                   std::vector<uint64_t> shape) const {
  auto f = find(name, shape);
  if (!f) return fail(f.error());
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  WeightBuffer<float> out(n);
  dequantize(f->type, (*f->file)->bytes().subspan(f->tensor->offset, f->tensor->bytes), out.data(),
             out.size());
  return out;
}

Result<WeightBuffer<float>> CheckpointShards::readRows(const std::string& name, uint64_t rows,
                                                       uint64_t cols, uint64_t first,
                                                       uint64_t count) const {
  auto f = find(name, {rows, cols});
  if (!f) return fail(f.error());
  if (first > rows || count > rows - first)
    return fail("tensor '" + name + "': rows [" + std::to_string(first) + ", +" +
                std::to_string(count) + ") outside its " + std::to_string(rows));
  const uint64_t row = rowBytes(f->type, cols);
  WeightBuffer<float> out(count * cols);
  dequantize(f->type, (*f->file)->bytes().subspan(f->tensor->offset + first * row, count * row),
             out.data(), out.size());
  return out;
}

}  // namespace ts::engine
