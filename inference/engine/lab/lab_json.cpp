#include "inference/engine/lab/lab_json.h"

namespace ts::engine::lab {
namespace {

nlohmann::json armJson(const ArmDescription& a) {
  nlohmann::json j = {{"weights", a.weights}, {"weight_bytes", a.weight_bytes},
                      {"kv", a.kv},           {"threads", a.threads},
                      {"backend", a.backend}, {"device", a.device}};
  if (!a.draft.empty()) {
    j["draft"] = a.draft;
    j["draft_k"] = a.draft_k;
  }
  return j;
}

nlohmann::json optional(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json metricJson(const MetricChange& m) {
  const ChangeInterval& c = m.measured;
  nlohmann::json j = {{"baseline_median", c.baseline_median},
                      {"variant_median", c.variant_median},
                      {"predicted_change_pct", optional(m.predicted_pct)},
                      {"prediction_error_pct", optional(m.error_pct)}};
  if (c.valid) {
    j["change_pct"] = c.change_pct;
    j["ci95_pct"] = {c.ci95_low_pct, c.ci95_high_pct};
    j["measurable"] = c.measurable();
  } else {
    j["change_pct"] = nullptr;
    j["ci95_pct"] = nullptr;
    j["measurable"] = false;
  }
  return j;
}

}  // namespace

nlohmann::json labReportJson(const LabReport& r) {
  const LabSettings& s = r.settings;
  nlohmann::json baseline = armJson(r.baseline);
  baseline["model"] = s.model_path;
  baseline["model_description"] = r.model_description;
  baseline["weights_requested"] = weightFormatName(s.load.weights);
  baseline["prompt_tokens"] = s.prompt_tokens;
  baseline["gen_tokens"] = s.gen_tokens;
  baseline["repeat"] = s.repeat;
  baseline["warmup"] = s.warmup;
  nlohmann::json variants = nlohmann::json::array();
  for (const VariantResult& v : r.variants) {
    nlohmann::json metrics = nlohmann::json::object();
    for (const auto& [name, m] : v.metrics) metrics[name] = metricJson(m);
    nlohmann::json j = {
        {"lever", v.lever}, {"value", v.value}, {"settings", armJson(v.arm)}, {"metrics", metrics}};
    if (v.accuracy)
      j["accuracy"] = {{"top1_agreement", v.accuracy->top1Agreement()},
                       {"mean_kl", v.accuracy->meanKl()},
                       {"positions", v.accuracy->positions}};
    if (v.output_identical) j["output_identical"] = *v.output_identical;
    if (v.acceptance_rate) j["acceptance_rate"] = *v.acceptance_rate;
    if (!v.acceptance_by_position.empty()) j["acceptance_by_position"] = v.acceptance_by_position;
    variants.push_back(j);
  }
  nlohmann::json types = nlohmann::json::object();
  for (const auto& [type, t] : r.rates.types)
    types[type] = {{"decode_gb_s", t.decode_gb_s},
                   {"decode_share", t.decode_share},
                   {"prefill_gmacs", t.prefill_gmacs}};
  return {{"baseline", baseline},
          {"order", r.order},
          {"variants", variants},
          {"machine",
           {{"read_gb_s", r.rates.read_gb_s},
            {"threads", r.rates.threads},
            {"kernels", r.rates.kernels},
            {"types", types}}},
          {"notes", r.notes}};
}

}  // namespace ts::engine::lab
