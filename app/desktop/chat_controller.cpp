#include "app/desktop/chat_controller.h"

#include <QStandardPaths>

#include "app/local/local_engine_loader.h"
#include "app/store/run_log.h"
#include "inference/engine/core/thread_pool.h"
#include "inference/remote/base_url.h"

namespace ts {
namespace {
// The default run log ("./logs/infer", relative to wherever the app was started) goes to
// the app's data folder instead; any other folder is used as given.
QString logFolder(const QString& dir) {
  if (!dir.isEmpty() && dir != defaultLogDir()) return dir;
  return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + "/logs/infer";
}
}  // namespace

ChatController::ChatController(ui::MainWindow* window, ProviderKeys* keys, ChatState* state,
                               QObject* parent)
    : QObject(parent),
      window_(window),
      keys_(keys),
      state_(state),
      session_(state->session),
      conversation_(window, &state->conversation) {
  connect(&conversation_, &ConversationController::requestReady, this, &ChatController::onSend);
  connect(window, &ui::MainWindow::stopRequested, this, [this] { session_.cancel(); });
  connect(window, &ui::MainWindow::runDisplayed, this, [this] {
    if (!isBusy()) emit idle();
  });
  window_->setCpuFallback(state_->backend_note);
  connectSession();
}

void ChatController::connectSession() {
  // Recorded before the window shows it: once the window has shown a run's end, the run
  // is in the store (a next Send may follow at once).
  connect(&session_, &ChatSession::eventReady, this, &ChatController::recordEvent);
  // (The window's slots through `this`: a rebuilt window's old one hears nothing more.)
  connect(&session_, &ChatSession::eventReady, this,
          [this](const StreamEvent& e) { window_->onStreamEvent(e); });
  connect(&session_, &ChatSession::runFinished, this, &ChatController::onFinished);
  connect(&session_, &ChatSession::localLoadProgress, this, [this](int percent) {
    const auto p = window_->currentProviderSettings();
    const QString name = p ? QString::fromStdString(p->name) : QString();
    window_->showStatus(percent < 100 ? tr("Loading %1… %2% (Stop cancels)").arg(name).arg(percent)
                                      : tr("Loaded %1.").arg(name));
  });
  // A slow first use (a speculative draft's conversion): what happens, with a progress bar,
  // until it is done ("").
  connect(&session_, &ChatSession::localPreparing, this,
          [this](const QString& what, int percent) { window_->setPreparing(what, percent); });
  // Once, in the status bar (and a lasting mark there), not in the transcript of every answer.
  connect(&session_, &ChatSession::localBackendNote, this, [this](const QString& note) {
    state_->backend_note = note;
    window_->setCpuFallback(note);
    if (!note.isEmpty()) window_->showStatus(tr("The local model runs on the CPU: %1").arg(note));
  });
}

void ChatController::setRunStore(std::unique_ptr<RunStore> store) {
  std::unique_ptr<RunStore>& runs = state_->runs;
  runs = std::move(store);
  if (!runs->isOpen()) {
    window_->showStatus(tr("Runs are not being recorded: ") + runs->error());
    runs.reset();
    return;
  }
  if (const int n = runs->markInterrupted(); n > 0)
    window_->showStatus(
        tr("%n run(s) of an earlier session ended without finishing; they are "
           "kept as interrupted, with their partial answers.",
           nullptr, n));
}

void ChatController::beginRecording(const ProviderSettings& provider,
                                    const GenerationRequest& request) {
  recording_.reset();
  recorded_ = {};
  RunStore* runs = state_->runs.get();
  if (!runs) return;
  RunContext context{QString::fromStdString(provider.name),
                     QString::fromStdString(provider.base_url),
                     QString::fromStdString(request.model)};
  if (provider.kind == ProviderKind::LocalEngine) {
    context.backend = QString::fromStdString(provider.local.backend);
    context.weights = QString::fromStdString(provider.local.weights);
    context.kv = QString::fromStdString(provider.local.kv);
    context.threads =
        provider.local.threads > 0 ? provider.local.threads : engine::ThreadPool::defaultThreads();
    if (!request.params.draft.empty())
      context.speculative =
          QString::fromStdString(request.params.draft) + ", K " +
          (request.params.draft_auto ? QString("auto") : QString::number(request.params.draft_k));
  }
  recording_ = std::make_unique<RunStoreWriter>(*runs, request, context);
  if (recording_->id() < 0) {
    window_->showStatus(tr("Run not recorded: ") + runs->error());
    recording_.reset();
  }
}

void ChatController::recordEvent(const StreamEvent& event) {
  if (!recording_) return;
  if (event.kind == EventKind::Started) recorded_.start_ns = event.t_ns;
  recorded_.events.push_back(event);
  if (event.kind != EventKind::Finished && event.kind != EventKind::Failed)
    return recording_->update(recorded_);
  recording_->finish(recorded_);
  finished_recording_ = recording_->id();
  recording_.reset();
  emit runRecorded();
}

void ChatController::onSend(const ProviderSettings& provider, const GenerationRequest& request) {
  last_request_ = request;
  beginRecording(provider, request);
  if (provider.kind == ProviderKind::LocalEngine) {
    last_root_ = QString::fromStdString(provider.base_url);  // the model path, for the log
    awaiting_finish_ = true;
    session_.startLocal(localSpecFor(provider), request);
    return;
  }
  const NormalizedBaseUrl n = normalizeBaseUrl(QString::fromStdString(provider.base_url));
  last_root_ = n.ok() ? n.root : QString::fromStdString(provider.base_url);
  keys_->resolve(provider, this, [this, request](RemoteEndpoint endpoint, QString error) {
    if (!error.isEmpty()) return failBeforeStart(error);
    awaiting_finish_ = true;
    session_.start(endpoint, request);
  });
}

void ChatController::failBeforeStart(const QString& message) {
  const int64_t now = monotonicNowNs();
  for (const StreamEvent& e :
       {StreamEvent::started(now),
        StreamEvent::failed(now, FailureKind::Auth, 0, message.toStdString(), {})}) {
    recordEvent(e);  // the failure ends the recording too
    window_->onStreamEvent(e);
  }
}

void ChatController::onFinished(const RemoteResult& result) {
  conversation_.showWarnings(result.warnings);
  QByteArray line;
  const QString error =
      appendRunLog(logFolder(state_->log.dir), last_request_, result.run,
                   {last_root_, result.final_url, result.attempts, result.warnings}, &line);
  if (finished_recording_ >= 0 && error.isEmpty() && state_->runs)
    state_->runs->setImportKey(finished_recording_, line);  // importing the log adds it not twice
  finished_recording_ = -1;
  if (!error.isEmpty()) window_->showStatus(tr("Run not logged: ") + error);
  awaiting_finish_ = false;
  emit runLogged(error);
  if (!isBusy()) emit idle();
}

}  // namespace ts
