// What the lab runs: a baseline (a model with its runtime settings) and ONE lever with one
// or more values, each value a variant run against the baseline (lab_run.h).
//   weights  auto (as stored), f32, f16, int8, int4, q8_0 (converted at load), q4_0, q4_k,
//            q6_k (the model written once as a GGUF of that type in the cache), or a path:
//            the same model in another file
//   kv       f16, f32, int8
//   draft    a draft source as generate's --draft takes it (a model path, self-int4,
//            self-layers:N, lookup[:N]); each value at each of draft_ks
//   threads  a CPU thread count
//   prefill  the scheduler's policy for long prompts under a mixed load (mixed_load.h):
//            chunk:N (prompt tokens per step), tpot:MS (chunks paced to a TPOT),
//            separate:TOKENS (prompts longer than that computed by a prefill worker)
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "inference/engine/core/result.h"
#include "inference/engine/decode/open_session.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/lab/mixed_load.h"
#include "inference/engine/model/kv_cache.h"
#include "inference/engine/serving/scheduler.h"

namespace ts::engine::lab {

struct Lever {
  std::string name;  // weights | kv | draft | threads | prefill
  std::vector<std::string> values;
};
// "weights=q8_0,q4_k" -> {weights, [q8_0, q4_k]}; an error naming the levers and values
// expected otherwise.
Result<Lever> parseLever(const std::string& text);
// The levers parseLever takes, for messages: "weights, kv, draft, threads".
std::string leverNames();

struct LabSettings {
  std::string model_path;
  LoadOptions load;        // the baseline's weights (auto: as stored)
  BackendRequest backend;  // cpu (threads) or cuda
  KvFormat kv = KvFormat::F16;
  int prompt_tokens = 128;          // each run's prompt
  int gen_tokens = 64;              // tokens each run generates (end of sequence ignored)
  int repeat = 5;                   // measured runs per arm
  int warmup = 1;                   // rounds run first and discarded
  int accuracy_positions = 64;      // weights / kv: next-token distributions compared
  std::vector<int> draft_ks = {4};  // draft: tokens drafted per step, one variant each
  std::string draft;                // the baseline's own draft source ("" : none; the ladder
  int draft_k = 4;                  // keeps one), with its K
  SchedulerOptions scheduling;      // prefill: the baseline's scheduler policy
  MixedLoad mixed;                  // prefill: the load each run makes
  uint64_t seed = 1;                // the bootstrap's
  bool remeasure = false;           // measure the machine's rates again
};

}  // namespace ts::engine::lab
