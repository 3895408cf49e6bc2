#include "app/cli/model_options.h"

namespace ts {

// --model and --tokenizer; with weight_options also --weights, --int4-group, --no-cache.
void addModelOptions(QCommandLineParser& p, bool weight_options) {
  p.addOptions({{"model", "GGUF file, Hugging Face folder or llama2.c checkpoint.", "PATH"},
                {"tokenizer",
                 "llama2.c tokenizer .bin (default: beside the model) or sentencepiece "
                 "tokenizer.model.",
                 "PATH"}});
  if (weight_options)
    p.addOptions(
        {{"weights",
          "Runtime weight format: auto (default: every tensor as the file stores it), f32, f16, "
          "int8, int4 or q8_0 (converted at load).",
          "FORMAT", "auto"},
         {"int4-group", "Inputs per int4 scale: 32, 64 or 128 (default 128).", "N"},
         {"no-cache",
          "Neither read nor write the converted weights cached under ~/.cache/tokenscope."}});
}

// --model, --tokenizer, and (when the command offers them: weight_options) --weights,
// --int4-group and --no-cache.
engine::Result<engine::LoadOptions> loadOptions(const QCommandLineParser& p, bool weight_options) {
  engine::LoadOptions options;
  options.tokenizer_path = p.value("tokenizer").toStdString();
  if (weight_options) {
    auto format = engine::parseWeightFormat(p.value("weights").toStdString());
    if (!format) return engine::fail("--weights: " + format.error());
    options.weights = format.value();
    if (p.isSet("int4-group")) options.int4_group = p.value("int4-group").toInt();
    options.cache = !p.isSet("no-cache");
  }
  return options;
}

engine::Result<std::shared_ptr<engine::Model>> load(const QCommandLineParser& p,
                                                    bool weight_options) {
  auto options = loadOptions(p, weight_options);
  if (!options) return engine::fail(options.error());
  return engine::loadModel(p.value("model").toStdString(), options.value());
}

}  // namespace ts
