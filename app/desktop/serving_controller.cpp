#include "app/desktop/serving_controller.h"

#include "app/local/local_engine_loader.h"

namespace ts {

ServingController::ServingController(ui::MainWindow* window, QObject* parent)
    : QObject(parent), window_(window) {
  connect(window, &ui::MainWindow::serveRequested, this, [this](const ProviderSettings& p) {
    if (p.kind != ProviderKind::LocalEngine) {
      window_->setServing(false);
      return window_->showError(
          tr("Serve the local model"),
          tr("%1 is a remote endpoint. Choose a local provider (a model file) "
             "to serve it to other tools.")
              .arg(QString::fromStdString(p.name)));
    }
    window_->showStatus(tr("Loading %1 to serve it…").arg(QString::fromStdString(p.name)));
    serving_.start(localSpecFor(p), QString::fromStdString(p.default_model));
  });
  connect(window, &ui::MainWindow::stopServingRequested, &serving_, &LocalServing::stop);
  connect(&serving_, &LocalServing::started, this, [this](const QString& url) {
    window_->setServing(true);
    window_->showStatus(tr("Serving the local model at %1 (OpenAI-compatible; Provider → Serve "
                           "stops it)")
                            .arg(url));
  });
  connect(&serving_, &LocalServing::stopped, this, [this] {
    window_->setServing(false);
    window_->showStatus(tr("Stopped serving the local model."));
  });
  connect(&serving_, &LocalServing::failed, this, [this](const QString& message) {
    window_->setServing(false);
    window_->showError(tr("Serve the local model"), message);
  });
}

}  // namespace ts
