// The chat: a request the conversation builds and Stop from the main window start and
// cancel a generation (remote, with the provider's key, or on the local engine); every
// run is recorded in the run store as it streams and appended to the run log when it ends.
#pragma once
#include <QObject>
#include <memory>

#include "app/desktop/chat_session.h"
#include "app/desktop/conversation_controller.h"
#include "app/desktop/provider_keys.h"
#include "app/store/run_store.h"
#include "ui/main_window.h"

namespace ts {

class ChatController : public QObject {
  Q_OBJECT
 public:
  ChatController(ui::MainWindow* window, ProviderKeys* keys, QString log_dir,
                 QObject* parent = nullptr);
  ChatSession& session() { return session_; }
  ConversationController& conversation() { return conversation_; }
  // Where every run is recorded as it streams (none: runs go to the run log only). Runs a
  // killed process left "running" are marked interrupted here.
  void setRunStore(std::unique_ptr<RunStore> store);
  RunStore* runStore() const { return runs_.get(); }
  // The run log: its folder and which figures each line carries.
  struct LogSettings {
    QString dir;
    bool ttft = true;
    bool tpot = true;
  };
  const LogSettings& logSettings() const { return log_; }
  void setLogSettings(const LogSettings& log) { log_ = log; }

 signals:
  void runRecorded();                    // a run's end is in the store
  void runLogged(const QString& error);  // empty on success

 private:
  void onSend(const ProviderSettings& provider, const GenerationRequest& request);
  void onFinished(const RemoteResult& result);
  void failBeforeStart(const QString& message);
  void beginRecording(const ProviderSettings& provider, const GenerationRequest& request);
  void recordEvent(const StreamEvent& event);

  ui::MainWindow* window_;
  ProviderKeys* keys_;
  LogSettings log_;
  ChatSession session_;
  ConversationController conversation_;
  GenerationRequest last_request_;
  QString last_root_;
  std::unique_ptr<RunStore> runs_;
  std::unique_ptr<RunStoreWriter> recording_;  // the run streaming now
  RecordedRun recorded_;
  qint64 finished_recording_ = -1;  // recorded run whose log line is still to come
};

}  // namespace ts
