#include "app/desktop/lab_controller.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QThread>

#include "app/lab/ladder_report.h"
#include "app/local/demo_model.h"
#include "inference/engine/lab/lab_json.h"
#include "inference/engine/lab/lab_run.h"
#include "inference/engine/lab/ladder.h"
#include "inference/engine/model/quant_matrix.h"

namespace ts {

struct LabController::Outcome {
  QJsonObject report;  // lab_json.h's JSON; empty on failure
  QString error;
  QJsonObject ladder;        // a ladder's ladderJson (report: its steps' variants for the table)
  QList<QJsonObject> steps;  // a ladder's lab reports, each kept in the run store
};

namespace {

QJsonObject jsonObject(const std::string& json) {
  return QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
}

// The engine's stage texts (lab_run.cpp, lab_arms.cpp) in the app's language.
QString stageText(const QString& stage) {
  static const QRegularExpression step("^(weights|kv|speculative): (.*)$");  // the ladder's
  if (const auto m = step.match(stage); m.hasMatch()) {
    const QString name = m.captured(1) == "weights" ? LabController::tr("weights")
                         : m.captured(1) == "kv"    ? LabController::tr("KV cache")
                                                    : LabController::tr("speculative sampling");
    return LabController::tr("%1: %2").arg(name, stageText(m.captured(2)));
  }
  static const QRegularExpression run("^run (\\d+) of (\\d+)$");
  if (const auto m = run.match(stage); m.hasMatch())
    return LabController::tr("run %1 of %2 (interleaved)").arg(m.captured(1), m.captured(2));
  const auto after = [&](const QString& prefix) { return stage.mid(prefix.size()); };
  if (stage == "loading the baseline") return LabController::tr("loading the baseline");
  if (stage.startsWith("preparing "))
    return LabController::tr("preparing %1").arg(after("preparing "));
  if (stage.startsWith("measuring this machine: "))
    return LabController::tr("measuring this machine: %1").arg(after("measuring this machine: "));
  if (stage.startsWith("accuracy of "))
    return LabController::tr("accuracy of %1").arg(after("accuracy of "));
  if (stage == "done") return LabController::tr("done");
  return stage;
}

// The lab's settings: the local model as the chat runs it, with the window's lengths.
std::optional<engine::lab::LabSettings> labSettings(const LocalEngineSpec& spec,
                                                    const ui::LabRequest& r, QString& error) {
  engine::lab::LabSettings s;
  s.model_path = spec.model_path.toStdString();
  auto weights = engine::parseWeightFormat(spec.engine.weights);
  auto kv = engine::parseKvFormat(spec.engine.kv);
  if (!weights || !kv) {
    error = QString::fromStdString(!weights ? weights.error() : kv.error());
    return std::nullopt;
  }
  s.load.weights = weights.value();
  s.kv = kv.value();
  s.backend = backendRequestFor(spec.engine);
  s.repeat = r.repeat;
  s.prompt_tokens = r.prompt_tokens;
  s.gen_tokens = r.gen_tokens;
  if (!r.draft_ks.isEmpty()) s.draft_ks.assign(r.draft_ks.begin(), r.draft_ks.end());
  return s;
}

engine::lab::Lever leverOf(const ui::LabRequest& r) {
  engine::lab::Lever lever{r.lever.toStdString(), {}};
  for (const QString& v : r.values) lever.values.push_back(v.toStdString());
  return lever;
}

}  // namespace

LabController::LabController(ui::MainWindow* window, std::function<RunStore*()> store,
                             std::function<QString()> busy, QObject* parent)
    : QObject(parent), window_(window), store_(std::move(store)), busy_(std::move(busy)) {
  connect(window, &ui::MainWindow::leverLabRequested, this, &LabController::open);
  connect(window, &ui::MainWindow::currentProviderChanged, this, [this] {
    if (dialog_ && !isRunning()) showBaseline();  // the new provider's
  });
}

LabController::~LabController() {
  cancel();
  join();
  delete dialog_.data();
}

void LabController::open() {
  if (!dialog_) {
    dialog_ = new ui::LeverLabDialog(window_);  // a child: it closes with the window
    dialog_->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog_, &ui::LeverLabDialog::runRequested, this, &LabController::start);
    connect(dialog_, &ui::LeverLabDialog::ladderRequested, this, &LabController::startLadder);
    connect(dialog_, &ui::LeverLabDialog::cancelRequested, this, &LabController::cancel);
    connect(dialog_, &ui::LeverLabDialog::leverChanged, this, &LabController::showHistory);
  }
  if (!isRunning()) {  // a run keeps the baseline it started with
    showBaseline();
    showHistory();
  }
  dialog_->show();
  dialog_->raise();
  dialog_->activateWindow();
}

void LabController::openWith(const QString& lever, const QString& value) {
  open();
  if (!isRunning()) dialog_->preset(lever, value);
}

void LabController::showBaseline() {
  const auto provider = window_->currentProviderSettings();
  if (provider && provider->kind == ProviderKind::LocalEngine) {
    spec_ = localSpecFor(*provider);
    const engine::BackendRequest backend = backendRequestFor(spec_->engine);
    const QString weights = QString::fromStdString(spec_->engine.weights);
    dialog_->setBaseline({spec_->model_path, weights == "auto" ? tr("as stored") : weights,
                          QString::fromStdString(spec_->engine.kv), backend.threads,
                          QThread::idealThreadCount()});
  } else {
    spec_.reset();
    dialog_->setUnavailable(
        tr("The lever lab pulls the local engine's levers: choose the local engine as "
           "provider."));
  }
}

std::optional<engine::lab::LabSettings> LabController::settingsToStart(
    const ui::LabRequest& request) {
  if (isRunning() || !spec_ || !dialog_) return std::nullopt;
  if (const QString why = busy_ ? busy_() : QString(); !why.isEmpty()) {
    dialog_->onFailed(why);
    return std::nullopt;
  }
  QString error;
  auto settings = labSettings(*spec_, request, error);
  if (!settings) dialog_->onFailed(tr("The lab cannot run: %1").arg(error));
  return settings;
}

void LabController::start(const ui::LabRequest& request) {
  const auto settings = settingsToStart(request);
  if (!settings) return;
  const engine::lab::Lever lever = leverOf(request);
  launch([this, s = *settings, lever](const engine::lab::LabProgress& progress, Outcome& out) {
    auto report = engine::lab::runLab(s, lever, progress, &cancel_);
    if (report)
      out.report = jsonObject(engine::lab::labReportJson(report.value()).dump());
    else
      out.error = QString::fromStdString(report.error());
  });
}

void LabController::startLadder(const ui::LabRequest& request) {
  const auto settings = settingsToStart(request);
  if (!settings) return;
  engine::lab::LadderSettings ladder;
  ladder.baseline = *settings;
  ladder.min_top1_agreement = request.min_top1;
  if (settings->kv == engine::KvFormat::Int8) ladder.kv.clear();  // nothing smaller to try
  launch([this, ladder](const engine::lab::LabProgress& progress, Outcome& out) {
    auto report = engine::lab::runLadder(ladder, progress, &cancel_);
    if (!report) {
      out.error = QString::fromStdString(report.error());
      return;
    }
    out.ladder = jsonObject(engine::lab::ladderJson(report.value()).dump());
    QJsonArray variants;  // every step's, named "step: value", for the window's table
    for (const auto& step : report->steps) {
      const QJsonObject lab = jsonObject(engine::lab::labReportJson(step.report).dump());
      out.steps << lab;
      for (const QJsonValue& v : lab.value("variants").toArray()) {
        QJsonObject named = v.toObject();
        named["value"] = QString::fromStdString(step.name) + ": " + named["value"].toString();
        variants.append(named);
      }
    }
    out.report = QJsonObject{
        {"baseline",
         out.steps.isEmpty() ? QJsonObject() : out.steps.front().value("baseline").toObject()},
        {"variants", variants}};
  });
}

void LabController::launch(std::function<void(const engine::lab::LabProgress&, Outcome&)> work) {
  cancel_ = false;
  dialog_->onStarted();
  const QString model = spec_->model_path;
  worker_ = std::thread([this, model, work = std::move(work)] {
    auto outcome = std::make_shared<Outcome>();
    if (model == demoModelPath()) outcome->error = ensureDemoModel(model);  // made at first use
    QString last;
    const engine::lab::LabProgress progress = [&](const std::string& stage, double fraction) {
      const QString text = QString::fromStdString(stage);
      if (text == last) return;
      last = text;
      QMetaObject::invokeMethod(
          this,
          [this, text, percent = static_cast<int>(100 * fraction + 0.5)] {
            if (dialog_) dialog_->onProgress(stageText(text), percent);
          },
          Qt::QueuedConnection);
    };
    if (outcome->error.isEmpty()) work(progress, *outcome);
    QMetaObject::invokeMethod(
        this, [this, outcome] { onDone(outcome); }, Qt::QueuedConnection);
  });
}

void LabController::cancel() {
  cancel_ = true;
}

void LabController::join() {
  if (worker_.joinable()) worker_.join();
}

void LabController::onDone(const std::shared_ptr<Outcome>& outcome) {
  join();
  const bool cancelled = cancel_.load();
  if (!dialog_) return;
  if (cancelled) return dialog_->onCancelled();
  if (!outcome->error.isEmpty())
    return dialog_->onFailed(tr("The lab run failed: %1").arg(outcome->error));
  const bool ladder = !outcome->ladder.isEmpty();
  QString note = tr("Done; kept in the run store.");
  bool stored = false;
  RunStore* store = store_ ? store_() : nullptr;
  const QList<QJsonObject> reports = ladder ? outcome->steps : QList<QJsonObject>{outcome->report};
  if (!store) {
    note = tr("Done; not kept: no run store is open.");
  } else {
    stored = true;
    for (const QJsonObject& r : reports)
      if (store->addLabReport(r) < 0) {
        note = tr("Done; not kept in the run store: %1").arg(store->error());
        stored = false;
        break;
      }
  }
  if (ladder) {
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                           "/ladders/" + QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss");
    const QString written = writeLadderReport(outcome->ladder, folder);
    const QString result = outcome->ladder["final"].toObject()["description"].toString();
    note = written.isEmpty()
               ? tr("The ladder kept: %1. Report: %2/ladder.md").arg(result, folder)
               : tr("The ladder kept: %1. The report was not written: %2").arg(result, written);
    dialog_->onLadder(outcome->report, ladderMarkdown(outcome->ladder), note);
  } else {
    dialog_->onReport(outcome->report, note);
  }
  showHistory();
  emit finished(stored);
}

void LabController::showHistory() {
  if (!dialog_) return;
  QList<QJsonObject> reports;
  if (RunStore* store = store_ ? store_() : nullptr)
    for (const StoredLabReport& r : store->labReports(dialog_->lever(), 50))
      reports.prepend(r.report);  // oldest first
  dialog_->setErrorHistory(ui::labErrorPoints(reports));
}

}  // namespace ts
