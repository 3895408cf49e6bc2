// The model options the local-engine commands share (generate, tokenize, ppl, serve):
// --model and --tokenizer and, where the command converts weights, the runtime options'
// weight part (--weights, --int4-group, --no-cache: runtime_options.h).
#pragma once
#include <QCommandLineParser>
#include <memory>

#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/model.h"

namespace ts {

void addModelOptions(QCommandLineParser& p, bool weight_options);
engine::Result<engine::LoadOptions> loadOptions(const QCommandLineParser& p, bool weight_options);
engine::Result<std::shared_ptr<engine::Model>> load(const QCommandLineParser& p,
                                                    bool weight_options);
// --model with `options` (a RuntimePlan's, say) and --tokenizer.
engine::Result<std::shared_ptr<engine::Model>> load(const QCommandLineParser& p,
                                                    engine::LoadOptions options);

}  // namespace ts
