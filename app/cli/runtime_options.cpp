#include "app/cli/runtime_options.h"

#include "app/cli/scheduler_options.h"
#include "inference/engine/core/thread_pool.h"
#include "inference/engine/serving/serving_limits.h"

namespace ts {
namespace {

void addWeightOptions(QCommandLineParser& p) {
  p.addOptions(
      {{"weights",
        "Runtime weight format: auto (default: every tensor as the file stores it), f32, f16, "
        "int8, int4 or q8_0 (converted at load).",
        "FORMAT", "auto"},
       {"int4-group", "Inputs per int4 scale: 32, 64 or 128 (default 128).", "N"},
       {"no-cache",
        "Neither read nor write the converted weights cached under ~/.cache/tokenscope."}});
}

void addEngineOptions(QCommandLineParser& p) {
  p.addOptions({{"backend",
                 "cpu (the reference), cuda, or auto (CUDA when a device is usable, else the CPU "
                 "backend, saying why).",
                 "NAME", "cpu"},
                {"device", "CUDA device index (default 0).", "N", "0"},
                {"kv", "KV cache format: f16 (default), f32 or int8.", "FORMAT", "f16"},
                {"threads", "CPU threads (default: one per core).", "N"}});
}

// The error of a parse that returned an engine::Result, as "--name: why".
template <typename T>
bool check(const char* name, const engine::Result<T>& parsed, OptionError& error) {
  if (parsed) return true;
  error.message = QString("--%1: %2").arg(name, QString::fromStdString(parsed.error()));
  return false;
}

bool readWeights(const QCommandLineParser& p, engine::LoadOptions& load, OptionError& error) {
  const auto format = engine::parseWeightFormat(p.value("weights").toStdString());
  if (!check("weights", format, error)) return false;
  load.weights = format.value();
  if (p.isSet("int4-group")) load.int4_group = p.value("int4-group").toInt();
  load.cache = !p.isSet("no-cache");
  return true;
}

bool readEngine(const QCommandLineParser& p, RuntimePlan& plan, OptionError& error) {
  const auto backend = engine::parseBackend(p.value("backend").toStdString());
  const auto kv = engine::parseKvFormat(p.value("kv").toStdString());
  if (!check("backend", backend, error) || !check("kv", kv, error)) return false;
  const auto device = parseIntOption("device", p.value("device"), 0, 63, error);
  const auto threads = p.isSet("threads")
                           ? parseIntOption("threads", p.value("threads"), 1, 1024, error)
                           : std::optional<int>(engine::ThreadPool::defaultThreads());
  if (!device || !threads) return false;
  plan.backend.name = backend.value();
  plan.backend.threads = *threads;
  plan.backend.cuda.device = *device;
  plan.kv = kv.value();
  return true;
}

}  // namespace

void addRuntimeOptions(QCommandLineParser& p, unsigned groups) {
  if (groups & kWeightOptions) addWeightOptions(p);
  if (groups & kEngineOptions) addEngineOptions(p);
  if (groups & kContextOption)
    p.addOption({"context",
                 "Positions of one request, prompt and answer (default: the model's context, at "
                 "most 4096).",
                 "N"});
  if (groups & kSchedulerOptions) addSchedulerOptions(p);
}

std::optional<RuntimePlan> runtimePlan(const QCommandLineParser& p, unsigned groups,
                                       OptionError& error) {
  RuntimePlan plan;
  plan.backend.threads = engine::ThreadPool::defaultThreads();
  if ((groups & kWeightOptions) && !readWeights(p, plan.load, error)) return std::nullopt;
  if ((groups & kEngineOptions) && !readEngine(p, plan, error)) return std::nullopt;
  if ((groups & kContextOption) && p.isSet("context")) {
    const engine::Bound& b = engine::kContextBound;
    const auto context = parseIntOption("context", p.value("context"), static_cast<int>(b.lo),
                                        static_cast<int>(b.hi), error);
    if (!context) return std::nullopt;
    plan.context = *context;
  }
  if (groups & kSchedulerOptions) {
    const auto scheduling = schedulerOptions(p, error);
    if (!scheduling) return std::nullopt;
    plan.scheduling = *scheduling;
  }
  return plan;
}

}  // namespace ts
