#include "app/chat_controller.h"

#include "app/run_log.h"
#include "inference/remote/base_url.h"

namespace ts {

std::pair<QString, bool> previewBaseUrl(const QString& typed) {
  const NormalizedBaseUrl n = normalizeBaseUrl(typed);
  if (!n.ok()) return {n.error, true};
  QString text = chatCompletionsUrl(n.root).toString();
  if (!n.notes.isEmpty()) text += " (" + n.notes.join("; ") + ")";
  return {text, false};
}

ChatController::ChatController(ui::MainWindow* window, ProviderStore store, QString log_dir,
                               bool persist_providers, QObject* parent)
    : QObject(parent),
      window_(window),
      store_(std::move(store)),
      log_dir_(std::move(log_dir)),
      persist_(persist_providers) {
  window->setUrlPreview(&previewBaseUrl);
  connect(window, &ui::MainWindow::sendRequested, this, &ChatController::onSend);
  connect(window, &ui::MainWindow::stopRequested, &session_, &ChatSession::cancel);
  connect(&session_, &ChatSession::eventReady, window, &ui::MainWindow::onStreamEvent);
  connect(&session_, &ChatSession::runFinished, this, &ChatController::onFinished);
  connect(window, &ui::MainWindow::providersEdited, this,
          [this](const std::vector<ProviderSettings>& providers, int current) {
            if (!persist_) return;
            const QString error = store_.save({providers, current});
            if (!error.isEmpty()) window_->showStatus("Providers not saved: " + error);
          });
}

void ChatController::onSend(const ProviderSettings& provider, const GenerationRequest& request) {
  last_request_ = request;
  const NormalizedBaseUrl n = normalizeBaseUrl(QString::fromStdString(provider.base_url));
  last_root_ = n.ok() ? n.root : QString::fromStdString(provider.base_url);
  session_.start(endpointFor(provider), request);
}

void ChatController::onFinished(const RemoteResult& result) {
  window_->onRunWarnings(result.warnings);
  const QString error =
      appendRunLog(log_dir_, last_request_, result.run,
                   {last_root_, result.final_url, result.attempts, result.warnings});
  if (!error.isEmpty()) window_->showStatus("Run not logged: " + error);
  emit runLogged(error);
}

}  // namespace ts
