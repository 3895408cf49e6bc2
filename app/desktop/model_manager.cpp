#include "app/desktop/model_manager.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QSettings>
#include <QtConcurrent/QtConcurrentRun>

#include "app/desktop/ui_settings.h"
#include "app/local/local_engine_loader.h"
#include "inference/engine/backend/backend_loader.h"
#include "inference/engine/backend/cuda_session.h"
#include "inference/engine/backend/model_memory.h"
#include "inference/engine/decode/open_session.h"
#include "inference/engine/formats/model_info.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/formats/quant_cache_limit.h"
#include "ui/format.h"

namespace ts {
namespace {

constexpr int kRecentModels = 10;

// MemAvailable of /proc/meminfo in bytes (0 when unknown).
uint64_t availableHostMemory() {
  QFile f("/proc/meminfo");
  if (!f.open(QIODevice::ReadOnly)) return 0;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("MemAvailable:"))
      return line.mid(13).trimmed().split(' ').value(0).toULongLong() * 1024;
  return 0;
}

// What the file is, as a user downloaded it.
QString formatName(const std::string& format) {
  if (format == "gguf") return "GGUF";
  if (format == "safetensors") return ModelManager::tr("Hugging Face safetensors");
  if (format == "pytorch") return ModelManager::tr("PyTorch checkpoint (.bin)");
  if (format == "llama2c") return ModelManager::tr("llama2.c checkpoint");
  return QString::fromStdString(format);
}

QString positionalName(const engine::ModelConfig& c) {
  return c.positional == engine::Positional::Rope ? "RoPE" : "ALiBi";
}

// What a loaded model holds, in the estimate's terms (MemoryEstimate::weights): the
// matrices (Model::weight_bytes: the layers' and the classifier) plus the token embeddings
// (unless the classifier shares their storage) and the f32 norm vectors.
struct ResidentWeights {
  uint64_t matrices = 0, embeddings_and_norms = 0;
  uint64_t total() const { return matrices + embeddings_and_norms; }
};

ResidentWeights residentWeights(const engine::Model& m) {
  ResidentWeights r;
  r.matrices = m.weight_bytes();
  if (m.token_embd.storage() != m.classifier.storage())
    r.embeddings_and_norms += m.token_embd.bytes();
  uint64_t norms = m.output_norm.size();
  for (const auto& l : m.layers) norms += l.attn_norm.size() + l.ffn_norm.size();
  r.embeddings_and_norms += norms * sizeof(float);
  return r;
}

// "In memory: x.gguf, loaded in 2.30 s as int8: weights 421.2 MiB (…); estimated 421.2 MiB."
QString loadedNote(const engine::Model& model, const QString& path,
                   const LocalEngineSettings& settings, double seconds, uint64_t estimated) {
  const ResidentWeights r = residentWeights(model);
  QString note = ModelManager::tr(
                     "In memory: %1, loaded in %2 s with %3 weights: %4 (matrices %5 + token "
                     "embeddings and norms %6)")
                     .arg(QFileInfo(path).fileName())
                     .arg(seconds, 0, 'f', 2)
                     .arg(QString::fromStdString(settings.weights), ui::formatBytes(r.total()),
                          ui::formatBytes(r.matrices), ui::formatBytes(r.embeddings_and_norms));
  if (estimated > 0)
    note += ModelManager::tr("; estimated before loading: %1").arg(ui::formatBytes(estimated));
  // Why the two differ, when the loader changed something (e.g. converted a tensor type).
  if (!model.load_note.empty()) note += " (" + QString::fromStdString(model.load_note) + ")";
  return note + ".";
}

struct LoadOutcome {
  std::shared_ptr<engine::Model> model;
  QString error;
  double seconds = 0;
};

}  // namespace

ModelManager::ModelManager(QWidget* window, QObject* parent) : QObject(parent), window_(window) {}

void ModelManager::setWindow(QWidget* window) {
  if (dialog_) dialog_->close();
  window_ = window;
}

ModelManager::~ModelManager() {
  if (cancel_) *cancel_ = true;
}

QStringList ModelManager::recentModels() {
  QStringList out;
  for (const QString& p : uiSettings().value("recentModels").toStringList())
    if (QFileInfo::exists(p)) out << p;
  return out;
}

void ModelManager::rememberModel(const QString& path) {
  QStringList list = uiSettings().value("recentModels").toStringList();
  list.removeAll(path);
  list.prepend(path);
  while (list.size() > kRecentModels) list.removeLast();
  uiSettings().setValue("recentModels", list);
}

ui::ModelManagerDialog* ModelManager::open(const QString& path) {
  if (!dialog_) {
    dialog_ = new ui::ModelManagerDialog(window_);
    dialog_->setObjectName("modelManagerDialog");
    dialog_->setAttribute(Qt::WA_DeleteOnClose);
    QList<ui::ModelManagerDialog::Backend> backends;
    const engine::CudaAvailability cuda = engine::probeCuda();
    backends.append(
        {cuda.usable ? tr("Automatic (CUDA)") : tr("Automatic (CPU: no usable CUDA device)"),
         "auto", 0});
    backends.append({tr("CPU"), "cpu", 0});
    for (int i = 0; i < static_cast<int>(cuda.devices.size()); ++i)
      backends.append({tr("CUDA %1: %2 (%3)")
                           .arg(i)
                           .arg(QString::fromStdString(cuda.devices[i].name),
                                ui::formatBytes(cuda.devices[i].total_bytes)),
                       "cuda", i});
    dialog_->setBackends(backends);
    dialog_->setRecent(recentModels());
    connect(dialog_, &ui::ModelManagerDialog::inspectRequested, this, &ModelManager::inspect);
    connect(dialog_, &ui::ModelManagerDialog::estimateRequested, this, &ModelManager::estimate);
    connect(dialog_, &ui::ModelManagerDialog::loadRequested, this, &ModelManager::load);
    connect(dialog_, &ui::ModelManagerDialog::cancelRequested, this, [this] {
      if (cancel_) *cancel_ = true;
    });
    connect(dialog_, &ui::ModelManagerDialog::clearCacheRequested, this, [this] {
      engine::clearQuantCache();
      showCacheUsage();
    });
    connect(dialog_, &QDialog::finished, this, [this] {
      if (cancel_) *cancel_ = true;  // closing the dialog cancels a load in flight
    });
  }
  showCacheUsage();
  if (!path.isEmpty()) dialog_->setPath(path);
  dialog_->show();
  dialog_->raise();
  dialog_->activateWindow();
  return dialog_;
}

void ModelManager::showCacheUsage() {
  if (!dialog_) return;
  const engine::QuantCacheUsage u = engine::quantCacheUsage();
  const QString limit = ui::formatBytes(engine::quantCacheLimit());
  dialog_->showCacheUsage(
      u.files == 0 ? tr("Conversion cache: empty (limit %1, in %2)")
                         .arg(limit, QString::fromStdString(u.dir))
                   : tr("Conversion cache: %1 in %2 file(s) of at most %3, in %4; the least "
                        "recently used go first")
                         .arg(ui::formatBytes(u.bytes))
                         .arg(u.files)
                         .arg(limit, QString::fromStdString(u.dir)),
      u.files > 0);
}

void ModelManager::inspect(const QString& path) {
  auto info = engine::inspectModel(path.toStdString());
  if (!info) {
    inspected_.clear();
    return dialog_->showInspectError(QString::fromStdString(info.error()));
  }
  const engine::ModelSummary& s = info.value();
  const engine::ModelConfig& c = s.config;
  config_ = c;
  tensor_bytes_ = s.tensor_bytes;
  stored_matrices_ = s.matrices;
  inspected_ = path;
  QStringList stored;
  for (const auto& [type, count] : s.stored_types)
    stored << tr("%1 × %2").arg(QString::fromStdString(type)).arg(count);
  const QString arch = QString::fromStdString(c.architecture) +
                       (c.norm_head ? tr(" (Baichuan2, NormHead)") : QString());
  // Values stay short (the grid does not wrap them); the details are in their tooltips.
  const QString heads =
      tr("%1 · KV heads %2 · head size %3").arg(c.n_heads).arg(c.n_kv_heads).arg(c.head_dim);
  QList<QPair<QString, QString>> rows = {
      {tr("Architecture"), arch},
      {tr("Format"), formatName(c.source_format)},
      {tr("Parameters"), ui::formatCount(s.parameters)},
      {tr("Layers"), QString::number(c.n_layers)},
      {tr("Width"), tr("%1 (FFN %2)").arg(c.dim).arg(c.ffn_dim)},
      {tr("Attention heads"), heads},
      {tr("Vocabulary"), s.vocabulary_pieces > 0 ? tr("%1 tokens").arg(c.vocab)
                                                 : tr("%1 tokens, no tokenizer").arg(c.vocab)},
      {tr("Context length"), c.context > 0 ? tr("%1 tokens").arg(c.context) : tr("not stated")},
      {tr("Positions"), positionalName(c)},
      {tr("Classifier"), c.norm_head ? tr("NormHead, normalized at load") : tr("as stored")},
      {tr("Stored weights"), stored.join(", ")},
      {tr("On disk"), ui::formatBytes(s.file_bytes)}};
  QStringList tips(rows.size());
  if (c.source_format == "pytorch") tips[1] = tr("Read without running its pickle.");
  tips[5] = c.n_kv_heads < c.n_heads
                ? tr("%1 query heads share %2 key/value heads (grouped-query attention); each "
                     "head has %3 dimensions.")
                      .arg(c.n_heads)
                      .arg(c.n_kv_heads)
                      .arg(c.head_dim)
                : tr("Every query head has its own key/value head; each head has %1 dimensions.")
                      .arg(c.head_dim);
  if (s.vocabulary_pieces == 0) tips[6] = QString::fromStdString(s.vocabulary_note);
  if (c.norm_head) tips[9] = tr("Each classifier row is scaled to unit length at load, in f32.");
  dialog_->showFacts(rows, c.context, tips);
  if (kept_ && path == kept_path_) dialog_->showStatus(kept_note_);
}

void ModelManager::estimate(const QString& path, const LocalEngineSettings& settings) {
  if (path != inspected_) return;
  auto weights = engine::parseWeightFormat(settings.weights);
  auto kv = engine::parseKvFormat(settings.kv);
  if (!weights || !kv) return;
  const bool cuda = settings.backend == "cuda";
  const engine::MemoryEstimate e =
      engine::estimateMemory(config_, weights.value(), 128, settings.context, kv.value(), cuda,
                             tensor_bytes_, stored_matrices_);
  // "weights" is everything the model holds (matrices, token embeddings, norms): the same
  // sum the loaded model reports (residentWeights), so the two can be compared.
  QString text =
      tr("Needs %1: weights %2 (matrices, embeddings and norms) + KV cache %3")
          .arg(ui::formatBytes(e.total()), ui::formatBytes(e.weights), ui::formatBytes(e.kv_cache));
  if (cuda) text += tr(" + workspace %1").arg(ui::formatBytes(e.workspace));
  uint64_t available = 0;
  if (cuda) {
    const engine::CudaModelView view(config_, weights.value(), 128, 1);
    engine::CudaOptions options;
    options.device = settings.device;
    if (auto m = engine::estimateCudaMemory(view, settings.context, kv.value(), options))
      available = m->device_free;
    text += available ? tr(" on the device, which has %1 free.").arg(ui::formatBytes(available))
                      : tr(" on the device.");
  } else {
    available = availableHostMemory();
    text += available ? tr("; this machine has %1 available.").arg(ui::formatBytes(available))
                      : QStringLiteral(".");
    if (e.load_peak > e.weights)
      text += tr(" Converting from the stored weights needs up to %1 while loading (not when "
                 "the converted cache exists).")
                  .arg(ui::formatBytes(e.load_peak));
  }
  estimated_weights_ = e.weights;
  const bool fits = available == 0 || e.total() <= available;
  if (!fits)
    text +=
        tr(" It does not fit: choose int4 or int8 weights, an int8 KV cache or a shorter "
           "context.");
  dialog_->showEstimate(text, fits);
}

void ModelManager::load(const QString& path, const LocalEngineSettings& settings) {
  if (cancel_) *cancel_ = true;  // at most one load: a new one replaces the old
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  cancel_ = cancel;
  QPointer<ui::ModelManagerDialog> dialog = dialog_;
  const LocalEngineSpec spec{path, settings};
  const uint64_t estimated = estimated_weights_;
  auto* watcher = new QFutureWatcher<std::shared_ptr<LoadOutcome>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<LoadOutcome>>::finished, this,
          [this, watcher, cancel, dialog, path, settings, estimated] {
            watcher->deleteLater();
            const std::shared_ptr<LoadOutcome> out = watcher->result();
            if (cancel_ == cancel) cancel_.reset();
            // Cancel pressed before the result arrived wins: nothing is changed.
            const bool cancelled = *cancel || out->error == engine::kLoadCancelled;
            if (cancelled || !out->model) {
              if (dialog) dialog->onLoadFailed(out->error, cancelled);
              return;
            }
            kept_ = out->model;
            kept_path_ = path;
            kept_note_ = loadedNote(*out->model, path, settings, out->seconds, estimated);
            rememberModel(path);
            if (dialog) {
              dialog->setRecent(recentModels());
              dialog->onLoaded(kept_note_);  // closes it; the window announces the model
            }
            showCacheUsage();  // a conversion may have written to the cache
            emit loaded(path, settings);
          });
  watcher->setFuture(QtConcurrent::run([spec, cancel, dialog] {
    auto out = std::make_shared<LoadOutcome>();
    QElapsedTimer clock;
    clock.start();
    int last_permille = -1;
    out->model = loadLocalModel(spec, out->error, [&](double fraction) {
      const int permille = static_cast<int>(fraction * 1000);
      if (permille != last_permille) {
        last_permille = permille;
        // Checked on the GUI thread: the dialog may have closed meanwhile.
        QMetaObject::invokeMethod(
            qApp,
            [dialog, fraction] {
              if (dialog) dialog->onLoadProgress(fraction);
            },
            Qt::QueuedConnection);
      }
      return !*cancel;
    });
    out->seconds = clock.elapsed() / 1000.0;
    return out;
  }));
}

}  // namespace ts
