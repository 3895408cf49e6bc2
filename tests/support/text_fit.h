// Text that a user would see cut: a widget whose text, measured with its own font, needs
// more room than its geometry gives it. Used by the window tours (every named window at
// 1024 × 700 and 1600 × 1000, English and Chinese) — the same measure the chart-title
// test applies to axis titles, applied to every visible widget of a window.
#pragma once

#include <QString>
#include <QStringList>

class QWidget;

namespace ts::testing {

// One line per visible widget under `root` (itself included) whose text does not fit:
//   "QLabel '&Temperature' needs 77 px, has 76 px (in ts::ui::MainWindow )"
// Text is measured by its ink as Qt draws it in the widget's font (an underlined mnemonic
// loses its kerning; glyphs overhang), against the room the style draws it in: QLabel (one
// line: width from where the text starts; word-wrapped: heightForWidth vs height; rich
// text: the document's ideal width; a "&x" with no buddy, shown as written), buttons (the
// style's contents rect: check and radio boxes without their indicator; command links'
// bold title and wrapped description), QComboBox's current text (its edit field), QGroupBox
// titles, QTabBar tabs, QHeaderView section titles, and // item views' cells (the delegate's size
// hint for the cell). ElidedLabel, ElidedComboBox and a cell cut with "…" count as whole when their
// tooltip holds the whole text. A text widget that sticks out of its container (outside any scroll
// area) is cut as well. Empty when everything fits.
QStringList clippedTexts(const QWidget* root);

// The same for what empty QLineEdits show of their placeholder (what to type there; Qt
// cuts it with "…"): one line per field whose placeholder needs more room than the field
// has and is not in its tooltip. Kept apart from clippedTexts while History's search field
// (helper tours that call only clippedTexts) still cuts its own.
QStringList clippedPlaceholders(const QWidget* root);

// The visible scrollbars under `root` that a user would have to drag, one line each with
// the object name of the scroll area's widget; empty when there is none.
QStringList visibleScrollBars(const QWidget* root);

}  // namespace ts::testing
