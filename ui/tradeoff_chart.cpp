#include "ui/tradeoff_chart.h"

#include <QChart>
#include <QCursor>
#include <QEvent>
#include <QGraphicsLayout>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLineSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <limits>

#include "ui/chart_palette.h"
#include "ui/nice_axis.h"

namespace ts::ui {

QString settingLabel(SweepKind kind, double value) {
  switch (kind) {
    case SweepKind::Concurrency:
      return QObject::tr("concurrency %1").arg(value);
    case SweepKind::Rate:
      return QObject::tr("%1 req/s").arg(value);
    case SweepKind::PromptLength:
      return QObject::tr("%1 words").arg(value);
    case SweepKind::PrefillChunk:
      return value == 0 ? QObject::tr("whole prompts") : QObject::tr("chunk %1").arg(value);
    case SweepKind::MaxRunning:
      return QObject::tr("%1 running").arg(value);
    case SweepKind::TpotTarget:
      return value == 0 ? QObject::tr("unpaced") : QObject::tr("paced to %1 ms").arg(value);
  }
  return QString::number(value);
}

namespace {

constexpr double kGap = 6;     // px between a point and its label
constexpr double kMarker = 5;  // px: half a point marker's side, kept clear of labels
constexpr double kPad = 2;     // px of backing around a label's text

// Where a setting falls along the lever: its value, except that 0 meaning "no limit" (whole
// prompts, unpaced) lies beyond every limit, at the curve's far end.
double leverOrder(SweepKind kind, double value) {
  return value == 0 && sweepAllowsZero(kind) ? std::numeric_limits<double>::infinity() : value;
}

// [lo, hi] widened so that the points sit inside the plot with room for their labels; a
// latency is never below 0.
std::pair<double, double> paddedRange(double lo, double hi) {
  const double span = std::max({hi - lo, std::abs(hi) * 0.1, 1e-3});
  return {std::max(0.0, lo - span * 0.2), hi + span * 0.2};
}

}  // namespace

TradeoffChart::TradeoffChart(QWidget* parent) : QChartView(parent) {
  setObjectName("tradeoffChart");
  auto* chart = new QChart();
  chart->setTitle(tr("TTFT p99 against TPOT p99, one point per setting"));
  chart->legend()->hide();
  curve_ = new QLineSeries(chart);
  curve_->setPointsVisible(true);
  x_ = new QValueAxis(chart);
  x_->setTitleText(tr("TPOT p99 (ms)"));
  y_ = new QValueAxis(chart);
  y_->setTitleText(tr("TTFT p99 (ms)"));
  chart->addAxis(x_, Qt::AlignBottom);
  chart->addAxis(y_, Qt::AlignLeft);
  chart->addSeries(curve_);
  curve_->attachAxis(x_);
  curve_->attachAxis(y_);
  setChart(chart);
  followPalette(this);
  setRenderHint(QPainter::Antialiasing);
  // thin margins: on a 700 px screen the plot's height is what the axis titles need
  chart->setMargins(QMargins(6, 6, 6, 6));
  chart->layout()->setContentsMargins(2, 2, 2, 2);
  setMinimumHeight(220);
  setToolTip(
      tr("Each point is one step of the sweep: lower is a faster first token, further left "
         "a faster stream once it runs. The curve shows what each setting trades."));
  // Every point says what it is under the pointer, its label shown or not.
  connect(curve_, &QLineSeries::hovered, this, [this](const QPointF& p, bool state) {
    if (!state) return QToolTip::hideText();
    const auto nearest =
        std::min_element(steps_.begin(), steps_.end(), [&p](const Step& a, const Step& b) {
          return QLineF(a.at, p).length() < QLineF(b.at, p).length();
        });
    if (nearest == steps_.end()) return;
    QToolTip::showText(QCursor::pos(),
                       tr("%1: TTFT p99 %2 ms, TPOT p99 %3 ms")
                           .arg(nearest->text->text())
                           .arg(nearest->at.y(), 0, 'f', 1)
                           .arg(nearest->at.x(), 0, 'f', 1),
                       this);
  });
  connect(chart, &QChart::plotAreaChanged, this, [this] { placeLabels(); });
  reset(SweepKind::Concurrency);
}

void TradeoffChart::reset(SweepKind kind) {
  kind_ = kind;
  curve_->clear();
  for (const Step& s : steps_) delete s.label;  // its text with it
  steps_.clear();
  rescale();
}

void TradeoffChart::addStep(double value, const QJsonObject& figures) {
  const QPointF p(figures.value("tpot_ms").toObject().value("p99").toDouble(),
                  figures.value("ttft_ms").toObject().value("p99").toDouble());
  auto* backing = new QGraphicsRectItem(chart());
  backing->setPen(Qt::NoPen);
  backing->setZValue(5);  // over the grid and the curve
  auto* text = new QGraphicsSimpleTextItem(settingLabel(kind_, value), backing);
  text->setPos(kPad, kPad);
  backing->setRect(QRectF(QPointF(0, 0), text->boundingRect().size() + QSizeF(2 * kPad, 2 * kPad)));
  backing->setToolTip(tr("%1: TTFT p99 %2 ms, TPOT p99 %3 ms")
                          .arg(text->text())
                          .arg(p.y(), 0, 'f', 1)
                          .arg(p.x(), 0, 'f', 1));
  const auto at = std::upper_bound(
      steps_.begin(), steps_.end(), leverOrder(kind_, value),
      [this](double key, const Step& s) { return key < leverOrder(kind_, s.value); });
  steps_.insert(at, Step{value, p, backing, text});
  QList<QPointF> points;
  for (const Step& s : steps_) points << s.at;
  curve_->replace(points);
  paintLabels();
  rescale();
}

void TradeoffChart::paintLabels() {
  QColor base = palette().color(QPalette::Base);
  base.setAlpha(225);
  for (const Step& s : steps_) {
    s.label->setBrush(base);
    s.text->setBrush(palette().color(QPalette::Text));
  }
}

void TradeoffChart::changeEvent(QEvent* event) {
  QChartView::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) paintLabels();
}

QList<QPointF> TradeoffChart::points() const {
  return curve_->points();
}

QStringList TradeoffChart::labels() const {
  QStringList out;
  for (const Step& s : steps_) out << s.text->text();
  return out;
}

QStringList TradeoffChart::shownLabels() const {
  QStringList out;
  for (const Step& s : steps_)
    if (s.label->isVisible()) out << s.text->text();
  return out;
}

QList<QRectF> TradeoffChart::labelRects() const {
  QList<QRectF> out;
  for (const Step& s : steps_)
    if (s.label->isVisible()) out << QRectF(s.label->pos(), s.label->rect().size());
  return out;
}

QRectF TradeoffChart::plotArea() const {
  return chart()->plotArea();
}

void TradeoffChart::rescale() {
  if (steps_.isEmpty()) {
    setNiceRange(x_, 0, 1);
    setNiceRange(y_, 0, 1);
  } else {
    double x_lo = steps_.front().at.x(), x_hi = x_lo, y_lo = steps_.front().at.y(), y_hi = y_lo;
    for (const Step& s : steps_) {
      x_lo = std::min(x_lo, s.at.x());
      x_hi = std::max(x_hi, s.at.x());
      y_lo = std::min(y_lo, s.at.y());
      y_hi = std::max(y_hi, s.at.y());
    }
    const auto [x0, x1] = paddedRange(x_lo, x_hi);
    const auto [y0, y1] = paddedRange(y_lo, y_hi);
    setNiceRange(x_, x0, x1);
    setNiceRange(y_, y0, y1);
  }
  placeLabels();
}

void TradeoffChart::placeLabels() {
  // Each label at the first place beside its point that stays inside the plot and covers no
  // label placed before and no point (nor, if it can help it, the curve): right, left, above
  // or below, touching it (a label further off would name empty space); else hidden.
  const QRectF area = chart()->plotArea();
  QList<QRectF> taken;  // the points' markers, then the labels as they are placed
  QList<QLineF> curve;  // the segments between points, which a label would rather not hide
  for (const Step& s : steps_) {
    const QPointF c = chart()->mapToPosition(s.at, curve_);
    if (!taken.isEmpty()) curve << QLineF(taken.back().center(), c);
    taken << QRectF(c - QPointF(kMarker, kMarker), QSizeF(2 * kMarker, 2 * kMarker));
  }
  const auto crosses = [&curve](const QRectF& r) {
    return std::any_of(curve.begin(), curve.end(), [&r](const QLineF& l) {
      if (r.contains(l.p1()) || r.contains(l.p2())) return true;
      const QLineF edges[] = {{r.topLeft(), r.topRight()},
                              {r.topRight(), r.bottomRight()},
                              {r.bottomRight(), r.bottomLeft()},
                              {r.bottomLeft(), r.topLeft()}};
      return std::any_of(std::begin(edges), std::end(edges), [&l](const QLineF& e) {
        return l.intersects(e) == QLineF::BoundedIntersection;
      });
    });
  };
  // The loneliest points first: a crowd's labels compete among themselves (and some hide),
  // not with the labels of points that have room.
  QList<QPointF> centres;
  for (const QRectF& t : taken) centres << t.center();
  QList<std::pair<double, qsizetype>> order;  // (px to the nearest other point, step)
  for (qsizetype i = 0; i < centres.size(); ++i) {
    double nearest = 1e9;
    for (qsizetype j = 0; j < centres.size(); ++j)
      if (j != i) nearest = std::min(nearest, QLineF(centres[i], centres[j]).length());
    order.append({nearest, i});
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& by_room : order) {
    const qsizetype index = by_room.second;
    const Step& s = steps_[index];
    const QPointF c = centres[index];
    const QSizeF size = s.label->rect().size();
    const double w = size.width(), h = size.height();
    const QList<QPointF> tries = {{c.x() + kGap, c.y() - h - 1},     {c.x() + kGap, c.y() + 1},
                                  {c.x() - kGap - w, c.y() - h - 1}, {c.x() - kGap - w, c.y() + 1},
                                  {c.x() - w / 2, c.y() - h - kGap}, {c.x() - w / 2, c.y() + kGap}};
    // first a place off the curve, else one over it (the backing keeps the text readable)
    bool shown = false;
    for (int pass = 0; pass < 2 && !shown; ++pass) {
      for (const QPointF& at : tries) {
        const QRectF r(at, size);
        if (!area.contains(r) ||
            std::any_of(taken.begin(), taken.end(),
                        [&r](const QRectF& t) { return t.intersects(r); }) ||
            (pass == 0 && crosses(r)))
          continue;
        s.label->setPos(at);
        taken << r;
        shown = true;
        break;
      }
    }
    s.label->setVisible(shown);
  }
}

}  // namespace ts::ui
