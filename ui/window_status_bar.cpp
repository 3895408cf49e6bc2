#include "ui/window_status_bar.h"

#include <QLabel>
#include <QPainter>
#include <QProgressBar>
#include <QStyleOption>

#include "ui/elided_label.h"

namespace ts::ui {

WindowStatusBar::WindowStatusBar(QWidget* parent) : QStatusBar(parent) {
  setObjectName("statusBar");
  // Permanent widgets stay shown while a message is up; the message label takes the room
  // the marks leave.
  message_ = new ElidedLabel(this);
  message_->setObjectName("statusMessage");
  message_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  addPermanentWidget(message_, 1);
  preparing_ = new ElidedLabel(this);
  preparing_->setObjectName("preparingLabel");
  addPermanentWidget(preparing_);
  progress_ = new QProgressBar(this);
  progress_->setObjectName("preparingProgress");
  progress_->setMaximumWidth(120);
  progress_->setMaximumHeight(fontMetrics().height());
  progress_->setTextVisible(false);
  addPermanentWidget(progress_);
  setPreparing({}, -1);
  connect(this, &QStatusBar::messageChanged, message_, &ElidedLabel::setFullText);
}

void WindowStatusBar::paintEvent(QPaintEvent*) {
  QPainter p(this);
  QStyleOption opt;
  opt.initFrom(this);
  style()->drawPrimitive(QStyle::PE_PanelStatusBar, &opt, &p, this);
}

void WindowStatusBar::setCpuFallback(const QString& reason) {
  if (!cpu_fallback_) {
    cpu_fallback_ = new QLabel(tr("CPU: CUDA not used"), this);
    cpu_fallback_->setObjectName("cpuFallbackLabel");
    addPermanentWidget(cpu_fallback_);
  }
  cpu_fallback_->setToolTip(reason);
  cpu_fallback_->setVisible(!reason.isEmpty());
}

void WindowStatusBar::setServeWarning(const QString& text) {
  if (!serve_warning_) {
    serve_warning_ = new QLabel(tr("⚠ Serving to every network without a key"), this);
    serve_warning_->setObjectName("serveWarningLabel");
    serve_warning_->setStyleSheet("color: #c0392b; font-weight: bold");
    addPermanentWidget(serve_warning_);
  }
  serve_warning_->setToolTip(text);
  serve_warning_->setVisible(!text.isEmpty());
}

void WindowStatusBar::setPreparing(const QString& what, int percent) {
  preparing_->setFullText(what);
  preparing_->setVisible(!what.isEmpty());
  progress_->setVisible(!what.isEmpty());
  progress_->setRange(0, percent < 0 ? 0 : 100);  // 0..0: a busy indicator
  if (percent >= 0) progress_->setValue(std::min(percent, 100));
}

}  // namespace ts::ui
