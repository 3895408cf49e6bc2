// The weight files of a Hugging Face folder, mapped and indexed by tensor name:
// safetensors (model.safetensors, or the shards model.safetensors.index.json names) or
// PyTorch checkpoints (pytorch_model.bin, or the shards pytorch_model.bin.index.json
// names). Both give CheckpointTensors whose bytes are used where they lie in the mapping.
#pragma once
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inference/engine/core/result.h"
#include "inference/engine/formats/checkpoint_tensor.h"
#include "inference/engine/formats/mapped_file.h"
#include "inference/engine/model/quant_matrix.h"

namespace ts::engine {

enum class CheckpointFormat { Safetensors, Pytorch };

struct CheckpointFileList {
  CheckpointFormat format = CheckpointFormat::Safetensors;
  std::vector<std::filesystem::path> files;  // each once, in name order
};

// The weight files of `dir`: safetensors when present (what Hugging Face prefers), else
// PyTorch .bin; single file or the shards an index names (each must exist, inside the
// folder). An error says what was expected and what the folder holds.
Result<CheckpointFileList> checkpointFiles(const std::filesystem::path& dir);

// "safetensors" | "pytorch" (ModelConfig::source_format)
const char* checkpointFormatName(CheckpointFormat format);

// Mapping progress: bytes of the folder's weight files mapped so far, of `total`; false
// cancels (open then fails with exactly kLoadCancelled).
using MapProgress = std::function<bool(uint64_t done, uint64_t total)>;

class CheckpointShards {
 public:
  // Maps and parses every file (Access::Whole: all pages read up front, reported to
  // `progress` as they are).
  static Result<CheckpointShards> open(const std::filesystem::path& dir,
                                       const MapProgress& progress = {});
  // Parses only the headers (Access::Sparse): for inspecting a folder.
  static Result<CheckpointShards> inspect(const std::filesystem::path& dir);

  struct Found {
    const CheckpointTensor* tensor;
    TensorType type;
    const std::shared_ptr<MappedFile>* file;
  };
  bool has(const std::string& name) const { return tensors_.count(name) > 0; }
  // Tensor `name`, checked: present, of shape `shape`, in a type the engine reads.
  Result<Found> find(const std::string& name, const std::vector<uint64_t>& shape) const;
  // Matrix `name` [rows, cols] as stored in its mapped file (F32, F16 or BF16: no copy).
  Result<QuantMatrix> matrix(const std::string& name, uint64_t rows, uint64_t cols) const;
  // Tensor `name` as f32, checked as find() does.
  Result<WeightBuffer<float>> read(const std::string& name, std::vector<uint64_t> shape) const;
  // Rows [first, first + count) of matrix `name` [rows, cols] as f32 [count, cols].
  Result<WeightBuffer<float>> readRows(const std::string& name, uint64_t rows, uint64_t cols,
                                       uint64_t first, uint64_t count) const;

  CheckpointFormat format() const { return format_; }
  const std::vector<std::shared_ptr<MappedFile>>& files() const { return files_; }
  const std::vector<CheckpointFile>& parsed() const { return parsed_; }

 private:
  static Result<CheckpointShards> openWith(const std::filesystem::path& dir, bool whole,
                                           const MapProgress& progress);
  CheckpointFormat format_ = CheckpointFormat::Safetensors;
  std::vector<std::shared_ptr<MappedFile>> files_;
  std::vector<CheckpointFile> parsed_;
  std::map<std::string, std::pair<size_t, size_t>> tensors_;  // name -> (file, tensor)
};

}  // namespace ts::engine
