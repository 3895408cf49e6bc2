// The ladder: the method as one run. Baseline -> weights -> + KV -> + speculative, each
// step a lab run (lab_run.h) from the settings the steps before kept; a step's best value
// is kept only when it improved its goal measurably (the 95 % interval excludes 0) without
// crossing the accuracy limit (top-1 agreement, default 95 %):
//   weights      goal: decode tok/s up
//   kv           goal: peak memory down, decode tok/s not measurably down
//   speculative  goal: decode tok/s up, greedy output identical
#pragma once
#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inference/engine/lab/lab_run.h"

namespace ts::engine::lab {

struct LadderSettings {
  LabSettings baseline;
  std::vector<std::string> weights = {"q8_0", "q4_k", "q4_0"};
  std::vector<std::string> kv = {"int8"};
  std::vector<std::string> drafts = {"self-int4"};  // at baseline.draft_ks
  double min_top1_agreement = 0.95;
};

struct LadderStep {
  std::string name;  // "weights", "kv", "speculative"
  Lever lever;
  LabReport report;
  std::string kept;    // the value kept ("" when the step kept what it had)
  std::string reason;  // why, in one sentence
};

struct LadderReport {
  LadderSettings settings;
  std::vector<LadderStep> steps;
  LabSettings final_settings;  // what the steps kept
  std::string final_description;
};

// Whether `v` reaches its step's goal within the accuracy limit; `why` says why not.
bool stepImproved(const std::string& lever, const VariantResult& v, double min_top1,
                  std::string& why);

// Runs the steps in order. progress: the step's stage and the share of the whole.
Result<LadderReport> runLadder(const LadderSettings& settings, const LabProgress& progress = {},
                               const std::atomic<bool>* cancel = nullptr);

// {"baseline": {...}, "accuracy_limit": 0.95, "steps": [{"step", "lever", "values", "kept",
//  "reason", "report": {lab report}}], "final": {"weights", "kv", "draft", "draft_k"}}
nlohmann::json ladderJson(const LadderReport& report);

}  // namespace ts::engine::lab
