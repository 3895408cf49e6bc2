#include "ui/model_manager_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

namespace ts::ui {
namespace {

void selectData(QComboBox* combo, const QVariant& value) {
  const int i = combo->findData(value);
  if (i >= 0) combo->setCurrentIndex(i);
}

}  // namespace

ModelManagerDialog::ModelManagerDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Open a local model"));
  auto* columns = new QHBoxLayout(this);
  auto* left = new QVBoxLayout;
  left->addWidget(new QLabel(tr("Recent models:"), this));
  recent_ = new QListWidget(this);
  recent_->setObjectName("recentModels");
  recent_->setMinimumWidth(200);
  left->addWidget(recent_, 1);
  columns->addLayout(left);
  connect(recent_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
    if (item && !loading_) setPath(item->data(Qt::UserRole).toString());
  });

  auto* right = new QVBoxLayout;
  auto* pick = new QHBoxLayout;
  path_ = new QLineEdit(this);
  path_->setObjectName("modelPath");
  path_->setPlaceholderText(
      tr("A .gguf file, a Hugging Face folder (safetensors or PyTorch .bin) or a llama2.c .bin"));
  pick->addWidget(path_, 1);
  auto* file = new QPushButton(tr("Open &file…"), this);
  auto* folder = new QPushButton(tr("Open f&older…"), this);
  pick->addWidget(file);
  pick->addWidget(folder);
  right->addLayout(pick);
  connect(file, &QPushButton::clicked, this, &ModelManagerDialog::browseFile);
  connect(folder, &QPushButton::clicked, this, &ModelManagerDialog::browseFolder);
  connect(path_, &QLineEdit::editingFinished, this, [this] {
    if (!loading_) setPath(path_->text().trimmed());
  });

  facts_ = new QLabel(tr("Choose a model to see what it is."), this);
  facts_->setObjectName("modelFacts");
  facts_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  facts_->setWordWrap(true);
  facts_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  // The facts scroll rather than being cut when the dialog is short.
  auto* facts_scroll = new QScrollArea(this);
  facts_scroll->setObjectName("modelFactsScroll");
  facts_scroll->setWidget(facts_);
  facts_scroll->setWidgetResizable(true);
  facts_scroll->setFrameShape(QFrame::NoFrame);
  right->addWidget(facts_scroll, 1);

  auto* form = new QFormLayout;
  backend_ = new QComboBox(this);
  backend_->setObjectName("backendCombo");
  form->addRow(tr("&Backend"), backend_);
  threads_ = new QSpinBox(this);
  threads_->setObjectName("threadsSpin");
  threads_->setRange(1, std::max(1, QThread::idealThreadCount()));
  threads_->setValue(threads_->maximum());
  threads_->setToolTip(tr("CPU threads for the matrix products (one per core is usually best)"));
  form->addRow(tr("CPU &threads"), threads_);
  weights_ = new QComboBox(this);
  weights_->setObjectName("weightsCombo");
  weights_->addItem(tr("auto: as the file stores them"), "auto");
  weights_->addItem(tr("f32 (exact)"), "f32");
  weights_->addItem(tr("f16 (half the memory)"), "f16");
  weights_->addItem(tr("int8, per output channel"), "int8");
  weights_->addItem(tr("int4, groups of 128"), "int4");
  weights_->addItem(tr("q8_0, blocks of 32"), "q8_0");
  weights_->setToolTip(
      tr("auto keeps every tensor as the file stores it, read straight from the file. Other "
         "formats are converted once at load and kept in the cache (~/.cache/tokenscope), so "
         "the next load of the same format is fast."));
  form->addRow(tr("&Weights"), weights_);
  kv_ = new QComboBox(this);
  kv_->setObjectName("kvCombo");
  kv_->addItem(tr("f16"), "f16");
  kv_->addItem(tr("f32"), "f32");
  kv_->addItem(tr("int8 (one scale per row)"), "int8");
  form->addRow(tr("&KV cache"), kv_);
  context_ = new QSpinBox(this);
  context_->setObjectName("contextSpin");
  context_->setRange(16, 4096);
  context_->setValue(2048);
  context_->setSuffix(tr(" positions"));
  context_->setToolTip(
      tr("Prompt + answer tokens the KV cache holds (at most the model's "
         "trained context)"));
  form->addRow(tr("&Context"), context_);
  right->addLayout(form);
  for (QComboBox* combo : {backend_, weights_, kv_})
    connect(combo, &QComboBox::currentIndexChanged, this, &ModelManagerDialog::settingsChanged);
  for (QSpinBox* spin : {threads_, context_})
    connect(spin, &QSpinBox::valueChanged, this, &ModelManagerDialog::settingsChanged);

  estimate_ = new QLabel(this);
  estimate_->setObjectName("memoryEstimate");
  estimate_->setWordWrap(true);
  right->addWidget(estimate_);
  bar_ = new QProgressBar(this);
  bar_->setObjectName("loadProgress");
  bar_->setRange(0, 1000);
  bar_->setValue(0);
  right->addWidget(bar_);
  status_ = new QLabel(this);
  status_->setObjectName("loadStatus");
  status_->setWordWrap(true);
  right->addWidget(status_);
  auto* cache_row = new QHBoxLayout;
  cache_ = new QLabel(this);
  cache_->setObjectName("conversionCache");
  cache_->setWordWrap(true);
  cache_row->addWidget(cache_, 1);
  clear_cache_ = new QPushButton(tr("Clear c&ache"), this);
  clear_cache_->setObjectName("clearCacheButton");
  clear_cache_->setToolTip(
      tr("Removes every converted model from the cache; the models themselves stay."));
  cache_row->addWidget(clear_cache_);
  right->addLayout(cache_row);
  connect(clear_cache_, &QPushButton::clicked, this, &ModelManagerDialog::clearCacheRequested);

  auto* buttons = new QDialogButtonBox(this);
  // An action, not the accept button (which Return would press): Return in the path field
  // shows the facts, and loading is this button's (or Alt+L), once the settings are chosen.
  load_ = buttons->addButton(tr("&Load"), QDialogButtonBox::ActionRole);
  load_->setObjectName("loadButton");
  load_->setEnabled(false);
  cancel_ = buttons->addButton(tr("Cancel loading"), QDialogButtonBox::ActionRole);
  cancel_->setObjectName("cancelLoadButton");
  cancel_->setEnabled(false);
  buttons->addButton(QDialogButtonBox::Close);
  right->addWidget(buttons);
  columns->addLayout(right, 1);
  // The dialog stays open after a load (to compare formats); Close or Esc ends it.
  disconnect(buttons, &QDialogButtonBox::accepted, this, nullptr);
  connect(load_, &QPushButton::clicked, this, [this] {
    setLoading(true);
    status_->setText(tr("Loading…"));
    emit loadRequested(path(), settings());
  });
  connect(cancel_, &QPushButton::clicked, this, [this] {
    status_->setText(tr("Cancelling…"));
    emit cancelRequested();
  });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  // Return presses no button (a dialog would press its first one): it ends the path field's
  // edit, which shows the facts.
  for (QPushButton* b : findChildren<QPushButton*>()) b->setAutoDefault(false);
  resize(860, 620);
}

void ModelManagerDialog::showCacheUsage(const QString& text, bool clearable) {
  cache_->setText(text);
  clear_cache_->setEnabled(clearable);
}

void ModelManagerDialog::setRecent(const QStringList& paths) {
  recent_->clear();
  for (const QString& p : paths) {
    auto* item = new QListWidgetItem(QFileInfo(p).fileName(), recent_);
    item->setData(Qt::UserRole, p);
    item->setToolTip(p);
  }
}

void ModelManagerDialog::setBackends(const QList<Backend>& backends) {
  backend_->clear();
  for (const Backend& b : backends)
    backend_->addItem(b.label, QStringList{b.name, QString::number(b.device)});
}

void ModelManagerDialog::setPath(const QString& path) {
  path_->setText(path);
  inspected_ = false;
  load_->setEnabled(false);
  estimate_->clear();
  status_->clear();
  bar_->setValue(0);
  if (path.isEmpty()) return;
  emit inspectRequested(path);
}

QString ModelManagerDialog::path() const {
  return path_->text().trimmed();
}

LocalEngineSettings ModelManagerDialog::settings() const {
  LocalEngineSettings s;
  const QStringList backend = backend_->currentData().toStringList();
  if (backend.size() == 2) {
    s.backend = backend[0].toStdString();
    s.device = backend[1].toInt();
  }
  s.threads = threads_->value();
  s.weights = weights_->currentData().toString().toStdString();
  s.kv = kv_->currentData().toString().toStdString();
  s.context = context_->value();
  return s;
}

void ModelManagerDialog::setSettings(const LocalEngineSettings& s) {
  selectData(backend_, QStringList{QString::fromStdString(s.backend), QString::number(s.device)});
  if (s.threads > 0) threads_->setValue(s.threads);
  selectData(weights_, QString::fromStdString(s.weights));
  selectData(kv_, QString::fromStdString(s.kv));
  if (s.context > 0) context_->setValue(s.context);
}

void ModelManagerDialog::showFacts(const QList<QPair<QString, QString>>& rows,
                                   int trained_context) {
  QString html = "<table cellspacing='2'>";
  for (const auto& [label, value] : rows)
    html += QString("<tr><td><b>%1</b>&nbsp;&nbsp;</td><td>%2</td></tr>")
                .arg(label.toHtmlEscaped(), value.toHtmlEscaped());
  facts_->setText(html + "</table>");
  const int limit = trained_context > 0 ? trained_context : 2048;
  const QSignalBlocker quiet(context_);
  context_->setMaximum(std::max(16, limit));
  context_->setValue(std::min(limit, 4096));  // engine::defaultPositions
  inspected_ = true;
  settingsChanged();
}

void ModelManagerDialog::showInspectError(const QString& message) {
  facts_->setText(tr("This is not a model TokenScope can open: %1").arg(message));
  inspected_ = false;
  load_->setEnabled(false);
}

void ModelManagerDialog::showEstimate(const QString& text, bool fits) {
  estimate_->setText(text);
  estimate_->setStyleSheet(fits ? QString() : "color: #c0392b");
  load_->setEnabled(inspected_ && !loading_);
}

void ModelManagerDialog::onLoadProgress(double fraction) {
  bar_->setValue(static_cast<int>(fraction * 1000));
}

void ModelManagerDialog::onLoaded(const QString& message) {
  setLoading(false);
  bar_->setValue(1000);
  status_->setText(message);
}

void ModelManagerDialog::onLoadFailed(const QString& message, bool cancelled) {
  setLoading(false);
  bar_->setValue(0);
  status_->setText(cancelled ? tr("Loading cancelled; nothing was changed.") : message);
  status_->setStyleSheet(cancelled ? QString() : "color: #c0392b");
}

void ModelManagerDialog::browseFile() {
  const QString file =
      QFileDialog::getOpenFileName(this, tr("Open a model file"), QFileInfo(path()).absolutePath(),
                                   tr("Models (*.gguf *.bin *.safetensors);;All files (*)"));
  if (!file.isEmpty()) setPath(file);
}

void ModelManagerDialog::browseFolder() {
  const QString dir = QFileDialog::getExistingDirectory(
      this, tr("Open a Hugging Face model folder (config.json, *.safetensors)"), path());
  if (!dir.isEmpty()) setPath(dir);
}

void ModelManagerDialog::settingsChanged() {
  const bool cpu = backend_->currentData().toStringList().value(0) != "cuda";
  threads_->setEnabled(cpu);
  if (inspected_) emit estimateRequested(path(), settings());
}

void ModelManagerDialog::setLoading(bool loading) {
  loading_ = loading;
  status_->setStyleSheet(QString());
  load_->setEnabled(!loading && inspected_);
  cancel_->setEnabled(loading);
  for (QWidget* w :
       std::initializer_list<QWidget*>{path_, recent_, backend_, threads_, weights_, kv_, context_})
    w->setEnabled(!loading);
  if (!loading) threads_->setEnabled(backend_->currentData().toStringList().value(0) != "cuda");
}

}  // namespace ts::ui
