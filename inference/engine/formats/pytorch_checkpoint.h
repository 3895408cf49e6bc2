// PyTorch checkpoints (torch.save's zip format, as Hugging Face's pytorch_model*.bin):
// a ZIP of <archive>/data.pkl (the state dict, read by torch_pickle.h without running
// it), <archive>/data/<key> (each storage's raw little-endian elements, 64-byte aligned)
// and <archive>/version. A pure parser over the file's bytes: every tensor must be
// contiguous and lie inside its storage's record, so callers use the bytes where they lie.
#pragma once
#include <cstdint>
#include <span>

#include "inference/engine/core/result.h"
#include "inference/engine/formats/checkpoint_tensor.h"

namespace ts::engine {

// Tensors in the pickle's order; dtype names as safetensors spells them (BFloat16Storage
// -> "BF16", HalfStorage -> "F16", FloatStorage -> "F32", Double -> "F64",
// Byte/Char/Short/Int/Long -> "U8", "I8", "I16", "I32", "I64", Bool -> "BOOL"); the loader
// refuses, by name, a model matrix in a type it does not multiply.
Result<CheckpointFile> parsePytorchCheckpoint(std::span<const uint8_t> bytes);

// Whether the bytes start as a ZIP archive does (a local header).
bool looksLikeZip(std::span<const uint8_t> bytes);

}  // namespace ts::engine
