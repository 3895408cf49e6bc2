#include "app/local/demo_model.h"

#include <sentencepiece_trainer.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>

#include "inference/engine/formats/model_loader.h"
#include "inference/engine/formats/model_writer.h"
#include "inference/engine/model/random_model.h"

namespace ts {

QString ensureDemoModel(const QString& path) {
  if (QFileInfo::exists(path)) return {};
  QTemporaryDir work;
  if (!work.isValid()) return QObject::tr("no temporary directory: %1").arg(work.errorString());
  // The documentation the tokenizer learns from, one paragraph per line.
  QFile docs(":/docs/README.md");
  if (!docs.open(QIODevice::ReadOnly)) return QObject::tr("the embedded documentation is missing");
  const QString corpus = work.filePath("corpus.txt");
  QFile out(corpus);
  if (!out.open(QIODevice::WriteOnly)) return out.errorString();
  out.write(docs.readAll());
  out.close();
  const std::string prefix = work.filePath("demo").toStdString();
  const auto status = sentencepiece::SentencePieceTrainer::Train(
      "--input=" + corpus.toStdString() + " --model_prefix=" + prefix +
      " --vocab_size=1000 --model_type=bpe --character_coverage=1.0 --byte_fallback=true"
      " --unk_id=0 --bos_id=1 --eos_id=2 --pad_id=-1 --num_threads=1 --minloglevel=2");
  if (!status.ok())
    return QObject::tr("training the demo tokenizer failed: %1").arg(status.ToString().c_str());
  auto vocab = engine::loadVocabulary("", prefix + ".model");
  if (!vocab) return QString::fromStdString(vocab.error());
  // Baichuan-7B's architecture at toy size: RoPE, 4 layers, width 128.
  engine::ModelConfig c = engine::shapeConfig("baichuan-7b", 4).value();
  c.dim = 128, c.n_heads = 4, c.n_kv_heads = 4, c.head_dim = 32, c.rope_dim = 32, c.ffn_dim = 344;
  c.vocab = static_cast<int>(vocab.value().pieces.size());
  c.context = 1024;
  auto model = engine::randomModel(c, engine::WeightFormat::F32, 20261202);
  model->vocab = vocab.value();
  QDir().mkpath(QFileInfo(path).absolutePath());
  auto written = engine::writeGguf(*model, path.toStdString());
  if (!written) return QString::fromStdString(written.error());
  return {};
}

ProviderSettings readyDefaultProvider() {
  const QString downloaded = firstDownloadedModel();
  if (!downloaded.isEmpty())
    return {"Local model",
            downloaded.toStdString(),
            QFileInfo(downloaded).completeBaseName().toStdString(),
            "",
            60,
            0,
            KeySource::Environment,
            ProviderKind::LocalEngine,
            "local-model"};
  return {QObject::tr("Demo model — random weights").toStdString(),
          demoModelPath().toStdString(),
          "demo",
          "",
          60,
          0,
          KeySource::Environment,
          ProviderKind::LocalEngine,
          "demo-model"};
}

}  // namespace ts
