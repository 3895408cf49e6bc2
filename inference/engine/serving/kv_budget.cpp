#include "inference/engine/serving/kv_budget.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "inference/engine/serving/scheduler.h"

namespace ts::engine {

size_t availableMemoryBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    size_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

std::string mebibytes(size_t bytes) {
  std::string digits = std::to_string((bytes + (1 << 19)) >> 20);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(at, ",");
  return digits + " MiB";
}

Result<KvPoolPlan> planKvPool(const ModelConfig& config, KvFormat format, int context,
                              int max_running, const KvPoolRequest& request, size_t available) {
  KvPoolPlan plan;
  plan.block_bytes = kvBlockBytes(format, config.n_layers, config.n_kv_heads, config.head_dim);
  if (plan.block_bytes == 0) return fail("the model has no KV cache shape (0 layers or heads)");
  const std::string per_block = mebibytes(plan.block_bytes) + " per block of " +
                                std::to_string(kKvBlock) + " positions (" + kvFormatName(format) +
                                ")";
  if (request.memory_mb > 0) {
    const size_t bytes = static_cast<size_t>(request.memory_mb) << 20;
    plan.blocks = static_cast<int>(std::min<size_t>(bytes / plan.block_bytes, 1 << 24));
    if (plan.blocks == 0)
      return fail("a KV pool of " + mebibytes(bytes) +
                  " holds no block: this model's KV cache takes " + per_block);
  } else if (request.positions > 0) {
    plan.blocks = (request.positions + kKvBlock - 1) / kKvBlock;
  } else {
    plan.blocks = defaultKvBlocks(context, max_running);
    if (available > 0) {  // at most half of what is free, but one whole context at least
      const int affordable =
          static_cast<int>(std::min<size_t>(available / 2 / plan.block_bytes, 1 << 24));
      plan.blocks =
          std::min(plan.blocks, std::max(affordable, (context + kKvBlock - 1) / kKvBlock));
    }
  }
  if (available > 0 && plan.bytes() > available)
    return fail(
        "a KV pool of " + std::to_string(plan.blocks * kKvBlock) + " positions takes " +
        mebibytes(plan.bytes()) + " (" + per_block + "), more than the " + mebibytes(available) +
        " of memory available now (MemAvailable); ask for a smaller pool or a shorter context, or "
        "close other programs");
  return plan;
}

}  // namespace ts::engine
