#include "app/desktop/serving_controller.h"

#include <QStatusBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "app/local/local_engine_loader.h"

namespace ts {

ServingController::ServingController(ui::MainWindow* window, ServingState* state, QObject* parent)
    : QObject(parent),
      window_(window),
      own_state_(state ? nullptr : std::make_unique<ServingState>()),
      state_(state ? state : own_state_.get()),
      serving_(state_->serving) {
  connect(window, &ui::MainWindow::serveRequested, this, &ServingController::serve);
  connect(window, &ui::MainWindow::stopServingRequested, this, &ServingController::stopServing);
  connect(window, &ui::MainWindow::serveSettingsRequested, this, &ServingController::openSettings);
  buildPanel();
  connectServing();
  showRunningServer();
}

ServingController::~ServingController() {
  if (panel_window_) state_->panel_shown = panel_window_->isVisible();
}

void ServingController::showRunningServer() {
  showState();
  for (const ui::ServedRow& row : state_->served) panel_->addRequest(row);
  panel_->setServedCount(state_->served_total);
  if (!serving_.isServing() || state_->url.isEmpty()) return;
  const bool shown = state_->panel_shown;
  showServing(state_->url);
  if (!shown) panel_window_->hide();
  window_->setServeWarning(exposureWarning(serving_.host(), serving_.requiresKey()));
}

void ServingController::connectServing() {
  connect(&serving_, &LocalServing::requestServed, this, &ServingController::served);
  connect(&serving_, &LocalServing::started, this, [this](const QString& url) {
    showState();
    state_->url = url;
    showServing(url);
    const QString warning = exposureWarning(serving_.host(), serving_.requiresKey());
    window_->setServeWarning(warning);
    const bool here = LocalServing::isLoopbackHost(serving_.host());
    if (!warning.isEmpty())
      return window_->showStatus(  // the red mark beside it holds the whole warning
          tr("WARNING: serving the local model to every network (port %1) without an API key.")
              .arg(serving_.port()));
    if (serving_.requiresKey())
      return window_->showStatus(
          (here ? tr("Serving the local model at %1 for this computer only; requests need the "
                     "API key (Provider → Serve the local model stops it).")
                : tr("Serving the local model at %1 and on every network of this computer; "
                     "requests need the API key (Provider → Serve the local model stops it)."))
              .arg(url));
    window_->showStatus(tr("Serving the local model at %1 for this computer only "
                           "(OpenAI-compatible; Provider → Serve the local model stops it).")
                            .arg(url));
  });
  connect(&serving_, &LocalServing::stopped, this, [this] {
    state_->url.clear();
    showState();
    load_timer_.stop();
    panel_->setStopped();
    indicator_->hide();
    window_->showStatus(tr("Stopped serving the local model."));
  });
  connect(&serving_, &LocalServing::failed, this, [this](const QString& message) {
    showState();
    refuse(message);
  });
}

QString ServingController::exposureWarning(const QString& host, bool has_key) {
  if (!LocalServing::isExposed(host, has_key)) return {};
  return tr(
      "Anyone who can reach this computer over the network can use the model. Require an "
      "API key, or listen on this computer only (Provider → Serve settings…).");
}

void ServingController::buildPanel() {
  // A tool window of its own, not a dock: it never changes the main window's layout, its
  // minimum size or the layout it saves.
  panel_window_ = new QWidget(window_, Qt::Tool);
  panel_window_->setObjectName("serverWindow");
  panel_window_->setWindowTitle(tr("TokenScope server"));
  panel_ = new ui::ServerPanel(panel_window_);
  auto* layout = new QVBoxLayout(panel_window_);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(panel_);
  panel_window_->resize(880, 300);
  indicator_ = new QToolButton(window_->statusBar());
  indicator_->setObjectName("serverIndicator");
  indicator_->setAutoRaise(true);
  indicator_->setToolTip(tr("The local server runs: click to show or hide its panel"));
  window_->statusBar()->addPermanentWidget(indicator_);
  indicator_->hide();
  connect(indicator_, &QToolButton::clicked, this, [this] {
    if (panel_window_->isVisible()) return panel_window_->hide();
    panel_window_->show();
    panel_window_->raise();
  });
  connect(panel_, &ui::ServerPanel::stopRequested, this, &ServingController::stopServing);
  connect(panel_, &ui::ServerPanel::copied, window_, &ui::MainWindow::showStatus);
  load_timer_.setInterval(1000);
  connect(&load_timer_, &QTimer::timeout, this, &ServingController::showLoad);
}

void ServingController::showServing(const QString& url) {
  panel_->setServing(url, serving_.modelName(), LocalServing::kAlias, serving_.requiresKey());
  indicator_->setText(panel_->summary());
  indicator_->show();
  panel_window_->show();  // the server is seen at once; closed, the indicator brings it back
  const auto m = serving_.metrics();
  generated_ = m ? m->generation_tokens : 0;
  load_clock_.start();
  load_timer_.start();
}

void ServingController::showLoad() {
  const auto m = serving_.metrics();
  if (!m) return;
  const double seconds = static_cast<double>(load_clock_.restart()) / 1000.0;
  const uint64_t made = m->generation_tokens - std::min(generated_, m->generation_tokens);
  generated_ = m->generation_tokens;
  panel_->setLoad(m->running, m->waiting, seconds > 0 ? static_cast<double>(made) / seconds : 0);
}

void ServingController::served(const ServedRun& r) {
  ui::ServedRow row;
  row.at = QDateTime::currentDateTime();
  row.model = r.model_asked;
  row.status = r.finish == "error" ? tr("error: %1").arg(r.error) : r.finish;
  row.prompt_tokens = r.prompt_tokens;
  row.cached_tokens = r.cached_tokens;
  row.completion_tokens = r.completion_tokens;
  row.ttft_ms = r.ttft_ms;
  row.tpot_ms = r.tpot_ms;
  row.temperature = r.request.params.temperature;
  row.max_tokens =
      r.max_tokens_given ? QString::number(r.request.params.max_tokens) : QString::fromUtf8("—");
  row.stream = r.request.params.stream;
  panel_->addRequest(row);
  state_->served.append(row);
  ++state_->served_total;
  while (state_->served.size() > ui::ServerPanel::kMaxRows) state_->served.removeFirst();
  indicator_->setText(panel_->summary());

  RunStore* store = store_ ? store_() : nullptr;
  if (!store) return;
  RunContext context;
  context.provider = kServedProvider;
  context.base_url = state_->url;
  context.model = QString::fromStdString(r.request.model);
  context.tags = {kServedTag};
  GenerationRequest request = r.request;
  request.provider = context.provider.toStdString();
  const qint64 id = store->beginRun(request, context);
  if (id < 0 || !store->finishRun(id, r.run, 0))
    return window_->showStatus(tr("A served request was not recorded: ") + store->error());
  emit runRecorded();
}

void ServingController::showState() {
  switch (serving_.state()) {
    case LocalServing::State::Off:
      return window_->setServeState(ui::ServeState::Off);
    case LocalServing::State::Starting:
      return window_->setServeState(ui::ServeState::Starting);
    case LocalServing::State::Serving:
      return window_->setServeState(ui::ServeState::On);
    case LocalServing::State::Stopping:
      return window_->setServeState(ui::ServeState::Stopping);
  }
}

void ServingController::refuse(const QString& message) {
  window_->setServeWarning({});
  window_->showError(tr("Serve the local model"), message);
}

void ServingController::serve(const ProviderSettings& p) {
  if (p.kind != ProviderKind::LocalEngine) {
    showState();
    return refuse(tr("%1 is a remote endpoint. Choose a local provider (a model file) "
                     "to serve it to other tools.")
                      .arg(QString::fromStdString(p.name)));
  }
  const ui::ServeChoice choice = loadServeChoice();
  ServeOptions options;
  options.host = serveHost(choice);
  if (!choice.require_key) return startServing(p, options);
  // A key is required: never serve without it (a missing keychain stops Serve here).
  const KeychainStatus keychain = KeyStore::probe();
  if (!keychain.available) {
    showState();
    return refuse(tr("Serve settings require an API key, but the keychain cannot be used: %1.\n\n"
                     "Serve did not start. Make the keychain available, or turn off \"Require an "
                     "API key\" under Provider → Serve settings….")
                      .arg(keychain.reason));
  }
  window_->setServeState(ui::ServeState::Starting);
  window_->showStatus(tr("Reading the key for Serve from the keychain…"));
  const int attempt = ++attempt_;
  keys_.read([this, p, options, attempt](QString key, bool missing, QString error) {
    if (attempt != attempt_) return;  // switched off meanwhile
    if (!error.isEmpty()) {
      showState();
      return refuse(tr("Serve did not start: ") + error);
    }
    if (!missing && !key.isEmpty()) {  // never an empty key where one is required
      ServeOptions with_key = options;
      with_key.api_key = key;
      return startServing(p, with_key);
    }
    // None stored yet: made now, shown once, then served with it.
    keys_.replace([this, p, options, attempt](QString made, QString error) {
      if (attempt != attempt_) return;
      if (made.isEmpty()) {
        showState();
        return refuse(tr("Serve did not start: ") + error);
      }
      showKeyOnce(made);
      ServeOptions with_key = options;
      with_key.api_key = made;
      startServing(p, with_key);
    });
  });
}

void ServingController::startServing(const ProviderSettings& p, const ServeOptions& options) {
  window_->showStatus(serving_.isStopping()
                          ? tr("Serve starts again once the previous server has stopped…")
                          : tr("Loading %1 to serve it…").arg(QString::fromStdString(p.name)));
  serving_.start(localSpecFor(p), QString::fromStdString(p.default_model), options);
  showState();
}

void ServingController::stopServing() {
  ++attempt_;  // a start still reading its key ends here
  const bool running = serving_.isServing();
  serving_.stop();  // returns at once: the server stops on a thread of its own
  window_->setServeWarning({});
  showState();
  if (running) window_->showStatus(tr("Stopping the server: its requests are being cancelled…"));
}

void ServingController::openSettings() {
  if (settings_) {
    settings_->raise();
    settings_->activateWindow();
    return;
  }
  auto* dialog = new ui::ServeDialog(loadServeChoice(), serving_.isServing(), window_);
  settings_ = dialog;
  dialog->setObjectName("serveDialog");
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  const auto warn = [dialog](const ui::ServeChoice& c) {
    dialog->setWarning(exposureWarning(serveHost(c), c.require_key));
  };
  warn(dialog->choice());
  connect(dialog, &ui::ServeDialog::choiceChanged, dialog, warn);
  const KeychainStatus keychain = KeyStore::probe();
  if (!keychain.available) {
    dialog->setKeyState(ui::ServeKeyState::Unavailable, keychain.reason);
  } else {
    QPointer<ui::ServeDialog> guard = dialog;
    keys_.read([guard](QString, bool missing, QString error) {  // the key itself is dropped
      if (!guard) return;
      if (!error.isEmpty()) return guard->setKeyState(ui::ServeKeyState::Unavailable, error);
      guard->setKeyState(missing ? ui::ServeKeyState::Missing : ui::ServeKeyState::Stored);
    });
  }
  connect(dialog, &ui::ServeDialog::newKeyRequested, this, [this, guard = QPointer(dialog)] {
    keys_.replace([this, guard](QString key, QString error) {
      if (key.isEmpty()) {
        if (guard) guard->setKeyState(ui::ServeKeyState::Unavailable, error);
        return;
      }
      if (guard) guard->setKeyState(ui::ServeKeyState::Stored);
      showKeyOnce(key);
      if (serving_.requiresKey())
        window_->showStatus(
            tr("A new key for Serve is in the keychain: the server uses it from "
               "its next start."));
    });
  });
  connect(dialog, &QDialog::accepted, this, [this, dialog] { settingsAccepted(dialog->choice()); });
  dialog->open();
}

void ServingController::settingsAccepted(const ui::ServeChoice& choice) {
  saveServeChoice(choice);
  window_->showStatus(serving_.isServing()
                          ? tr("Serve settings saved: they apply the next time Serve starts.")
                          : tr("Serve settings saved."));
  if (!choice.require_key || !KeyStore::probe().available) return;
  keys_.read([this](QString, bool missing, QString) {
    if (!missing) return;
    keys_.replace([this](QString key, QString error) {
      if (key.isEmpty()) return refuse(error);
      showKeyOnce(key);
    });
  });
}

void ServingController::showKeyOnce(const QString& key) {
  if (key_dialog_) key_dialog_->close();
  key_dialog_ = new ui::ServeKeyDialog(key, window_);
  key_dialog_->setObjectName("serveKeyDialog");
  key_dialog_->setAttribute(Qt::WA_DeleteOnClose);
  connect(key_dialog_, &ui::ServeKeyDialog::copied, window_, &ui::MainWindow::showStatus);
  key_dialog_->open();
}

}  // namespace ts
