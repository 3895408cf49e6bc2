// The lab's report as JSON (the interface; README "tokenscope-cli lab"):
//   {"baseline": {settings}, "order": ["A","B",...], "variants": [{"lever", "value",
//    "metrics": {"decode_tok_s": {"baseline_median", "variant_median", "change_pct",
//    "ci95_pct": [lo, hi], "predicted_change_pct", "prediction_error_pct", "measurable"},
//    ...}, "accuracy": {"top1_agreement", "mean_kl", "positions"}}], "machine": {...}}
#pragma once
#include <nlohmann/json.hpp>

#include "inference/engine/lab/lab_run.h"

namespace ts::engine::lab {

nlohmann::json labReportJson(const LabReport& report);

}  // namespace ts::engine::lab
