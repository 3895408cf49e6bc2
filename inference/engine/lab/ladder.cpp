#include "inference/engine/lab/ladder.h"

#include <cstdio>

#include "inference/engine/lab/lab_arms.h"
#include "inference/engine/lab/lab_json.h"

namespace ts::engine::lab {
namespace {

std::string pct(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f%%", v);
  return text;
}

// The value of the best variant that reached its goal, or "" with `reason` saying why none.
std::string bestOf(const std::string& lever, const LabReport& report, double min_top1,
                   std::string& reason) {
  std::string best;
  double best_change = 0;
  for (const VariantResult& v : report.variants) {
    std::string why;
    if (!stepImproved(lever, v, min_top1, why)) {
      reason += (reason.empty() ? "" : "; ") + v.value + ": " + why;
      continue;
    }
    const std::string goal = lever == "kv" ? "peak_rss_mb" : "decode_tok_s";
    const double change = v.metrics.at(goal).measured.change_pct * (lever == "kv" ? -1 : 1);
    if (best.empty() || change > best_change) {
      best = v.value;
      best_change = change;
    }
  }
  if (!best.empty()) {
    const std::string goal = lever == "kv" ? "peak memory" : "decode";
    reason = best + " " + goal + " " + pct(best_change * (lever == "kv" ? -1 : 1)) +
             ", interval excludes 0, accuracy within the limit";
  }
  return best;
}

}  // namespace

bool stepImproved(const std::string& lever, const VariantResult& v, double min_top1,
                  std::string& why) {
  const ChangeInterval& decode = v.metrics.at("decode_tok_s").measured;
  if (v.accuracy && v.accuracy->top1Agreement() < min_top1) {
    char text[120];
    std::snprintf(text, sizeof text, "top-1 agreement %.1f%% is below the limit %.1f%%",
                  100 * v.accuracy->top1Agreement(), 100 * min_top1);
    why = text;
    return false;
  }
  if (v.output_identical == false) {
    why = "the greedy output differs from the baseline's";
    return false;
  }
  if (lever == "kv") {
    const ChangeInterval& memory = v.metrics.at("peak_rss_mb").measured;
    if (!memory.measurable() || memory.change_pct >= 0) {
      why = "no measurable memory saving";
      return false;
    }
    if (decode.measurable() && decode.change_pct < 0) {
      why = "decode got slower (" + pct(decode.change_pct) + ")";
      return false;
    }
    return true;
  }
  if (!decode.measurable() || decode.change_pct <= 0) {
    why = decode.measurable() ? "decode got slower (" + pct(decode.change_pct) + ")"
                              : "no measurable decode difference";
    return false;
  }
  return true;
}

Result<LadderReport> runLadder(const LadderSettings& settings, const LabProgress& progress,
                               const std::atomic<bool>* cancel) {
  LadderReport out;
  out.settings = settings;
  LabSettings current = settings.baseline;
  struct Planned {
    std::string name;
    Lever lever;
  };
  std::vector<Planned> plan;
  if (!settings.weights.empty()) plan.push_back({"weights", {"weights", settings.weights}});
  if (!settings.kv.empty()) plan.push_back({"kv", {"kv", settings.kv}});
  if (!settings.drafts.empty()) plan.push_back({"speculative", {"draft", settings.drafts}});
  if (plan.empty()) return fail("the ladder has no step: give it weights, KV or draft values");
  for (size_t i = 0; i < plan.size(); ++i) {
    const Planned& p = plan[i];
    const auto sub = [&](const std::string& stage, double f) {
      if (progress) progress(p.name + ": " + stage, (i + f) / plan.size());
    };
    auto report = runLab(current, p.lever, sub, cancel);
    if (!report) return fail("ladder step " + p.name + ": " + report.error());
    LadderStep step{p.name, p.lever, std::move(report.value()), "", ""};
    step.kept = bestOf(p.lever.name, step.report, settings.min_top1_agreement, step.reason);
    if (step.kept.empty()) {
      step.reason = "kept what it had: " + step.reason;
    } else if (p.lever.name == "weights") {
      current = settingsWithWeights(current, step.kept);
    } else if (p.lever.name == "kv") {
      current.kv = parseKvFormat(step.kept).value();
    } else {  // "self-int4 K4" when several K ran
      const size_t k = step.kept.rfind(" K");
      current.draft = k == std::string::npos ? step.kept : step.kept.substr(0, k);
      current.draft_k =
          k == std::string::npos ? current.draft_ks.front() : std::stoi(step.kept.substr(k + 2));
    }
    out.steps.push_back(std::move(step));
  }
  out.final_settings = current;
  out.final_description =
      "weights " + weightFormatName(current.load.weights) + " (" + current.model_path + "), KV " +
      kvFormatName(current.kv) +
      (current.draft.empty() ? ", no draft"
                             : ", draft " + current.draft + " K" + std::to_string(current.draft_k));
  return out;
}

nlohmann::json ladderJson(const LadderReport& r) {
  nlohmann::json steps = nlohmann::json::array();
  for (const LadderStep& s : r.steps)
    steps.push_back({{"step", s.name},
                     {"lever", s.lever.name},
                     {"values", s.lever.values},
                     {"kept", s.kept.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.kept)},
                     {"reason", s.reason},
                     {"report", labReportJson(s.report)}});
  const LabSettings& f = r.final_settings;
  return {{"baseline", r.steps.empty() ? nlohmann::json::object()
                                       : labReportJson(r.steps.front().report)["baseline"]},
          {"accuracy_limit", r.settings.min_top1_agreement},
          {"steps", steps},
          {"final",
           {{"model", f.model_path},
            {"weights", weightFormatName(f.load.weights)},
            {"kv", kvFormatName(f.kv)},
            {"draft", f.draft.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.draft)},
            {"draft_k", f.draft.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.draft_k)},
            {"description", r.final_description}}}};
}

}  // namespace ts::engine::lab
