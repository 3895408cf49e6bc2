#include "app/desktop/conversation_controller.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include "app/desktop/serving_controller.h"
#include "ui/chat_panel.h"
#include "ui/parameter_panel.h"
#include "ui/provider_bar.h"

namespace ts {

ConversationController::ConversationController(ui::MainWindow* window, ConversationState* state,
                                               QObject* parent)
    : QObject(parent), window_(window), state_(state) {
  replay();  // before the connections: the replayed answers are in the state already
  connect(window, &ui::MainWindow::submitRequested, this, &ConversationController::send);
  connect(window, &ui::MainWindow::newChatRequested, this, &ConversationController::newChat);
  connect(window, &ui::MainWindow::answered, this, [this](const QString& answer) {
    if (!answer.isEmpty()) state_->turns.push_back({"assistant", answer.toStdString()});
  });
  connect(window, &ui::MainWindow::runDisplayed, this, [this] {
    ShownMessage m;
    m.label = label_;
    m.run = window_->currentRun();
    state_->shown.push_back(std::move(m));
  });
  connect(window, &ui::MainWindow::exportChatRequested, this, [this](const QString& path) {
    const QString error = exportChat(path);
    if (error.isEmpty())
      window_->showStatus(tr("Exported the chat to %1").arg(path));
    else
      window_->showError(tr("Chat not exported"), error);
  });
  window->setRunAgain([this](const QString& provider, const GenerationRequest& request) {
    return runAgain(provider, request);
  });
}

void ConversationController::send() {
  if (window_->isRunning()) return;
  ui::ChatPanel* chat = window_->chatPanel();
  const QString text = chat->inputText();
  if (text.isEmpty()) return window_->showStatus(tr("Type a message first."));
  const auto provider = window_->currentProviderSettings();
  if (!provider) return window_->showStatus(tr("Add a provider first (Provider → Add…)."));
  GenerationRequest request;
  request.provider = provider->name;
  request.model = provider->default_model;  // the model box's value, else the provider's
  ui::ParameterPanel* parameters = window_->parameterPanel();
  request.params = parameters->params();
  if (!parameters->systemPrompt().isEmpty())
    request.messages.push_back({"system", parameters->systemPrompt().toStdString()});
  state_->turns.push_back({"user", text.toStdString()});
  request.messages.insert(request.messages.end(), state_->turns.begin(), state_->turns.end());

  chat->appendUserMessage(text);
  state_->shown.push_back({true, text});
  label_ = QString("%1 · %2").arg(QString::fromStdString(request.model),
                                  QString::fromStdString(provider->name));
  window_->beginRun(label_);
  window_->showStatus(tr("Sending to ") + QString::fromStdString(provider->name) + "…");
  emit requestReady(*provider, request);
}

void ConversationController::newChat() {
  if (window_->isRunning()) window_->stop();
  state_->turns.clear();
  state_->shown.clear();
  window_->clearConversation();
}

void ConversationController::showWarnings(const QStringList& warnings) {
  window_->onRunWarnings(warnings);
  if (!state_->shown.empty() && !state_->shown.back().user)
    state_->shown.back().warnings += warnings;
}

void ConversationController::replay() {
  ui::ChatPanel* chat = window_->chatPanel();
  for (const ShownMessage& m : state_->shown) {
    if (m.user) {
      chat->appendUserMessage(m.text);
    } else {  // as it streamed, at once: text, marks, notes, and the last run's charts
      window_->beginRun(m.label);
      for (const StreamEvent& e : m.run.events) window_->onStreamEvent(e);
      window_->onRunWarnings(m.warnings);
    }
  }
}

QString ConversationController::runAgain(const QString& provider,
                                         const GenerationRequest& request) {
  if (window_->isRunning()) return tr("A run is in progress: stop it first.");
  if (provider == ServingController::kServedProvider)
    return tr("A client of the app's server sent this request: send it again from that client.");
  const auto& providers = window_->providers();
  const bool known = std::any_of(providers.begin(), providers.end(), [&](const auto& p) {
    return QString::fromStdString(p.name) == provider;
  });
  if (!known)
    return tr("The provider '%1' no longer exists: add it again to rerun this.").arg(provider);
  std::vector<ChatMessage> turns = request.messages;
  QString system;
  if (!turns.empty() && turns.front().role == "system") {
    system = QString::fromStdString(turns.front().content);
    turns.erase(turns.begin());
  }
  if (turns.empty() || turns.back().role != "user")
    return tr("That run has no user message to send again.");
  const QString last = QString::fromStdString(turns.back().content);
  turns.pop_back();
  window_->providerBar()->selectProvider(provider);
  window_->setModel(QString::fromStdString(request.model));
  window_->parameterPanel()->setParams(request.params);
  window_->parameterPanel()->setSystemPrompt(system);
  newChat();
  state_->turns = turns;
  window_->chatPanel()->setInputText(last);
  send();
  return {};
}

QString ConversationController::exportChat(const QString& path) const {
  std::vector<ChatMessage> messages = state_->turns;
  const QString system = window_->parameterPanel()->systemPrompt();
  if (!system.isEmpty()) messages.insert(messages.begin(), {"system", system.toStdString()});
  QByteArray bytes;
  if (path.endsWith(".json", Qt::CaseInsensitive)) {
    QJsonArray list;
    for (const ChatMessage& m : messages)
      list.append(QJsonObject{{"role", QString::fromStdString(m.role)},
                              {"content", QString::fromStdString(m.content)}});
    const auto p = window_->currentProviderSettings();
    bytes = QJsonDocument(QJsonObject{{"provider", p ? QString::fromStdString(p->name) : ""},
                                      {"model", window_->model()},
                                      {"messages", list}})
                .toJson(QJsonDocument::Indented);
  } else {
    QString md;
    for (const ChatMessage& m : messages) {
      const QString who = m.role == "user"        ? tr("You")
                          : m.role == "assistant" ? tr("Assistant")
                                                  : tr("System");
      md += QString("**%1**\n\n%2\n\n").arg(who, QString::fromStdString(m.content));
    }
    bytes = md.toUtf8();
  }
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
    return tr("cannot write %1: %2").arg(path, f.errorString());
  return {};
}

}  // namespace ts
