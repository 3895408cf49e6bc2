#include "app/desktop/app_controller.h"

#include <QFileInfo>

#include "app/desktop/about_box.h"
#include "inference/engine/formats/generation_config.h"
#include "ui/parameter_panel.h"

namespace ts {

AppController::AppController(ui::MainWindow* window, ProviderStore store, QString log_dir,
                             bool persist_providers, QObject* parent)
    : AppController(
          window,
          std::make_unique<AppState>(std::move(store), std::move(log_dir), persist_providers),
          nullptr, parent) {}

AppController::AppController(ui::MainWindow* window, AppState* state, QObject* parent)
    : AppController(window, nullptr, state, parent) {}

AppController::AppController(ui::MainWindow* window, std::unique_ptr<AppState> owned,
                             AppState* state, QObject* parent)
    : QObject(parent),
      owned_state_(std::move(owned)),
      state_(state ? state : owned_state_.get()),
      window_(window),
      providers_(window, &state_->keys, state_->providers, state_->persist_providers),
      chat_(window, &state_->keys, &state_->chat),
      config_(window, &providers_, &chat_, &state_->config),
      serving_(window, &state_->serving),
      downloads_(window, &providers_),
      history_(window),
      benchmark_(window, &state_->keys, [this] { return chat_.runStore(); }),
      preferences_(window, [this] { return unfinishedWork(); }),
      lab_(
          window, [this] { return chat_.runStore(); }, [this] { return labBlocker(); }) {
  state_->models.setWindow(window);
  if (!state_->download_hub.isEmpty()) downloads_.setHub(state_->download_hub);
  if (chat_.runStore()) history_.setStore(chat_.runStore());
  connect(&chat_, &ChatController::runRecorded, &history_, &HistoryController::refresh);
  // Requests served to other programs are runs too: in the same store, tagged "served".
  serving_.setRunStore([this] { return chat_.runStore(); });
  connect(&serving_, &ServingController::runRecorded, &history_, &HistoryController::refresh);
  connect(&chat_, &ChatController::runLogged, this, &AppController::runLogged);
  connect(&chat_, &ChatController::idle, this, &AppController::chatIdle);
  connect(&preferences_, &PreferencesController::languageChanged, this,
          &AppController::languageChanged);
  connect(&benchmark_, &BenchmarkController::sweepFinished, &history_, &HistoryController::refresh);
  connect(window, &ui::MainWindow::modelManagerRequested, this, &AppController::openModelManager);
  connect(&state_->models, &ModelManager::loaded, this, &AppController::useLoadedModel);
  connect(window, &ui::MainWindow::historyRequested, &history_, &HistoryController::open);
  connect(&history_, &HistoryController::singleLeverRequested, &lab_, &LabController::openWith);
  connect(window, &ui::MainWindow::compareLatestRequested, &history_,
          &HistoryController::compareLatest);
  connect(window, &ui::MainWindow::aboutRequested, this, [this] { AboutBox::show(window_); });
  connect(window, &ui::MainWindow::currentProviderChanged, this,
          &AppController::showModelSuggestions);
  showModelSuggestions();
}

AppController::~AppController() {
  if (state_->models.dialog()) state_->models.dialog()->close();  // it opened over this window
}

QStringList AppController::unfinishedWork() const {
  QStringList work;
  if (downloads_.isDownloading()) work << tr("the model download");
  if (benchmark_.isRunning()) work << tr("the benchmark");
  if (state_->models.isLoading()) work << tr("loading the model in the model manager");
  if (lab_.isRunning()) work << tr("the lever lab's run");
  return work;
}

QString AppController::labBlocker() const {
  const auto current = window_->currentProviderSettings();
  if (chat_.isBusy() && current && current->kind == ProviderKind::LocalEngine)
    return tr(
        "The chat is answering on the local engine: the lab's timings would be "
        "disturbed. Stop the answer or wait for it to end, then run the lab.");
  if (benchmark_.isRunning())
    return tr(
        "A benchmark is running: the lab's timings would be disturbed. Let it end or "
        "cancel it, then run the lab.");
  return {};
}

void AppController::setDownloadHub(const QString& base_url) {
  state_->download_hub = base_url;
  downloads_.setHub(base_url);
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
    state_->models.open();
    return;
  }
  ui::ModelManagerDialog* dialog = state_->models.open();
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
