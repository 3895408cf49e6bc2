// How big the serving scheduler's paged KV pool is, in bytes, and whether this machine has
// them: `--kv-memory-mb` MiB, or `--kv-positions` positions, or by default what
// defaultKvBlocks asks (two contexts, or max_running x 1,024 positions) but at most half of
// the memory available now. The pool's blocks are allocated as they are first used, so a
// pool the machine cannot hold would fail every running request at once when memory runs
// out, long after the start: it is refused at the start instead.
#pragma once
#include <cstddef>
#include <string>

#include "inference/engine/core/result.h"
#include "inference/engine/model/kv_cache.h"
#include "inference/engine/model/model.h"

namespace ts::engine {

struct KvPoolRequest {
  int memory_mb = 0;  // > 0: the pool's size in MiB
  int positions = 0;  // > 0 (and no memory_mb): the pool's positions
};

struct KvPoolPlan {
  int blocks = 0;          // of kKvBlock positions
  size_t block_bytes = 0;  // every layer's keys and values of one block
  size_t bytes() const { return static_cast<size_t>(blocks) * block_bytes; }
};

// MemAvailable from /proc/meminfo in bytes (memory the kernel can give without swapping,
// page cache included); 0 when unknown.
size_t availableMemoryBytes();

// The pool for `config`'s KV shape in `format`; `available`: bytes of memory to check
// against (0: unchecked). Fails, saying what was asked, what one block costs and what is
// available, when the pool holds no block or is larger than `available`.
Result<KvPoolPlan> planKvPool(const ModelConfig& config, KvFormat format, int context,
                              int max_running, const KvPoolRequest& request, size_t available);

// "1,234 MiB" (for messages).
std::string mebibytes(size_t bytes);

}  // namespace ts::engine
