#include "ui/sweep_chart.h"

#include <QChart>
#include <QCursor>
#include <QEvent>
#include <QGraphicsLayout>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <tuple>

#include "ui/chart_palette.h"
#include "ui/nice_axis.h"
#include "ui/tradeoff_chart.h"

namespace ts::ui {
namespace {

// An SLO up to this many times the data's largest value is drawn as a line within the axis;
// beyond, it would squash the data into the bottom of the chart, so it becomes a note.
constexpr double kSloReach = 1.5;

double maxY(const QLineSeries* s) {
  double m = 0;
  for (const QPointF& p : s->points()) m = std::max(m, p.y());
  return m;
}

}  // namespace

void insertByX(QLineSeries* series, const QPointF& p) {
  QList<QPointF> points = series->points();
  const auto at =
      std::upper_bound(points.begin(), points.end(), p,
                       [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
  points.insert(at, p);
  series->replace(points);
}

SweepChart::SweepChart(QWidget* parent) : QChartView(parent) {
  setObjectName("sweepChart");
  auto* chart = new QChart();
  chart->legend()->setAlignment(Qt::AlignBottom);
  ttft_ = new QLineSeries(chart);
  ttft_->setName(tr("TTFT p99"));
  ttft_->setPointsVisible(true);
  tpot_ = new QLineSeries(chart);
  tpot_->setName(tr("TPOT p99"));
  tpot_->setPointsVisible(true);
  slo_ttft_ = new QLineSeries(chart);
  slo_ttft_->setName(tr("TTFT SLO"));
  slo_tpot_ = new QLineSeries(chart);
  slo_tpot_->setName(tr("TPOT SLO"));
  x_ = new QValueAxis(chart);
  y_ = new QValueAxis(chart);
  y_->setTitleText(tr("TTFT p99 (ms)"));
  y_tpot_ = new QValueAxis(chart);
  y_tpot_->setTitleText(tr("TPOT p99 (ms)"));
  chart->addAxis(x_, Qt::AlignBottom);
  chart->addAxis(y_, Qt::AlignLeft);
  chart->addAxis(y_tpot_, Qt::AlignRight);
  for (auto [s, y] : {std::pair{ttft_, y_}, std::pair{slo_ttft_, y_}, std::pair{tpot_, y_tpot_},
                      std::pair{slo_tpot_, y_tpot_}}) {
    chart->addSeries(s);
    s->attachAxis(x_);
    s->attachAxis(y);
  }
  setChart(chart);
  ui::followPalette(this);
  y_tpot_->setGridLineVisible(false);  // one grid (the left axis's) is enough to read by
  // Each SLO dashed, in its metric's colour: short dashes (6 px, 4 px apart), so that its
  // legend swatch (drawn like the series) shows them too, beside the p99s' dots.
  for (auto [slo, of] : {std::pair{slo_ttft_, ttft_}, std::pair{slo_tpot_, tpot_}}) {
    QPen pen(of->color());
    pen.setWidth(2);
    pen.setDashPattern({3, 2});  // in pen widths
    slo->setPen(pen);
    for (QLegendMarker* m : chart->legend()->markers(slo))
      m->setShape(QLegend::MarkerShapeFromSeries);
    for (QLegendMarker* m : chart->legend()->markers(of)) m->setShape(QLegend::MarkerShapeCircle);
  }
  note_ttft_back_ = new QGraphicsRectItem(chart);
  note_tpot_back_ = new QGraphicsRectItem(chart);
  for (QGraphicsRectItem* back : {note_ttft_back_, note_tpot_back_}) {
    back->setPen(Qt::NoPen);
    back->setZValue(10);  // over the lines
  }
  note_ttft_ = new QGraphicsSimpleTextItem(note_ttft_back_);
  note_tpot_ = new QGraphicsSimpleTextItem(note_tpot_back_);
  note_ttft_->setPos(2, 1);
  note_tpot_->setPos(2, 1);
  // The step under the pointer, in words.
  for (QLineSeries* s : {ttft_, tpot_}) {
    connect(s, &QLineSeries::hovered, this, [this, s](const QPointF& p, bool state) {
      if (!state) return QToolTip::hideText();
      QToolTip::showText(QCursor::pos(),
                         tr("%1: %2 p99 %3 ms")
                             .arg(settingLabel(kind_, p.x()), s == ttft_ ? tr("TTFT") : tr("TPOT"))
                             .arg(p.y(), 0, 'f', 1),
                         this);
    });
  }
  connect(chart, &QChart::plotAreaChanged, this, [this] { placeNotes(); });
  setRenderHint(QPainter::Antialiasing);
  // thin margins: on a 700 px screen the plot's height is what the axis titles need
  chart->setMargins(QMargins(6, 6, 6, 6));
  chart->layout()->setContentsMargins(2, 2, 2, 2);
  setMinimumHeight(220);
  setToolTip(
      tr("p99 of each step: where a line crosses its dashed SLO, the service stops "
         "meeting it"));
  reset(SweepKind::Concurrency, std::nullopt, std::nullopt);
}

void SweepChart::reset(SweepKind kind, std::optional<double> slo_ttft_ms,
                       std::optional<double> slo_tpot_ms) {
  kind_ = kind;
  for (QLineSeries* s : {ttft_, tpot_, slo_ttft_, slo_tpot_}) s->clear();
  slo_ttft_ms_ = slo_ttft_ms;
  slo_tpot_ms_ = slo_tpot_ms;
  slo_ttft_->setVisible(slo_ttft_ms.has_value());
  slo_tpot_->setVisible(slo_tpot_ms.has_value());
  x_->setTitleText(kind == SweepKind::Concurrency    ? tr("concurrent requests")
                   : kind == SweepKind::Rate         ? tr("requests per second")
                   : kind == SweepKind::PrefillChunk ? tr("prefill chunk (tokens; 0: whole)")
                   : kind == SweepKind::MaxRunning   ? tr("running sequences")
                   : kind == SweepKind::TpotTarget   ? tr("TPOT target (ms; 0: unpaced)")
                                                     : tr("prompt length (words)"));
  chart()->setTitle(tr("p99 latency per step"));
  rescale();
}

void SweepChart::addStep(double value, const QJsonObject& figures) {
  insertByX(ttft_, {value, figures.value("ttft_ms").toObject().value("p99").toDouble()});
  insertByX(tpot_, {value, figures.value("tpot_ms").toObject().value("p99").toDouble()});
  rescale();
}

void SweepChart::rescale() {
  double x_min = 0, x_max = 1;
  const QList<QPointF> all = ttft_->points();
  if (!all.isEmpty()) {
    x_min = all.front().x();  // ascending
    x_max = all.back().x();
  }
  if (x_max <= x_min) x_max = x_min + 1;
  // every axis but the request rate counts whole things: no 1.2, 1.4 … between 1 and 2
  setNiceRange(x_, x_min, x_max, 6, kind_ != SweepKind::Rate);
  const QString up = QString::fromUtf8(" \u2191");
  for (auto [series, slo, data, axis, note, name] :
       {std::tuple{slo_ttft_, slo_ttft_ms_, ttft_, y_, note_ttft_, tr("TTFT SLO %1 ms")},
        std::tuple{slo_tpot_, slo_tpot_ms_, tpot_, y_tpot_, note_tpot_, tr("TPOT SLO %1 ms")}}) {
    series->clear();
    double top = maxY(data);
    const bool empty = top <= 0;  // no steps yet, or none measured one (all failed)
    note->setText({});
    if (slo) {
      // The line spans the plotted values (the dashed series keeps the true SLO even when
      // the axis stops below it: the plot clips it and the note says where it is).
      series->append(x_min, *slo);
      series->append(x_max, *slo);
      if (empty || *slo <= top * kSloReach) {
        top = std::max(top, *slo);
      } else {
        note->setText(name.arg(*slo) + up);
        top *= 1.15;  // a band above the data for the note
      }
    }
    if (top <= 0) top = 1;
    setNiceRange(axis, 0, top * 1.05);
  }
  placeNotes();
}

void SweepChart::placeNotes() {
  const QRectF area = chart()->plotArea();
  QColor back = palette().color(QPalette::Base);
  back.setAlpha(230);
  for (auto [note, series] : {std::pair{note_ttft_, ttft_}, std::pair{note_tpot_, tpot_}}) {
    note->setBrush(series->color());
    auto* backing = static_cast<QGraphicsRectItem*>(note->parentItem());
    backing->setBrush(back);
    backing->setRect(QRectF(QPointF(0, 0), note->boundingRect().size() + QSizeF(4, 2)));
    backing->setVisible(!note->text().isEmpty());
  }
  note_ttft_back_->setPos(area.topLeft() + QPointF(2, 2));
  note_tpot_back_->setPos(area.topRight() + QPointF(-note_tpot_back_->rect().width() - 2, 2));
  // Both in the top edge: when the plot is too narrow for the two side by side, the TPOT
  // note goes one line lower.
  if (note_ttft_back_->isVisible() && note_tpot_back_->isVisible() &&
      note_ttft_back_->sceneBoundingRect().intersects(note_tpot_back_->sceneBoundingRect()))
    note_tpot_back_->moveBy(0, note_ttft_back_->rect().height());
}

void SweepChart::changeEvent(QEvent* event) {
  QChartView::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) placeNotes();
}

QList<QPointF> SweepChart::points(const QString& series) const {
  if (series == "ttft") return ttft_->points();
  if (series == "tpot") return tpot_->points();
  if (series == "slo_ttft") return slo_ttft_->points();
  return slo_tpot_->points();
}

std::pair<double, double> SweepChart::yRange(const QString& series) const {
  const QValueAxis* axis = series == "tpot" ? y_tpot_ : y_;
  return {axis->min(), axis->max()};
}

QStringList SweepChart::sloNotes() const {
  QStringList out;
  for (const QGraphicsSimpleTextItem* n : {note_ttft_, note_tpot_})
    if (!n->text().isEmpty()) out << n->text();
  return out;
}

}  // namespace ts::ui
