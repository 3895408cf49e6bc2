#include "ui/chart_palette.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QLegend>

#include "ui/palette_scheme.h"

namespace ts::ui {
namespace {

void paintChart(QChartView* view) {
  QChart* chart = view->chart();
  if (!chart) return;
  const QPalette& p = view->palette();
  const QColor text = p.color(QPalette::Text);
  const QColor grid = p.color(QPalette::Mid);
  view->setBackgroundBrush(p.brush(QPalette::Window));
  chart->setBackgroundBrush(p.brush(QPalette::Base));
  chart->setBackgroundPen(QPen(grid));
  chart->setTitleBrush(text);
  chart->legend()->setLabelColor(text);
  for (QAbstractAxis* axis : chart->axes()) {
    axis->setLabelsColor(text);
    axis->setTitleBrush(text);
    axis->setLinePenColor(grid);
    axis->setGridLineColor(grid.lighter(isDarkPalette(p) ? 100 : 130));
  }
}

// Repaints the chart whenever its view's palette changes.
class PaletteFollower : public QObject {
 public:
  explicit PaletteFollower(QChartView* view) : QObject(view) { view->installEventFilter(this); }
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::PaletteChange) paintChart(static_cast<QChartView*>(watched));
    return false;
  }
};

}  // namespace

void followPalette(QChartView* view) {
  paintChart(view);
  new PaletteFollower(view);
}

}  // namespace ts::ui
