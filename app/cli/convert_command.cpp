#include "app/cli/convert_command.h"

#include <unistd.h>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>
#include <filesystem>
#include <functional>

#include "app/cli/common.h"
#include "app/cli/options.h"
#include "inference/engine/formats/gguf_export.h"
#include "inference/engine/formats/model_config_readers.h"
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

// Progress on stderr while a terminal shows it ("converting: 45%"), else nothing.
std::function<bool(double)> terminalProgress(const char* what) {
  if (!isatty(fileno(stderr))) return {};
  return [what, last = -1](double f) mutable {
    const int percent = static_cast<int>(f * 100);
    if (percent != last)
      std::fprintf(stderr, "\r%s: %d%%%s", what, percent, percent == 100 ? "\n" : "");
    last = percent;
    return true;
  };
}

// The type a --type / --dtype name writes ("q4_k" -> Q4_K; f32 for any other).
engine::TensorType tensorTypeNamed(const QString& name) {
  using engine::TensorType;
  for (TensorType t : {TensorType::F16, TensorType::BF16, TensorType::Q8_0, TensorType::Q4_0,
                       TensorType::Q4_K, TensorType::Q6_K})
    if (name == QString::fromStdString(engine::typeName(t)).toLower()) return t;
  return TensorType::F32;
}

// What was written: `result` as JSON with --json, else `line`.
void printWritten(const QCommandLineParser& p, const QJsonObject& result, const QString& line) {
  if (p.isSet("json"))
    std::printf("%s", QJsonDocument(result).toJson(QJsonDocument::Indented).constData());
  else
    printOut(line);
}

// convert --to gguf --model FOLDER --out FILE [--type T]
int convertToGguf(const QCommandLineParser& p) {
  const QString to = p.value("to").toLower(), type = p.value("type").toLower();
  if (to != "gguf") {
    printErr("tokenscope-cli convert: --to: expected gguf, found '" + p.value("to") + "'");
    return 2;
  }
  if (!p.isSet("model") || !p.isSet("out") || p.isSet("random") || p.isSet("format") ||
      p.isSet("dtype")) {
    printErr(
        "tokenscope-cli convert --to gguf: expected --model FOLDER (a Hugging Face folder) "
        "and --out FILE, with --type optionally; --random, --format and --dtype do not apply");
    return 2;
  }
  const QStringList types = {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_k", "q6_k"};
  if (p.isSet("type") && !types.contains(type)) {
    printErr("tokenscope-cli convert --to gguf: --type: expected " + types.join(", ") +
             ", found '" + p.value("type") + "'");
    return 2;
  }
  const std::string model = p.value("model").toStdString();
  const std::string folder = engine::hfFolderOf(model);
  if (folder.empty()) {
    printErr(
        "tokenscope-cli convert --to gguf: expected a Hugging Face folder (config.json with "
        "safetensors or pytorch_model*.bin), found '" +
        p.value("model") + "'; a GGUF or llama2.c file converts with --format gguf");
    return 2;
  }
  engine::GgufExportOptions options;
  if (p.isSet("type")) options.matrices = tensorTypeNamed(type);
  options.progress = terminalProgress("converting");
  QElapsedTimer clock;
  clock.start();
  const std::string out = p.value("out").toStdString();
  auto written = engine::exportHfFolderToGguf(folder, out, options);
  if (!written) {
    printErr("tokenscope-cli convert: " + QString::fromStdString(written.error()));
    return 1;
  }
  const QString written_type =
      QString::fromStdString(engine::typeName(written->matrices)).toLower();
  const QJsonObject result{{"out", QString::fromStdString(out)},
                           {"format", "gguf"},
                           {"type", written_type},
                           {"architecture", QString::fromStdString(written->architecture)},
                           {"normalized_head", written->normalized_head},
                           {"tensors", written->tensors},
                           {"bytes", sizeOnDisk(out)},
                           {"seconds", clock.nsecsElapsed() / 1e9}};
  printWritten(p, result,
               QString("wrote %1 (%2 MB, GGUF %3, architecture %4%5) in %6 s")
                   .arg(QString::fromStdString(out))
                   .arg(result.value("bytes").toDouble() / 1e6, 0, 'f', 1)
                   .arg(written_type, QString::fromStdString(written->architecture),
                        written->normalized_head ? ", NormHead applied to output.weight" : "")
                   .arg(result.value("seconds").toDouble(), 0, 'f', 2));
  return 0;
}

void addConvertOptions(QCommandLineParser& p) {
  p.setApplicationDescription(
      "Writes a model as our GGUF (or a Hugging Face folder of safetensors or PyTorch .bin "
      "shards): from a GGUF file, a Hugging Face folder or a llama2.c checkpoint, or with seeded "
      "random weights in a named shape. --to gguf writes a Hugging Face folder (safetensors or "
      "PyTorch .bin, as Baichuan publishes them) as a GGUF llama.cpp reads as 'baichuan', tensor "
      "by tensor.");
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
       {"out", "Output GGUF file (or folder with --format safetensors / pytorch).", "PATH"},
       {"format", "gguf (default), safetensors or pytorch (pytorch_model.bin as torch.save).",
        "FORMAT", "gguf"},
       {"to",
        "gguf: the Hugging Face folder --model as a GGUF for llama.cpp's 'baichuan' (W_pack "
        "split, Q/K in RoPE pairs, Baichuan2's NormHead applied), tensor by tensor; --type picks "
        "f32, f16, bf16, q8_0, q4_0, q4_k or q6_k (default: as the checkpoint stores it).",
        "FORMAT"},
       {"dtype",
        "Matrices as f32 (default) or f16; GGUF also q8_0 / q4_0 (blocks of 32, as llama.cpp), "
        "safetensors and pytorch also bf16.",
        "TYPE", "f32"},
       {"type",
        "GGUF: every matrix and the embedding table as f32, f16, q8_0, q4_0, q4_k or q6_k (as a "
        "downloaded file stores them; norms stay f32).",
        "TYPE"},
       {"shards", "safetensors / pytorch: number of shard files (default 1).", "N", "1"},
       {"json", "Print one JSON object."}});
}

// What --format, --dtype and --type ask for, checked; nullopt after printing why not.
struct Output {
  QString format, name;  // name: what the matrices are written as ("q4_k", "bf16", ...)
  int shards = 1;
  uint64_t seed = 0;
};
std::optional<Output> chooseOutput(const QCommandLineParser& p) {
  if (p.isSet("model") == p.isSet("random") || !p.isSet("out")) {
    printErr(
        "tokenscope-cli convert: expected exactly one of --model PATH or --random SHAPE, and "
        "--out PATH");
    return std::nullopt;
  }
  const QString format = p.value("format"), dtype = p.value("dtype").toLower();
  if (format != "gguf" && format != "safetensors" && format != "pytorch") {
    printErr("tokenscope-cli convert: --format: expected gguf, safetensors or pytorch, found '" +
             format + "'");
    return std::nullopt;
  }
  const QStringList dtypes = format == "gguf" ? QStringList{"f32", "f16", "q8_0", "q4_0"}
                                              : QStringList{"f32", "f16", "bf16"};
  const QString type = p.value("type").toLower();
  const QStringList types = {"f32", "f16", "q8_0", "q4_0", "q4_k", "q6_k"};
  if (p.isSet("type") && (format != "gguf" || p.isSet("dtype"))) {
    printErr("tokenscope-cli convert: --type writes GGUF and replaces --dtype: expected it alone");
    return std::nullopt;
  }
  if (p.isSet("type") && !types.contains(type)) {
    printErr("tokenscope-cli convert: --type: expected " + types.join(", ") + ", found '" + type +
             "'");
    return std::nullopt;
  }
  if (!dtypes.contains(dtype)) {
    printErr("tokenscope-cli convert: --dtype: expected " + dtypes.join(", ") + " for " + format +
             ", found '" + dtype + "'");
    return std::nullopt;
  }
  OptionError err;
  const auto seed = parseDoubleOption("seed", p.value("seed"), 0, 9.0e15, err);
  const auto shards = parseIntOption("shards", p.value("shards"), 1, 10000, err);
  if (!err.message.isEmpty()) {
    printErr("tokenscope-cli convert: " + err.message);
    return std::nullopt;
  }
  return Output{format, p.isSet("type") ? type : dtype, *shards, static_cast<uint64_t>(*seed)};
}

// The model to write: random weights in --random's shape, or --model loaded as f32.
// Null after printing why (exit_code set).
std::shared_ptr<engine::Model> sourceModel(const QCommandLineParser& p, uint64_t seed,
                                           int& exit_code) {
  if (p.isSet("random")) {
    OptionError err;
    auto config = randomShape(p, err);
    if (!config) {
      printErr("tokenscope-cli convert: " + QString::fromStdString(config.error()));
      exit_code = 2;
      return nullptr;
    }
    return engine::randomModel(config.value(), engine::WeightFormat::F32, seed);
  }
  engine::LoadOptions options;
  options.tokenizer_path = p.value("tokenizer").toStdString();
  auto loaded = engine::loadModel(p.value("model").toStdString(), options);
  if (!loaded) {
    printErr("tokenscope-cli convert: " + QString::fromStdString(loaded.error()));
    exit_code = 1;
    return nullptr;
  }
  return loaded.value();
}

engine::Result<bool> writeModel(const engine::Model& model, const std::string& out, const Output& o,
                                bool quantize_embedding) {
  if (o.format == "gguf")
    return engine::writeGguf(model, out, tensorTypeNamed(o.name), quantize_embedding);
  engine::HfWriteOptions options;
  options.dtype = o.name.toUpper().toStdString();
  options.shards = o.shards;
  options.format = o.format.toStdString();
  return engine::writeHfFolder(model, out, options);
}

}  // namespace

int runConvertCommand(const QStringList& args) {
  QCommandLineParser p;
  addConvertOptions(p);
  if (auto done = parseCommandLine(p, args, "convert")) return *done;
  if (p.isSet("to")) return convertToGguf(p);
  const auto output = chooseOutput(p);
  if (!output) return 2;
  QElapsedTimer clock;
  clock.start();
  int exit_code = 0;
  const auto model = sourceModel(p, output->seed, exit_code);
  if (!model) return exit_code;
  const std::string out = p.value("out").toStdString();
  if (auto written = writeModel(*model, out, *output, p.isSet("type")); !written) {
    printErr("tokenscope-cli convert: " + QString::fromStdString(written.error()));
    return 1;
  }
  const QJsonObject result{{"out", QString::fromStdString(out)},
                           {"format", output->format},
                           {"dtype", output->name},
                           {"bytes", sizeOnDisk(out)},
                           {"model", QString::fromStdString(model->config.describe())},
                           {"seconds", clock.nsecsElapsed() / 1e9}};
  printWritten(p, result,
               QString("wrote %1 (%2 MB, %3) in %4 s\n%5")
                   .arg(QString::fromStdString(out))
                   .arg(result.value("bytes").toDouble() / 1e6, 0, 'f', 1)
                   .arg(output->format + " " + output->name)
                   .arg(result.value("seconds").toDouble(), 0, 'f', 2)
                   .arg(QString::fromStdString(model->config.describe())));
  return 0;
}

}  // namespace ts
