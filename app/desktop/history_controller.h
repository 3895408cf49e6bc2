// Drives the run-history dialog (ui/history_dialog.h) from the run store: filters query
// the store, tag and note edits and deletes are written at once, "Run again" sends the
// stored request through the main window, and run logs are imported.
#pragma once
#include <QObject>
#include <QPointer>

#include "app/store/run_store.h"
#include "ui/comparison_view.h"
#include "ui/history_dialog.h"
#include "ui/main_window.h"

namespace ts {

class HistoryController : public QObject {
  Q_OBJECT
 public:
  HistoryController(ui::MainWindow* window, QObject* parent = nullptr);
  void setStore(RunStore* store) { store_ = store; }
  ui::HistoryDialog* open();  // shows the dialog (raises it when open)
  ui::HistoryDialog* dialog() const { return dialog_; }
  void refresh();  // re-reads the store when the dialog is open (a run was recorded)
  // Opens the comparison of these runs (or of their groups); null when a run is missing.
  ui::ComparisonView* compare(const QList<qint64>& ids, bool groups);
  ui::ComparisonView* comparison() const { return comparison_; }
  // The two most recent runs side by side (main window, Ctrl+Shift+C); null, with the
  // reason in the status bar, when the store has fewer than two.
  ui::ComparisonView* compareLatest();

 signals:
  // The comparison's "Measure … alone…": the Lever lab with that lever and value.
  void singleLeverRequested(const QString& lever, const QString& value);

 private:
  ui::MainWindow* window_;
  RunStore* store_ = nullptr;
  QPointer<ui::HistoryDialog> dialog_;
  QPointer<ui::ComparisonView> comparison_;
};

}  // namespace ts
