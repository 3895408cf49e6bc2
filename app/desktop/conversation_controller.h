// The conversation in the main window: the turns so far, the request each Send builds
// from them (provider, model, parameters, system prompt, every earlier turn), a run sent
// again from History, and File → Export chat. The window only shows it; the conversation
// itself lives in a ConversationState that outlives the window (a language switch builds a
// new window, into which the transcript is replayed).
#pragma once
#include <QObject>
#include <QStringList>
#include <vector>

#include "inference/stream/generation_request.h"
#include "inference/stream/provider_settings.h"
#include "inference/stream/run_recorder.h"
#include "ui/main_window.h"

namespace ts {

// One message of the transcript as shown: what the user sent, or an answer with the run
// that produced it (replayed into a new window: its text, draft marks, notes and charts).
struct ShownMessage {
  bool user = false;
  QString text;          // the user's message
  QString label;         // an answer's header: "model · provider"
  RecordedRun run;       // an answer's events, from Started to its end
  QStringList warnings;  // notes shown under an answer after its run
};

// The conversation: the turns sent with each message, and the transcript shown.
struct ConversationState {
  std::vector<ChatMessage> turns;
  std::vector<ShownMessage> shown;
};

class ConversationController : public QObject {
  Q_OBJECT
 public:
  // Shows `state`'s transcript in `window` (a rebuilt window) and carries it on from there.
  ConversationController(ui::MainWindow* window, ConversationState* state,
                         QObject* parent = nullptr);

  // Sends the input box's text with the conversation so far; says in the status bar why
  // not (a run in progress, no text, no provider).
  void send();
  void newChat();  // stops a run, forgets the turns, empties the transcript
  // Sends `request` again: selects the provider named `provider`, restores the model, the
  // parameters, the system prompt and the earlier turns, and sends its last user message.
  // Returns "" or why it cannot (no such provider, a run in progress).
  QString runAgain(const QString& provider, const GenerationRequest& request);
  // The conversation so far as Markdown (.md) or JSON (.json, {provider, model, messages});
  // returns "" or why the file could not be written.
  QString exportChat(const QString& path) const;
  const std::vector<ChatMessage>& turns() const { return state_->turns; }
  // A run's warnings, under its answer (ChatController, once the run has ended).
  void showWarnings(const QStringList& warnings);

 signals:
  // A request to run, with the provider it goes to (the chat controller sends it).
  void requestReady(const ts::ProviderSettings& provider, const ts::GenerationRequest& request);

 private:
  void replay();  // state_->shown into the window's transcript, charts and metrics

  ui::MainWindow* window_;
  ConversationState* state_;
  QString label_;  // the answer being shown now: its header
};

}  // namespace ts
