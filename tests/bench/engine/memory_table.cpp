// memory-table: the README's memory table, from the estimator (backend/model_memory.h):
// Baichuan2-7B and -13B as GGUF files of each type, loaded with the defaults (weights as
// stored, f16 KV cache) on the CPU, at a 4,096-position context. Markdown on stdout.
#include <cstdio>

#include "inference/engine/backend/model_memory.h"
#include "inference/engine/formats/model_info.h"
#include "inference/engine/model/random_model.h"

using namespace ts::engine;

int main() {
  const double gib = 1024.0 * 1024 * 1024;
  std::printf("| model | file type | file | weights in memory | KV cache (f16, 4,096) | total |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const char* shape : {"baichuan2-7b", "baichuan2-13b"}) {
    const ModelConfig c = shapeConfig(shape).value();
    for (TensorType type : {TensorType::F16, TensorType::Q8_0, TensorType::Q6_K, TensorType::Q4_K,
                            TensorType::Q4_0}) {
      const uint64_t file = storedBytesFor(c, type);
      const MemoryEstimate e =
          estimateMemory(c, WeightFormat::Stored, 128, 4096, KvFormat::F16, false, file);
      std::printf("| %s | %s | %.2f GiB | %.2f GiB | %.2f GiB | %.2f GiB |\n", shape,
                  typeName(type).c_str(), file / gib, e.weights / gib, e.kv_cache / gib,
                  e.total() / gib);
    }
  }
  return 0;
}
