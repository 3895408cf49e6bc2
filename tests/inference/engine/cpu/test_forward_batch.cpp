// Batched forward passes (prefill, speculative verification) must give exactly the logits
// and KV cache that one-token decoding gives: greedy speculative decoding relies on it.
#include <stdexcept>
#include <string>
#include <vector>

#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/model/random_model.h"
#include "tests/inference/engine/check.h"

using namespace ts::engine;
using ts::testing::check;

int main() {
  auto tiny = shapeConfig("llama-tiny", 2);  // GQA 8/4 heads, RoPE
  auto alibi = shapeConfig("baichuan-13b", 1);
  if (!tiny || !alibi) return 1;
  ModelConfig small_alibi = alibi.value();  // the 13B layout, shrunk
  small_alibi.dim = 256;
  small_alibi.n_heads = small_alibi.n_kv_heads = 8;
  small_alibi.head_dim = 32;
  small_alibi.rope_dim = 32;
  small_alibi.ffn_dim = 300;  // not a multiple of 64: padded int8 / int4 rows
  small_alibi.vocab = 1000;
  const std::vector<int> tokens = {1, 17, 400, 3, 3, 999, 250, 42, 7, 100, 11};
  for (const auto& [config, name] : {std::pair{tiny.value(), std::string("llama-tiny GQA")},
                                     std::pair{small_alibi, std::string("ALiBi")}}) {
    for (WeightFormat format :
         {WeightFormat::F32, WeightFormat::F16, WeightFormat::Int8, WeightFormat::Int4}) {
      auto model = randomModel(config, format, 5);
      const std::string label = name + " " + weightFormatName(format);
      for (int threads : {1, 2}) {
        CpuSession one(model, 32, KvFormat::F32, threads), batch(model, 32, KvFormat::F32, threads);
        std::vector<float> sequential;
        for (int i = 0; i < static_cast<int>(tokens.size()); ++i) {
          auto logits = one.forward(tokens[i], i);
          sequential.insert(sequential.end(), logits.begin(), logits.end());
        }
        // Prefill 3 positions, then verify 8 more in one pass with every position's logits.
        batch.forwardBatch(std::span(tokens).first(3), 0);
        auto all = batch.forwardBatch(std::span(tokens).subspan(3), 3, true);
        const size_t V = config.vocab;
        const std::vector<float> want(sequential.begin() + 3 * V, sequential.end());
        check(std::vector<float>(all.begin(), all.end()) == want,
              label + ", " + std::to_string(threads) +
                  " thread(s): 8 batched positions give bit-identical logits to decoding them one "
                  "at a time");
        // The last-position form returns only the final row.
        CpuSession last(model, 32, KvFormat::F32, threads);
        auto final_logits = last.forwardBatch(tokens, 0);
        check(
            final_logits.size() == V &&
                std::vector<float>(final_logits.begin(), final_logits.end()) ==
                    std::vector<float>(sequential.end() - V, sequential.end()),
            label + ", " + std::to_string(threads) + " thread(s): prefill returns the last logits");
      }
    }
  }
  // Past the cache: a clear error, not a write out of bounds.
  auto model = randomModel(tiny.value(), WeightFormat::F32, 5);
  CpuSession session(model, 4);
  std::string message;
  try {
    session.forwardBatch(tokens, 0);
  } catch (const std::out_of_range& e) {
    message = e.what();
  }
  check(message == "forward: positions 0..10 outside the KV cache of 4",
        "11 positions into a 4-position cache: '" + message + "'");
  return ts::testing::finish();
}
