#include "app/desktop/history_controller.h"

#include "app/compare/bench_group.h"
#include "app/compare/comparison.h"

#include <QFileInfo>

namespace ts {
namespace {

std::optional<double> number(const QJsonObject& o, const char* key) {
  return o.value(key).isDouble() ? std::optional(o.value(key).toDouble()) : std::nullopt;
}

ui::HistoryRow rowOf(const StoredRun& r) {
  ui::HistoryRow row;
  row.id = r.id;
  row.started = r.started;
  row.provider = r.context.provider;
  row.model = r.context.model;
  // the store's words ("finished", "failed", "cancelled"), shown in the app's language
  if (r.status == "finished")
    row.status = HistoryController::tr("finished");
  else if (r.status == "failed")
    row.status = HistoryController::tr("failed");
  else if (r.status == "cancelled")
    row.status = HistoryController::tr("cancelled");
  else
    row.status = r.status;
  row.group = r.context.group;
  row.benchmark = benchStepText(parseBenchGroup(r.context.group));
  if (row.benchmark.isEmpty()) row.benchmark = r.context.group;  // a group of another shape
  for (auto it = r.request.messages.rbegin(); it != r.request.messages.rend(); ++it)
    if (it->role == "user") {  // the message that was answered
      row.prompt = QString::fromStdString(it->content);
      break;
    }
  row.ttft_ms = number(r.metrics, "ttft_ms");
  row.tpot_ms = number(r.metrics, "tpot_ms");
  row.decode_tok_s = number(r.metrics, "decode_tok_s");
  row.output_tokens = r.metrics.value("output_tokens").toInteger();
  row.tags = r.context.tags;
  row.note = r.note;
  return row;
}

}  // namespace

HistoryController::HistoryController(ui::MainWindow* window, QObject* parent)
    : QObject(parent), window_(window) {}

ui::HistoryDialog* HistoryController::open() {
  if (!store_) {
    window_->showStatus(tr("No run store is open, so there is no history."));
    return nullptr;
  }
  if (!dialog_) {
    dialog_ = new ui::HistoryDialog(window_);
    dialog_->setObjectName("historyDialog");
    dialog_->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog_, &ui::HistoryDialog::filterChanged, this, &HistoryController::refresh);
    connect(dialog_, &ui::HistoryDialog::tagsEdited, this,
            [this](qint64 id, const QStringList& tags) {
              if (!store_->setTags(id, tags)) dialog_->showMessage(tr("Tags not saved."));
            });
    connect(dialog_, &ui::HistoryDialog::noteEdited, this, [this](qint64 id, const QString& note) {
      if (!store_->setNote(id, note)) dialog_->showMessage(tr("Note not saved."));
    });
    connect(dialog_, &ui::HistoryDialog::deleteRequested, this, [this](const QList<qint64>& ids) {
      int deleted = 0;
      for (qint64 id : ids) deleted += store_->remove(id);
      refresh();
      dialog_->showMessage(tr("Deleted %n run(s).", nullptr, deleted));
    });
    connect(dialog_, &ui::HistoryDialog::runAgainRequested, this, [this](qint64 id) {
      const std::optional<StoredRun> run = store_->load(id);
      if (!run) return dialog_->showMessage(tr("That run is no longer in the store."));
      const QString error = window_->runAgain(run->context.provider, run->request);
      if (!error.isEmpty()) return dialog_->showMessage(error);
      dialog_->showMessage(tr("Sent again to %1.").arg(run->context.provider));
    });
    connect(dialog_, &ui::HistoryDialog::compareRequested, this, &HistoryController::compare);
    connect(dialog_, &ui::HistoryDialog::importRequested, this, [this](const QString& path) {
      const ImportSummary s = store_->importLog(path);
      refresh();
      QString text = tr("%1: imported %2 run(s), %3 already in the store")
                         .arg(QFileInfo(path).fileName())
                         .arg(s.imported)
                         .arg(s.duplicates);
      if (!s.skipped.isEmpty())
        text += tr("; skipped %n line(s): ", nullptr, static_cast<int>(s.skipped.size())) +
                s.skipped.first();
      dialog_->showMessage(text);
    });
  }
  refresh();
  dialog_->show();
  dialog_->raise();
  return dialog_;
}

ui::ComparisonView* HistoryController::compare(const QList<qint64>& ids, bool groups) {
  QList<ComparedSeries> series;
  QStringList seen_groups;
  for (qint64 id : ids) {
    std::optional<StoredRun> run = store_->load(id);
    if (!run) {
      if (dialog_) dialog_->showMessage(tr("Run %1 is no longer in the store.").arg(id));
      return nullptr;
    }
    std::vector<StoredRun> runs;
    QString group;
    if (groups && !run->context.group.isEmpty()) {
      if (seen_groups.contains(run->context.group)) continue;  // one series per group
      seen_groups << run->context.group;
      group = run->context.group;
      RunFilter filter;
      filter.group = group;
      const QList<StoredRun> members = store_->list(filter);  // newest first
      for (auto it = members.rbegin(); it != members.rend(); ++it)
        if (auto full = store_->load(it->id)) runs.push_back(*full);
    } else {
      runs.push_back(*run);
    }
    series << compareRuns(QString("#%1").arg(id), runs, group);
  }
  nameSeries(series);  // labels that tell the series apart
  if (comparison_) comparison_->close();
  comparison_ = new ui::ComparisonView(comparisonContent(series), window_);
  comparison_->setObjectName("comparisonView");
  comparison_->setAttribute(Qt::WA_DeleteOnClose);
  connect(comparison_, &ui::ComparisonView::singleLeverRequested, this,
          &HistoryController::singleLeverRequested);
  comparison_->show();
  return comparison_;
}

ui::ComparisonView* HistoryController::compareLatest() {
  RunFilter filter;
  filter.limit = 2;
  const QList<StoredRun> latest = store_ ? store_->list(filter) : QList<StoredRun>();
  if (latest.size() < 2) {
    window_->showStatus(tr("Compare needs two runs: send another message first."));
    return nullptr;
  }
  const QList<qint64> ids = {latest[1].id, latest[0].id};  // older first, as in the history
  if (dialog_) dialog_->selectIds(ids);                    // an open history shows which
  return compare(ids, false);
}

void HistoryController::refresh() {
  if (!dialog_ || !store_) return;
  dialog_->setChoices(store_->distinct("provider"), store_->distinct("model"));
  const ui::HistoryFilter f = dialog_->filter();
  QList<ui::HistoryRow> rows;
  RunFilter filter{f.provider, f.model, f.tag, f.search};
  filter.from = f.since;
  for (const StoredRun& r : store_->list(filter)) rows << rowOf(r);
  dialog_->setRows(rows);
}

}  // namespace ts
