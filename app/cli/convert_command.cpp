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
  if (p.isSet("type"))
    options.matrices = type == "f32"    ? engine::TensorType::F32
                       : type == "f16"  ? engine::TensorType::F16
                       : type == "bf16" ? engine::TensorType::BF16
                       : type == "q8_0" ? engine::TensorType::Q8_0
                       : type == "q4_0" ? engine::TensorType::Q4_0
                       : type == "q4_k" ? engine::TensorType::Q4_K
                                        : engine::TensorType::Q6_K;
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
  if (p.isSet("json"))
    std::printf("%s", QJsonDocument(result).toJson(QJsonDocument::Indented).constData());
  else
    printOut(QString("wrote %1 (%2 MB, GGUF %3, architecture %4%5) in %6 s")
                 .arg(QString::fromStdString(out))
                 .arg(result.value("bytes").toDouble() / 1e6, 0, 'f', 1)
                 .arg(written_type, QString::fromStdString(written->architecture),
                      written->normalized_head ? ", NormHead applied to output.weight" : "")
                 .arg(result.value("seconds").toDouble(), 0, 'f', 2));
  return 0;
}

}  // namespace

int runConvertCommand(const QStringList& args) {
  QCommandLineParser p;
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
  if (auto done = parseCommandLine(p, args, "convert")) return *done;
  if (p.isSet("to")) return convertToGguf(p);
  if (p.isSet("model") == p.isSet("random") || !p.isSet("out")) {
    printErr(
        "tokenscope-cli convert: expected exactly one of --model PATH or --random SHAPE, and "
        "--out PATH");
    return 2;
  }
  const QString format = p.value("format"), dtype = p.value("dtype").toLower();
  if (format != "gguf" && format != "safetensors" && format != "pytorch") {
    printErr("tokenscope-cli convert: --format: expected gguf, safetensors or pytorch, found '" +
             format + "'");
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
    options.format = format.toStdString();
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
