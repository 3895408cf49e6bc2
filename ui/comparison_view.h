// The comparison view: 2-4 runs or groups of repeated runs side by side. ITL curves
// overlaid on one time axis; for local runs, the requests batched in each scheduler step
// over the same time; TTFT and TPOT boxes (p50 to p90, whiskers from the minimum to
// p99); a table of every figure (hover a row for its definition); the settings that
// differ. Charts on the left, the tables on the right sized to their rows and headers
// (never a scrollbar of their own); the whole page scrolls when the window is smaller than
// it. Above them, when a pair of series differs in two or more levers, a banner says that
// the difference cannot be attributed to either and, for local runs, offers per lever the
// lab command that measures it alone (copied to the clipboard). Exports the page at its
// own size as PNG or SVG and the numbers as CSV or JSON.
#pragma once
#include <QDialog>
#include <QList>

#include "ui/comparison_figures.h"

class QBoxLayout;
class QChartView;
class QScrollArea;
class QTableWidget;

namespace ts::ui {

class ElidedLabel;

class ComparisonView : public QDialog {
  Q_OBJECT
 public:
  explicit ComparisonView(ComparisonContent content, QWidget* parent = nullptr);
  // "" or why the file could not be written.
  QString exportPng(const QString& path);
  QString exportSvg(const QString& path);
  QString exportCsv(const QString& path) const;
  QString exportJson(const QString& path) const;

 signals:
  // "Measure weights alone…" was clicked (its command is on the clipboard): measure `lever`
  // (the lab's name: weights | kv | draft | prefill) at `value` alone.
  void singleLeverRequested(const QString& lever, const QString& value);

 protected:
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  QChartView* itlChart();
  QChartView* batchChart();  // null when no series has a batch curve
  QChartView* boxChart(const QString& title, const QString& metric, Summary SeriesFigures::*figure);
  QTableWidget* figuresTable();
  QTableWidget* settingsTable();
  QWidget* attributionBanner();  // null when there is nothing to say
  void offerClicked(const SingleLeverOffer& offer);
  void exportWithDialog();
  // Tables beside the charts when the window is wide enough for both, else below them.
  void arrange();

  ComparisonContent values_;       // what is shown and exported
  QWidget* content_ = nullptr;     // what PNG and SVG show (everything but the buttons)
  QScrollArea* page_ = nullptr;    // scrolls content_ when the window is smaller
  QBoxLayout* columns_ = nullptr;  // the charts, then the tables
  QTableWidget* figures_ = nullptr;
  QTableWidget* settings_ = nullptr;
  ElidedLabel* copied_ = nullptr;  // "Copied: tokenscope-cli lab …" after an offer's click
};

}  // namespace ts::ui
