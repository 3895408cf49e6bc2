#include "ui/benchmark_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScreen>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "ui/benchmark_csv.h"
#include "ui/chart_export.h"
#include "ui/save_file.h"
#include "ui/sweep_chart.h"
#include "ui/tradeoff_chart.h"

namespace ts::ui {
namespace {

QString ms(const QJsonObject& figures, const char* metric, const char* key) {
  return QString::number(figures.value(metric).toObject().value(key).toDouble(), 'f', 1);
}

// The field a sweep's values stand for, as error messages name it.
QString fieldName(SweepKind kind) {
  switch (kind) {
    case SweepKind::Concurrency:
      return BenchmarkDialog::tr("Concurrency");
    case SweepKind::Rate:
      return BenchmarkDialog::tr("Request rate");
    case SweepKind::PromptLength:
      return BenchmarkDialog::tr("Prompt length");
    case SweepKind::PrefillChunk:
      return BenchmarkDialog::tr("Prefill chunk");
    case SweepKind::MaxRunning:
      return BenchmarkDialog::tr("Running sequences");
    case SweepKind::TpotTarget:
      return BenchmarkDialog::tr("TPOT target (ms)");
  }
  return {};
}

// Room for a button's label with the style's margin on both sides (Fusion's own size hint
// leaves a long label touching its frame).
void padButton(QPushButton* button) {
  const int margin = button->style()->pixelMetric(QStyle::PM_ButtonMargin, nullptr, button);
  QString text = button->text();
  text.remove(QRegularExpression("&(?!&)"));
  const int indicator = button->menu() ? button->fontMetrics().height() : 0;  // ▾
  button->setMinimumWidth(
      std::max(button->sizeHint().width(),
               button->fontMetrics().horizontalAdvance(text) + 2 * margin + indicator + 2));
}

// A table column's title on two lines ("TTFT\np99", "Goodput\nreq/s"): eleven columns fit
// a 1024 px window.
QString twoLines(QString title) {
  const qsizetype space = title.lastIndexOf(' ');
  if (space > 0) title[space] = '\n';
  return title;
}

}  // namespace

BenchmarkDialog::BenchmarkDialog(const QString& endpoint, const QString& model, QWidget* parent,
                                 bool local_model)
    : QDialog(parent) {
  setWindowTitle(tr("Benchmark"));
  auto* layout = new QVBoxLayout(this);
  auto* target = new QLabel(tr("Endpoint: %1 · model %2").arg(endpoint, model), this);
  target->setObjectName("benchTarget");
  target->setWordWrap(true);  // a long endpoint or file name wraps rather than widening
  layout->addWidget(target);
  auto* columns = new QHBoxLayout;
  columns->addLayout(buildRequestForm(), 2);  // the sweep's choices are the longer texts
  columns->addLayout(buildSweepForm(local_model), 3);
  layout->addLayout(columns);
  layout->addLayout(buildRunRow());
  layout->addWidget(status_);
  buildTable();
  layout->addWidget(table_);
  layout->addLayout(buildCharts(), 1);
  showFieldsFor(SweepKind::Concurrency);
  // As large as the sweep's table and charts want, within the screen it opens on.
  QSize size(1100, 860);
  if (const QScreen* screen = parent ? parent->screen() : this->screen())
    size = size.boundedTo(screen->availableSize() * 0.95);
  resize(size);
}

QLayout* BenchmarkDialog::buildRequestForm() {
  auto* form = new QFormLayout;
  prompt_ = new QPlainTextEdit(tr("Write a short story about a robot who learns to paint."), this);
  prompt_->setObjectName("benchPrompt");
  prompt_->setMaximumHeight(fontMetrics().height() * 3 + 12);  // three lines
  form->addRow(tr("&Prompt"), prompt_);
  const auto addCount = [&](const QString& label, const char* name, int min, int max, int value) {
    auto* box = new QSpinBox(this);
    box->setObjectName(name);
    box->setRange(min, max);
    box->setValue(value);
    form->addRow(label, box);
    return box;
  };
  requests_ = addCount(tr("&Requests per step"), "benchRequests", 1, 100000, 20);
  warmup_ = addCount(tr("&Warm-up requests"), "benchWarmup", 0, 1000, 1);
  max_tokens_ = addCount(tr("Max &tokens"), "benchMaxTokens", 1, 1000000, 128);
  return form;
}

void BenchmarkDialog::buildAxis(bool local_model) {
  axis_ = new QComboBox(this);
  axis_->setObjectName("benchAxis");
  axis_->addItem(tr("Concurrency sweep"), static_cast<int>(SweepKind::Concurrency));
  axis_->addItem(tr("Request-rate sweep (req/s)"), static_cast<int>(SweepKind::Rate));
  axis_->addItem(tr("Prompt-length sweep (words)"), static_cast<int>(SweepKind::PromptLength));
  if (local_model) {
    axis_->addItem(tr("Prefill-chunk sweep (tokens per step; 0: whole prompts)"),
                   static_cast<int>(SweepKind::PrefillChunk));
    axis_->addItem(tr("Running-sequences sweep"), static_cast<int>(SweepKind::MaxRunning));
    axis_->addItem(tr("TPOT-target sweep (ms per output token prompts are paced to; 0: unpaced)"),
                   static_cast<int>(SweepKind::TpotTarget));
  }
  // as wide as the column gives it, not as its longest choice (the list opens wider)
  axis_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  axis_->setMinimumContentsLength(12);
}

QLayout* BenchmarkDialog::buildSweepForm(bool local_model) {
  auto* sweep_form = sweep_form_ = new QFormLayout;
  buildAxis(local_model);
  sweep_form->addRow(tr("&Sweep"), axis_);
  values_ = new QLineEdit("1,2,4,8", this);
  values_->setObjectName("benchValues");
  values_->setToolTip(tr("One step per value, comma-separated"));
  sweep_form->addRow(tr("&Values"), values_);
  concurrency_ = new QSpinBox(this);
  concurrency_->setObjectName("benchConcurrency");
  concurrency_->setRange(1, 4096);
  concurrency_->setValue(8);
  concurrency_->setToolTip(tr("Scheduler sweeps: requests in flight at every step"));
  concurrency_->setEnabled(false);
  sweep_form->addRow(tr("C&oncurrency"), concurrency_);
  distinct_ = new QCheckBox(tr("&Distinct prompts (numbered: no prefix-cache hits)"), this);
  distinct_->setObjectName("benchDistinct");
  distinct_->setToolTip(
      tr("Start each request's prompt with its own number, so that the server reads every "
         "prompt in full instead of serving it from an earlier one's cache"));
  sweep_form->addRow(QString(), distinct_);
  connect(axis_, &QComboBox::currentIndexChanged, this, &BenchmarkDialog::axisChanged);
  axis_->setToolTip(axis_->currentText());
  burstiness_ = new QDoubleSpinBox(this);
  burstiness_->setObjectName("benchBurstiness");
  burstiness_->setRange(0.01, 100);
  burstiness_->setValue(1);
  burstiness_->setToolTip(
      tr("Rate sweeps: gamma shape of the gaps; 1 is Poisson, smaller "
         "is burstier"));
  sweep_form->addRow(tr("&Burstiness"), burstiness_);
  const auto addSlo = [&](const QString& label, const char* name) {
    auto* box = new QDoubleSpinBox(this);
    box->setObjectName(name);
    box->setRange(0, 1e7);
    box->setSpecialValueText(tr("none"));
    box->setSuffix(tr(" ms"));
    sweep_form->addRow(label, box);
    return box;
  };
  slo_ttft_ = addSlo(tr("SLO: TTFT at most"), "benchSloTtft");
  slo_tpot_ = addSlo(tr("SLO: TPOT at most"), "benchSloTpot");
  return sweep_form;
}

void BenchmarkDialog::axisChanged() {
  const auto kind = static_cast<SweepKind>(axis_->currentData().toInt());
  const bool scheduler = sweepsScheduler(kind);
  concurrency_->setEnabled(scheduler);
  if (scheduler) distinct_->setChecked(true);  // what a chunk changes is the prompt's reading
  if (kind == SweepKind::PrefillChunk) values_->setText("16,64,256,0");
  if (kind == SweepKind::TpotTarget) values_->setText("0,100,50,25");
  axis_->setToolTip(axis_->currentText());  // whole, where the box cuts it
  showFieldsFor(kind);
}

QLayout* BenchmarkDialog::buildRunRow() {
  auto* run_row = new QHBoxLayout;
  bar_ = new QProgressBar(this);
  bar_->setObjectName("benchProgress");
  status_ = new QLabel(this);
  status_->setObjectName("benchStatus");
  status_->setWordWrap(true);  // a long error wraps rather than widening the dialog
  start_ = new QPushButton(tr("&Start"), this);
  start_->setObjectName("benchStart");
  cancel_ = new QPushButton(tr("&Cancel"), this);
  cancel_->setObjectName("benchCancel");
  cancel_->setEnabled(false);
  save_ = new QPushButton(tr("E&xport"), this);
  save_->setObjectName("benchSave");
  save_->setToolTip(tr("Save the last sweep: its figures and settings, its steps or a chart"));
  save_->setEnabled(false);
  auto* formats = new QMenu(save_);
  formats->setObjectName("benchExportMenu");
  for (auto [label, what] : {std::pair{tr("Results and settings as &JSON…"), "json"},
                             std::pair{tr("Steps as &CSV…"), "csv"},
                             std::pair{tr("Per-step chart as &PNG…"), "sweep.png"},
                             std::pair{tr("Per-step chart as &SVG…"), "sweep.svg"},
                             std::pair{tr("&Trade-off chart as PNG…"), "tradeoff.png"},
                             std::pair{tr("T&rade-off chart as SVG…"), "tradeoff.svg"}}) {
    QAction* action = formats->addAction(label);
    action->setObjectName(QString("benchExport_%1").arg(what));
    connect(action, &QAction::triggered, this, [this, w = QString(what)] { exportAs(w); });
  }
  save_->setMenu(formats);
  // Close as in the app's other dialogs; a sweep still running is cancelled (its finished
  // steps are in History)
  auto* close = new QPushButton(tr("Close"), this);
  close->setObjectName("benchClose");
  connect(close, &QPushButton::clicked, this, [this] {
    if (cancel_->isEnabled()) emit cancelRequested();
    this->close();
  });
  for (QPushButton* b : {start_, cancel_, save_, close}) padButton(b);
  run_row->addWidget(bar_, 1);
  run_row->addWidget(start_);
  run_row->addWidget(cancel_);
  run_row->addWidget(save_);
  run_row->addWidget(close);
  connect(start_, &QPushButton::clicked, this, &BenchmarkDialog::start);
  connect(cancel_, &QPushButton::clicked, this, [this] {
    emit cancelRequested();
    status_->setText(tr("Cancelling…"));
  });
  return run_row;
}

void BenchmarkDialog::buildTable() {
  table_ = new QTableWidget(0, 11, this);
  table_->setObjectName("benchTable");
  QStringList titles;
  for (const QString& title :
       {tr("Value"), tr("Done"), tr("Failed"), tr("TTFT p50"), tr("TTFT p99"), tr("TPOT p50"),
        tr("TPOT p99"), tr("ITL p50"), tr("E2E p50"), tr("Output tok/s"), tr("Goodput req/s")})
    titles << twoLines(title);
  table_->setHorizontalHeaderLabels(titles);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
  table_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  fitTableHeight();
}

void BenchmarkDialog::fitTableHeight() {
  // every step's row without a scrollbar, up to eight (a longer sweep scrolls); room for
  // four before the first step, so the charts below do not jump
  const int rows = std::clamp(table_->rowCount(), 4, 8);
  table_->setFixedHeight(table_->horizontalHeader()->sizeHint().height() +
                         rows * table_->verticalHeader()->defaultSectionSize() +
                         2 * table_->frameWidth());
}

QLayout* BenchmarkDialog::buildCharts() {
  auto* charts = new QHBoxLayout;  // latency per step | the trade-off between the two
  chart_ = new SweepChart(this);
  charts->addWidget(chart_, 1);
  tradeoff_ = new TradeoffChart(this);
  charts->addWidget(tradeoff_, 1);
  return charts;
}

BenchmarkDialog::~BenchmarkDialog() {
  if (running_) emit cancelRequested();
}

void BenchmarkDialog::setBounds(SweepKind kind, ValueBounds bounds) {
  bounds_[kind] = bounds;
  if (kind == SweepKind::Concurrency)
    concurrency_->setRange(static_cast<int>(bounds.lo), static_cast<int>(bounds.hi));
}

std::optional<QList<double>> BenchmarkDialog::parseValues(SweepKind kind) {
  QList<double> values;
  const auto bounds = bounds_.find(kind);
  for (const QString& typed : values_->text().split(',', Qt::SkipEmptyParts)) {
    const QString part = typed.trimmed();
    bool ok = false;
    const double v = part.toDouble(&ok);
    if (bounds != bounds_.end()) {
      if (!ok || v != std::floor(v) || !bounds->second.contains(v)) {
        status_->setText(tr("%1: expected a whole number from %2 to %3, found %4")
                             .arg(fieldName(kind))
                             .arg(bounds->second.lo)
                             .arg(bounds->second.hi)
                             .arg(part));
        return std::nullopt;
      }
    } else if (!ok || v < 0 || (v == 0 && !sweepAllowsZero(kind))) {
      status_->setText(
          (sweepAllowsZero(kind)
               ? tr("Values: expected numbers from 0 up separated by commas, found '%1'")
               : tr("Values: expected positive numbers separated by commas, found '%1'"))
              .arg(part));
      return std::nullopt;
    }
    values << v;
  }
  if (values.isEmpty()) {
    status_->setText(tr("Values: give at least one step"));
    return std::nullopt;
  }
  return values;
}

void BenchmarkDialog::start() {
  const auto kind = static_cast<SweepKind>(axis_->currentData().toInt());
  const std::optional<QList<double>> values = parseValues(kind);
  if (!values) return;
  BenchmarkPlan plan;
  plan.prompt = prompt_->toPlainText();
  plan.requests = requests_->value();
  plan.warmup = warmup_->value();
  plan.max_tokens = max_tokens_->value();
  plan.kind = kind;
  plan.values = *values;
  plan.concurrency = concurrency_->value();
  plan.distinct_prompts = distinct_->isChecked();
  plan.burstiness = burstiness_->value();
  if (slo_ttft_->value() > 0) plan.slo_ttft_ms = slo_ttft_->value();
  if (slo_tpot_->value() > 0) plan.slo_tpot_ms = slo_tpot_->value();
  table_->setRowCount(0);
  fitTableHeight();
  chart_->reset(plan.kind, plan.slo_ttft_ms, plan.slo_tpot_ms);
  tradeoff_->reset(plan.kind);
  bar_->setRange(0, static_cast<int>(values->size()) * plan.requests);
  bar_->setValue(0);
  start_->setEnabled(false);
  cancel_->setEnabled(true);
  save_->setEnabled(false);
  running_ = true;
  emit startRequested(plan);
}

void BenchmarkDialog::onProgress(int step, int steps, int done, int total) {
  bar_->setValue(step * total + done);
  status_->setText(
      tr("Step %1 of %2: %3 of %4 requests").arg(step + 1).arg(steps).arg(done).arg(total));
}

void BenchmarkDialog::onFinished(bool cancelled, int steps, const QJsonObject& sweep) {
  running_ = false;
  sweep_ = sweep;
  start_->setEnabled(true);
  cancel_->setEnabled(false);
  save_->setEnabled(steps > 0);
  status_->setText(cancelled ? tr("Cancelled; the finished steps are kept.")
                             : tr("Done: %n step(s), recorded in the run store.", nullptr, steps));
  emit sweepFinished(cancelled);
}

void BenchmarkDialog::onStepFinished(double value, const QJsonObject& f) {
  const int row = table_->rowCount();
  table_->insertRow(row);
  const QStringList cells = {QString::number(value),
                             QString::number(f.value("requests_completed").toInt()),
                             QString::number(f.value("requests_failed").toInt()),
                             ms(f, "ttft_ms", "p50"),
                             ms(f, "ttft_ms", "p99"),
                             ms(f, "tpot_ms", "p50"),
                             ms(f, "tpot_ms", "p99"),
                             ms(f, "itl_ms", "p50"),
                             ms(f, "e2e_ms", "p50"),
                             QString::number(f.value("output_throughput_tok_s").toDouble(), 'f', 1),
                             QString::number(f.value("goodput_req_s").toDouble(), 'f', 2)};
  for (int c = 0; c < cells.size(); ++c) {
    auto* item = new QTableWidgetItem(cells[c]);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    table_->setItem(row, c, item);
  }
  fitTableHeight();
  chart_->addStep(value, f);
  tradeoff_->addStep(value, f);
}

void BenchmarkDialog::showFieldsFor(SweepKind kind) {
  // Burstiness shapes the gaps between arrivals: only a rate sweep has arrivals.
  sweep_form_->setRowVisible(burstiness_, kind == SweepKind::Rate);
  // A fixed number in flight only where the sweep varies something else: the scheduler.
  sweep_form_->setRowVisible(concurrency_, sweepsScheduler(kind));
}

void BenchmarkDialog::exportAs(const QString& what) {
  // e.g. "benchmark-concurrency-2026-12-06T10-58-38Z.csv": distinct per sweep
  const QString stem = QString("benchmark-%1-%2")
                           .arg(sweep_.value("axis").toString(), sweep_.value("date").toString())
                           .replace(':', '-');
  QString path, error;
  if (what == "json" || what == "csv") {
    const bool json = what == "json";
    path = QFileDialog::getSaveFileName(this, tr("Save the benchmark"),
                                        stem + (json ? ".json" : ".csv"),
                                        json ? tr("JSON (*.json)") : tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    error = json ? saveJson(path) : saveCsv(path);
  } else {
    const bool svg = what.endsWith(".svg");
    const bool sweep_chart = what.startsWith("sweep");
    QWidget* chart = sweep_chart ? static_cast<QWidget*>(chart_) : tradeoff_;
    path = QFileDialog::getSaveFileName(
        this, tr("Save the chart"),
        stem + (sweep_chart ? "-p99" : "-tradeoff") + (svg ? ".svg" : ".png"),
        svg ? tr("SVG (*.svg)") : tr("PNG image (*.png)"));
    if (path.isEmpty()) return;
    error = saveWidgetImage(chart, path,
                            sweep_chart ? tr("p99 latency per step") : tr("TTFT against TPOT"));
  }
  status_->setText(error.isEmpty() ? tr("Saved %1").arg(path) : error);
}

QString BenchmarkDialog::saveCsv(const QString& path) const {
  if (sweep_.isEmpty()) return tr("Nothing to save yet: run a benchmark first.");
  return saveBytes(path, sweepCsv(sweep_));
}

QString BenchmarkDialog::saveJson(const QString& path) const {
  if (sweep_.isEmpty()) return tr("Nothing to save yet: run a benchmark first.");
  return saveBytes(path, QJsonDocument(sweep_).toJson(QJsonDocument::Indented));
}

}  // namespace ts::ui
