// Tools → Lever lab…: one lever of the local engine pulled against a baseline (the local
// model as the chat runs it). The user picks the lever (weights, KV cache, speculative
// sampling, threads) and its values, the repeat count and the run's lengths; Run asks for
// the lab (runRequested), Cancel or Esc stop it. The result table shows, per variant and
// metric, both medians, the change with its 95 % interval ("no measurable difference" when
// it contains 0), the cost model's prediction and its error; under it the accuracy line per
// variant, and a chart of the prediction error over past runs of the lever. Copy report
// (Markdown) and Export JSON. A window of its own (non-modal); it only shows values and
// emits intents (app/desktop's LabController runs the lab).
#pragma once
#include <QDialog>
#include <QJsonObject>
#include <QList>
#include <QStringList>

#include "ui/lab_report_view.h"

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ts::ui {

class ElidedLabel;
class LabErrorChart;

// The baseline the window shows: the local model as the chat runs it.
struct LabBaseline {
  QString model;  // its path
  QString weights, kv;
  int threads = 1;
  int cores = 1;  // the threads lever offers 1 .. cores
};

// What Run asks for.
struct LabRequest {
  QString lever;  // weights | kv | draft | threads | prefill
  QStringList values;
  QList<int> draft_ks;  // draft: K values, one variant each
  int repeat = 5;
  int prompt_tokens = 128;
  int gen_tokens = 64;
  double min_top1 = 0.95;  // the ladder's accuracy limit (top-1 agreement)
};

class LeverLabDialog : public QDialog {
  Q_OBJECT
 public:
  explicit LeverLabDialog(QWidget* parent = nullptr);
  void setBaseline(const LabBaseline& baseline);  // enables Run
  // No local engine to pull levers on (a remote provider): says `why` in place of Run.
  void setUnavailable(const QString& why);
  void setLever(const QString& lever);  // weights | kv | draft | threads | prefill
  // `lever` chosen with only `value` checked (a choice of its own when the lever does not
  // offer it, e.g. a draft model's path).
  void preset(const QString& lever, const QString& value);
  QString lever() const;
  LabRequest request() const;  // what Run would ask for now
  bool isRunning() const { return running_; }

  void onStarted();
  void onProgress(const QString& stage, int percent);
  // A finished run: the table, accuracy lines; `note` beside the progress ("" "Done.").
  void onReport(const QJsonObject& report, const QString& note);
  void onFailed(const QString& message);  // also a refusal to start; Run comes back
  void onCancelled();
  // A finished ladder: every step's variants in the table (`steps`: {"variants": [...]}
  // named "step: value"), its Markdown for Copy report, `note` beside the progress.
  void onLadder(const QJsonObject& steps, const QString& markdown, const QString& note);
  // The prediction errors of past runs of the lever chosen.
  void setErrorHistory(const QList<LabErrorPoint>& points);
  const QJsonObject& report() const { return report_; }
  QString saveJson(const QString& path) const;  // "" or what went wrong
  void copyReport() const;                      // Markdown to the clipboard

 signals:
  void runRequested(const ts::ui::LabRequest& request);
  // Run the ladder: baseline -> weights -> + KV -> + speculative, with the window's lengths
  // and accuracy limit (the lever and its values are the ladder's own).
  void ladderRequested(const ts::ui::LabRequest& request);
  void cancelRequested();  // also when the window closes while a run goes on
  void leverChanged(const QString& lever);

 public slots:
  void run();
  void reject() override;  // Esc: cancels a run, else closes

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  QWidget* buildBaseline();
  QWidget* buildLeverRow();
  QWidget* buildSettingsRow();
  QWidget* buildProgressRow();
  QWidget* buildButtons();
  void buildTable();
  void fillValues();  // the lever's values as checkable choices
  QCheckBox* addChoice(QHBoxLayout* row, const QString& object_name, const QString& text,
                       bool checked);
  void updateRunButton();
  void setRunning(bool running);
  void setSettingsEnabled(bool enabled);  // the lever, its values, repeat and lengths
  void exportJson();
  void runLadder();

  ElidedLabel* baseline_;
  QLabel* unavailable_;
  QComboBox* lever_;
  QWidget* values_box_;
  QHBoxLayout* values_;
  QList<QCheckBox*> value_checks_;
  QWidget* ks_box_;
  QList<QCheckBox*> k_checks_;
  QSpinBox* repeat_;
  QSpinBox* prompt_;
  QSpinBox* gen_;
  QPushButton* run_;
  QPushButton* cancel_;
  QProgressBar* progress_;
  ElidedLabel* stage_;
  QTableWidget* table_;
  QLabel* accuracy_;
  LabErrorChart* chart_;
  QPushButton* copy_;
  QPushButton* ladder_;
  QSpinBox* min_top1_;
  QString ladder_markdown_;  // the last ladder's report ("" after a lever run)
  QPushButton* export_;
  LabBaseline baseline_values_;
  bool available_ = false;
  bool running_ = false;
  QJsonObject report_;
};

}  // namespace ts::ui
