// Writes PyTorch checkpoints as torch.save (1.13, pickle protocol 2) writes a state dict:
// an OrderedDict of name -> _rebuild_tensor_v2(storage, 0, size, stride, False,
// OrderedDict()), each storage a record <archive>/data/<i> of raw little-endian elements,
// and <archive>/version "3". For `convert --format pytorch` (benchmark models, tests);
// readable by torch.load and by pytorch_checkpoint.h.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "inference/engine/core/result.h"
#include "inference/engine/core/tensor_types.h"

namespace ts::engine {

struct TorchTensorSpec {
  std::string name;
  TensorType type = TensorType::F32;  // F32, F16 or BF16
  std::vector<uint64_t> shape;        // outermost first
};

// data.pkl for these tensors, storage i keyed "i".
std::string torchStateDictPickle(const std::vector<TorchTensorSpec>& tensors);

// Writes `path` (atomically; the archive's folder is the file's stem). bytes(i) gives
// tensor i's elements (rowBytes of its type), asked for one at a time, so the writer holds
// one tensor. zip64: ZIP64 fields on every record (they are used past 4 GiB anyway).
Result<bool> writePytorchCheckpoint(
    const std::string& path, const std::vector<TorchTensorSpec>& tensors,
    const std::function<Result<std::vector<uint8_t>>(size_t index)>& bytes, bool zip64 = false);

}  // namespace ts::engine
