#include "app/cli/estimate_command.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>

#include "app/cli/common.h"
#include "app/cli/model_options.h"
#include "app/cli/options.h"
#include "app/cli/runtime_options.h"
#include "inference/engine/lab/cost_model.h"
#include "inference/engine/lab/lab_arms.h"
#include "inference/engine/lab/machine_probe.h"

namespace ts {
namespace {

namespace lab = engine::lab;

// The rated memory bandwidth of an H100 SXM (GB/s), the default device of --tp.
constexpr double kDefaultDeviceGbS = 3350;

void addEstimateOptions(QCommandLineParser& p) {
  p.setApplicationDescription(
      "Predicts decode and prefill speed from this machine's measured rates and the model's "
      "bytes and multiply-adds, without running the model; with --tp, tensor parallelism "
      "over several GPUs as a range (an estimate: nothing is measured).");
  addModelOptions(p, true);
  addRuntimeOptions(p, kEngineOptions);
  p.addOptions(
      {{"vary", "Predict each value of one lever: weights=..., kv=..., threads=...",
        "LEVER=V1[,V2...]"},
       {"prompt-tokens", "Prompt length the prefill is predicted for (default 128).", "N", "128"},
       {"context", "KV positions a decode step reads (default 128).", "N", "128"},
       {"tp", "Tensor parallelism over these device counts, e.g. 2,4,8.", "N[,N...]"},
       {"link", "--tp's interconnect: nvlink (default) or pcie.", "NAME", "nvlink"},
       {"device-gb-s",
        "--tp: one device's memory bandwidth, GB/s (default 3350: an H100 SXM's rated "
        "figure).",
        "GBS"},
       {"remeasure", "Measure this machine's bandwidth and kernel rates again."},
       {"json", "Print one JSON object."}});
}

QJsonObject ratesJson(const lab::MachineRates& r) {
  QJsonObject types;
  for (const auto& [type, t] : r.types)
    types[QString::fromStdString(type)] = QJsonObject{{"decode_gb_s", t.decode_gb_s},
                                                      {"decode_share", t.decode_share},
                                                      {"prefill_gmacs", t.prefill_gmacs}};
  return {{"read_gb_s", r.read_gb_s},
          {"threads", r.threads},
          {"kernels", QString::fromStdString(r.kernels)},
          {"types", types}};
}

// Predicted decode and prefill tok/s of `model` with `kv` at `threads`, or an error.
engine::Result<QJsonObject> predict(const engine::Model& model, engine::KvFormat kv, int threads,
                                    int context, int prompt, bool remeasure) {
  auto rates = lab::machineRatesFor(model, threads, remeasure);
  if (!rates) return engine::fail(rates.error());
  const lab::ModelCost cost = lab::modelCost(model, kv);
  const auto step = lab::decodeStepSeconds(cost, rates.value(), context);
  const auto prefill = lab::prefillSeconds(cost, rates.value(), prompt);
  if (!step || !prefill) return engine::fail("a weight type of the model has no measured rate");
  return QJsonObject{{"decode_tok_s", 1 / *step},
                     {"prefill_tok_s", prompt / *prefill},
                     {"weights", QString::fromStdString(model.weightSummary())},
                     {"weight_bytes", static_cast<double>(model.weight_bytes())},
                     {"kv", QString::fromStdString(engine::kvFormatName(kv))},
                     {"threads", threads},
                     {"machine", ratesJson(rates.value())}};
}

// --tp's rows, or nullopt after saying what is wrong.
std::optional<QJsonArray> tensorParallel(const QCommandLineParser& p, const engine::Model& model,
                                         engine::KvFormat kv, int context) {
  const auto link = lab::interconnectNamed(p.value("link").toLower().toStdString());
  if (!link) {
    printErr("tokenscope-cli estimate: --link: expected nvlink or pcie, found '" + p.value("link") +
             "'");
    return std::nullopt;
  }
  OptionError err;
  double gb_s = kDefaultDeviceGbS;
  if (p.isSet("device-gb-s")) {
    const auto v = parseDoubleOption("device-gb-s", p.value("device-gb-s"), 1, 1e5, err);
    if (!v) {
      printErr("tokenscope-cli estimate: " + err.message);
      return std::nullopt;
    }
    gb_s = *v;
  }
  QJsonArray rows;
  const lab::ModelCost cost = lab::modelCost(model, kv);
  for (const QString& n : p.value("tp").split(',', Qt::SkipEmptyParts)) {
    const auto devices = parseIntOption("tp", n, 1, 1024, err);
    if (!devices) {
      printErr("tokenscope-cli estimate: " + err.message);
      return std::nullopt;
    }
    const auto e = lab::estimateTensorParallel(cost, *devices, *link, gb_s, context);
    rows.append(QJsonObject{{"devices", e.devices},
                            {"tok_s_low", e.tok_s_low},
                            {"tok_s_high", e.tok_s_high},
                            {"allreduce_us_per_token", e.allreduce_us_per_token},
                            {"link", QString::fromStdString(link->name)},
                            {"device_gb_s", gb_s},
                            {"assumptions", QString::fromStdString(e.assumptions)}});
  }
  return rows;
}

// Each --vary value's prediction and its change from `base` (predict's object).
engine::Result<QJsonArray> variantPredictions(const QCommandLineParser& p, const lab::Lever& lever,
                                              const std::shared_ptr<engine::Model>& model,
                                              const RuntimePlan& runtime, int context, int prompt,
                                              const QJsonObject& base) {
  lab::LabSettings s;
  s.model_path = p.value("model").toStdString();
  s.load = runtime.load;
  s.load.tokenizer_path = p.value("tokenizer").toStdString();
  QJsonArray variants;
  for (const std::string& value : lever.values) {
    std::shared_ptr<const engine::Model> m = model;
    engine::KvFormat kv = runtime.kv;
    int threads = runtime.backend.threads;
    if (lever.name == "weights") {
      auto loaded = lab::variantModel(s, model, value);
      if (!loaded) return engine::fail(loaded.error());
      m = loaded.value();
    } else if (lever.name == "kv") {
      kv = engine::parseKvFormat(value).value();
    } else {
      threads = std::stoi(value);  // parseLever checked the digits
    }
    auto v = predict(*m, kv, threads, context, prompt, false);
    if (!v) return engine::fail(v.error());
    QJsonObject o = v.value();
    o["lever"] = QString::fromStdString(lever.name);
    o["value"] = QString::fromStdString(value);
    o["decode_change_pct"] =
        lab::changePct(base["decode_tok_s"].toDouble(), o["decode_tok_s"].toDouble());
    o["prefill_change_pct"] =
        lab::changePct(base["prefill_tok_s"].toDouble(), o["prefill_tok_s"].toDouble());
    variants.append(o);
  }
  return variants;
}

void printEstimate(const QJsonObject& out) {
  const QJsonObject base = out["predicted"].toObject();
  printOut(QString("predicted on this machine (%1 threads, %2 KV): decode %3 tok/s, prefill "
                   "%4 tok/s (%5)")
               .arg(base["threads"].toInt())
               .arg(base["kv"].toString())
               .arg(base["decode_tok_s"].toDouble(), 0, 'f', 2)
               .arg(base["prefill_tok_s"].toDouble(), 0, 'f', 1)
               .arg(base["weights"].toString()));
  for (const QJsonValue& v : out["variants"].toArray()) {
    const QJsonObject o = v.toObject();
    printOut(QString("  %1=%2: decode %3 tok/s (%4%5%), prefill %6 tok/s (%7%8%)")
                 .arg(o["lever"].toString(), o["value"].toString())
                 .arg(o["decode_tok_s"].toDouble(), 0, 'f', 2)
                 .arg(o["decode_change_pct"].toDouble() >= 0 ? "+" : "")
                 .arg(o["decode_change_pct"].toDouble(), 0, 'f', 1)
                 .arg(o["prefill_tok_s"].toDouble(), 0, 'f', 1)
                 .arg(o["prefill_change_pct"].toDouble() >= 0 ? "+" : "")
                 .arg(o["prefill_change_pct"].toDouble(), 0, 'f', 1));
  }
  for (const QJsonValue& v : out["tp"].toArray()) {
    const QJsonObject o = v.toObject();
    printOut(QString("  TP %1 over %2: %3 - %4 tok/s (all-reduces %5 us a token)")
                 .arg(o["devices"].toInt())
                 .arg(o["link"].toString())
                 .arg(o["tok_s_low"].toDouble(), 0, 'f', 1)
                 .arg(o["tok_s_high"].toDouble(), 0, 'f', 1)
                 .arg(o["allreduce_us_per_token"].toDouble(), 0, 'f', 0));
  }
  if (out.contains("tp"))
    printOut("  estimate - no measurement possible on this machine; assumptions in --json");
}

}  // namespace

int runEstimateCommand(const QStringList& args) {
  QCommandLineParser p;
  addEstimateOptions(p);
  if (const auto done = parseCommandLine(p, args, "estimate")) return *done;
  if (!p.isSet("model")) {
    printErr("tokenscope-cli estimate: expected --model PATH");
    return 2;
  }
  OptionError err;
  const auto runtime = runtimePlan(p, kWeightOptions | kEngineOptions, err);
  const auto context = parseIntOption("context", p.value("context"), 1, 1 << 20, err);
  const auto prompt = parseIntOption("prompt-tokens", p.value("prompt-tokens"), 1, 1 << 20, err);
  if (!runtime || !context || !prompt) {
    printErr("tokenscope-cli estimate: " + err.message);
    return 2;
  }
  std::optional<lab::Lever> lever;
  if (p.isSet("vary")) {
    auto parsed = lab::parseLever(p.value("vary").toStdString());
    if (!parsed || parsed->name == "draft" || parsed->name == "prefill") {
      printErr("tokenscope-cli estimate: " +
               (!parsed ? QString::fromStdString(parsed.error())
                : parsed->name == "draft"
                    ? QString("--vary draft: a draft's speed-up depends on its acceptance, "
                              "which only a run measures: use tokenscope-cli lab")
                    : QString("--vary prefill: a policy is replayed from the step costs a run "
                              "measures: use tokenscope-cli lab")));
      return 2;
    }
    lever = parsed.value();
  }
  auto model = load(p, runtime->load);
  if (!model) {
    printErr("tokenscope-cli estimate: " + QString::fromStdString(model.error()));
    return 1;
  }
  const bool remeasure = p.isSet("remeasure");
  const int threads = runtime->backend.threads;
  auto base = predict(*model.value(), runtime->kv, threads, *context, *prompt, remeasure);
  if (!base) {
    printErr("tokenscope-cli estimate: " + QString::fromStdString(base.error()));
    return 1;
  }
  QJsonObject out{{"model", p.value("model")}, {"predicted", base.value()}};
  if (lever) {
    auto variants =
        variantPredictions(p, *lever, model.value(), *runtime, *context, *prompt, base.value());
    if (!variants) {
      printErr("tokenscope-cli estimate: " + QString::fromStdString(variants.error()));
      return 1;
    }
    out["variants"] = variants.value();
  }
  if (p.isSet("tp")) {
    const auto rows = tensorParallel(p, *model.value(), runtime->kv, *context);
    if (!rows) return 2;
    out["tp"] = *rows;
  }
  if (p.isSet("json"))
    printOut(QString::fromUtf8(QJsonDocument(out).toJson(QJsonDocument::Indented)).trimmed());
  else
    printEstimate(out);
  return 0;
}

}  // namespace ts
