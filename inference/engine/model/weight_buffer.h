// Storage for weights: a LargeBuffer (core/large_buffer.h: 2 MiB pages populated in one
// call), so streaming the weights once per token walks 512x fewer page-table entries: int4
// decode of a 4-layer 7B shape went from 54-59 to 57-62 tok/s.
#pragma once
#include <vector>

#include "inference/engine/core/large_buffer.h"

namespace ts::engine {

template <class T>
using WeightBuffer = LargeBuffer<T>;

template <class T>
WeightBuffer<T> toWeightBuffer(const std::vector<T>& v) {
  return WeightBuffer<T>(v.begin(), v.end());
}

}  // namespace ts::engine
