// The conversation in the main window: the turns so far, the request each Send builds
// from them (provider, model, parameters, system prompt, every earlier turn), a run sent
// again from History, and File → Export chat. The window only shows it.
#pragma once
#include <QObject>
#include <vector>

#include "inference/stream/generation_request.h"
#include "inference/stream/provider_settings.h"
#include "ui/main_window.h"

namespace ts {

class ConversationController : public QObject {
  Q_OBJECT
 public:
  explicit ConversationController(ui::MainWindow* window, QObject* parent = nullptr);

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
  // Restores a conversation exportChat wrote as JSON (turns and transcript); "" or why not.
  QString importChat(const QString& path);
  const std::vector<ChatMessage>& turns() const { return history_; }

 signals:
  // A request to run, with the provider it goes to (the chat controller sends it).
  void requestReady(const ts::ProviderSettings& provider, const ts::GenerationRequest& request);

 private:
  ui::MainWindow* window_;
  std::vector<ChatMessage> history_;  // the conversation so far, sent with each message
};

}  // namespace ts
