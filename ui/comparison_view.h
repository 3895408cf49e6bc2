// The comparison view: 2-4 runs or groups of repeated runs side by side. ITL curves
// overlaid on one time axis; for local runs, the requests batched in each scheduler step
// over the same time; TTFT and TPOT boxes (p50 to p90, whiskers from the minimum to
// p99); a table of every figure (hover a row for its definition); the settings that
// differ. Charts on the left, the tables on the right sized to their rows and headers
// (never a scrollbar of their own); the whole page scrolls when the window is smaller than
// it. Exports the page at its own size as PNG or SVG and the numbers as CSV or JSON.
#pragma once
#include <QDialog>
#include <QList>

#include "ui/comparison_figures.h"

class QBoxLayout;
class QChartView;
class QScrollArea;
class QTableWidget;

namespace ts::ui {

class ComparisonView : public QDialog {
  Q_OBJECT
 public:
  explicit ComparisonView(ComparisonContent content, QWidget* parent = nullptr);
  // "" or why the file could not be written.
  QString exportPng(const QString& path);
  QString exportSvg(const QString& path);
  QString exportCsv(const QString& path) const;
  QString exportJson(const QString& path) const;

 protected:
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  QChartView* itlChart();
  QChartView* batchChart();  // null when no series has a batch curve
  QChartView* boxChart(const QString& title, const QString& metric, Summary SeriesFigures::*figure);
  QTableWidget* figuresTable();
  QTableWidget* settingsTable();
  void exportWithDialog();
  // Tables beside the charts when the window is wide enough for both, else below them.
  void arrange();

  ComparisonContent values_;       // what is shown and exported
  QWidget* content_ = nullptr;     // what PNG and SVG show (everything but the buttons)
  QScrollArea* page_ = nullptr;    // scrolls content_ when the window is smaller
  QBoxLayout* columns_ = nullptr;  // the charts, then the tables
  QTableWidget* figures_ = nullptr;
  QTableWidget* settings_ = nullptr;
};

}  // namespace ts::ui
