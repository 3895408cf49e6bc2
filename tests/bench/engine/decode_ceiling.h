// Decode's compute ceiling: GB/s of weights the decode's matrix kernels multiply when the
// rows are already in cache (each thread repeating its own slice of each layer-0 matrix,
// small enough for its L2), on `threads` threads at once. Decode cannot read weights from
// memory faster than its kernels consume them, so engine-bench compares its decode with
// min(read bandwidth, this ceiling) and says which of the two bounds it.
#pragma once

#include "inference/engine/model/model.h"

namespace ts::bench {

// Median of three timed runs over the seven matrices of layer 0, each multiplied in
// proportion to its bytes (as decode weighs them).
double measureDecodeCompute(const engine::Model& model, int threads);

}  // namespace ts::bench
