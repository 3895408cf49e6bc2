#include "app/cli/convert_command.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>
#include <filesystem>

#include "app/cli/common.h"
#include "app/cli/options.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/formats/model_writer.h"
#include "inference/engine/model/random_model.h"

namespace ts {
namespace {

// Total bytes under a file or folder (what was written).
qint64 sizeOnDisk(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return static_cast<qint64>(fs::file_size(path, ec));
  qint64 total = 0;
  for (const auto& entry : fs::directory_iterator(path, ec))
    if (entry.is_regular_file()) total += static_cast<qint64>(entry.file_size(ec));
  return total;
}

// --random SHAPE with its overrides (--layers, --dim, --heads, --kv-heads, --ffn, --vocab,
// --context), checked for consistency.
engine::Result<engine::ModelConfig> randomShape(const QCommandLineParser& p, OptionError& err) {
  auto config = engine::shapeConfig(p.value("random").toStdString());
  if (!config) return engine::fail("--random: " + config.error());
  engine::ModelConfig c = config.value();
  for (auto [name, field] :
       {std::pair{"layers", &c.n_layers}, std::pair{"dim", &c.dim}, std::pair{"heads", &c.n_heads},
        std::pair{"kv-heads", &c.n_kv_heads}, std::pair{"ffn", &c.ffn_dim},
        std::pair{"vocab", &c.vocab}, std::pair{"context", &c.context}}) {
    if (!p.isSet(name)) continue;
    const auto v = parseIntOption(name, p.value(name), 1, 1 << 22, err);
    if (!v) return engine::fail(err.message.toStdString());
    *field = *v;
  }
  if (p.isSet("heads") && !p.isSet("kv-heads") && c.n_kv_heads > c.n_heads)
    c.n_kv_heads = c.n_heads;
  if (c.dim % c.n_heads != 0 || c.n_heads % c.n_kv_heads != 0 || (c.dim / c.n_heads) % 2 != 0)
    return engine::fail(
        "inconsistent shape: expected --dim divisible by --heads into an even "
        "head size and --heads divisible by --kv-heads, found dim " +
        std::to_string(c.dim) + ", " + std::to_string(c.n_heads) + " heads, " +
        std::to_string(c.n_kv_heads) + " KV heads");
  c.head_dim = c.rope_dim = c.dim / c.n_heads;
  c.norm_head = c.architecture == "baichuan" && c.vocab == engine::kBaichuan2Vocab;
  return c;
}

}  // namespace

int runConvertCommand(const QStringList& args) {
  QCommandLineParser p;
  p.setApplicationDescription(
      "Writes a model as our GGUF (or a Hugging Face safetensors folder): from a GGUF file, a "
      "Hugging Face folder or a llama2.c checkpoint, or with seeded random weights in a named "
      "shape.");
  p.addOptions(
      {{"model", "Source: GGUF file, Hugging Face folder or llama2.c checkpoint.", "PATH"},
       {"tokenizer", "Tokenizer: llama2.c .bin or sentencepiece tokenizer.model.", "PATH"},
       {"random",
        "Random weights in a shape: baichuan-7b, baichuan-13b, baichuan2-7b, baichuan2-13b, "
        "llama-tiny.",
        "SHAPE"},
       {"layers", "Random shape: layer count.", "N"},
       {"dim", "Random shape: embedding width.", "N"},
       {"heads", "Random shape: attention heads.", "N"},
       {"kv-heads", "Random shape: KV heads (grouped-query attention).", "N"},
       {"ffn", "Random shape: feed-forward width.", "N"},
       {"vocab", "Random shape: vocabulary size.", "N"},
       {"context", "Random shape: context length.", "N"},
       {"seed", "Random weights' seed (default 1234).", "S", "1234"},
       {"out", "Output GGUF file (or folder with --format safetensors).", "PATH"},
       {"format", "gguf (default) or safetensors.", "FORMAT", "gguf"},
       {"dtype",
        "Matrices as f32 (default) or f16; GGUF also q8_0 / q4_0 (blocks of 32, as llama.cpp), "
        "safetensors also bf16.",
        "TYPE", "f32"},
       {"type",
        "GGUF: every matrix and the embedding table as f32, f16, q8_0, q4_0, q4_k or q6_k (as a "
        "downloaded file stores them; norms stay f32).",
        "TYPE"},
       {"shards", "safetensors: number of shard files (default 1).", "N", "1"},
       {"json", "Print one JSON object."}});
  if (auto done = parseCommandLine(p, args, "convert")) return *done;
  if (p.isSet("model") == p.isSet("random") || !p.isSet("out")) {
    printErr(
        "tokenscope-cli convert: expected exactly one of --model PATH or --random SHAPE, and "
        "--out PATH");
    return 2;
  }
  const QString format = p.value("format"), dtype = p.value("dtype").toLower();
  if (format != "gguf" && format != "safetensors") {
    printErr("tokenscope-cli convert: --format: expected gguf or safetensors, found '" + format +
             "'");
    return 2;
  }
  const QStringList dtypes = format == "gguf" ? QStringList{"f32", "f16", "q8_0", "q4_0"}
                                              : QStringList{"f32", "f16", "bf16"};
  const QString type = p.value("type").toLower();
  const QStringList types = {"f32", "f16", "q8_0", "q4_0", "q4_k", "q6_k"};
  if (p.isSet("type") && (format != "gguf" || p.isSet("dtype"))) {
    printErr("tokenscope-cli convert: --type writes GGUF and replaces --dtype: expected it alone");
    return 2;
  }
  if (p.isSet("type") && !types.contains(type)) {
    printErr("tokenscope-cli convert: --type: expected " + types.join(", ") + ", found '" + type +
             "'");
    return 2;
  }
  if (!dtypes.contains(dtype)) {
    printErr("tokenscope-cli convert: --dtype: expected " + dtypes.join(", ") + " for " + format +
             ", found '" + dtype + "'");
    return 2;
  }
  OptionError err;
  const auto seed = parseDoubleOption("seed", p.value("seed"), 0, 9.0e15, err);
  const auto shards = parseIntOption("shards", p.value("shards"), 1, 10000, err);
  if (!err.message.isEmpty()) {
    printErr("tokenscope-cli convert: " + err.message);
    return 2;
  }
  QElapsedTimer clock;
  clock.start();
  std::shared_ptr<engine::Model> model;
  if (p.isSet("random")) {
    auto config = randomShape(p, err);
    if (!config) {
      printErr("tokenscope-cli convert: " + QString::fromStdString(config.error()));
      return 2;
    }
    model = engine::randomModel(config.value(), engine::WeightFormat::F32,
                                static_cast<uint64_t>(*seed));
  } else {
    engine::LoadOptions options;
    options.tokenizer_path = p.value("tokenizer").toStdString();
    auto loaded = engine::loadModel(p.value("model").toStdString(), options);
    if (!loaded) {
      printErr("tokenscope-cli convert: " + QString::fromStdString(loaded.error()));
      return 1;
    }
    model = loaded.value();
  }
  const std::string out = p.value("out").toStdString();
  engine::Result<bool> written = true;
  const QString name = p.isSet("type") ? type : dtype;  // what the matrices are written as
  if (format == "gguf") {
    const auto stored = name == "f16"    ? engine::TensorType::F16
                        : name == "q8_0" ? engine::TensorType::Q8_0
                        : name == "q4_0" ? engine::TensorType::Q4_0
                        : name == "q4_k" ? engine::TensorType::Q4_K
                        : name == "q6_k" ? engine::TensorType::Q6_K
                                         : engine::TensorType::F32;
    written = engine::writeGguf(*model, out, stored, p.isSet("type"));
  } else {
    engine::HfWriteOptions options;
    options.dtype = dtype.toUpper().toStdString();
    options.shards = *shards;
    written = engine::writeHfFolder(*model, out, options);
  }
  if (!written) {
    printErr("tokenscope-cli convert: " + QString::fromStdString(written.error()));
    return 1;
  }
  const QJsonObject result{{"out", QString::fromStdString(out)},
                           {"format", format},
                           {"dtype", name},
                           {"bytes", sizeOnDisk(out)},
                           {"model", QString::fromStdString(model->config.describe())},
                           {"seconds", clock.nsecsElapsed() / 1e9}};
  if (p.isSet("json"))
    std::printf("%s", QJsonDocument(result).toJson(QJsonDocument::Indented).constData());
  else
    printOut(QString("wrote %1 (%2 MB, %3) in %4 s\n%5")
                 .arg(QString::fromStdString(out))
                 .arg(result.value("bytes").toDouble() / 1e6, 0, 'f', 1)
                 .arg(format + " " + name)
                 .arg(result.value("seconds").toDouble(), 0, 'f', 2)
                 .arg(QString::fromStdString(model->config.describe())));
  return 0;
}

}  // namespace ts
