// The Lever lab window's state and results (LeverLabDialog's own translation context, kept
// apart from its assembly in lever_lab_dialog.cpp): the baseline or why there is none, Run
// and Cancel, progress, the result table, the accuracy lines, copy and export.
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>

#include "ui/elided_label.h"
#include "ui/lab_error_chart.h"
#include "ui/lever_lab_dialog.h"
#include "ui/save_file.h"

namespace ts::ui {

void LeverLabDialog::setBaseline(const LabBaseline& b) {
  baseline_values_ = b;
  available_ = true;
  baseline_->setFullText(
      tr("Baseline: %1 · weights %2 · KV %3 · %4")
          .arg(QFileInfo(b.model).fileName(), b.weights, b.kv, labThreadsText(b.threads)));
  baseline_->setHint(b.model);
  baseline_->show();
  unavailable_->hide();
  run_->show();
  cancel_->show();
  setSettingsEnabled(!running_);
  fillValues();
}

void LeverLabDialog::setUnavailable(const QString& why) {
  available_ = false;
  unavailable_->setText(why);
  unavailable_->setVisible(!why.isEmpty());
  baseline_->setVisible(why.isEmpty());
  run_->setVisible(why.isEmpty());
  cancel_->setVisible(why.isEmpty());
  setSettingsEnabled(why.isEmpty());
  updateRunButton();
}

void LeverLabDialog::setLever(const QString& lever) {
  const int i = lever_->findData(lever);
  if (i >= 0) lever_->setCurrentIndex(i);
}

void LeverLabDialog::preset(const QString& lever, const QString& value) {
  setLever(lever);
  bool found = false;
  for (QCheckBox* c : value_checks_) {
    const bool it = c->text().remove('&') == value || c->property("value").toString() == value;
    c->setChecked(it && c->isEnabled());
    found |= it;
  }
  if (!found && !value.isEmpty()) {  // a path shows as its file name, whole in the tooltip
    const QString shown = value.contains('/') ? value.section('/', -1) : value;
    QCheckBox* c = addChoice(values_, "value_" + shown, shown, true);
    c->setProperty("value", value);
    c->setToolTip(value);
    value_checks_ << c;
  }
  updateRunButton();
}

QString LeverLabDialog::lever() const {
  return lever_->currentData().toString();
}

LabRequest LeverLabDialog::request() const {
  LabRequest r;
  r.lever = lever();
  for (const QCheckBox* c : value_checks_)
    if (c->isChecked() && c->isEnabled())
      r.values << (c->property("value").isValid() ? c->property("value").toString()
                                                  : c->text().remove('&'));
  for (const QCheckBox* c : k_checks_)
    if (c->isChecked()) r.draft_ks << c->text().remove('&').toInt();
  r.repeat = repeat_->value();
  r.prompt_tokens = prompt_->value();
  r.gen_tokens = gen_->value();
  return r;
}

void LeverLabDialog::updateRunButton() {
  const LabRequest r = request();
  const bool chosen = !r.values.isEmpty() && (r.lever != "draft" || !r.draft_ks.isEmpty());
  run_->setEnabled(available_ && !running_ && chosen);
  ladder_->setEnabled(available_ && !running_);
  run_->setToolTip(chosen ? tr("Run the baseline and the variants interleaved (Ctrl+Return)")
                          : tr("Check at least one value to try (and a K for speculative "
                               "sampling)"));
}

void LeverLabDialog::run() {
  if (!run_->isEnabled() || !run_->isVisible()) return;
  emit runRequested(request());
}

void LeverLabDialog::setRunning(bool running) {
  running_ = running;
  cancel_->setEnabled(running);
  setSettingsEnabled(!running);
  updateRunButton();
  // The settings were disabled while it ran: the keys go on to Run (Ctrl+Return again).
  if (!running && (!focusWidget() || !focusWidget()->isEnabled())) run_->setFocus();
}

void LeverLabDialog::setSettingsEnabled(bool enabled) {
  for (QWidget* w :
       QList<QWidget*>{lever_, values_box_, ks_box_, repeat_, prompt_, gen_, min_top1_})
    w->setEnabled(enabled);
}

void LeverLabDialog::onStarted() {
  setRunning(true);
  progress_->setValue(0);
  progress_->show();
  stage_->setStyleSheet({});
  stage_->setFullText(tr("Starting…"));
}

void LeverLabDialog::onProgress(const QString& stage, int percent) {
  progress_->setValue(percent);
  stage_->setFullText(stage);
}

void LeverLabDialog::onReport(const QJsonObject& report, const QString& note) {
  setRunning(false);
  report_ = report;
  ladder_markdown_.clear();
  progress_->setValue(100);
  progress_->show();
  stage_->setStyleSheet({});
  stage_->setFullText(note.isEmpty() ? tr("Done.") : note);
  const QList<LabRow> rows = labRows(report);
  table_->setRowCount(static_cast<int>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    const LabRow& r = rows[i];
    const QStringList cells{r.variant, r.metric,    r.baseline, r.value,
                            r.change,  r.predicted, r.error};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c >= 2)
        item->setTextAlignment((c == 4 ? Qt::AlignHCenter : Qt::AlignRight) | Qt::AlignVCenter);
      if (c == 4 && r.measurable) {
        QFont bold = item->font();
        bold.setBold(true);
        item->setFont(bold);
      }
      table_->setItem(i, c, item);
    }
  }
  const QStringList accuracy = labAccuracyLines(report);
  accuracy_->setText(accuracy.join("\n"));
  accuracy_->setVisible(!accuracy.isEmpty());
  copy_->setEnabled(true);
  export_->setEnabled(true);
}

void LeverLabDialog::onFailed(const QString& message) {
  setRunning(false);
  stage_->setStyleSheet("color: #c0392b;");
  stage_->setFullText(message);
}

void LeverLabDialog::onCancelled() {
  setRunning(false);
  progress_->setValue(0);
  stage_->setStyleSheet({});
  stage_->setFullText(tr("Cancelled: nothing was stored."));
}

void LeverLabDialog::setErrorHistory(const QList<LabErrorPoint>& points) {
  chart_->setPoints(lever_->currentText(), points);
}

QString LeverLabDialog::saveJson(const QString& path) const {
  return saveBytes(path, QJsonDocument(report_).toJson(QJsonDocument::Indented));
}

void LeverLabDialog::copyReport() const {
  QApplication::clipboard()->setText(ladder_markdown_.isEmpty() ? labMarkdown(report_)
                                                                : ladder_markdown_);
}

void LeverLabDialog::runLadder() {
  if (!available_ || running_) return;
  LabRequest r = request();
  r.min_top1 = min_top1_->value() / 100.0;
  emit ladderRequested(r);
}

void LeverLabDialog::onLadder(const QJsonObject& steps, const QString& markdown,
                              const QString& note) {
  onReport(steps, note);
  ladder_markdown_ = markdown;
}

void LeverLabDialog::exportJson() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export the lab report"),
                                                    "lever-lab.json", tr("JSON (*.json)"));
  if (path.isEmpty()) return;
  const QString error = saveJson(path);
  if (!error.isEmpty()) onFailed(error);
}

void LeverLabDialog::reject() {
  if (running_) {
    emit cancelRequested();
    return;
  }
  QDialog::reject();
}

void LeverLabDialog::closeEvent(QCloseEvent* event) {
  if (running_) {  // the run ends with the window
    running_ = false;
    emit cancelRequested();
  }
  QDialog::closeEvent(event);
}

}  // namespace ts::ui
