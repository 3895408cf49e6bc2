// The main window's status bar: the latest message on the left (cut with "…" when long,
// whole on hover), then what is being prepared with a small progress bar, then the
// lasting marks (CPU fallback, an exposed server). Everything is laid out side by side:
// a message never runs under a mark, and nothing here widens the window.
#pragma once
#include <QStatusBar>

class QLabel;
class QProgressBar;

namespace ts::ui {

class ElidedLabel;

class WindowStatusBar : public QStatusBar {
  Q_OBJECT
 public:
  explicit WindowStatusBar(QWidget* parent = nullptr);
  // A lasting mark that the local model runs on the CPU although CUDA was asked for, with
  // why on hover (`reason`; empty removes the mark).
  void setCpuFallback(const QString& reason);
  // A lasting red mark while Serve is exposed, with `text` on hover; "" removes it.
  void setServeWarning(const QString& text);
  // Something slow before a run can start (a draft's conversion): `what` with a progress
  // bar, `percent` 0..100 or -1 when unknown; `what` "" hides both.
  void setPreparing(const QString& what, int percent);

 protected:
  // The panel only: the message is the left label, not painted over the marks.
  void paintEvent(QPaintEvent* event) override;

 private:
  ElidedLabel* message_;
  ElidedLabel* preparing_;
  QProgressBar* progress_;
  QLabel* cpu_fallback_ = nullptr;
  QLabel* serve_warning_ = nullptr;
};

}  // namespace ts::ui
