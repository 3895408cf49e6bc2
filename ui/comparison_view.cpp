#include "ui/comparison_view.h"

#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTableWidget>
#include <QVBoxLayout>

#include <QValueAxis>
#include <algorithm>
#include <functional>
#include "ui/chart_palette.h"
#include "ui/nice_axis.h"
#include "ui/save_file.h"

namespace ts::ui {
namespace {

QString number(std::optional<double> v, int decimals) {
  return v ? QString::number(*v, 'f', decimals) : QStringLiteral("—");
}

// A chart of the series' first runs against the time since each request: `x` and `y` its
// axes, the legend beside the plot.
QChart* overTime(const QString& title, const QString& y_title, QValueAxis*& x, QValueAxis*& y) {
  auto* chart = new QChart();
  chart->setTitle(title);
  chart->legend()->setAlignment(Qt::AlignRight);
  x = new QValueAxis(chart);
  x->setTitleText(ComparisonView::tr("arrival (s since the request)"));
  y = new QValueAxis(chart);
  y->setTitleText(y_title);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  return chart;
}

}  // namespace

ComparisonView::ComparisonView(ComparisonContent content, QWidget* parent)
    : QDialog(parent), values_(std::move(content)) {
  setWindowTitle(tr("Compare runs"));
  auto* outer = new QVBoxLayout(this);
  content_ = new QWidget(this);
  content_->setObjectName("comparisonContent");
  auto* layout = new QVBoxLayout(content_);
  layout->addWidget(itlChart(), 3);
  if (QChartView* batches = batchChart()) layout->addWidget(batches, 2);
  auto* boxes = new QHBoxLayout;
  boxes->addWidget(boxChart(tr("TTFT (ms)"), "ttft", &SeriesFigures::ttft_ms));
  boxes->addWidget(boxChart(tr("TPOT (ms)"), "tpot", &SeriesFigures::tpot_ms));
  layout->addLayout(boxes, 2);
  auto* tables = new QHBoxLayout;
  tables->addWidget(figuresTable(), 3);
  tables->addWidget(settingsTable(), 2);
  layout->addLayout(tables, 2);
  outer->addWidget(content_, 1);
  auto* buttons = new QHBoxLayout;
  auto* export_button = new QPushButton(tr("&Export…"), this);
  export_button->setObjectName("exportComparisonButton");
  export_button->setToolTip(tr("PNG or SVG of the view; CSV or JSON of the numbers"));
  auto* close = new QPushButton(tr("Close"), this);
  buttons->addStretch(1);
  buttons->addWidget(export_button);
  buttons->addWidget(close);
  outer->addLayout(buttons);
  connect(export_button, &QPushButton::clicked, this, &ComparisonView::exportWithDialog);
  connect(close, &QPushButton::clicked, this, &QDialog::accept);
  resize(1200, 900);
}

QChartView* ComparisonView::itlChart() {
  // the legend beside the plot, and the chart tall enough that the y axis's title fits
  // whole along it (at 220 px it was cut to "inter-token latency …")
  QValueAxis *x, *y;
  QChart* chart = overTime(tr("Gap before each chunk (first run of each series)"),
                           tr("inter-token latency (ms)"), x, y);
  double x_max = 0.001, y_max = 0.001;
  for (const SeriesFigures& s : values_.series) {
    auto* line = new QLineSeries(chart);
    line->setName(s.label);
    line->replace(s.itl_curve);
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    for (const QPointF& p : s.itl_curve) {
      x_max = std::max(x_max, p.x());
      y_max = std::max(y_max, p.y());
    }
  }
  setNiceRange(x, 0, x_max);
  setNiceRange(y, 0, y_max * 1.05);
  auto* view = new QChartView(chart, content_);
  view->setObjectName("comparisonItlChart");
  view->setRenderHint(QPainter::Antialiasing);
  ui::followPalette(view);
  view->setToolTip(metricDefinition("itl"));
  view->setMinimumHeight(320);
  return view;
}

QChartView* ComparisonView::batchChart() {
  const bool any = std::any_of(values_.series.begin(), values_.series.end(),
                               [](const SeriesFigures& s) { return !s.batch_curve.isEmpty(); });
  if (!any) return nullptr;
  QValueAxis *x, *y;
  QChart* chart =
      overTime(tr("Requests in each scheduler step (local runs, first run of each series)"),
               tr("batch size"), x, y);
  double x_max = 0.001, y_max = 1;
  for (const SeriesFigures& s : values_.series) {
    if (s.batch_curve.isEmpty()) continue;
    // A step line: each token's batch holds until the next token.
    auto* line = new QLineSeries(chart);
    line->setName(s.label);
    for (qsizetype i = 0; i < s.batch_curve.size(); ++i) {
      if (i > 0) line->append(s.batch_curve[i].x(), s.batch_curve[i - 1].y());
      line->append(s.batch_curve[i]);
      x_max = std::max(x_max, s.batch_curve[i].x());
      y_max = std::max(y_max, s.batch_curve[i].y());
    }
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
  }
  setNiceRange(x, 0, x_max);
  setNiceRange(y, 0, y_max, 6, true);
  auto* view = new QChartView(chart, content_);
  view->setObjectName("comparisonBatchChart");
  view->setRenderHint(QPainter::Antialiasing);
  ui::followPalette(view);
  view->setToolTip(
      tr("How many requests the local engine's scheduler ran in the step that "
         "produced each token: continuous batching at work"));
  view->setMinimumHeight(260);
  return view;
}

QChartView* ComparisonView::boxChart(const QString& title, const QString& metric,
                                     Summary SeriesFigures::*figure) {
  auto* chart = new QChart();
  chart->setTitle(title);
  chart->legend()->hide();
  auto* boxes = new QBoxPlotSeries(chart);
  for (const SeriesFigures& s : values_.series) {
    const Summary& m = s.*figure;
    // Box from p50 to p90 (its line at p50), whiskers from the minimum to p99.
    auto* set = new QBoxSet(m.min, m.p50, m.p50, m.p90, m.p99, s.label);
    boxes->append(set);
  }
  chart->addSeries(boxes);
  chart->createDefaultAxes();
  double lowest = 0, highest = 0.001;  // the whiskers' ends
  for (const SeriesFigures& s : values_.series) {
    lowest = std::min(lowest, (s.*figure).min);
    highest = std::max(highest, (s.*figure).p99);
  }
  for (QAbstractAxis* axis : chart->axes(Qt::Vertical))
    if (auto* values = qobject_cast<QValueAxis*>(axis))
      setNiceRange(values, lowest, highest * 1.05);
  auto* view = new QChartView(chart, content_);
  view->setRenderHint(QPainter::Antialiasing);
  ui::followPalette(view);
  view->setToolTip(metricDefinition(metric) +
                   tr("\nBox: p50 to p90; whiskers: the minimum and p99."));
  view->setMinimumHeight(180);
  return view;
}

QTableWidget* ComparisonView::figuresTable() {
  struct Row {
    QString name;
    QString metric;  // metricDefinition's key
    std::function<QString(const SeriesFigures&)> value;
  };
  const auto percentiles = [](const QString& name, const QString& metric,
                              Summary SeriesFigures::*f) {
    QList<Row> rows;
    for (auto [suffix, member] : {std::pair{"p50", &Summary::p50}, std::pair{"p90", &Summary::p90},
                                  std::pair{"p99", &Summary::p99}})
      rows.append(
          {QString("%1 %2 (ms)").arg(name, suffix), metric, [f, member](const SeriesFigures& s) {
             return (s.*f).count ? QString::number((s.*f).*member, 'f', 2) : QStringLiteral("—");
           }});
    return rows;
  };
  QList<Row> rows;
  rows << percentiles("TTFT", "ttft", &SeriesFigures::ttft_ms)
       << percentiles("TPOT", "tpot", &SeriesFigures::tpot_ms)
       << percentiles("ITL", "itl", &SeriesFigures::itl_ms)
       << percentiles("E2E", "e2e", &SeriesFigures::e2e_ms);
  rows.append({tr("Decode tok/s"), "decode",
               [](const SeriesFigures& s) { return number(s.decode_tok_s, 1); }});
  rows.append({tr("Overall tok/s"), "overall",
               [](const SeriesFigures& s) { return number(s.overall_tok_s, 1); }});
  rows.append({tr("Prefill (ms)"), "prefill",
               [](const SeriesFigures& s) { return number(s.prefill_ms, 1); }});
  rows.append({tr("Acceptance"), "acceptance", [](const SeriesFigures& s) {
                 return s.acceptance_rate ? QString::number(*s.acceptance_rate * 100, 'f', 1) + "%"
                                          : QStringLiteral("—");
               }});
  rows.append({tr("Runs (completed / failed)"), "", [](const SeriesFigures& s) {
                 return QString("%1 / %2").arg(s.completed).arg(s.failed);
               }});
  auto* table = new QTableWidget(rows.size(), values_.series.size(), content_);
  table->setObjectName("comparisonTable");
  QStringList labels;
  for (const SeriesFigures& s : values_.series) labels << s.label;
  table->setHorizontalHeaderLabels(labels);
  for (int r = 0; r < rows.size(); ++r) {
    auto* header = new QTableWidgetItem(rows[r].name);
    header->setToolTip(metricDefinition(rows[r].metric));
    table->setVerticalHeaderItem(r, header);
    for (int c = 0; c < values_.series.size(); ++c) {
      auto* item = new QTableWidgetItem(rows[r].value(values_.series[c]));
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      item->setToolTip(metricDefinition(rows[r].metric));
      table->setItem(r, c, item);
    }
  }
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  return table;
}

QTableWidget* ComparisonView::settingsTable() {
  const auto& differing = values_.differing_settings;
  auto* table = new QTableWidget(differing.size(), values_.series.size(), content_);
  table->setObjectName("settingsDiffTable");
  QStringList labels;
  for (const SeriesFigures& s : values_.series) labels << s.label;
  table->setHorizontalHeaderLabels(labels);
  for (int r = 0; r < differing.size(); ++r) {
    table->setVerticalHeaderItem(r, new QTableWidgetItem(differing[r].first));
    for (int c = 0; c < differing[r].second.size(); ++c)
      table->setItem(r, c, new QTableWidgetItem(differing[r].second[c]));
  }
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table->setToolTip(differing.isEmpty() ? tr("Every setting is the same")
                                        : tr("Only the settings that differ"));
  return table;
}

QString ComparisonView::exportPng(const QString& path) {
  if (!content_->grab().save(path, "PNG")) return tr("cannot write %1 as PNG").arg(path);
  return {};
}

QString ComparisonView::exportSvg(const QString& path) {
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(content_->size());
  svg.setViewBox(QRect(QPoint(0, 0), content_->size()));
  svg.setTitle(windowTitle());
  QPainter painter;
  if (!painter.begin(&svg)) return tr("cannot write %1 as SVG").arg(path);
  content_->render(&painter);
  painter.end();
  return {};
}

QString ComparisonView::exportCsv(const QString& path) const {
  return saveBytes(path, values_.csv.toUtf8());
}

QString ComparisonView::exportJson(const QString& path) const {
  return saveBytes(path, values_.json);
}

void ComparisonView::exportWithDialog() {
  QString filter;
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export the comparison"), "comparison.png",
      tr("PNG image (*.png);;SVG image (*.svg);;CSV numbers (*.csv);;JSON numbers (*.json)"),
      &filter);
  if (path.isEmpty()) return;
  const QString suffix = QFileInfo(path).suffix().toLower();
  const QString error = suffix == "svg"    ? exportSvg(path)
                        : suffix == "csv"  ? exportCsv(path)
                        : suffix == "json" ? exportJson(path)
                                           : exportPng(path);
  if (!error.isEmpty()) QMessageBox::warning(this, tr("Export"), error);
}

}  // namespace ts::ui
