#include "ui/lever_lab_dialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QShortcut>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/elided_label.h"
#include "ui/lab_error_chart.h"

namespace ts::ui {
namespace {

// The values each lever offers, as the lab takes them (lab_plan.h).
QStringList valuesOf(const QString& lever, int cores) {
  if (lever == "weights") return {"f16", "q8_0", "q6_k", "q4_k", "q4_0", "int8", "int4"};
  if (lever == "kv") return {"int8", "f16", "f32"};
  if (lever == "draft") return {"self-int4", "lookup"};
  if (lever == "prefill") return {"chunk:64", "chunk:0", "separate:256", "tpot:100"};
  QStringList threads;
  for (int n = 1; n <= std::max(2, std::min(cores, 16)); n = n < 4 ? n + 1 : n * 2)
    threads << QString::number(n);
  return threads;
}

// What a prefill policy does, for its choice's tooltip.
QString prefillTip(const QString& value) {
  const QString n = value.section(':', 1);
  if (value == "chunk:0") return LeverLabDialog::tr("Whole prompts in one step");
  if (value.startsWith("chunk:"))
    return LeverLabDialog::tr("%1 prompt tokens per step (the default is 256)").arg(n);
  if (value.startsWith("separate:"))
    return LeverLabDialog::tr(
               "Prompts over %1 tokens computed by a prefill worker with its own "
               "threads, then handed to the decoding batch")
        .arg(n);
  return LeverLabDialog::tr("Prompt chunks paced to keep decoding near %1 ms per token").arg(n);
}

// What a lever's values are checked with when it is picked: one change from the baseline.
bool checkedAtFirst(const QString& lever, const QString& value) {
  return value == "q8_0" || (lever == "kv" && value == "int8") || value == "self-int4" ||
         value == "separate:256";
}

}  // namespace

LeverLabDialog::LeverLabDialog(QWidget* parent) : QDialog(parent) {
  setObjectName("leverLabDialog");
  setWindowTitle(tr("Lever lab"));
  setWindowFlag(Qt::Window);
  setSizeGripEnabled(true);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(buildBaseline());
  layout->addWidget(buildLeverRow());
  layout->addWidget(buildSettingsRow());
  layout->addWidget(buildProgressRow());
  buildTable();
  layout->addWidget(table_, 1);
  accuracy_ = new QLabel(this);
  accuracy_->setObjectName("labAccuracy");
  accuracy_->setWordWrap(true);
  accuracy_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  accuracy_->hide();  // until a report has accuracy lines
  layout->addWidget(accuracy_);
  chart_ = new LabErrorChart(this);
  layout->addWidget(chart_, 1);
  layout->addWidget(buildButtons());
  auto* run_keys = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), this);
  connect(run_keys, &QShortcut::activated, this, &LeverLabDialog::run);
  auto* run_enter = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Enter), this);
  connect(run_enter, &QShortcut::activated, this, &LeverLabDialog::run);
  setMinimumSize(720, 560);
  const QSize room = (parent && parent->screen() ? parent->screen() : QApplication::primaryScreen())
                         ->availableGeometry()
                         .size();
  resize(QSize(1040, 760).boundedTo(room - QSize(40, 60)).expandedTo(minimumSize()));
  setUnavailable({});
  fillValues();
}

QWidget* LeverLabDialog::buildBaseline() {
  auto* box = new QWidget(this);
  auto* row = new QVBoxLayout(box);
  row->setContentsMargins(0, 0, 0, 0);
  baseline_ = new ElidedLabel(box);
  baseline_->setObjectName("labBaseline");
  unavailable_ = new QLabel(box);
  unavailable_->setObjectName("labUnavailable");
  unavailable_->setWordWrap(true);
  row->addWidget(baseline_);
  row->addWidget(unavailable_);
  return box;
}

QWidget* LeverLabDialog::buildLeverRow() {
  auto* box = new QWidget(this);
  auto* row = new QHBoxLayout(box);
  row->setContentsMargins(0, 0, 0, 0);
  lever_ = new QComboBox(box);
  lever_->setObjectName("labLever");
  lever_->addItem(tr("Weights"), "weights");
  lever_->addItem(tr("KV cache"), "kv");
  lever_->addItem(tr("Speculative sampling"), "draft");
  lever_->addItem(tr("Threads"), "threads");
  lever_->addItem(tr("Prefill policy (mixed load)"), "prefill");
  auto* label = new QLabel(tr("&Lever:"), box);
  label->setBuddy(lever_);
  row->addWidget(label);
  row->addWidget(lever_);
  row->addSpacing(12);
  values_box_ = new QWidget(box);
  values_ = new QHBoxLayout(values_box_);
  values_->setContentsMargins(0, 0, 0, 0);
  row->addWidget(values_box_);
  ks_box_ = new QWidget(box);
  auto* ks = new QHBoxLayout(ks_box_);
  ks->setContentsMargins(12, 0, 0, 0);
  ks->addWidget(new QLabel(tr("K:"), ks_box_));
  for (int k : {2, 4, 6})
    k_checks_ << addChoice(ks, QString("k_%1").arg(k), QString::number(k), k == 4);
  row->addWidget(ks_box_);
  row->addStretch(1);
  connect(lever_, &QComboBox::currentIndexChanged, this, [this] {
    fillValues();
    emit leverChanged(lever());
  });
  return box;
}

QCheckBox* LeverLabDialog::addChoice(QHBoxLayout* row, const QString& object_name,
                                     const QString& text, bool checked) {
  auto* check = new QCheckBox(text, row->parentWidget());
  check->setObjectName(object_name);
  check->setChecked(checked);
  connect(check, &QCheckBox::toggled, this, &LeverLabDialog::updateRunButton);
  row->addWidget(check);
  return check;
}

QWidget* LeverLabDialog::buildSettingsRow() {
  auto* box = new QWidget(this);
  auto* row = new QHBoxLayout(box);
  row->setContentsMargins(0, 0, 0, 0);
  const auto spin = [&](const char* name, const QString& label, int lo, int hi, int value,
                        const QString& tip) {
    auto* s = new QSpinBox(box);
    s->setObjectName(name);
    s->setRange(lo, hi);
    s->setValue(value);
    s->setToolTip(tip);
    auto* l = new QLabel(label, box);
    l->setBuddy(s);
    row->addWidget(l);
    row->addWidget(s);
    row->addSpacing(8);
    return s;
  };
  repeat_ = spin("labRepeat", tr("&Repeat:"), 2, 100, 5,
                 tr("Measured runs of the baseline and of each variant, interleaved A B A B …"));
  prompt_ = spin("labPromptTokens", tr("&Prompt tokens:"), 8, 4096, 128,
                 tr("The prompt every run sends (the same tokens for every arm)"));
  gen_ = spin("labGenTokens", tr("&Generated tokens:"), 4, 2048, 64,
              tr("Tokens each run generates (end of sequence ignored)"));
  row->addStretch(1);
  run_ = new QPushButton(tr("Run"), box);
  run_->setObjectName("labRun");
  run_->setDefault(true);
  run_->setToolTip(tr("Run the baseline and the variants interleaved (Ctrl+Return)"));
  cancel_ = new QPushButton(tr("Cancel"), box);
  cancel_->setObjectName("labCancel");
  cancel_->setEnabled(false);
  row->addWidget(run_);
  row->addWidget(cancel_);
  connect(run_, &QPushButton::clicked, this, &LeverLabDialog::run);
  connect(cancel_, &QPushButton::clicked, this, &LeverLabDialog::cancelRequested);
  return box;
}

QWidget* LeverLabDialog::buildProgressRow() {
  auto* box = new QWidget(this);
  auto* row = new QHBoxLayout(box);
  row->setContentsMargins(0, 0, 0, 0);
  progress_ = new QProgressBar(box);
  progress_->setObjectName("labProgress");
  progress_->setRange(0, 100);
  progress_->setValue(0);
  progress_->setMaximumWidth(260);
  progress_->hide();  // until a run starts: no "0%" before anything
  stage_ = new ElidedLabel(box);
  stage_->setObjectName("labStage");
  row->addWidget(progress_);
  row->addWidget(stage_, 1);
  return box;
}

void LeverLabDialog::buildTable() {
  table_ = new QTableWidget(0, 7, this);
  table_->setObjectName("labTable");
  table_->setHorizontalHeaderLabels({tr("Value"), tr("Metric"), tr("Baseline"), tr("Variant"),
                                     tr("Change [95 % interval]"), tr("Predicted"),
                                     tr("Prediction error")});
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(4, QHeaderView::Stretch);  // the change
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  // A variant's seven metrics without scrolling.
  table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() +
                           7 * table_->verticalHeader()->defaultSectionSize() +
                           2 * table_->frameWidth());
}

QWidget* LeverLabDialog::buildButtons() {
  auto* box = new QWidget(this);
  auto* row = new QHBoxLayout(box);
  row->setContentsMargins(0, 0, 0, 0);
  ladder_ = new QPushButton(tr("Run the la&dder"), box);
  ladder_->setObjectName("labLadder");
  ladder_->setToolTip(
      tr("Baseline → weights (q8_0, q4_k, q4_0) → + KV int8 → + speculative (self-int4), each "
         "step keeping its best value only when it improved measurably within the accuracy "
         "limit; writes a Markdown report with charts and its JSON"));
  min_top1_ = new QSpinBox(box);
  min_top1_->setObjectName("labMinTop1");
  min_top1_->setRange(50, 100);
  min_top1_->setValue(95);
  min_top1_->setSuffix(" %");
  min_top1_->setToolTip(tr("The ladder's accuracy limit: the top-1 agreement a step must keep"));
  auto* limit = new QLabel(tr("top-1 ≥"), box);
  limit->setBuddy(min_top1_);
  row->addWidget(ladder_);
  row->addWidget(limit);
  row->addWidget(min_top1_);
  row->addSpacing(12);
  connect(ladder_, &QPushButton::clicked, this, &LeverLabDialog::runLadder);
  copy_ = new QPushButton(tr("&Copy report"), box);
  copy_->setObjectName("labCopy");
  copy_->setToolTip(tr("The report as Markdown, to the clipboard"));
  export_ = new QPushButton(tr("&Export JSON…"), box);
  export_->setObjectName("labExport");
  auto* close = new QPushButton(tr("Close"), box);
  close->setObjectName("labClose");
  close->setAutoDefault(false);
  row->addWidget(copy_);
  row->addWidget(export_);
  row->addStretch(1);
  row->addWidget(close);
  copy_->setEnabled(false);
  export_->setEnabled(false);
  connect(copy_, &QPushButton::clicked, this, &LeverLabDialog::copyReport);
  connect(export_, &QPushButton::clicked, this, &LeverLabDialog::exportJson);
  connect(close, &QPushButton::clicked, this, &QDialog::close);
  return box;
}

void LeverLabDialog::fillValues() {
  for (QCheckBox* c : value_checks_) delete c;
  value_checks_.clear();
  const QString l = lever();
  for (const QString& v : valuesOf(l, baseline_values_.cores)) {
    QCheckBox* c = addChoice(values_, "value_" + v, v, checkedAtFirst(l, v));
    // A value equal to the baseline's would compare the baseline with itself.
    const bool same = (l == "kv" && v == baseline_values_.kv) ||
                      (l == "threads" && v.toInt() == baseline_values_.threads);
    if (same) {
      c->setChecked(false);
      c->setEnabled(false);
      c->setToolTip(tr("The baseline's own setting"));
    }
    if (l == "prefill") c->setToolTip(prefillTip(v));
    value_checks_ << c;
  }
  if (l == "threads" && !value_checks_.isEmpty())
    for (QCheckBox* c : value_checks_)
      if (c->isEnabled()) {
        c->setChecked(true);
        break;
      }
  ks_box_->setVisible(l == "draft");
  updateRunButton();
}

}  // namespace ts::ui
