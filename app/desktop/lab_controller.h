// Tools → Lever lab… and Provider → Try a lever…: the Lever lab window over the current
// local model, as the chat's local engine runs it (path, weights, KV cache, threads), and
// the lab (engine::lab::runLab) on a worker thread of its own: its progress comes back to
// the window queued, Cancel (or closing the window) stops it between runs, and a finished
// report is stored in the run store (RunStore::addLabReport) and shown, with the chart of
// the prediction error over past runs of the lever. A lab does not start while `busy` says
// why it should not (the chat answering on the local engine would disturb its timings):
// the window says why instead. Destroying the controller cancels and joins a run.
#pragma once
#include <QObject>
#include <QPointer>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "app/local/local_engine_loader.h"
#include "app/store/run_store.h"
#include "inference/engine/lab/lab_run.h"
#include "ui/lever_lab_dialog.h"
#include "ui/main_window.h"

namespace ts {

class LabController : public QObject {
  Q_OBJECT
 public:
  // `store`: where reports are kept (may return null: shown, not kept). `busy`: "" or why
  // a lab must not start now.
  LabController(ui::MainWindow* window, std::function<RunStore*()> store,
                std::function<QString()> busy, QObject* parent = nullptr);
  ~LabController() override;  // a running lab is cancelled and joined
  ui::LeverLabDialog* dialog() const { return dialog_; }
  // Opens the window with `lever` chosen and only `value` checked (the comparison's offer
  // to measure one lever alone); a running lab keeps its choice.
  void openWith(const QString& lever, const QString& value);
  bool isRunning() const { return worker_.joinable(); }

 signals:
  void finished(bool stored);  // a report was shown (stored: it is in the run store)

 private:
  struct Outcome;
  // Opens (or raises) the window on the current provider.
  void open();
  // The current provider's local model as the baseline, or why there is none.
  void showBaseline();
  // The lab's settings for `request`, or nullopt after the window said why not (a run under
  // way, no local baseline, something busy, a setting the engine refuses).
  std::optional<engine::lab::LabSettings> settingsToStart(const ui::LabRequest& request);
  void start(const ui::LabRequest& request);
  // The ladder (engine::lab::runLadder) from the same baseline; its report is written into
  // <app data>/ladders/<date-time>/ (ladder.md, ladder.json, PNG charts) and each step's
  // lab report kept in the run store.
  void startLadder(const ui::LabRequest& request);
  // Runs `work` on the worker thread with the window's progress, then onDone.
  void launch(std::function<void(const engine::lab::LabProgress&, Outcome&)> work);
  void cancel();
  void onDone(const std::shared_ptr<Outcome>& outcome);
  void showHistory();  // the chart: the prediction errors of past runs of the lever chosen
  void join();

  ui::MainWindow* window_;
  std::function<RunStore*()> store_;
  std::function<QString()> busy_;
  QPointer<ui::LeverLabDialog> dialog_;
  std::optional<LocalEngineSpec> spec_;  // the window's baseline; none for a remote provider
  std::thread worker_;
  std::atomic<bool> cancel_{false};
};

}  // namespace ts
