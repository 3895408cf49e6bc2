// A chart (any widget) saved as the user sees it: PNG or SVG at the widget's own size in
// pixels (not the screen's device pixel ratio), written atomically.
#pragma once
#include <QString>

class QWidget;

namespace ts::ui {

// `widget` as a `width` x `height` PNG (its size now). Returns "" or what went wrong.
QString saveWidgetPng(QWidget* widget, const QString& path);
// `widget` as SVG, its view box the widget's size in px. Returns "" or what went wrong.
QString saveWidgetSvg(QWidget* widget, const QString& path, const QString& title);
// By the path's suffix: ".svg" is SVG, anything else PNG.
QString saveWidgetImage(QWidget* widget, const QString& path, const QString& title);

}  // namespace ts::ui
