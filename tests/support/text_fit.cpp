#include "tests/support/text_fit.h"

#include <QAbstractButton>
#include <QAbstractItemModel>
#include <QAbstractItemView>
#include <QAbstractScrollArea>
#include <QCheckBox>
#include <QComboBox>
#include <QCommandLinkButton>
#include <QGroupBox>
#include <QHash>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPainter>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QStyle>
#include <QStyleOptionButton>
#include <QStyleOptionComboBox>
#include <QStyleOptionFrame>
#include <QStyleOptionViewItem>
#include <QTabBar>
#include <QTableView>
#include <QTextDocument>
#include <QToolButton>
#include <QTreeView>
#include <cmath>

#include "ui/elided_label.h"

namespace ts::testing {
namespace {

// How wide `text` is as Qt draws it in `font`: the rightmost clearly inked pixel (alpha at
// least a quarter) when QPainter draws it left-aligned, with `mnemonic` "&x" underlined
// as buttons and labels with a buddy draw it. Ink, not QFontMetrics: an underlined
// mnemonic splits the text into runs that lose their kerning ("&Temperature" is drawn 2 px
// wider than its size hint), and some glyphs overhang their advance. Cached per font.
int drawnWidth(const QFont& font, const QString& text, bool mnemonic) {
  static QHash<QString, int> cache;
  const QString key = font.key() + QChar(mnemonic ? '&' : '-') + text;
  if (auto it = cache.constFind(key); it != cache.constEnd()) return *it;
  const int flags = Qt::AlignLeft | Qt::AlignTop | (mnemonic ? Qt::TextShowMnemonic : 0);
  const QFontMetrics fm(font);
  const QSize size = fm.size(flags, text);
  const int pad = 2 * fm.height();
  QImage image(size.width() + 2 * pad, size.height() + pad, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  {
    QPainter painter(&image);
    painter.setFont(font);
    painter.setPen(Qt::black);
    painter.drawText(QRect(pad, pad / 2, size.width() + pad, size.height()), flags, text);
  }
  int right = pad - 1;  // nothing inked: 0 px
  for (int x = image.width() - 1; x >= pad && right < pad; --x)
    for (int y = 0; y < image.height(); ++y)
      if (qAlpha(image.pixel(x, y)) >= 64) {
        right = x;
        break;
      }
  return cache[key] = right - pad + 1;
}

// The same for `w`'s own font.
int drawnWidth(const QWidget* w, const QString& text, bool mnemonic = true) {
  return drawnWidth(w->font(), text, mnemonic);
}

QString describe(const QWidget* w, const QString& text, int needs, int has) {
  const QWidget* window = w->window();
  return QString("%1 '%2' needs %3 px, has %4 px (in %5 %6)")
      .arg(w->metaObject()->className(), text.left(60))
      .arg(needs)
      .arg(has)
      .arg(window->metaObject()->className(), window->objectName());
}

void checkLabel(const QLabel* label, QStringList& out) {
  if (label->text().isEmpty()) return;
  // ElidedLabel draws its own cut with "…" and shows the whole text on hover.
  if (auto* elided = qobject_cast<const ui::ElidedLabel*>(label)) {
    if (elided->isElided() && !elided->toolTip().contains(label->text()))
      out << describe(label, label->text() + " (cut, and not on hover)",
                      drawnWidth(label, label->text(), false), label->width());
    return;
  }
  QRect room = label->contentsRect().adjusted(label->margin(), label->margin(), -label->margin(),
                                              -label->margin());
  // QLabel indents its text by indent(), or half an "x" when it has a frame and no indent.
  const int indent = label->indent() >= 0      ? label->indent()
                     : label->frameWidth() > 0 ? label->fontMetrics().horizontalAdvance('x') / 2
                                               : 0;
  if (label->alignment() & (Qt::AlignLeft | Qt::AlignRight)) room.setWidth(room.width() - indent);
  if (label->wordWrap()) {
    const int needs = label->heightForWidth(label->width());
    if (needs > label->height()) out << describe(label, label->text(), needs, label->height());
    return;
  }
  const bool rich = label->textFormat() == Qt::RichText ||
                    (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(label->text()));
  // A mnemonic without a buddy is drawn as it is written: "API &key" on screen.
  static const QRegularExpression mnemonic("(^|[^&])&[^& ]");
  if (!rich && !label->buddy() && mnemonic.match(label->text()).hasMatch())
    out << describe(label, label->text() + " (shows its '&': no buddy)", 0, 0);
  int needs = 0;
  if (rich) {
    QTextDocument doc;
    doc.setDefaultFont(label->font());
    doc.setDocumentMargin(0);
    doc.setHtml(label->text());
    needs = int(std::ceil(doc.idealWidth()));
  } else {
    // A label shows "&x" as a mnemonic only when it has a buddy; else the "&" is drawn.
    needs = drawnWidth(label, label->text(), label->buddy() != nullptr);
  }
  // The text may run into the label's own margins (QLabel clips at its edges, not at its
  // contents): what matters is the room from where the text starts to the far edge.
  const int has = (label->alignment() & Qt::AlignRight)  ? room.right() + 1
                  : (label->alignment() & Qt::AlignLeft) ? label->width() - room.left()
                                                         : room.width();
  if (needs > has)
    out << describe(label, label->text(), needs, has);
  else if (!rich && label->fontMetrics().height() > room.height() + 1)
    out << describe(label, label->text() + " (height)", label->fontMetrics().height(),
                    room.height());
}

// QCommandLinkButton draws its title in bold 9 pt beside its icon and wraps its
// description below (Qt's qcommandlinkbutton.cpp: margins 7 left, 4 right, 10 top and
// bottom, 6 px after the icon).
void checkCommandLink(const QCommandLinkButton* link, QStringList& out) {
  QFont title_font = link->font();
  title_font.setBold(true);
  title_font.setPointSizeF(9.0);
  const int offset = link->icon().actualSize(link->iconSize()).width() + 7 + 6;
  const int needs = drawnWidth(title_font, link->text(), true) + offset + 4;
  if (needs > link->width()) out << describe(link, link->text(), needs, link->width());
  const int tall = link->heightForWidth(link->width());
  if (tall > link->height())
    out << describe(link, link->description() + " (height)", tall, link->height());
}

// Where the style draws a button's label (its contents rect: the frame and, for check and
// radio boxes, the indicator left out) against the label's width; the margins a button
// asks for around its text are room to breathe, not needed to show it whole.
void checkButton(const QAbstractButton* button, QStringList& out) {
  if (button->text().isEmpty()) return;
  const QStyle* style = button->style();
  if (auto* link = qobject_cast<const QCommandLinkButton*>(button))
    return checkCommandLink(link, out);
  int needs = drawnWidth(button, button->text());
  const int icon = button->icon().isNull() ? 0 : button->iconSize().width() + 4;
  QStyleOptionButton opt;
  opt.initFrom(button);
  opt.text = button->text();
  opt.icon = button->icon();
  opt.iconSize = button->iconSize();
  int has = button->width();
  if (auto* tool = qobject_cast<const QToolButton*>(button)) {
    const Qt::ToolButtonStyle shape = tool->toolButtonStyle();
    if (shape == Qt::ToolButtonIconOnly || (shape == Qt::ToolButtonFollowStyle && icon)) return;
    if (shape == Qt::ToolButtonTextBesideIcon) needs += icon;
    has -= 2 * style->pixelMetric(QStyle::PM_DefaultFrameWidth, nullptr, button);
    if (tool->popupMode() == QToolButton::MenuButtonPopup)
      has -= style->pixelMetric(QStyle::PM_MenuButtonIndicator, nullptr, button);
  } else if (qobject_cast<const QCheckBox*>(button)) {
    needs += icon;
    has = style->subElementRect(QStyle::SE_CheckBoxContents, &opt, button).width();
  } else if (qobject_cast<const QRadioButton*>(button)) {
    needs += icon;
    has = style->subElementRect(QStyle::SE_RadioButtonContents, &opt, button).width();
  } else if (auto* push = qobject_cast<const QPushButton*>(button)) {
    needs += icon;
    if (push->isDefault()) opt.features |= QStyleOptionButton::DefaultButton;
    if (push->autoDefault()) opt.features |= QStyleOptionButton::AutoDefaultButton;
    if (push->menu()) {
      opt.features |= QStyleOptionButton::HasMenu;
      needs += style->pixelMetric(QStyle::PM_MenuButtonIndicator, &opt, button);
    }
    has = style->subElementRect(QStyle::SE_PushButtonContents, &opt, button).width();
  }
  if (needs > has) out << describe(button, button->text(), needs, has);
}

// The current text against the edit field the style draws it in (the arrow and frame left
// out).
void checkCombo(const QComboBox* combo, QStringList& out) {
  const QString text = combo->currentText();
  if (text.isEmpty() || combo->isEditable()) return;
  // ElidedComboBox draws its own cut with "…" and shows the whole text on hover.
  if (auto* elided = qobject_cast<const ui::ElidedComboBox*>(combo)) {
    if (elided->isElided() && !elided->toolTip().contains(text))
      out << describe(combo, text + " (cut, and not on hover)", drawnWidth(combo, text, false),
                      combo->width());
    return;
  }
  QStyleOptionComboBox opt;
  opt.initFrom(combo);
  opt.currentText = text;
  opt.editable = false;
  opt.frame = combo->hasFrame();
  int needs = drawnWidth(combo, text, false);
  const QIcon icon = combo->itemIcon(combo->currentIndex());
  if (!icon.isNull()) needs += combo->iconSize().width() + 4;
  const int has =
      combo->style()
          ->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, combo)
          .width();
  if (needs > has) out << describe(combo, text, needs, has);
}

void checkHeader(const QHeaderView* header, QStringList& out) {
  if (!header->model() || header->orientation() != Qt::Horizontal) return;
  const int margin = header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
  for (int i = 0; i < header->count(); ++i) {
    if (header->isSectionHidden(i) || header->sectionSize(i) <= 0) continue;
    const QString text = header->model()->headerData(i, Qt::Horizontal).toString();
    if (text.isEmpty()) continue;
    int needs = drawnWidth(header, text, false) + 2 * margin;
    if (header->isSortIndicatorShown() && header->sortIndicatorSection() == i) needs += 12;
    if (needs > header->sectionSize(i))
      out << describe(header, text, needs, header->sectionSize(i));
  }
}

// Each shown cell's text against its cell: the delegate's size hint for the cell's width
// (its height when the view wraps words, whose lines may still be too wide for a long
// word) against the cell. A cell cut with "…" whose tooltip holds its whole text is whole
// on hover, like ElidedLabel. At most the first 200 rows.
void checkCells(const QAbstractItemView* view, QStringList& out) {
  const QAbstractItemModel* model = view->model();
  if (!model) return;
  const auto* table = qobject_cast<const QTableView*>(view);
  const auto* tree = qobject_cast<const QTreeView*>(view);
  const auto* list = qobject_cast<const QListView*>(view);
  const bool wraps = table  ? table->wordWrap()
                     : tree ? tree->wordWrap()
                     : list ? list->wordWrap()
                            : false;
  const QModelIndex root = view->rootIndex();
  const int rows = std::min(model->rowCount(root), 200);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < model->columnCount(root); ++c) {
      const QModelIndex index = model->index(r, c, root);
      if (table && (table->isRowHidden(r) || table->isColumnHidden(c))) continue;
      if (tree && (tree->isRowHidden(r, root) || tree->isColumnHidden(c))) continue;
      const QString text = index.data(Qt::DisplayRole).toString();
      const QRect cell = view->visualRect(index);
      if (text.isEmpty() || cell.width() <= 0 || cell.height() <= 0) continue;
      QStyleOptionViewItem opt;
      opt.initFrom(view);
      opt.rect = cell;
      opt.font = view->font();
      opt.decorationSize = view->iconSize().isValid()
                               ? view->iconSize()
                               : QSize(view->style()->pixelMetric(QStyle::PM_SmallIconSize),
                                       view->style()->pixelMetric(QStyle::PM_SmallIconSize));
      opt.textElideMode = view->textElideMode();
      if (wraps) opt.features |= QStyleOptionViewItem::WrapText;
      const QSize needs = view->itemDelegateForIndex(index)->sizeHint(opt, index);
      const bool wide = needs.width() > cell.width(),
                 tall = wraps && needs.height() > cell.height();
      if (!wide && !tall) continue;
      if (index.data(Qt::ToolTipRole).toString().contains(text)) continue;  // whole on hover
      out << (tall ? describe(view, text + " (height)", needs.height(), cell.height())
                   : describe(view, text, needs.width(), cell.width()));
    }
  }
}

// An empty line edit's placeholder (what to type there) against the room the style gives
// its text; a typed text scrolls and is not measured.
void checkPlaceholder(const QLineEdit* edit, QStringList& out) {
  const QString hint = edit->placeholderText();
  if (!edit->text().isEmpty() || hint.isEmpty()) return;
  QStyleOptionFrame opt;
  opt.initFrom(edit);
  opt.lineWidth = edit->hasFrame() ? edit->style()->pixelMetric(QStyle::PM_DefaultFrameWidth) : 0;
  const QMargins m = edit->textMargins();
  const int has = edit->style()->subElementRect(QStyle::SE_LineEditContents, &opt, edit).width() -
                  m.left() - m.right() - 4;  // QLineEdit's own 2 px a side
  const int needs = drawnWidth(edit, hint, false);
  if (needs > has && !edit->toolTip().contains(hint))  // Qt draws it cut with "…"
    out << describe(edit, hint + " (placeholder)", needs, has);
}

// A text widget that its containers cut: part of it lies outside a parent (up to `root`),
// so whatever it draws there is not seen. Scrolled content (inside a scroll area's
// viewport) is reachable and not counted.
void checkContainers(const QWidget* w, const QWidget* root, QStringList& out) {
  QRect shown(w->mapTo(root, QPoint(0, 0)), w->size());
  const QRect whole = shown;
  for (const QWidget* p = w->parentWidget(); p && p != root->parentWidget();
       p = p->parentWidget()) {
    if (qobject_cast<const QAbstractScrollArea*>(p->parentWidget())) return;  // a viewport
    shown &= QRect(p->mapTo(root, QPoint(0, 0)), p->size());
  }
  if (shown.width() < whole.width() || shown.height() < whole.height())
    out << describe(w, "(cut by its container)", whole.width(), shown.width());
}

}  // namespace

QStringList clippedTexts(const QWidget* root) {
  QStringList out;
  QList<const QWidget*> widgets{root};
  for (const QWidget* w : root->findChildren<QWidget*>()) widgets << w;
  for (const QWidget* w : widgets) {
    if (!w->isVisibleTo(root) && w != root) continue;
    if (w->width() <= 0 || w->height() <= 0) continue;  // collapsed by the user's splitter
    const bool text = qobject_cast<const QLabel*>(w) || qobject_cast<const QAbstractButton*>(w) ||
                      qobject_cast<const QComboBox*>(w);
    if (text && w != root) checkContainers(w, root, out);
    if (auto* label = qobject_cast<const QLabel*>(w))
      checkLabel(label, out);
    else if (auto* button = qobject_cast<const QAbstractButton*>(w))
      checkButton(button, out);
    else if (auto* combo = qobject_cast<const QComboBox*>(w))
      checkCombo(combo, out);
    else if (auto* header = qobject_cast<const QHeaderView*>(w))
      checkHeader(header, out);
    else if (auto* view = qobject_cast<const QAbstractItemView*>(w))
      checkCells(view, out);

    else if (auto* box = qobject_cast<const QGroupBox*>(w)) {
      const int needs = drawnWidth(box, box->title()) + 16;
      if (!box->title().isEmpty() && needs > box->width())
        out << describe(box, box->title(), needs, box->width());
    } else if (auto* tabs = qobject_cast<const QTabBar*>(w)) {
      for (int i = 0; i < tabs->count(); ++i) {
        const int needs = drawnWidth(tabs, tabs->tabText(i)) + 12;
        if (tabs->isTabVisible(i) && needs > tabs->tabRect(i).width())
          out << describe(tabs, tabs->tabText(i), needs, tabs->tabRect(i).width());
      }
    }
  }
  return out;
}

QStringList clippedPlaceholders(const QWidget* root) {
  QStringList out;
  for (const QLineEdit* edit : root->findChildren<QLineEdit*>())
    if (edit->isVisibleTo(root) && edit->width() > 0) checkPlaceholder(edit, out);
  return out;
}

QStringList visibleScrollBars(const QWidget* root) {
  QStringList out;
  for (const QAbstractScrollArea* area : root->findChildren<QAbstractScrollArea*>()) {
    if (!area->isVisibleTo(root)) continue;
    const QString name =
        area->objectName().isEmpty() ? area->metaObject()->className() : area->objectName();
    if (area->horizontalScrollBar()->isVisible()) out << name + ": horizontal scrollbar";
    if (area->verticalScrollBar()->isVisible()) out << name + ": vertical scrollbar";
  }
  return out;
}

}  // namespace ts::testing
