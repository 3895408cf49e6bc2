// Run history: every stored run in a sortable table (date, provider, model, status,
// benchmark step, prompt, TTFT, TPOT, decode tok/s, output tokens, tags, note), newest
// first, one line per run (long texts elided in the middle, whole in the tooltip), filtered by
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

 private:
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
};

}  // namespace ts::ui
