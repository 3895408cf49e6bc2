// The serving scheduler's part of the runtime options (runtime_options.h), which `serve` and
// `bench --model-path` share: --parallel, --batch-tokens, --prefill-chunk, --tpot-target,
// --separate-prefill, --separate-prefill-threads, --kv-positions and --kv-memory-mb
// (engine/serving/scheduler.h; bounds in serving_limits.h).
#pragma once
#include <QCommandLineParser>
#include <optional>

#include "app/cli/options.h"
#include "inference/engine/serving/scheduler.h"

namespace ts {

void addSchedulerOptions(QCommandLineParser& p);
// The options as given (defaults otherwise); nullopt with `error` filled when a value is
// out of range.
std::optional<engine::SchedulerOptions> schedulerOptions(const QCommandLineParser& p,
                                                         OptionError& error);

}  // namespace ts
