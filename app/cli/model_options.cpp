#include "app/cli/model_options.h"

#include "app/cli/runtime_options.h"

namespace ts {

// --model and --tokenizer; with weight_options also --weights, --int4-group, --no-cache.
void addModelOptions(QCommandLineParser& p, bool weight_options) {
  p.addOptions({{"model", "GGUF file, Hugging Face folder or llama2.c checkpoint.", "PATH"},
                {"tokenizer",
                 "llama2.c tokenizer .bin (default: beside the model) or sentencepiece "
                 "tokenizer.model.",
                 "PATH"}});
  if (weight_options) addRuntimeOptions(p, kWeightOptions);
}

// --tokenizer, and (when the command offers them: weight_options) --weights, --int4-group
// and --no-cache.
engine::Result<engine::LoadOptions> loadOptions(const QCommandLineParser& p, bool weight_options) {
  engine::LoadOptions options;
  if (weight_options) {
    OptionError error;
    const auto plan = runtimePlan(p, kWeightOptions, error);
    if (!plan) return engine::fail(error.message.toStdString());
    options = plan->load;
  }
  options.tokenizer_path = p.value("tokenizer").toStdString();
  return options;
}

engine::Result<std::shared_ptr<engine::Model>> load(const QCommandLineParser& p,
                                                    bool weight_options) {
  auto options = loadOptions(p, weight_options);
  if (!options) return engine::fail(options.error());
  return engine::loadModel(p.value("model").toStdString(), options.value());
}

engine::Result<std::shared_ptr<engine::Model>> load(const QCommandLineParser& p,
                                                    engine::LoadOptions options) {
  options.tokenizer_path = p.value("tokenizer").toStdString();
  return engine::loadModel(p.value("model").toStdString(), options);
}

}  // namespace ts
