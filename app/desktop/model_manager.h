// Drives the model manager dialog (ui/model_manager_dialog.h): a model's facts from
// engine::inspectModel (headers only), the memory the chosen settings take against what
// the machine has (MemAvailable; a CUDA device's free memory), loading on a worker thread
// with progress and Cancel, and the recent-models list (ui.ini). A loaded model stays in
// LoadedModels, so the chat and serving from the app use it without reading it again, and
// `loaded` tells the controller to make it the current local provider.
#pragma once
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <atomic>
#include <memory>
#include <vector>

#include "inference/engine/model/model.h"
#include "inference/stream/provider_settings.h"
#include "ui/model_manager_dialog.h"

namespace ts {

class ModelManager : public QObject {
  Q_OBJECT
 public:
  explicit ModelManager(QWidget* window, QObject* parent = nullptr);
  ~ModelManager() override;
  // Shows the dialog (raises it when open), on `path` when given.
  ui::ModelManagerDialog* open(const QString& path = {});
  ui::ModelManagerDialog* dialog() const { return dialog_; }
  // The window dialogs open over from now on (a rebuilt window); an open dialog closes
  // (cancelling a load in flight). The model loaded last stays held.
  void setWindow(QWidget* window);
  bool isLoading() const { return cancel_ != nullptr; }  // a load is in flight

  static QStringList recentModels();  // most recent first, existing paths only
  static void rememberModel(const QString& path);

 signals:
  void loaded(const QString& path, const ts::LocalEngineSettings& settings);

 private:
  void inspect(const QString& path);
  void estimate(const QString& path, const LocalEngineSettings& settings);
  void load(const QString& path, const LocalEngineSettings& settings);

  QWidget* window_;
  QPointer<ui::ModelManagerDialog> dialog_;
  engine::ModelConfig config_;  // of the inspected path
  uint64_t tensor_bytes_ = 0;   // its tensors as stored (the estimate for weights "auto")
  std::vector<engine::StoredMatrix> stored_matrices_;  // its matrices' types (CUDA "auto")
  void showCacheUsage();                               // in the dialog, when open
  QString inspected_;
  std::shared_ptr<std::atomic<bool>> cancel_;  // of the load in flight
  std::shared_ptr<engine::Model> kept_;        // the last model loaded here
  QString kept_path_;                          // its path
  QString kept_note_;  // what it holds against the estimate, shown when its path is reopened
  uint64_t estimated_weights_ = 0;  // bytes, the last estimate's weights (MemoryEstimate)
};

}  // namespace ts
