// Hugging Face safetensors: an 8-byte little-endian header length, a JSON header naming
// each tensor's dtype, shape and [begin, end) byte range in the data that follows, then
// the data. A pure parser over the file's bytes; every range is checked against the file.
#pragma once
#include <cstdint>
#include <span>

#include "inference/engine/core/result.h"
#include "inference/engine/formats/checkpoint_tensor.h"

namespace ts::engine {

Result<CheckpointFile> parseSafetensors(std::span<const uint8_t> bytes);

}  // namespace ts::engine
