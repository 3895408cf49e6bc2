#include "ui/comparison_view.h"

#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGuiApplication>
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
#include <QScreen>
#include <QScrollArea>
#include <QStyle>
#include <QSvgGenerator>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <functional>
#include "ui/chart_palette.h"
#include "ui/elided_label.h"
#include "ui/nice_axis.h"
#include "ui/save_file.h"

namespace ts::ui {
namespace {

// Column headers: each series' two-line header, its full label as the tooltip.
void setSeriesHeaders(QTableWidget* table, const QList<SeriesFigures>& series) {
  for (int c = 0; c < series.size(); ++c) {
    auto* item = new QTableWidgetItem(series[c].header);
    item->setToolTip(series[c].label);
    table->setHorizontalHeaderItem(c, item);
  }
}

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

// The table as large as its rows and columns: single-line rows, each column as wide as its
// header and cells (at most `widest` px, the rest elided in the middle with the whole text
// in the tooltip), the widget fixed to that size, so no scrollbar.
void fitTable(QTableWidget* table, int widest) {
  const QFontMetrics metrics(table->font());
  table->setWordWrap(false);
  table->setTextElideMode(Qt::ElideMiddle);
  table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  table->verticalHeader()->setDefaultSectionSize(metrics.height() + 8);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  table->resizeColumnsToContents();
  QHeaderView* header = table->horizontalHeader();
  int width = table->verticalHeader()->sizeHint().width() + 2 * table->frameWidth();
  for (int c = 0; c < table->columnCount(); ++c) {
    const int needs = std::max(header->sectionSizeHint(c), std::min(table->columnWidth(c), widest));
    table->setColumnWidth(c, needs);
    width += needs;
  }
  int height = header->sizeHint().height() + 2 * table->frameWidth();
  for (int r = 0; r < table->rowCount(); ++r) height += table->rowHeight(r);
  table->setFixedSize(width, height);
}

// The charts' column: narrower, the ITL chart's legend leaves its axis title no room.
constexpr int kChartsWidth = 560;

}  // namespace

ComparisonView::ComparisonView(ComparisonContent content, QWidget* parent)
    : QDialog(parent), values_(std::move(content)) {
  setWindowTitle(tr("Compare runs"));
  auto* outer = new QVBoxLayout(this);
  content_ = new QWidget;
  content_->setObjectName("comparisonContent");
  content_->setAutoFillBackground(true);  // the exports' background
  auto* page = new QVBoxLayout(content_);
  if (QWidget* banner = attributionBanner()) page->addWidget(banner);
  auto* columns = columns_ = new QHBoxLayout;
  page->addLayout(columns, 1);
  auto* charts = new QVBoxLayout;
  charts->addWidget(itlChart(), 3);
  if (QChartView* batches = batchChart()) charts->addWidget(batches, 2);
  auto* boxes = new QHBoxLayout;
  boxes->addWidget(boxChart(tr("TTFT (ms)"), "ttft", &SeriesFigures::ttft_ms));
  boxes->addWidget(boxChart(tr("TPOT (ms)"), "tpot", &SeriesFigures::tpot_ms));
  charts->addLayout(boxes, 2);
  columns->addLayout(charts, 1);
  auto* tables = new QVBoxLayout;
  auto* figures_title = new QLabel(tr("<b>Figures</b>"), content_);
  tables->addWidget(figures_title);
  tables->addWidget(figures_ = figuresTable());
  auto* settings_title =
      new QLabel(values_.differing_settings.isEmpty() ? tr("<b>Every setting is the same</b>")
                                                      : tr("<b>Settings that differ</b>"),
                 content_);
  settings_title->setObjectName("settingsDiffTitle");
  tables->addWidget(settings_title);
  tables->addWidget(settings_ = settingsTable());
  settings_->setVisible(!values_.differing_settings.isEmpty());
  tables->addStretch(1);
  columns->addLayout(tables, 0);
  page_ = new QScrollArea(this);
  page_->setObjectName("comparisonPage");
  page_->setWidgetResizable(true);
  page_->setFrameShape(QFrame::NoFrame);
  page_->setWidget(content_);
  outer->addWidget(page_, 1);
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
  // 1300 x 900, or 92 % of a smaller screen (the page scrolls there)
  const QRect screen = this->screen()->availableGeometry();
  resize(std::min(1300, screen.width() * 92 / 100), std::min(900, screen.height() * 92 / 100));
}

void ComparisonView::showEvent(QShowEvent* event) {
  // the style's fonts and frames are known once polished: size the tables to them
  fitTable(figures_, 200);
  fitTable(settings_, 220);
  arrange();
  QDialog::showEvent(event);
}

void ComparisonView::resizeEvent(QResizeEvent* event) {
  QDialog::resizeEvent(event);
  arrange();
}

void ComparisonView::arrange() {
  const int tables = std::max(figures_->width(), settings_->width());
  const bool beside = width() >= kChartsWidth + tables + 80;  // 80: margins, a scrollbar
  columns_->setDirection(beside ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
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
  fitNiceRange(chart, x, 0, x_max);
  fitNiceRange(chart, y, 0, y_max * 1.05);
  auto* view = new QChartView(chart, content_);
  view->setObjectName("comparisonItlChart");
  view->setRenderHint(QPainter::Antialiasing);
  ui::followPalette(view);
  view->setToolTip(metricDefinition("itl"));
  view->setMinimumHeight(320);
  view->setMinimumWidth(kChartsWidth);
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
  fitNiceRange(chart, x, 0, x_max);
  fitNiceRange(chart, y, 0, y_max, 6, true);
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
    auto* set = new QBoxSet(m.min, m.p50, m.p50, m.p90, m.p99, s.tag);
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
      fitNiceRange(chart, values, lowest, highest * 1.05);
  for (QAbstractAxis* axis : chart->axes(Qt::Horizontal))
    if (auto* categories = qobject_cast<QBarCategoryAxis*>(axis))
      categories->setTitleText(values_.tag_title);
  auto* view = new QChartView(chart, content_);
  view->setRenderHint(QPainter::Antialiasing);
  ui::followPalette(view);
  view->setToolTip(metricDefinition(metric) +
                   tr("\nBox: p50 to p90; whiskers: the minimum and p99."));
  view->setMinimumHeight(240);  // room for four labelled ticks
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
  setSeriesHeaders(table, values_.series);
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
  return table;
}

QTableWidget* ComparisonView::settingsTable() {
  const auto& differing = values_.differing_settings;
  auto* table = new QTableWidget(differing.size(), values_.series.size(), content_);
  table->setObjectName("settingsDiffTable");
  setSeriesHeaders(table, values_.series);
  for (int r = 0; r < differing.size(); ++r) {
    table->setVerticalHeaderItem(r, new QTableWidgetItem(differing[r].first));
    for (int c = 0; c < differing[r].second.size(); ++c) {
      const QString& value = differing[r].second[c];
      // "—": this series has no such setting (a chat run has no concurrency)
      auto* item = new QTableWidgetItem(value.isEmpty() ? QStringLiteral("—") : value);
      item->setToolTip(value);
      table->setItem(r, c, item);
    }
  }
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setToolTip(differing.isEmpty() ? tr("Every setting is the same")
                                        : tr("Only the settings that differ"));
  return table;
}

QWidget* ComparisonView::attributionBanner() {
  const AttributionNotice& notice = values_.attribution;
  if (notice.warning.isEmpty() && notice.machines.isEmpty()) return nullptr;
  auto* banner = new QFrame(content_);
  banner->setObjectName("attributionBanner");
  // a border in the warning's colour: the page's background stays the theme's
  banner->setStyleSheet(notice.warning.isEmpty()
                            ? "QFrame#attributionBanner { border: 1px solid palette(mid); }"
                            : "QFrame#attributionBanner { border: 1px solid #d08c00; }");
  auto* columns = new QHBoxLayout(banner);
  auto* text = new QVBoxLayout;
  const auto paragraph = [banner, text](const QString& words, const char* name) {
    auto* label = new QLabel(words, banner);
    label->setObjectName(name);
    label->setTextFormat(Qt::PlainText);  // settings and paths are text
    label->setWordWrap(true);
    text->addWidget(label);
  };
  if (!notice.warning.isEmpty()) {
    auto* icon = new QLabel(banner);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(24, 24));
    columns->addWidget(icon, 0, Qt::AlignTop);
    paragraph(notice.advice.isEmpty() ? notice.warning : notice.warning + ' ' + notice.advice,
              "attributionWarning");
  }
  if (!notice.machines.isEmpty()) paragraph(notice.machines, "attributionMachines");
  auto* buttons = new QGridLayout;  // two a row: four levers still fit a 1024 px window
  for (int i = 0; i < notice.offers.size(); ++i) {
    const SingleLeverOffer offer = notice.offers[i];
    auto* button = new QPushButton(offer.button, banner);
    button->setObjectName("measureAlone_" + offer.lever);
    button->setAutoDefault(false);  // Enter in the dialog does not copy a command
    button->setToolTip(tr("Copies the command that measures this lever alone against the "
                          "model's baseline, interleaved, 5 repeats each:\n%1")
                           .arg(offer.command));
    connect(button, &QPushButton::clicked, this, [this, offer] { offerClicked(offer); });
    buttons->addWidget(button, i / 2, i % 2);
  }
  buttons->setColumnStretch(2, 1);
  text->addLayout(buttons);
  copied_ = new ElidedLabel(banner);
  copied_->setObjectName("attributionCopied");
  copied_->hide();
  text->addWidget(copied_);
  columns->addLayout(text, 1);
  return banner;
}

void ComparisonView::offerClicked(const SingleLeverOffer& offer) {
  QGuiApplication::clipboard()->setText(offer.command);
  copied_->setFullText(tr("Copied: %1").arg(offer.command));
  copied_->show();
  emit singleLeverRequested(offer.lever, offer.value);
}

QString ComparisonView::exportPng(const QString& path) {
  // the page at its own size (all of it, also what the window scrolls out of view)
  if (!content_->grab(QRect(QPoint(0, 0), content_->size())).save(path, "PNG"))
    return tr("cannot write %1 as PNG").arg(path);
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
