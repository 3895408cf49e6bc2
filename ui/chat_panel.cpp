#include "ui/chat_panel.h"

#include <QHBoxLayout>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QShortcut>
#include <QTextBlock>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace ts::ui {
namespace {

QTextCharFormat headerFormat() {
  QTextCharFormat f;
  f.setFontWeight(QFont::Bold);
  return f;
}

QTextCharFormat bodyFormat() {
  return QTextCharFormat();
}

// Accepted draft tokens carry this property whether or not they are marked, so the
// toggle can mark or unmark them afterwards.
constexpr int kDraftedProperty = QTextFormat::UserProperty + 1;
const QColor kDraftedBackground(0xd5, 0xf5, 0xe3);  // pale green: the draft got it right

QTextCharFormat draftedFormat(bool marked) {
  QTextCharFormat f;
  f.setProperty(kDraftedProperty, true);
  if (marked) f.setBackground(kDraftedBackground);
  return f;
}

QTextCharFormat noteFormat(bool is_error) {
  QTextCharFormat f;
  f.setForeground(is_error ? QColor(0xc0, 0x39, 0x2b) : QColor(0x7f, 0x8c, 0x8d));
  return f;
}

// A new paragraph at the end of the transcript, in `format`; returns the cursor there.
QTextCursor newParagraph(QTextDocument* doc, const QString& text, const QTextCharFormat& format,
                         double top_margin = 0) {
  QTextCursor c(doc);
  c.movePosition(QTextCursor::End);
  QTextBlockFormat block;
  block.setTopMargin(top_margin);
  if (!doc->isEmpty())
    c.insertBlock(block, format);
  else
    c.setBlockFormat(block);
  c.setCharFormat(format);
  c.insertText(text, format);
  return c;
}

}  // namespace

ChatPanel::ChatPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  transcript_ = new QTextBrowser(this);
  transcript_->setObjectName("transcript");
  transcript_->setOpenExternalLinks(true);
  transcript_->setPlaceholderText(tr("Pick a provider, type a message and press Ctrl+Return."));
  layout->addWidget(transcript_, 1);

  auto* row = new QHBoxLayout();
  input_ = new QPlainTextEdit(this);
  input_->setObjectName("input");
  input_->setPlaceholderText(tr("Message (Ctrl+Return to send)"));
  input_->setMaximumHeight(90);
  row->addWidget(input_, 1);
  auto* buttons = new QVBoxLayout();
  send_ = new QPushButton(tr("&Send"), this);
  send_->setObjectName("sendButton");
  send_->setToolTip(tr("Send (Ctrl+Return)"));
  stop_ = new QPushButton(tr("Sto&p"), this);
  stop_->setObjectName("stopButton");
  stop_->setToolTip(tr("Stop generating and keep what arrived (Esc)"));
  stop_->setEnabled(false);
  buttons->addWidget(send_);
  buttons->addWidget(stop_);
  row->addLayout(buttons);
  layout->addLayout(row);

  connect(send_, &QPushButton::clicked, this, &ChatPanel::sendClicked);
  connect(stop_, &QPushButton::clicked, this, &ChatPanel::stopClicked);
  for (const auto& key :
       {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)}) {
    auto* shortcut = new QShortcut(key, this);
    shortcut->setContext(Qt::WindowShortcut);
    connect(shortcut, &QShortcut::activated, this, [this] {
      if (send_->isEnabled()) emit sendClicked();
    });
  }
  auto* esc = new QShortcut(QKeySequence(Qt::Key_Escape), this);
  esc->setContext(Qt::WindowShortcut);
  connect(esc, &QShortcut::activated, this, [this] {
    if (stop_->isEnabled()) emit stopClicked();
  });
}

QString ChatPanel::inputText() const {
  return input_->toPlainText().trimmed();
}
void ChatPanel::setInputText(const QString& text) {
  input_->setPlainText(text);
}
void ChatPanel::clearInput() {
  input_->clear();
}
void ChatPanel::focusInput() {
  input_->setFocus();
}

void ChatPanel::setBusy(bool busy) {
  send_->setEnabled(!busy);
  stop_->setEnabled(busy);
}

void ChatPanel::appendUserMessage(const QString& text) {
  newParagraph(transcript_->document(), tr("You"), headerFormat(), 10);
  newParagraph(transcript_->document(), text, bodyFormat());
}

void ChatPanel::beginAssistantMessage(const QString& label) {
  last_answer_.clear();
  newParagraph(transcript_->document(), label, headerFormat(), 10);
  newParagraph(transcript_->document(), QString(), bodyFormat());
}

void ChatPanel::appendAssistantText(const QString& text, bool drafted) {
  if (text.isEmpty()) return;
  last_answer_ += text;
  QScrollBar* bar = transcript_->verticalScrollBar();
  const bool follow = bar->value() >= bar->maximum() - 4;  // keep following unless scrolled up
  QTextCursor c(transcript_->document());
  c.movePosition(QTextCursor::End);
  c.insertText(text, drafted ? draftedFormat(mark_drafted_) : bodyFormat());
  if (follow) bar->setValue(bar->maximum());
}

void ChatPanel::endAssistantMessage(const QString& note, bool is_error) {
  if (note.isEmpty()) return;
  newParagraph(transcript_->document(), note, noteFormat(is_error));
  transcript_->verticalScrollBar()->setValue(transcript_->verticalScrollBar()->maximum());
}

void ChatPanel::clearTranscript() {
  transcript_->clear();
  last_answer_.clear();
}

QString ChatPanel::transcriptText() const {
  return transcript_->toPlainText();
}

void ChatPanel::setMarkDrafted(bool on) {
  mark_drafted_ = on;
  QTextDocument* doc = transcript_->document();
  QList<QPair<int, int>> ranges;  // (position, length): collected first, formats change below
  for (QTextBlock block = doc->begin(); block.isValid(); block = block.next())
    for (auto it = block.begin(); !it.atEnd(); ++it)
      if (it.fragment().charFormat().property(kDraftedProperty).toBool())
        ranges.append({it.fragment().position(), it.fragment().length()});
  for (const auto& [position, length] : ranges) {
    QTextCursor c(doc);
    c.setPosition(position);
    c.setPosition(position + length, QTextCursor::KeepAnchor);
    c.setCharFormat(draftedFormat(on));
  }
}

QString ChatPanel::draftedText() const {
  QString out;
  const QTextDocument* doc = transcript_->document();
  for (QTextBlock block = doc->begin(); block.isValid(); block = block.next())
    for (auto it = block.begin(); !it.atEnd(); ++it)
      if (it.fragment().charFormat().property(kDraftedProperty).toBool())
        out += it.fragment().text();
  return out;
}

}  // namespace ts::ui
