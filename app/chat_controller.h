// Wires the main window to the generation thread, the provider store and the run log.
#pragma once
#include <QObject>

#include "app/chat_session.h"
#include "app/provider_store.h"
#include "ui/main_window.h"

namespace ts {

// For the provider dialog: the URL requests will go to, or the error (second = true).
std::pair<QString, bool> previewBaseUrl(const QString& typed);

class ChatController : public QObject {
  Q_OBJECT
 public:
  // persist_providers = false: edits stay in memory (a provider given on the command line).
  ChatController(ui::MainWindow* window, ProviderStore store, QString log_dir,
                 bool persist_providers, QObject* parent = nullptr);
  ChatSession& session() { return session_; }

 signals:
  void runLogged(const QString& error);  // empty on success

 private:
  void onSend(const ProviderSettings& provider, const GenerationRequest& request);
  void onFinished(const RemoteResult& result);

  ui::MainWindow* window_;
  ProviderStore store_;
  QString log_dir_;
  bool persist_;
  ChatSession session_;
  GenerationRequest last_request_;
  QString last_root_;
};

}  // namespace ts
