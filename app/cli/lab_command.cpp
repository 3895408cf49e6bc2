#include "app/cli/lab_command.h"

#include <QCommandLineParser>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/cli/common.h"
#include "app/cli/model_options.h"
#include "app/cli/options.h"
#include "app/cli/runtime_options.h"
#include "app/lab/ladder_report.h"
#include "app/store/run_store.h"
#include "inference/engine/lab/interleave.h"
#include "inference/engine/lab/lab_json.h"
#include "inference/engine/lab/lab_run.h"
#include "inference/engine/lab/ladder.h"

namespace ts {
namespace {

using engine::lab::LabReport;
using engine::lab::MetricChange;

void addLabOptions(QCommandLineParser& p) {
  p.setApplicationDescription(
      "Pulls one lever against a baseline: runs both interleaved (A B A B ...), reports each "
      "metric's change with a 95% bootstrap interval, the cost model's prediction and, for "
      "weights and KV, the accuracy against the baseline.");
  addModelOptions(p, true);
  addRuntimeOptions(p, kEngineOptions | kSchedulerOptions);
  p.addOptions(
      {{"vary",
        "The lever and its values: weights=f16,q8_0,q4_k,q4_0 (or a path: the same model in "
        "another file), kv=int8, draft=SOURCE (as generate's --draft), threads=1,2, "
        "prefill=chunk:64,tpot:MS,separate:256 (under a mixed load).",
        "LEVER=V1[,V2...]"},
       {"repeat", "Measured runs per arm (default 5).", "N", "5"},
       {"warmup", "Rounds run first and discarded (default 1).", "N", "1"},
       {"prompt-tokens", "Prompt length of every run (default 128).", "N", "128"},
       {"gen-tokens", "Tokens every run generates (default 64).", "N", "64"},
       {"positions", "Accuracy: next-token distributions compared (default 64).", "N", "64"},
       {"draft-k", "draft: tokens drafted per step, one variant per value (default 4).", "K[,K...]",
        "4"},
       {"ladder",
        "Run the ladder instead of one lever: weights, then + KV, then + speculative, each "
        "step keeping its best value only when it improved measurably within the accuracy "
        "limit."},
       {"ladder-weights", "--ladder: the weights step's values (default q8_0,q4_k,q4_0).",
        "V[,V...]", "q8_0,q4_k,q4_0"},
       {"ladder-kv", "--ladder: the KV step's values (default int8).", "V[,V...]", "int8"},
       {"ladder-draft", "--ladder: the speculative step's drafts (default self-int4).",
        "SOURCE[,SOURCE...]", "self-int4"},
       {"min-top1", "--ladder: the accuracy limit, top-1 agreement in percent (default 95).", "PCT",
        "95"},
       {"report", "--ladder: write ladder.md, ladder.json and PNG charts into this folder.", "DIR"},
       {"streams", "prefill: requests decoding back to back (default 2).", "N", "2"},
       {"stream-tokens", "prefill: tokens each decoding request generates (default 32).", "N",
        "32"},
       {"long-tokens", "prefill: the arriving long prompts' tokens (default 512).", "N", "512"},
       {"arrivals", "prefill: long prompts per run (default 3).", "N", "3"},
       {"every", "prefill: seconds between the long prompts (default 2).", "S", "2"},
       {"remeasure", "Measure this machine's bandwidth and kernel rates again."},
       {"store", "Run store to keep the report in (default: the app's runs.sqlite).", "FILE"},
       {"no-store", "Do not keep the report."},
       {"json", "Print the report as one JSON object."}});
}

std::optional<engine::lab::LabSettings> labSettings(const QCommandLineParser& p, OptionError& err) {
  const auto runtime = runtimePlan(p, kWeightOptions | kEngineOptions | kSchedulerOptions, err);
  if (!runtime) return std::nullopt;
  engine::lab::LabSettings s;
  s.model_path = p.value("model").toStdString();
  s.load = runtime->load;
  s.load.tokenizer_path = p.value("tokenizer").toStdString();
  s.backend = runtime->backend;
  s.kv = runtime->kv;
  const auto repeat = parseIntOption("repeat", p.value("repeat"), 2, 1000, err);
  const auto warmup = parseIntOption("warmup", p.value("warmup"), 0, 100, err);
  const auto prompt = parseIntOption("prompt-tokens", p.value("prompt-tokens"), 1, 1 << 16, err);
  const auto gen = parseIntOption("gen-tokens", p.value("gen-tokens"), 2, 1 << 16, err);
  const auto positions = parseIntOption("positions", p.value("positions"), 1, 1 << 16, err);
  s.scheduling = runtime->scheduling;
  const auto streams = parseIntOption("streams", p.value("streams"), 1, 64, err);
  const auto stream_tokens =
      parseIntOption("stream-tokens", p.value("stream-tokens"), 2, 4096, err);
  const auto long_tokens = parseIntOption("long-tokens", p.value("long-tokens"), 1, 1 << 16, err);
  const auto arrivals = parseIntOption("arrivals", p.value("arrivals"), 1, 100, err);
  const auto every = parseDoubleOption("every", p.value("every"), 0, 600, err);
  if (streams && stream_tokens && long_tokens && arrivals && every)
    s.mixed = {*streams,     s.mixed.stream_prompt, *stream_tokens,
               *long_tokens, s.mixed.long_gen,      *every,
               *arrivals};
  s.draft_ks.clear();
  for (const QString& k : p.value("draft-k").split(',', Qt::SkipEmptyParts))
    if (const auto v = parseIntOption("draft-k", k, 1, 64, err)) s.draft_ks.push_back(*v);
  if (!err.message.isEmpty()) return std::nullopt;
  if (s.draft_ks.empty()) {
    err.message =
        "--draft-k: expected one or more numbers from 1 to 64, found '" + p.value("draft-k") + "'";
    return std::nullopt;
  }
  s.repeat = *repeat;
  s.warmup = *warmup;
  s.prompt_tokens = *prompt;
  s.gen_tokens = *gen;
  s.accuracy_positions = *positions;
  s.remeasure = p.isSet("remeasure");
  return s;
}

QString signedPct(double v, int decimals = 1) {
  return (v >= 0 ? "+" : "") + QString::number(v, 'f', decimals) + "%";
}

// "decode_tok_s  12.30 -> 10.10   -18.0% [-19.2, -16.9]   predicted -20.5% (error +3.0%)"
QString metricLine(const QString& name, const MetricChange& m) {
  const auto& c = m.measured;
  QString line = QString("  %1 %2 -> %3  ")
                     .arg(name, -17)
                     .arg(c.baseline_median, 9, 'f', 2)
                     .arg(c.variant_median, -9, 'f', 2);
  if (!c.valid)
    line += "no change computed";
  else if (!c.measurable())
    line += QString("no measurable difference [%1, %2]")
                .arg(signedPct(c.ci95_low_pct), signedPct(c.ci95_high_pct));
  else
    line +=
        QString("%1 [%2, %3]")
            .arg(signedPct(c.change_pct), signedPct(c.ci95_low_pct), signedPct(c.ci95_high_pct));
  if (m.predicted_pct) {
    line += "   predicted " + signedPct(*m.predicted_pct);
    if (m.error_pct) line += " (error " + signedPct(*m.error_pct) + ")";
  }
  return line;
}

void printReport(const LabReport& r) {
  const auto& b = r.baseline;
  printOut(
      QString("baseline A: %1 · weights %2 · KV %3 · %4 · %5 runs each after %6 warm-up "
              "round(s), interleaved %7…")
          .arg(QString::fromStdString(r.settings.model_path), QString::fromStdString(b.weights),
               QString::fromStdString(b.kv), QString::fromStdString(b.device))
          .arg(r.settings.repeat)
          .arg(r.settings.warmup)
          .arg(QString::fromStdString(r.order.size() >= 4 ? r.order[0] + " " + r.order[1] + " " +
                                                                r.order[2] + " " + r.order[3] + " "
                                                          : "")));
  for (size_t i = 0; i < r.variants.size(); ++i) {
    const auto& v = r.variants[i];
    printOut(QString("\n%1 %2=%3 (%4, KV %5, %6 threads)")
                 .arg(QString::fromStdString(engine::lab::armName(static_cast<int>(i) + 1)),
                      QString::fromStdString(v.lever), QString::fromStdString(v.value),
                      QString::fromStdString(v.arm.weights), QString::fromStdString(v.arm.kv))
                 .arg(v.arm.threads));
    std::vector<std::string> order = engine::lab::labMetrics();  // then the mixed load's
    for (const auto& [metric, change] : v.metrics)
      if (std::find(order.begin(), order.end(), metric) == order.end()) order.push_back(metric);
    for (const std::string& metric : order)
      if (const auto it = v.metrics.find(metric); it != v.metrics.end())
        printOut(metricLine(QString::fromStdString(metric), it->second));
    if (v.accuracy)
      printOut(QString("  accuracy       top-1 agreement %1% over %2 positions, mean KL %3")
                   .arg(100 * v.accuracy->top1Agreement(), 0, 'f', 1)
                   .arg(v.accuracy->positions)
                   .arg(v.accuracy->meanKl(), 0, 'g', 3));
    if (v.output_identical)
      printOut(QString("  speculative    greedy output %1 the baseline's; acceptance %2%")
                   .arg(*v.output_identical ? "identical to" : "DIFFERS from")
                   .arg(100 * v.acceptance_rate.value_or(0), 0, 'f', 1));
  }
}

// The report into the run store, where the Lever lab charts the prediction error over past
// runs; a store that cannot be written is said, not fatal (the report is printed anyway).
void keepReport(const QCommandLineParser& p, const QJsonObject& report) {
  if (p.isSet("no-store")) return;
  RunStore store(p.isSet("store") ? p.value("store") : RunStore::defaultPath());
  if (!store.isOpen() || store.addLabReport(report) < 0)
    printErr("tokenscope-cli lab: the report was not kept in the run store: " + store.error());
}

std::vector<std::string> values(const QCommandLineParser& p, const char* option) {
  std::vector<std::string> out;
  for (const QString& v : p.value(option).split(',', Qt::SkipEmptyParts))
    out.push_back(v.trimmed().toStdString());
  return out;
}

// Progress lines on stderr, one per stage.
engine::lab::LabProgress stderrProgress() {
  return [last = std::string()](const std::string& stage, double fraction) mutable {
    if (stage == last) return;
    last = stage;
    std::fprintf(stderr, "lab: %3.0f%% %s\n", 100 * fraction, stage.c_str());
  };
}

int runLadderCommand(const QCommandLineParser& p, const engine::lab::LabSettings& settings) {
  engine::lab::LadderSettings ladder;
  ladder.baseline = settings;
  ladder.weights = values(p, "ladder-weights");
  ladder.kv = values(p, "ladder-kv");
  ladder.drafts = values(p, "ladder-draft");
  OptionError err;
  const auto min_top1 = parseDoubleOption("min-top1", p.value("min-top1"), 0, 100, err);
  if (!min_top1) {
    printErr("tokenscope-cli lab: " + err.message);
    return 2;
  }
  ladder.min_top1_agreement = *min_top1 / 100;
  auto report = engine::lab::runLadder(ladder, stderrProgress());
  if (!report) {
    printErr("tokenscope-cli lab --ladder: " + QString::fromStdString(report.error()));
    return 1;
  }
  const QJsonObject json =
      QJsonDocument::fromJson(
          QByteArray::fromStdString(engine::lab::ladderJson(report.value()).dump()))
          .object();
  for (const auto& step : report->steps)
    keepReport(p, QJsonDocument::fromJson(
                      QByteArray::fromStdString(engine::lab::labReportJson(step.report).dump()))
                      .object());
  if (p.isSet("report")) {
    if (const QString error = writeLadderReport(json, p.value("report")); !error.isEmpty()) {
      printErr("tokenscope-cli lab --ladder: " + error);
      return 1;
    }
    printErr("lab: the report is in " + p.value("report") + "/ladder.md");
  }
  if (p.isSet("json"))
    printOut(QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Indented)).trimmed());
  else
    printOut(ladderMarkdown(json));
  return 0;
}

}  // namespace

int runLabCommand(const QStringList& args) {
  QCommandLineParser p;
  addLabOptions(p);
  if (const auto done = parseCommandLine(p, args, "lab")) return *done;
  if (!p.isSet("model") || p.isSet("vary") == p.isSet("ladder")) {
    printErr(
        "tokenscope-cli lab: expected --model PATH and either --vary LEVER=V1[,V2...] or "
        "--ladder");
    return 2;
  }
  if (p.isSet("ladder")) {
    OptionError err;
    const auto settings = labSettings(p, err);
    if (!settings) {
      printErr("tokenscope-cli lab: " + err.message);
      return 2;
    }
    return runLadderCommand(p, *settings);
  }
  const auto lever = engine::lab::parseLever(p.value("vary").toStdString());
  if (!lever) {
    printErr("tokenscope-cli lab: " + QString::fromStdString(lever.error()));
    return 2;
  }
  OptionError err;
  const auto settings = labSettings(p, err);
  if (!settings) {
    printErr("tokenscope-cli lab: " + err.message);
    return 2;
  }
  auto report = engine::lab::runLab(*settings, lever.value(), stderrProgress());
  if (!report) {
    printErr("tokenscope-cli lab: " + QString::fromStdString(report.error()));
    return 1;
  }
  const std::string json = engine::lab::labReportJson(report.value()).dump(2);
  keepReport(p, QJsonDocument::fromJson(QByteArray::fromStdString(json)).object());
  if (p.isSet("json"))
    printOut(QString::fromStdString(json));
  else
    printReport(report.value());
  return 0;
}

}  // namespace ts
