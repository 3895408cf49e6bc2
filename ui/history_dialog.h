// Run history: every stored run in a sortable table (date, provider, model, status,
// benchmark step, prompt, TTFT, TPOT, decode tok/s, output tokens, tags, note), newest
// first, one line per run (long names elided in the middle, the prompt at its end, each whole
// in its tooltip; the columns fit the window's width, 1024 px included), filtered by
// provider, model, tag and a search in the prompts; tags and notes are edited in place; Delete, Run
// again, and importing run logs. Widgets only: the app fills it from the run store
// (app/desktop/history_controller.h) and acts on its signals.
#pragma once
#include <QDateTime>
#include <QDialog>
#include <QList>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLayout;
class QLineEdit;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace ts::ui {

struct HistoryRow {
  qint64 id = 0;
  QDateTime started;  // UTC; shown in local time
  QString provider, model, status, prompt;
  QString benchmark;  // its benchmark step ("concurrency 2"); "" for a chat run
  QString group;      // the whole benchmark group name (the tooltip)
  std::optional<double> ttft_ms, tpot_ms, decode_tok_s;
  qint64 output_tokens = 0;
  QStringList tags;
  QString note;
};

struct HistoryFilter {
  QString provider{}, model{}, tag{}, search{};  // empty: any
  QDateTime since{};                             // invalid: any time
};

class HistoryDialog : public QDialog {
  Q_OBJECT
 public:
  explicit HistoryDialog(QWidget* parent = nullptr);
  // The provider and model choices of the filter (every value in the store).
  void setChoices(const QStringList& providers, const QStringList& models);
  void setRows(const QList<HistoryRow>& rows);
  HistoryFilter filter() const;
  QList<qint64> selectedIds() const;
  // Selects exactly these runs (those shown), e.g. the two that were just compared.
  void selectIds(const QList<qint64>& ids);
  int rowCount() const;
  void showMessage(const QString& text);

 signals:
  void filterChanged(const ts::ui::HistoryFilter& filter);
  void tagsEdited(qint64 id, const QStringList& tags);
  void noteEdited(qint64 id, const QString& note);
  void deleteRequested(const QList<qint64>& ids);
  void runAgainRequested(qint64 id);
  void importRequested(const QString& jsonl_path);
  // 2-4 selected runs; groups: compare each one's whole benchmark group instead. With one
  // run selected (not as groups), it and the run shown before it in time, both selected.
  void compareRequested(const QList<qint64>& ids, bool groups);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;  // the table's width changed

 private:
  // The constructor's steps: the filter row, the table of runs, the buttons under it.
  QLayout* buildFilters();
  void buildTable();
  QLayout* buildButtons();
  // Column widths for the table's width: every column at least as wide as its title and its
  // usual contents ("TaoToken gateway", a date), the names wider up to their longest, the
  // prompt the rest; until the user drags a column.
  void fitColumns();
  void measureRows();  // widest_ from the rows now in the table
  void deleteSelected();
  void compareSelected();
  QComboBox* provider_;
  QComboBox* model_;
  QLineEdit* tag_;
  QComboBox* since_;  // data: seconds back from now (0: any time)
  QLineEdit* search_;
  QStandardItemModel* model_rows_;
  QSortFilterProxyModel* sorted_;
  QTableView* table_;
  QLabel* message_;
  QCheckBox* as_groups_;
  bool filling_ = false;  // setRows in progress: item changes are not edits
  bool fitting_ = false;  // fitColumns in progress: section resizes are not the user's
  bool sized_by_user_ = false;
  QList<int> widest_;  // per column: the widest cell text of the rows shown (px)
};

}  // namespace ts::ui
