#include "ui/chart_export.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QWidget>

#include "ui/save_file.h"

namespace ts::ui {

QString saveWidgetPng(QWidget* widget, const QString& path) {
  QImage image(widget->size(), QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  widget->render(&image);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (!image.save(&buffer, "PNG"))
    return QWidget::tr("cannot make a PNG of a %1 x %2 chart")
        .arg(widget->width())
        .arg(widget->height());
  return saveBytes(path, bytes);
}

QString saveWidgetSvg(QWidget* widget, const QString& path, const QString& title) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator svg;
  svg.setOutputDevice(&buffer);
  svg.setSize(widget->size());
  svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
  svg.setTitle(title);
  QPainter painter;
  if (!painter.begin(&svg)) return QWidget::tr("cannot draw the chart as SVG");
  widget->render(&painter);
  painter.end();
  return saveBytes(path, bytes);
}

QString saveWidgetImage(QWidget* widget, const QString& path, const QString& title) {
  return QFileInfo(path).suffix().compare("svg", Qt::CaseInsensitive) == 0
             ? saveWidgetSvg(widget, path, title)
             : saveWidgetPng(widget, path);
}

}  // namespace ts::ui
