// The model options the local-engine commands share (generate, tokenize, ppl, serve):
// --model, --tokenizer and, where the command converts weights, --weights, --int4-group
// and --no-cache.
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

}  // namespace ts
