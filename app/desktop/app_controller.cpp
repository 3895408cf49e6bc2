#include "app/desktop/app_controller.h"

#include <QFileInfo>

#include "app/desktop/about_box.h"
#include "inference/engine/formats/generation_config.h"
#include "ui/parameter_panel.h"

namespace ts {

AppController::AppController(ui::MainWindow* window, ProviderStore store, QString log_dir,
                             bool persist_providers, QObject* parent)
    : QObject(parent),
      window_(window),
      providers_(window, &keys_, std::move(store), persist_providers),
      chat_(window, &keys_, std::move(log_dir)),
      config_(window, &providers_, &chat_),
      serving_(window),
      downloads_(window, &providers_),
      model_manager_(window),
      history_(window),
      benchmark_(window, &keys_, [this] { return chat_.runStore(); }),
      preferences_(window, &chat_.conversation()) {
  connect(&chat_, &ChatController::runRecorded, &history_, &HistoryController::refresh);
  // Requests served to other programs are runs too: in the same store, tagged "served".
  serving_.setRunStore([this] { return chat_.runStore(); });
  connect(&serving_, &ServingController::runRecorded, &history_, &HistoryController::refresh);
  connect(&chat_, &ChatController::runLogged, this, &AppController::runLogged);
  connect(&benchmark_, &BenchmarkController::sweepFinished, &history_, &HistoryController::refresh);
  connect(window, &ui::MainWindow::modelManagerRequested, this, &AppController::openModelManager);
  connect(&model_manager_, &ModelManager::loaded, this, &AppController::useLoadedModel);
  connect(window, &ui::MainWindow::historyRequested, &history_, &HistoryController::open);
  connect(window, &ui::MainWindow::compareLatestRequested, &history_,
          &HistoryController::compareLatest);
  connect(window, &ui::MainWindow::aboutRequested, this, [this] { AboutBox::show(window_); });
  connect(window, &ui::MainWindow::currentProviderChanged, this,
          &AppController::showModelSuggestions);
  showModelSuggestions();
}

void AppController::showModelSuggestions() {
  SuggestedParams s;
  const auto current = window_->currentProviderSettings();
  if (current && current->kind == ProviderKind::LocalEngine && !current->base_url.empty()) {
    // generation_config.json beside a local model (a small file, read on the UI thread)
    if (auto d = engine::readGenerationConfig(current->base_url)) {
      s = {d->temperature, d->top_p, d->repetition_penalty, d->top_k, d->max_new_tokens};
    } else {
      window_->showStatus(QString::fromStdString(d.error()));
    }
  }
  window_->parameterPanel()->setSuggestions(s);
}

void AppController::setRunStore(std::unique_ptr<RunStore> store) {
  chat_.setRunStore(std::move(store));
  if (chat_.runStore()) history_.setStore(chat_.runStore());
}

void AppController::openModelManager() {
  const auto current = window_->currentProviderSettings();
  if (!current || current->kind != ProviderKind::LocalEngine) {
    model_manager_.open();
    return;
  }
  ui::ModelManagerDialog* dialog = model_manager_.open();
  dialog->setSettings(current->local);
  // The demo model's file exists only once it was first used: no error before anything.
  const QString path = QString::fromStdString(current->base_url);
  if (QFileInfo::exists(path)) dialog->setPath(path);
}

void AppController::useLoadedModel(const QString& path, const LocalEngineSettings& settings) {
  const ProviderSettings p = providers_.selectLocalModel(path, settings);
  window_->showStatus(tr("%1 is loaded: chat, serve or benchmark it (weights %2, KV cache %3, "
                         "%4 positions).")
                          .arg(QString::fromStdString(p.name),
                               QString::fromStdString(settings.weights),
                               QString::fromStdString(settings.kv))
                          .arg(settings.context));
}

}  // namespace ts
