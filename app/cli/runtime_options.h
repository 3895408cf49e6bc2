// The runtime options the local-engine commands share, declared once so that their names,
// defaults and help texts are the same wherever they appear (generate, serve, bench
// --model-path; ppl and tokenize take the weight part): how the weights load (--weights,
// --int4-group, --no-cache), where the model runs (--backend, --device, --kv, --threads),
// a request's positions (--context) and the serving scheduler's values
// (scheduler_options.h). A command adds the groups that mean something for it and reads
// them back as one checked RuntimePlan.
#pragma once
#include <QCommandLineParser>
#include <optional>

#include "app/cli/options.h"
#include "inference/engine/decode/open_session.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/kv_cache.h"
#include "inference/engine/serving/scheduler.h"

namespace ts {

// Which parts of the group a command offers (bit flags).
enum RuntimeGroups : unsigned {
  kWeightOptions = 1,     // --weights, --int4-group, --no-cache
  kEngineOptions = 2,     // --backend, --device, --kv, --threads
  kContextOption = 4,     // --context: positions of one request (prompt and answer)
  kSchedulerOptions = 8,  // --parallel, --batch-tokens, --prefill-chunk, --tpot-target, --kv-*
  kServingOptions = kWeightOptions | kEngineOptions | kContextOption | kSchedulerOptions,
};

void addRuntimeOptions(QCommandLineParser& p, unsigned groups);

// The runtime options as given (defaults otherwise). Parts a command does not offer keep
// their defaults.
struct RuntimePlan {
  engine::LoadOptions load;        // weights, int4 group, cache; the tokenizer is the caller's
  engine::BackendRequest backend;  // name, CPU threads (default one per core), CUDA device
  engine::KvFormat kv = engine::KvFormat::F16;
  int context = 0;  // positions per request; 0: the model's (engine::defaultPositions)
  engine::SchedulerOptions scheduling;
};

// nullopt with `error` filled ("--kv: ...") when a value is not one the option takes.
std::optional<RuntimePlan> runtimePlan(const QCommandLineParser& p, unsigned groups,
                                       OptionError& error);

}  // namespace ts
