// The conversation: a transcript that grows as the answer streams, an input box, and
// Send (Ctrl+Return) / Stop (Esc) buttons. Finished answers are rendered as Markdown;
// every message has a Copy button and so does every fenced code block in an answer.
#pragma once
#include <QList>
#include <QPair>
#include <QString>
#include <QWidget>

class QPlainTextEdit;
class QPushButton;
class QTextBrowser;
class QTextCursor;
class QUrl;

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
  // The answer is complete: it is shown rendered as Markdown from now on.
  void finishAssistantMessage();
  // A note under the answer (why it stopped, a warning, an error).
  // `action`: a link after the note ("tokenscope:NAME"; clicking it emits actionRequested
  // with NAME) labelled `action_label`; empty: none.
  void endAssistantMessage(const QString& note, bool is_error, const QString& action = {},
                           const QString& action_label = {});
  void clearTranscript();
  QString lastAssistantText() const { return last_answer_; }
  // Labels, messages as written (Markdown source) and notes, without the Copy buttons.
  QString transcriptText() const;
  // Shows accepted draft tokens on a highlight (every answer so far, and those to come).
  // Answers with draft tokens are shown as plain text while marked, so the marks are exact.
  void setMarkDrafted(bool on);
  bool marksDrafted() const { return mark_drafted_; }
  // The text of the transcript's accepted draft tokens, in order (for tests and copying).
  QString draftedText() const;
  // Off: answers stay plain text, as they streamed.
  void setRenderMarkdown(bool on);

  // What the Copy buttons copy: message `index` (0 = first in the transcript) or its
  // code block `block` (0 = first fenced block of that message). Empty if there is none.
  QString copyText(int index, int block = -1) const;
  // The links behind the Copy buttons on screen, in document order ("copy:message/2",
  // "copy:code/2/0"): what a click would copy is `copyText` of the same numbers.
  QStringList copyLinks() const;
  // Follows a transcript link: copy:… to the clipboard (and emits `copied`), web links
  // to the browser.
  void openLink(const QUrl& url);

 signals:
  void sendClicked();
  void stopClicked();
  void copied(const QString& status);         // what was copied, for the status bar
  void actionRequested(const QString& name);  // a note's action link: "use-cpu"

 protected:
  void changeEvent(QEvent* event) override;

 private:
  struct Entry {
    enum Kind { User, Assistant, Note } kind = User;
    QString label{};                   // User / Assistant: the header
    QString text{};                    // the message, or the note
    QList<QPair<int, int>> drafted{};  // Assistant: (offset, length) of accepted draft text
    bool streaming = false;            // Assistant: still arriving (plain text until done)
    bool is_error = false;             // Note
    QString action{}, action_label{};  // Note: its link, if any
  };
  void append(Entry entry);
  void rebuild();              // the whole document again from entries_ (keeps the scroll position)
  void renderFrom(int index);  // entries_[index…] again, replacing what they showed
  void render(QTextCursor& c, const Entry& e, int index) const;
  void renderPlainAnswer(QTextCursor& c, const Entry& e) const;
  void renderMarkdownAnswer(QTextCursor& c, const Entry& e, int index) const;
  bool rendersMarkdown(const Entry& e) const;

  QTextBrowser* transcript_;
  QPlainTextEdit* input_;
  QPushButton* send_;
  QPushButton* stop_;
  QList<Entry> entries_;
  QList<int> starts_;  // where each entry begins in the document
  QString last_answer_;
  bool mark_drafted_ = false;
  bool markdown_ = true;
};

}  // namespace ts::ui
