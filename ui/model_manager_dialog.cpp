#include "ui/model_manager_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>

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
  // Return reads the path's facts again; leaving the field does so only for a new path.
  connect(path_, &QLineEdit::returnPressed, this, [this] {
    if (!loading_) setPath(path());
  });
  connect(path_, &QLineEdit::editingFinished, this, [this] {
    if (!loading_ && path() != requested_) setPath(path());
  });

  facts_note_ = new QLabel(tr("Choose a model to see what it is."), this);
  facts_note_->setObjectName("modelFactsNote");
  facts_note_->setWordWrap(true);
  facts_note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  right->addWidget(facts_note_);
  // Label / value pairs, unwrapped: the grid's minimum size is its text, which the dialog's
  // layout keeps (rows are never squeezed or cut, whatever the lines below say).
  facts_ = new QWidget(this);
  facts_->setObjectName("modelFacts");
  auto* grid = new QGridLayout(facts_);
  grid->setContentsMargins(0, 4, 0, 4);
  grid->setHorizontalSpacing(10);
  grid->setVerticalSpacing(3);
  grid->setColumnMinimumWidth(2, 16);  // between the two columns of pairs
  grid->setColumnStretch(5, 1);        // the pairs stay left, the rest is blank
  facts_->hide();
  right->addWidget(facts_);
  right->addStretch(1);

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
  // Shown only while loading (no "0%" before anything started); its room is kept, so the
  // rows above do not move when it appears.
  QSizePolicy keep = bar_->sizePolicy();
  keep.setRetainSizeWhenHidden(true);
  bar_->setSizePolicy(keep);
  bar_->hide();
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
  // A successful load closes the dialog (onLoaded); Close or Esc ends it otherwise.
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
  // edit, which shows the facts. Loading is the Load button's alone.
  for (QPushButton* b : findChildren<QPushButton*>()) {
    b->setAutoDefault(false);
    b->setDefault(false);
  }
  // The path field first: focus landing on the recent list would make its first entry
  // current, which inspects that model although nobody chose it.
  path_->setFocus();
  resize(900, 560);
}

bool ModelManagerDialog::event(QEvent* event) {
  const bool handled = QDialog::event(event);
  if (event->type() == QEvent::LayoutRequest) keepRoomForWrappedText();  // after activation
  return handled;
}

void ModelManagerDialog::resizeEvent(QResizeEvent* event) {
  QDialog::resizeEvent(event);
  keepRoomForWrappedText();
}

void ModelManagerDialog::keepRoomForWrappedText() {
  QLayout* top = layout();
  if (!top) return;
  const int need = std::max(top->totalMinimumSize().height(),
                            top->hasHeightForWidth() ? top->totalHeightForWidth(width()) : 0);
  if (need != minimumHeight()) setMinimumHeight(need);
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
  requested_ = path;
  inspected_ = false;
  load_->setEnabled(false);
  estimate_->clear();
  status_->clear();
  bar_->hide();
  if (path.isEmpty()) return clearFacts(tr("Choose a model to see what it is."));
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

QString ModelManagerDialog::factsText() const {
  return fact_lines_.join('\n');
}

void ModelManagerDialog::clearFacts(const QString& note) {
  auto* grid = static_cast<QGridLayout*>(facts_->layout());
  while (QLayoutItem* item = grid->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  fact_lines_.clear();
  facts_->hide();
  facts_note_->setText(note);
  facts_note_->show();
}

void ModelManagerDialog::showFacts(const QList<QPair<QString, QString>>& rows, int trained_context,
                                   const QStringList& tooltips) {
  clearFacts({});
  facts_note_->hide();
  auto* grid = static_cast<QGridLayout*>(facts_->layout());
  const int per_column = static_cast<int>((rows.size() + 1) / 2);
  QFont bold = font();
  bold.setBold(true);
  for (int i = 0; i < rows.size(); ++i) {
    const auto& [label, value] = rows[i];
    auto* name = new QLabel(label, facts_);
    name->setObjectName("factLabel");
    name->setFont(bold);
    auto* text = new QLabel(value, facts_);
    text->setObjectName("factValue");
    text->setTextFormat(Qt::PlainText);
    text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    text->setToolTip(tooltips.value(i));
    const int column = i < per_column ? 0 : 3;
    grid->addWidget(name, i % per_column, column, Qt::AlignLeft | Qt::AlignTop);
    grid->addWidget(text, i % per_column, column + 1, Qt::AlignLeft | Qt::AlignTop);
    fact_lines_ << label + ": " + value;
  }
  facts_->show();
  const int limit = trained_context > 0 ? trained_context : 2048;
  const QSignalBlocker quiet(context_);
  context_->setMaximum(std::max(16, limit));
  context_->setValue(std::min(limit, 4096));  // engine::defaultPositions
  inspected_ = true;
  settingsChanged();
}

void ModelManagerDialog::showInspectError(const QString& message) {
  clearFacts(tr("This is not a model TokenScope can open: %1").arg(message));
  inspected_ = false;
  load_->setEnabled(false);
}

void ModelManagerDialog::showEstimate(const QString& text, bool fits) {
  estimate_->setText(text);
  estimate_->setStyleSheet(fits ? QString() : "color: #c0392b");
  load_->setEnabled(inspected_ && !loading_);
}

void ModelManagerDialog::onLoadProgress(double fraction) {
  if (!loading_) return;  // a late report of a load that already ended
  if (!progress_started_) {
    progress_started_ = true;
    bar_->setRange(0, 1000);  // from "busy" to a percentage: the work has started
  }
  bar_->setValue(static_cast<int>(fraction * 1000));
}

void ModelManagerDialog::onLoaded(const QString& message) {
  setLoading(false);
  status_->setText(message);
  accept();  // the main window's status bar and provider box show the loaded model
}

void ModelManagerDialog::showStatus(const QString& message) {
  status_->setStyleSheet(QString());
  status_->setText(message);
}

void ModelManagerDialog::onLoadFailed(const QString& message, bool cancelled) {
  setLoading(false);
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
  progress_started_ = false;
  bar_->setRange(0, loading ? 0 : 1000);  // busy until the first progress value arrives
  bar_->setValue(0);
  bar_->setVisible(loading);
  status_->setStyleSheet(QString());
  load_->setEnabled(!loading && inspected_);
  cancel_->setEnabled(loading);
  for (QWidget* w :
       std::initializer_list<QWidget*>{path_, recent_, backend_, threads_, weights_, kv_, context_})
    w->setEnabled(!loading);
  if (!loading) threads_->setEnabled(backend_->currentData().toStringList().value(0) != "cuda");
}

}  // namespace ts::ui
