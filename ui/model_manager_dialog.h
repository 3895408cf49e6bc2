// Open a local model (a GGUF file, a Hugging Face folder or a llama2.c checkpoint), see
// what it is before loading it, choose how it runs -- backend (CPU with a thread count, or
// a CUDA device), runtime weight format, KV cache format, context length -- with the memory
// that takes, then load it with a progress bar and Cancel. Recent models on the left.
// Widgets only: the app inspects, estimates and loads (app/desktop/model_manager.h) and feeds the
// results back through the slots. The facts are a grid of unwrapped label / value pairs in
// two columns whose minimum size the layout keeps, so no row is ever squeezed or cut;
// a successful load closes the dialog (the main window says the model is ready).
#pragma once
#include <QDialog>
#include <QList>
#include <QPair>
#include <QStringList>

#include "inference/stream/provider_settings.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace ts::ui {

class ModelManagerDialog : public QDialog {
  Q_OBJECT
 public:
  struct Backend {
    QString label;  // "CPU", "CUDA 0: NVIDIA H200 (139 GiB)", ...
    QString name;   // auto | cpu | cuda
    int device = 0;
  };
  explicit ModelManagerDialog(QWidget* parent = nullptr);

  void setRecent(const QStringList& paths);
  void setBackends(const QList<Backend>& backends);
  // Shows `path` and asks the app for its facts (inspectRequested).
  void setPath(const QString& path);
  QString path() const;
  LocalEngineSettings settings() const;
  void setSettings(const LocalEngineSettings& settings);
  bool isLoading() const { return loading_; }
  // The facts shown, one "Label: value" line per row ("" before a model was inspected).
  QString factsText() const;

 public slots:
  // (label, value) rows, shown in that order down two columns; `trained_context` bounds the
  // context choice (0: unknown). `tooltips` (optional, by row) explain a value further.
  void showFacts(const QList<QPair<QString, QString>>& rows, int trained_context,
                 const QStringList& tooltips = {});
  void showInspectError(const QString& message);
  void showEstimate(const QString& text, bool fits);
  // The conversion cache's usage in a line; Clear is enabled when there is something in it.
  void showCacheUsage(const QString& text, bool clearable);
  void onLoadProgress(double fraction);
  // Closes the dialog: the app announces the loaded model (status bar, provider box).
  void onLoaded(const QString& message);
  // A line under the settings (e.g. what is in memory now); never red.
  void showStatus(const QString& message);
  void onLoadFailed(const QString& message, bool cancelled);

 signals:
  void inspectRequested(const QString& path);
  void estimateRequested(const QString& path, const ts::LocalEngineSettings& settings);
  void loadRequested(const QString& path, const ts::LocalEngineSettings& settings);
  void cancelRequested();
  void clearCacheRequested();

 protected:
  bool event(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void browseFile();
  void browseFolder();
  void settingsChanged();
  void setLoading(bool loading);
  void clearFacts(const QString& note);
  // Keeps the dialog at least as tall as its wrapped lines need at its width (px): Qt
  // counts each wrapped label as one line in a window's minimum, and below the real need
  // the layout squeezes every row, the facts' included.
  void keepRoomForWrappedText();

  QListWidget* recent_;
  QLineEdit* path_;
  QWidget* facts_;          // the grid of facts ("modelFacts")
  QLabel* facts_note_;      // instead of the grid: what to do, or why the path is not a model
  QStringList fact_lines_;  // "Label: value", as factsText() gives them
  QComboBox* backend_;
  QSpinBox* threads_;
  QComboBox* weights_;
  QComboBox* kv_;
  QSpinBox* context_;
  QLabel* estimate_;
  QProgressBar* bar_;
  QLabel* status_;
  QLabel* cache_;
  QPushButton* clear_cache_;
  QPushButton* load_;
  QPushButton* cancel_;
  QString requested_;       // the path whose facts were last asked for
  bool inspected_ = false;  // the path's facts are shown (else Load stays disabled)
  bool loading_ = false;
  bool progress_started_ = false;  // the first progress value arrived (the bar leaves "busy")
};

}  // namespace ts::ui
