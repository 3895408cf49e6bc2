#include "ui/chat_panel.h"

#include <QClipboard>
#include <QDesktopServices>
#include <QEvent>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QShortcut>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QUrl>
#include <QVBoxLayout>

#include "ui/markdown_segments.h"
#include "ui/palette_scheme.h"

namespace ts::ui {
namespace {

// Answers come from a remote model: Markdown, but never raw HTML.
const auto kMarkdownFeatures = QTextDocument::MarkdownFeatures(
    QTextDocument::MarkdownDialectGitHub | QTextDocument::MarkdownNoHTML);

QTextCharFormat headerFormat() {
  QTextCharFormat f;
  f.setFontWeight(QFont::Bold);
  return f;
}

QTextCharFormat bodyFormat() {
  return QTextCharFormat();
}

// A Copy button: a link the transcript handles itself (openLink), drawn in the palette's
// link colour, smaller than the text around it.
QTextCharFormat copyButtonFormat(const QString& href, const QString& tooltip,
                                 const QPalette& palette) {
  QTextCharFormat f;
  f.setForeground(palette.brush(QPalette::Link));
  f.setAnchor(true);
  f.setAnchorHref(href);
  f.setFontPointSize(8);
  f.setFontWeight(QFont::Normal);
  f.setToolTip(tooltip);
  return f;
}

// Accepted draft tokens carry this property; marked, they are painted on green.
constexpr int kDraftedProperty = QTextFormat::UserProperty + 1;

QTextCharFormat draftedFormat(bool marked, bool dark) {
  QTextCharFormat f;
  f.setProperty(kDraftedProperty, true);
  // Pale green on light backgrounds, deep green on dark ones: the draft got it right.
  if (marked) f.setBackground(dark ? QColor(0x1e, 0x5a, 0x3a) : QColor(0xd5, 0xf5, 0xe3));
  return f;
}

QTextCharFormat noteFormat(bool is_error, bool dark) {
  QTextCharFormat f;
  if (is_error)
    f.setForeground(dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xc0, 0x39, 0x2b));
  else
    f.setForeground(dark ? QColor(0xa0, 0xa8, 0xab) : QColor(0x7f, 0x8c, 0x8d));
  return f;
}

// Moves `c` to a new paragraph at the end of the document (the first one reuses the
// document's empty block), with `format` as its character format.
void newParagraph(QTextCursor& c, const QTextCharFormat& format, double top_margin = 0) {
  c.movePosition(QTextCursor::End);
  QTextBlockFormat block;
  block.setTopMargin(top_margin);
  if (c.document()->isEmpty())
    c.setBlockFormat(block);
  else
    c.insertBlock(block, format);
  c.setCharFormat(format);
}

}  // namespace

ChatPanel::ChatPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  transcript_ = new QTextBrowser(this);
  transcript_->setObjectName("transcript");
  transcript_->setOpenLinks(false);        // copy: links are ours; web links go through openLink
  transcript_->setUndoRedoEnabled(false);  // re-rendering must not pile up undo history
  transcript_->setPlaceholderText(tr("Pick a provider, type a message and press Ctrl+Return."));
  connect(transcript_, &QTextBrowser::anchorClicked, this, &ChatPanel::openLink);
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
  append({Entry::User, tr("You"), text});
}

void ChatPanel::beginAssistantMessage(const QString& label) {
  last_answer_.clear();
  Entry e{Entry::Assistant, label};
  e.streaming = true;
  append(e);
}

void ChatPanel::appendAssistantText(const QString& text, bool drafted) {
  if (text.isEmpty() || entries_.isEmpty()) return;
  int index = static_cast<int>(entries_.size()) - 1;
  while (index >= 0 && !entries_[index].streaming) --index;
  if (index < 0) return;
  Entry& e = entries_[index];
  if (drafted) e.drafted.append({static_cast<int>(e.text.size()), static_cast<int>(text.size())});
  e.text += text;
  last_answer_ = e.text;
  if (index != entries_.size() - 1) {  // a note arrived meanwhile: the answer stays above it
    renderFrom(index);
    return;
  }
  QScrollBar* bar = transcript_->verticalScrollBar();
  const bool follow = bar->value() >= bar->maximum() - 4;  // keep following unless scrolled up
  QTextCursor c(transcript_->document());
  c.movePosition(QTextCursor::End);
  c.insertText(text,
               drafted ? draftedFormat(mark_drafted_, isDarkPalette(palette())) : bodyFormat());
  if (follow) bar->setValue(bar->maximum());
}

void ChatPanel::finishAssistantMessage() {
  int first = -1;  // the first answer that now looks different
  for (int i = 0; i < entries_.size(); ++i)
    if (entries_[i].streaming) {
      entries_[i].streaming = false;
      if (first < 0 && rendersMarkdown(entries_[i])) first = i;
    }
  if (first < 0) return;
  QScrollBar* bar = transcript_->verticalScrollBar();
  const bool at_end = bar->value() >= bar->maximum() - 4;
  renderFrom(first);
  if (at_end) bar->setValue(bar->maximum());
}

void ChatPanel::endAssistantMessage(const QString& note, bool is_error, const QString& action,
                                    const QString& action_label) {
  if (note.isEmpty()) return;
  Entry e{Entry::Note, QString(), note};
  e.is_error = is_error;
  e.action = action;
  e.action_label = action_label;
  append(e);
  transcript_->verticalScrollBar()->setValue(transcript_->verticalScrollBar()->maximum());
}

void ChatPanel::clearTranscript() {
  entries_.clear();
  starts_.clear();
  transcript_->clear();
  last_answer_.clear();
}

QString ChatPanel::transcriptText() const {
  QStringList out;
  for (const Entry& e : entries_) {
    if (e.kind != Entry::Note) out << e.label;
    out << e.text;
  }
  return out.join('\n');
}

void ChatPanel::setMarkDrafted(bool on) {
  if (mark_drafted_ == on) return;
  mark_drafted_ = on;
  rebuild();
}

void ChatPanel::setRenderMarkdown(bool on) {
  if (markdown_ == on) return;
  markdown_ = on;
  rebuild();
}

QString ChatPanel::draftedText() const {
  QString out;
  for (const Entry& e : entries_)
    for (const auto& [offset, length] : e.drafted) out += e.text.mid(offset, length);
  return out;
}

QString ChatPanel::copyText(int index, int block) const {
  if (index < 0 || index >= entries_.size()) return {};
  const Entry& e = entries_[index];
  if (block < 0) return e.text;
  int k = 0;
  for (const MarkdownSegment& s : splitFencedCode(e.text))
    if (s.is_code && k++ == block) return s.code;
  return {};
}

QStringList ChatPanel::copyLinks() const {
  QStringList out;
  const QTextDocument* doc = transcript_->document();
  for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
    for (auto it = b.begin(); !it.atEnd(); ++it) {
      const QString href = it.fragment().charFormat().anchorHref();
      if (href.startsWith("copy:")) out << href;
    }
  return out;
}

void ChatPanel::openLink(const QUrl& url) {
  if (url.scheme() == "copy") {
    // copy:message/N or copy:code/N/K
    const QStringList parts = url.path().split('/');
    const bool code = parts.value(0) == "code";
    const int index = parts.value(1).toInt();
    const QString text = copyText(index, code ? parts.value(2).toInt() : -1);
    if (text.isEmpty()) return;
    QGuiApplication::clipboard()->setText(text);
    emit copied(code ? tr("Copied the code block to the clipboard.")
                     : tr("Copied the message to the clipboard."));
  } else if (url.scheme() == "tokenscope") {  // a note's action: tokenscope:use-cpu
    emit actionRequested(url.path());
  } else if (url.scheme() == "http" || url.scheme() == "https" || url.scheme() == "mailto") {
    QDesktopServices::openUrl(url);
  }
}

void ChatPanel::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) rebuild();  // colours follow light / dark
}

void ChatPanel::append(Entry entry) {
  entries_.append(std::move(entry));
  renderFrom(static_cast<int>(entries_.size()) - 1);
}

void ChatPanel::rebuild() {
  QScrollBar* bar = transcript_->verticalScrollBar();
  const bool at_end = bar->value() >= bar->maximum() - 4;
  const int value = bar->value();
  renderFrom(0);
  bar->setValue(at_end ? bar->maximum() : value);
}

void ChatPanel::renderFrom(int index) {
  QTextCursor c(transcript_->document());
  // One edit block: the document is laid out once at the end, not after every insert
  // (which made re-rendering a long chat take seconds).
  c.beginEditBlock();
  if (index < starts_.size()) {
    c.setPosition(starts_[index]);
    c.movePosition(QTextCursor::End, QTextCursor::KeepAnchor);
    c.removeSelectedText();
    starts_.resize(index);
  }
  for (int i = index; i < entries_.size(); ++i) {
    c.movePosition(QTextCursor::End);
    starts_.append(c.position());
    render(c, entries_[i], i);
  }
  c.endEditBlock();
}

bool ChatPanel::rendersMarkdown(const Entry& e) const {
  return e.kind == Entry::Assistant && !e.streaming && markdown_ &&
         !(mark_drafted_ && !e.drafted.isEmpty());
}

void ChatPanel::render(QTextCursor& c, const Entry& e, int index) const {
  const bool dark = isDarkPalette(palette());
  if (e.kind == Entry::Note) {
    newParagraph(c, noteFormat(e.is_error, dark));
    c.insertText(e.text);
    if (!e.action.isEmpty()) {
      QTextCharFormat link = noteFormat(false, dark);
      link.setForeground(palette().brush(QPalette::Link));
      link.setAnchor(true);
      link.setAnchorHref(e.action);
      link.setFontUnderline(true);
      c.insertText("  ", noteFormat(e.is_error, dark));
      c.insertText(e.action_label, link);
    }
    return;
  }
  newParagraph(c, headerFormat(), 10);
  c.insertText(e.label + "   ");
  c.insertText(tr("Copy"),
               copyButtonFormat(QString("copy:message/%1").arg(index),
                                tr("Copy this message as written (Markdown)"), palette()));
  if (e.kind == Entry::User) {
    newParagraph(c, bodyFormat());
    c.insertText(e.text);
  } else if (rendersMarkdown(e)) {
    renderMarkdownAnswer(c, e, index);
  } else {
    renderPlainAnswer(c, e);
  }
}

void ChatPanel::renderPlainAnswer(QTextCursor& c, const Entry& e) const {
  newParagraph(c, bodyFormat());
  const QTextCharFormat drafted = draftedFormat(mark_drafted_, isDarkPalette(palette()));
  int at = 0;
  for (const auto& [offset, length] : e.drafted) {
    c.insertText(e.text.mid(at, offset - at), bodyFormat());
    c.insertText(e.text.mid(offset, length), drafted);
    at = offset + length;
  }
  c.insertText(e.text.mid(at), bodyFormat());
}

void ChatPanel::renderMarkdownAnswer(QTextCursor& c, const Entry& e, int index) const {
  int block = 0;
  for (const MarkdownSegment& s : splitFencedCode(e.text)) {
    if (s.is_code) {
      newParagraph(c, bodyFormat(), 4);
      if (!s.language.isEmpty())
        c.insertText(s.language + "   ", noteFormat(false, isDarkPalette(palette())));
      c.insertText(tr("Copy code"),
                   copyButtonFormat(QString("copy:code/%1/%2").arg(index).arg(block++),
                                    tr("Copy this code block"), palette()));
    }
    newParagraph(c, bodyFormat());
    const int start = c.position();
    c.insertMarkdown(s.source, kMarkdownFeatures);
    if (!s.is_code) continue;
    // Code stands on a shaded background, as in an editor.
    QTextBlockFormat shaded;
    shaded.setBackground(palette().brush(QPalette::AlternateBase));
    for (QTextBlock b = c.document()->findBlock(start); b.isValid(); b = b.next()) {
      QTextCursor(b).mergeBlockFormat(shaded);
      if (b == c.block()) break;
    }
  }
}

}  // namespace ts::ui
