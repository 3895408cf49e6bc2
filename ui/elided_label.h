// A one-line label that never asks for more width than a few characters: when its text
// does not fit it is drawn cut with "…" and the whole text is shown on hover. text() is
// always the whole text. Long values (a metric with a histogram, a status message) then
// cannot widen the window.
#pragma once
#include <QComboBox>
#include <QLabel>

namespace ts::ui {

class ElidedLabel : public QLabel {
  Q_OBJECT
 public:
  explicit ElidedLabel(QWidget* parent = nullptr);
  void setFullText(const QString& text);  // setText, and the tooltip follows
  // Shown on hover, under the whole text when that is cut ("" none).
  void setHint(const QString& hint);
  bool isElided() const;  // drawn cut now
  QSize minimumSizeHint() const override;
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  QString shownText() const;  // the text as drawn at the current width
  void refreshTip();

  QString hint_;
};

// A (non-editable) combo box that draws its current text cut with "…" when the box is
// narrower than it (QComboBox would clip it mid-letter), the whole text on hover; the
// list shows every item whole. Long provider names then need no room in a toolbar.
class ElidedComboBox : public QComboBox {
  Q_OBJECT
 public:
  explicit ElidedComboBox(QWidget* parent = nullptr);
  bool isElided() const;  // the current text is drawn cut now
  // Shown on hover, under the whole text when that is cut ("" none).
  void setHint(const QString& hint);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  QRect textRoom() const;  // where the style draws the current text
  void refreshTip();

  QString hint_;
};

}  // namespace ts::ui
