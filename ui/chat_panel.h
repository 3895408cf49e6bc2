// The conversation: a transcript that grows as the answer streams, an input box, and
// Send (Ctrl+Return) / Stop (Esc) buttons.
#pragma once
#include <QString>
#include <QWidget>

class QPlainTextEdit;
class QPushButton;
class QTextBrowser;

namespace ts::ui {

class ChatPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ChatPanel(QWidget* parent = nullptr);

  QString inputText() const;
  void clearInput();
  void setInputText(const QString& text);
  void focusInput();
  void setBusy(bool busy);  // Send disabled / Stop enabled while a run streams

  void appendUserMessage(const QString& text);
  void beginAssistantMessage(const QString& label);
  // Streamed pieces, batched by the caller; `drafted`: accepted speculative draft tokens.
  void appendAssistantText(const QString& text, bool drafted = false);
  void endAssistantMessage(const QString& note, bool is_error);
  void clearTranscript();
  QString lastAssistantText() const { return last_answer_; }
  QString transcriptText() const;
  // Shows accepted draft tokens on a highlight (every answer so far, and those to come).
  void setMarkDrafted(bool on);
  bool marksDrafted() const { return mark_drafted_; }
  // The text of the transcript's accepted draft tokens, in order (for tests and copying).
  QString draftedText() const;

 signals:
  void sendClicked();
  void stopClicked();

 private:
  QTextBrowser* transcript_;
  QPlainTextEdit* input_;
  QPushButton* send_;
  QPushButton* stop_;
  QString last_answer_;
  bool mark_drafted_ = false;
};

}  // namespace ts::ui
