// The chat: a request the conversation builds and Stop from the main window start and
// cancel a generation (remote, with the provider's key, or on the local engine); every
// run is recorded in the run store as it streams and appended to the run log when it ends.
// What must outlive the window (a language switch rebuilds it) is in a ChatState.
#pragma once
#include <QObject>
#include <memory>

#include "app/desktop/chat_session.h"
#include "app/desktop/conversation_controller.h"
#include "app/desktop/provider_keys.h"
#include "app/store/run_store.h"
#include "ui/main_window.h"

namespace ts {

// The run log: its folder and which figures each line carries.
struct RunLogSettings {
  QString dir;
  bool ttft = true;
  bool tpot = true;
};

// The chat's part that outlives a window: the generation thread (with the local engine it
// holds and the conversation's exact token ids), the run store, the run log's settings,
// the CPU-fallback note last said, and the conversation.
struct ChatState {
  ChatSession session;
  std::unique_ptr<RunStore> runs;
  RunLogSettings log;
  QString backend_note;  // LocalEngineWorker::backendNote, said once per change
  ConversationState conversation;
};

class ChatController : public QObject {
  Q_OBJECT
 public:
  ChatController(ui::MainWindow* window, ProviderKeys* keys, ChatState* state,
                 QObject* parent = nullptr);
  ChatSession& session() { return state_->session; }
  ConversationController& conversation() { return conversation_; }
  // Where every run is recorded as it streams (none: runs go to the run log only). Runs a
  // killed process left "running" are marked interrupted here.
  void setRunStore(std::unique_ptr<RunStore> store);
  RunStore* runStore() const { return state_->runs.get(); }
  using LogSettings = RunLogSettings;
  const LogSettings& logSettings() const { return state_->log; }
  void setLogSettings(const LogSettings& log) { state_->log = log; }
  // A run is being shown or has not yet been logged (its end is still to come).
  bool isBusy() const { return window_->isRunning() || awaiting_finish_; }

 signals:
  void runRecorded();                    // a run's end is in the store
  void runLogged(const QString& error);  // empty on success
  void idle();                           // isBusy() became false

 private:
  void onSend(const ProviderSettings& provider, const GenerationRequest& request);
  void onFinished(const RemoteResult& result);
  void failBeforeStart(const QString& message);
  void beginRecording(const ProviderSettings& provider, const GenerationRequest& request);
  void recordEvent(const StreamEvent& event);
  void connectSession();

  ui::MainWindow* window_;
  ProviderKeys* keys_;
  ChatState* state_;
  ChatSession& session_;
  ConversationController conversation_;
  GenerationRequest last_request_;
  QString last_root_;
  bool awaiting_finish_ = false;  // the session runs a request whose runFinished is to come
  std::unique_ptr<RunStoreWriter> recording_;  // the run streaming now
  RecordedRun recorded_;
  qint64 finished_recording_ = -1;  // recorded run whose log line is still to come
};

}  // namespace ts
