#include "ui/elided_label.h"

#include <QFontMetrics>
#include <QPainter>
#include <QResizeEvent>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QStylePainter>

namespace ts::ui {
namespace {
constexpr int kMinChars = 6;  // the narrowest it gets: about "12.3 …"
}  // namespace

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  setWordWrap(false);
  setTextFormat(Qt::PlainText);
}

void ElidedLabel::setFullText(const QString& text) {
  if (text == this->text()) return;
  setText(text);  // updates the size hint
  refreshTip();
}

void ElidedLabel::setHint(const QString& hint) {
  hint_ = hint;
  refreshTip();
}

QSize ElidedLabel::sizeHint() const {
  const QMargins m = contentsMargins();
  const QFontMetrics fm(font());
  return {fm.horizontalAdvance(text()) + m.left() + m.right() + 2 * margin() + 1,
          fm.height() + m.top() + m.bottom() + 2 * margin()};
}

QSize ElidedLabel::minimumSizeHint() const {
  const int narrowest = QFontMetrics(font()).averageCharWidth() * kMinChars;
  const QSize full = sizeHint();
  return {std::min(full.width(), narrowest), full.height()};
}

QString ElidedLabel::shownText() const {
  const QRect room = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
  return QFontMetrics(font()).elidedText(text(), Qt::ElideRight, std::max(0, room.width()));
}

bool ElidedLabel::isElided() const {
  return shownText() != text();
}

void ElidedLabel::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QRect room = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
  style()->drawItemText(&p, room, static_cast<int>(alignment()) | Qt::TextSingleLine, palette(),
                        isEnabled(), shownText(), foregroundRole());
}

void ElidedLabel::resizeEvent(QResizeEvent* event) {
  QLabel::resizeEvent(event);
  refreshTip();
}

void ElidedLabel::refreshTip() {
  QString tip = hint_;
  if (isElided()) tip = tip.isEmpty() ? text() : text() + "\n\n" + tip;
  setToolTip(tip);
}

ElidedComboBox::ElidedComboBox(QWidget* parent) : QComboBox(parent) {
  connect(this, &QComboBox::currentTextChanged, this, &ElidedComboBox::refreshTip);
}

void ElidedComboBox::setHint(const QString& hint) {
  hint_ = hint;
  refreshTip();
}

QRect ElidedComboBox::textRoom() const {
  QStyleOptionComboBox opt;
  initStyleOption(&opt);
  return style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, this);
}

bool ElidedComboBox::isElided() const {
  return !isEditable() &&
         fontMetrics().horizontalAdvance(currentText()) > textRoom().width() - 2;  // 1 px a side
}

void ElidedComboBox::paintEvent(QPaintEvent* event) {
  if (isEditable()) return QComboBox::paintEvent(event);
  QStylePainter p(this);
  p.setPen(palette().color(QPalette::Text));
  QStyleOptionComboBox opt;
  initStyleOption(&opt);
  p.drawComplexControl(QStyle::CC_ComboBox, opt);
  opt.currentText = fontMetrics().elidedText(opt.currentText, Qt::ElideRight,
                                             std::max(0, textRoom().width() - 2));
  p.drawControl(QStyle::CE_ComboBoxLabel, opt);
}

void ElidedComboBox::resizeEvent(QResizeEvent* event) {
  QComboBox::resizeEvent(event);
  refreshTip();
}

void ElidedComboBox::refreshTip() {
  QString tip = hint_;
  if (isElided()) tip = tip.isEmpty() ? currentText() : currentText() + "\n\n" + tip;
  setToolTip(tip);
}

}  // namespace ts::ui
