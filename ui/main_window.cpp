#include "ui/main_window.h"

#include <QActionGroup>
#include <QComboBox>
#include <QDataStream>
#include <QFileDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>
#include <QUuid>
#include <QVBoxLayout>

#include "ui/acceptance_chart.h"
#include "ui/chat_panel.h"
#include "ui/latency_chart.h"
#include "ui/metrics_strip.h"
#include "ui/parameter_panel.h"
#include "ui/providers_dialog.h"
#include "ui/table_dialog.h"

namespace ts::ui {
namespace {
constexpr int kFrameMs = 16;     // text: one update per ~60 Hz frame while streaming
constexpr qint64 kChartMs = 50;  // chart and metrics: at most 20 updates per second
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("TokenScope"));
  resize(1280, 800);
  url_preview_ = [](const QString& url) { return std::make_pair(url, false); };

  chat_ = new ChatPanel(this);
  metrics_ = new MetricsStrip(this);
  parameters_ = new ParameterPanel(this);
  chart_ = new LatencyChart(this);
  acceptance_ = new AcceptanceChart(this);

  auto* left = new QWidget(this);
  auto* left_layout = new QVBoxLayout(left);
  left_layout->setContentsMargins(6, 6, 6, 6);
  left_layout->addWidget(chat_, 1);
  left_layout->addWidget(metrics_);
  auto* right = right_split_ = new QSplitter(Qt::Vertical, this);
  // The parameters scroll when the splitter leaves them less height than they need (a
  // small window, a model's suggestions line): squeezed rows would clip their text.
  auto* parameters_scroll = parameters_scroll_ = new QScrollArea(this);
  parameters_scroll->setObjectName("parametersScroll");
  parameters_scroll->setWidget(parameters_);
  parameters_scroll->setWidgetResizable(true);
  parameters_scroll->setFrameShape(QFrame::NoFrame);
  parameters_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // as wide as the parameters need (the splitter then keeps that width), plus a scroll bar
  parameters_scroll->setMinimumWidth(parameters_->minimumSizeHint().width() +
                                     parameters_scroll->verticalScrollBar()->sizeHint().width());
  parameters_->installEventFilter(this);  // their height changes: fitParameters
  right->installEventFilter(this);        // the column's height changes: the same
  right->addWidget(parameters_scroll);
  right->addWidget(chart_);
  right->addWidget(acceptance_);
  right->setStretchFactor(1, 1);
  auto* split = split_ = new QSplitter(Qt::Horizontal, this);
  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  setCentralWidget(split);

  buildToolbar();
  buildMenus();
  statusBar()->showMessage(tr("Ready"));

  frame_timer_.setSingleShot(true);
  frame_timer_.setInterval(kFrameMs);
  connect(&frame_timer_, &QTimer::timeout, this, &MainWindow::flushFrame);
  connect(chat_, &ChatPanel::sendClicked, this, &MainWindow::send);
  connect(chat_, &ChatPanel::stopClicked, this, &MainWindow::stop);
  connect(chat_, &ChatPanel::copied, this, &MainWindow::showStatus);
  chat_->focusInput();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  if ((watched == parameters_ && event->type() == QEvent::LayoutRequest) ||
      (watched == right_split_ && event->type() == QEvent::Resize))
    QTimer::singleShot(0, this, &MainWindow::fitParameters);  // after the layout settles
  return QMainWindow::eventFilter(watched, event);
}

void MainWindow::fitParameters() {
  // The parameters get the height they ask for while the charts keep 40% of the column;
  // past that they scroll.
  const int want = parameters_->sizeHint().height();
  const int most = std::max(120, right_split_->height() * 6 / 10);
  parameters_scroll_->setMinimumHeight(std::min(want, most));
}

void MainWindow::buildToolbar() {
  QToolBar* bar = addToolBar(tr("Provider"));
  bar->setObjectName("providerToolbar");
  bar->setMovable(false);
  bar->addWidget(new QLabel(tr(" Provider "), bar));
  provider_combo_ = new QComboBox(bar);
  provider_combo_->setObjectName("providerCombo");
  provider_combo_->setMinimumWidth(200);
  bar->addWidget(provider_combo_);
  bar->addAction(tr("Add…"), this, [this] { editProvider(true); });
  bar->addAction(tr("Edit…"), this, [this] { editProvider(false); });
  bar->addAction(tr("Remove"), this, &MainWindow::removeProvider);
  bar->addAction(tr("API key…"), this, [this] {
    if (const auto p = currentProviderSettings()) emit apiKeyRequested(*p);
  });
  bar->addAction(tr("Doctor…"), this, &MainWindow::requestDoctor)
      ->setToolTip(tr("Check this provider step by step (Ctrl+D)"));
  bar->addSeparator();
  bar->addWidget(new QLabel(tr(" Model "), bar));
  model_combo_ = new QComboBox(bar);
  model_combo_->setObjectName("modelCombo");
  model_combo_->setEditable(true);  // ids the endpoint does not list can be typed
  model_combo_->setInsertPolicy(QComboBox::NoInsert);
  model_combo_->lineEdit()->setObjectName("modelEdit");
  model_combo_->setMinimumWidth(240);
  model_combo_->setToolTip(tr("Model id: pick one the endpoint lists, or type any id"));
  bar->addWidget(model_combo_);
  QAction* refresh = bar->addAction("⟳", this, [this] {
    if (const auto p = currentProviderSettings()) emit modelsRequested(*p);
  });
  refresh->setObjectName("refreshModelsAction");
  refresh->setToolTip(tr("Refresh the model list from GET /v1/models (F5)"));
  refresh->setShortcut(QKeySequence::Refresh);
  connect(provider_combo_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i < 0 || i >= static_cast<int>(providers_.size())) return;
    setModel(QString::fromStdString(providers_[i].default_model));
    emit providersEdited(providers_, i);
    emit currentProviderChanged();
  });
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&New chat"), QKeySequence::New, this, &MainWindow::newChat);
  file->addSeparator();
  file->addAction(tr("&Import configuration…"), QKeySequence::Open, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Import configuration"), QString(),
                                     tr("Configuration (*.json *.toml);;All files (*)"));
    if (!path.isEmpty()) emit importConfigRequested(path);
  });
  file->addAction(
      tr("&Export configuration…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this, [this] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Export configuration"), "config.toml",
                                         tr("TOML (*.toml);;settings.json (*.json)"));
        if (!path.isEmpty()) emit exportConfigRequested(path);
      });
  file->addAction(
      tr("&Export chat…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the chat"), "chat.md",
                                                          tr("Markdown (*.md);;JSON (*.json)"));
        if (path.isEmpty()) return;
        const QString error = exportChat(path);
        if (error.isEmpty())
          showStatus(tr("Exported the chat to %1").arg(path));
        else
          showError(tr("Chat not exported"), error);
      });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  QMenu* provider = menuBar()->addMenu(tr("&Provider"));
  provider->addAction(tr("&Manage providers…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M),
                      this, &MainWindow::manageProviders);
  provider->addAction(tr("&Add…"), this, [this] { editProvider(true); });
  provider->addAction(tr("&Edit…"), this, [this] { editProvider(false); });
  provider->addAction(tr("&Remove"), this, &MainWindow::removeProvider);
  provider->addAction(tr("API &key…"), QKeySequence(Qt::CTRL | Qt::Key_K), this, [this] {
    if (const auto p = currentProviderSettings()) emit apiKeyRequested(*p);
  });
  provider->addSeparator();
  provider->addAction(tr("Connection &doctor…"), QKeySequence(Qt::CTRL | Qt::Key_D), this,
                      &MainWindow::requestDoctor);
  provider
      ->addAction(tr("Open a &local model…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this,
                  &MainWindow::modelManagerRequested)
      ->setObjectName("openLocalModelAction");
  provider->addAction(tr("Do&wnload a model…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D),
                      this, &MainWindow::downloadRequested);
  provider
      ->addAction(tr("&Benchmark…"), QKeySequence(Qt::CTRL | Qt::Key_B), this,
                  [this] {
                    if (const auto p = currentProviderSettings()) emit benchmarkRequested(*p);
                  })
      ->setObjectName("benchmarkAction");
  serve_action_ = provider->addAction(tr("&Serve the local model (OpenAI-compatible)"));
  serve_action_->setObjectName("serveAction");
  serve_action_->setCheckable(true);
  connect(serve_action_, &QAction::triggered, this, [this](bool on) {
    const auto p = currentProviderSettings();
    if (on && p) emit serveRequested(*p);
    if (on && !p) serve_action_->setChecked(false);
    if (!on) emit stopServingRequested();
  });
  provider->addAction(tr("Serve se&ttings…"), this, &MainWindow::serveSettingsRequested)
      ->setObjectName("serveSettingsAction");
  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("Focus &parameters"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P), this,
                  [this] { parameters_->focusFirstField(); });
  view->addAction(tr("Focus &message"), QKeySequence(Qt::CTRL | Qt::Key_L), this,
                  [this] { chat_->focusInput(); });
  view->addAction(tr("Run &history…"), QKeySequence(Qt::CTRL | Qt::Key_H), this,
                  &MainWindow::historyRequested)
      ->setObjectName("historyAction");
  view->addAction(tr("&Compare the last two runs"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C),
                  this, &MainWindow::compareLatestRequested)
      ->setObjectName("compareLatestAction");
  QAction* mark = view->addAction(tr("Mark accepted &draft tokens"));
  mark->setObjectName("markDraftedAction");
  mark->setCheckable(true);
  mark->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
  mark->setToolTip(
      tr("Speculative runs: tokens the draft proposed and the target accepted are "
         "shown on green; the rest the target produced itself"));
  connect(mark, &QAction::toggled, chat_, &ChatPanel::setMarkDrafted);
  QAction* markdown = view->addAction(tr("Re&nder answers as Markdown"));
  markdown->setObjectName("renderMarkdownAction");
  markdown->setCheckable(true);
  markdown->setChecked(true);
  markdown->setToolTip(tr("Off: answers are shown as plain text, exactly as they streamed"));
  connect(markdown, &QAction::toggled, chat_, &ChatPanel::setRenderMarkdown);
  view->addSeparator();
  view->addAction(tr("&Effective configuration…"), this, &MainWindow::effectiveConfigRequested);
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* keys = help->addAction(tr("&Keyboard shortcuts"), this, &MainWindow::showShortcuts);
  keys->setObjectName("shortcutsAction");
  keys->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Slash), QKeySequence::HelpContents});
  help->addAction(tr("&About TokenScope"), this, &MainWindow::aboutRequested)
      ->setObjectName("aboutAction");
  themes_ = addChoiceMenu(
      view->addMenu(tr("&Theme")), "theme_",
      {{"system", tr("Follow the &system")}, {"light", tr("&Light")}, {"dark", tr("&Dark")}},
      [this](const QString& code) { emit themeChosen(code); });
  // Language names are shown in their own language, so anyone can find theirs.
  languages_ =
      addChoiceMenu(view->addMenu(tr("&Language")), "language_",
                    {{"system", tr("System default")}, {"en", "English"}, {"zh_CN", "简体中文"}},
                    [this](const QString& code) { emit languageChosen(code); });
}

QActionGroup* MainWindow::addChoiceMenu(QMenu* menu, const QString& name_prefix,
                                        const std::vector<std::pair<QString, QString>>& choices,
                                        const std::function<void(const QString&)>& chosen) {
  auto* group = new QActionGroup(this);
  for (const auto& [code, label] : choices) {
    QAction* a = menu->addAction(label);
    a->setCheckable(true);
    a->setData(code);
    a->setObjectName(name_prefix + code);
    group->addAction(a);
    connect(a, &QAction::triggered, this, [chosen, code = code] { chosen(code); });
  }
  return group;
}

void MainWindow::checkChoice(QActionGroup* group, const QString& code) {
  for (QAction* a : group->actions()) a->setChecked(a->data().toString() == code);
}

void MainWindow::setProviders(const std::vector<ProviderSettings>& providers, int current) {
  providers_ = providers;
  for (auto& p : providers_)  // every provider has a stable id before anything keys off it
    if (p.id.empty()) p.id = QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString();
  refreshProviderCombo(current);
}

void MainWindow::refreshProviderCombo(int current) {
  const QSignalBlocker block(provider_combo_);
  provider_combo_->clear();
  for (const auto& p : providers_) provider_combo_->addItem(QString::fromStdString(p.name));
  if (providers_.empty()) {
    model_combo_->clear();
    return;
  }
  current = std::clamp(current, 0, static_cast<int>(providers_.size()) - 1);
  provider_combo_->setCurrentIndex(current);
  setModel(QString::fromStdString(providers_[current].default_model));
  emit currentProviderChanged();
}

int MainWindow::currentProvider() const {
  return provider_combo_->currentIndex();
}
QByteArray MainWindow::saveLayout() const {
  QByteArray out;
  QDataStream stream(&out, QIODevice::WriteOnly);
  stream << quint32(1) << saveGeometry() << saveState() << split_->saveState()
         << right_split_->saveState();
  return out;
}

void MainWindow::restoreLayout(const QByteArray& layout) {
  QDataStream stream(layout);
  quint32 version = 0;
  QByteArray geometry, state, split, right;
  stream >> version >> geometry >> state >> split >> right;
  if (version != 1 || stream.status() != QDataStream::Ok) return;  // none yet, or damaged
  restoreGeometry(geometry);
  restoreState(state);
  split_->restoreState(split);
  right_split_->restoreState(right);
}

QString MainWindow::exportChat(const QString& path) const {
  std::vector<ChatMessage> messages = history_;
  const QString system = parameters_->systemPrompt();
  if (!system.isEmpty()) messages.insert(messages.begin(), {"system", system.toStdString()});
  QByteArray bytes;
  if (path.endsWith(".json", Qt::CaseInsensitive)) {
    QJsonArray list;
    for (const ChatMessage& m : messages)
      list.append(QJsonObject{{"role", QString::fromStdString(m.role)},
                              {"content", QString::fromStdString(m.content)}});
    const auto p = currentProviderSettings();
    bytes = QJsonDocument(QJsonObject{{"provider", p ? QString::fromStdString(p->name) : ""},
                                      {"model", model()},
                                      {"messages", list}})
                .toJson(QJsonDocument::Indented);
  } else {
    QString md;
    for (const ChatMessage& m : messages) {
      const QString who = m.role == "user"        ? tr("You")
                          : m.role == "assistant" ? tr("Assistant")
                                                  : tr("System");
      md += QString("**%1**\n\n%2\n\n").arg(who, QString::fromStdString(m.content));
    }
    bytes = md.toUtf8();
  }
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
    return tr("cannot write %1: %2").arg(path, f.errorString());
  return {};
}

QString MainWindow::runAgain(const QString& provider, const GenerationRequest& request) {
  if (running_) return tr("A run is in progress: stop it first.");
  const auto it = std::find_if(providers_.begin(), providers_.end(), [&](const auto& p) {
    return QString::fromStdString(p.name) == provider;
  });
  if (it == providers_.end())
    return tr("The provider '%1' no longer exists: add it again to rerun this.").arg(provider);
  std::vector<ChatMessage> turns = request.messages;
  QString system;
  if (!turns.empty() && turns.front().role == "system") {
    system = QString::fromStdString(turns.front().content);
    turns.erase(turns.begin());
  }
  if (turns.empty() || turns.back().role != "user")
    return tr("That run has no user message to send again.");
  const QString last = QString::fromStdString(turns.back().content);
  turns.pop_back();
  provider_combo_->setCurrentIndex(static_cast<int>(it - providers_.begin()));
  setModel(QString::fromStdString(request.model));
  parameters_->setParams(request.params);
  parameters_->setSystemPrompt(system);
  newChat();
  history_ = turns;
  chat_->setInputText(last);
  send();
  return {};
}

void MainWindow::setModel(const QString& model) {
  model_combo_->setEditText(model);
}
QString MainWindow::model() const {
  return model_combo_->currentText().trimmed();
}

std::optional<ProviderSettings> MainWindow::currentProviderSettings() const {
  const int index = currentProvider();
  if (index < 0 || index >= static_cast<int>(providers_.size())) return std::nullopt;
  ProviderSettings p = providers_[index];
  if (!model().isEmpty()) p.default_model = model().toStdString();
  return p;
}

void MainWindow::requestDoctor() {
  const auto provider = currentProviderSettings();
  if (!provider) {
    showStatus(tr("Add a provider first (Provider → Add…)."));
    return;
  }
  emit doctorRequested(*provider);
}

void MainWindow::setModelList(const QStringList& ids, const QString& status) {
  const QString keep = model();
  model_combo_->clear();
  model_combo_->addItems(ids);
  setModel(keep);
  showStatus(status);
}

void MainWindow::replaceProvider(const ProviderSettings& provider) {
  for (auto& p : providers_) {
    if (p.name != provider.name) continue;
    p = provider;
    const QString keep = model();
    refreshProviderCombo(currentProvider());
    setModel(keep);
    emit providersEdited(providers_, currentProvider());
    return;
  }
}

void MainWindow::showError(const QString& title, const QString& text) {
  QMessageBox box(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  box.setTextInteractionFlags(Qt::TextSelectableByMouse);
  box.exec();
}

void MainWindow::editProvider(bool create) {
  const int index = currentProvider();
  if (!create && index < 0) {
    showStatus(tr("No provider to edit: add one first."));
    return;
  }
  ProviderSettings initial;
  if (create) {
    initial.name = tr("New provider").toStdString();
    initial.default_model = "baichuan";
    initial.id = QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString();
  } else {
    initial = providers_[index];
  }
  ProviderDialog dialog(initial, url_preview_, this);
  if (dialog.exec() != QDialog::Accepted) return;
  ProviderSettings edited = dialog.settings();
  for (size_t i = 0; i < providers_.size(); ++i) {
    if (providers_[i].name == edited.name && (create || static_cast<int>(i) != index)) {
      QMessageBox::warning(this, tr("Provider"),
                           tr("A provider named '%1' already exists; "
                              "choose another name.")
                               .arg(QString::fromStdString(edited.name)));
      return;
    }
  }
  int current = index;
  if (create) {
    providers_.push_back(edited);
    current = static_cast<int>(providers_.size()) - 1;
  } else {
    providers_[index] = edited;
  }
  refreshProviderCombo(current);
  emit providersEdited(providers_, current);
}

void MainWindow::showShortcuts() {
  auto* dialog = new TableDialog(tr("Keyboard shortcuts"), {tr("Keys"), tr("Action")}, this);
  dialog->setObjectName("shortcutsDialog");
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  const auto plain = [](QString text) {
    return text.remove(QRegularExpression("&(?!&)")).remove("…");
  };
  // Those without a menu entry first, then every menu item that has keys, read from the
  // menus themselves so the list is never out of date.
  dialog->addRow({QKeySequence(Qt::CTRL | Qt::Key_Return).toString(QKeySequence::NativeText),
                  tr("Send the message")});
  dialog->addRow({QKeySequence(Qt::Key_Escape).toString(QKeySequence::NativeText),
                  tr("Stop generating (the partial answer is kept)")});
  dialog->addRow({QKeySequence(QKeySequence::Refresh).toString(QKeySequence::NativeText),
                  tr("Refresh the model list")});
  const std::function<void(QMenu*, const QString&)> walk = [&](QMenu* menu, const QString& path) {
    for (QAction* a : menu->actions()) {
      const QString name = path + " → " + plain(a->text());
      if (a->menu()) {
        walk(a->menu(), name);
      } else if (!a->shortcuts().isEmpty()) {
        QStringList keys;
        for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
        dialog->addRow({keys.join(tr(" or ")), name});
      }
    }
  };
  for (QAction* a : menuBar()->actions())
    if (a->menu()) walk(a->menu(), plain(a->text()));
  dialog->resize(560, 520);
  dialog->show();
}

void MainWindow::setChosenTheme(const QString& code) {
  checkChoice(themes_, code);
}

void MainWindow::setChosenLanguage(const QString& code) {
  checkChoice(languages_, code);
}

void MainWindow::manageProviders() {
  ProvidersDialog dialog(providers_, currentProvider(), presets_, url_preview_, this);
  dialog.setObjectName("providersDialog");
  if (dialog.exec() != QDialog::Accepted) return;
  providers_ = dialog.providers();
  refreshProviderCombo(dialog.current());
  emit providersEdited(providers_, currentProvider());
}

void MainWindow::removeProvider() {
  const int index = currentProvider();
  if (index < 0) return;
  providers_.erase(providers_.begin() + index);
  refreshProviderCombo(index);
  emit providersEdited(providers_, currentProvider());
}

void MainWindow::send() {
  if (running_) return;
  const QString text = chat_->inputText();
  if (text.isEmpty()) {
    showStatus(tr("Type a message first."));
    return;
  }
  const int index = currentProvider();
  if (index < 0) {
    showStatus(tr("Add a provider first (Provider → Add…)."));
    return;
  }
  const ProviderSettings& provider = providers_[index];
  GenerationRequest request;
  request.provider = provider.name;
  request.model = model().toStdString();
  if (request.model.empty()) request.model = provider.default_model;
  request.params = parameters_->params();
  if (!parameters_->systemPrompt().isEmpty())
    request.messages.push_back({"system", parameters_->systemPrompt().toStdString()});
  history_.push_back({"user", text.toStdString()});
  request.messages.insert(request.messages.end(), history_.begin(), history_.end());

  chat_->appendUserMessage(text);
  chat_->clearInput();
  chat_->beginAssistantMessage(QString("%1 · %2").arg(QString::fromStdString(request.model),
                                                      QString::fromStdString(provider.name)));
  chat_->setBusy(true);
  recorder_.clear();
  pending_text_.clear();
  chart_->reset();
  acceptance_->reset();
  metrics_->clear();
  chart_clock_.invalidate();
  running_ = true;
  showStatus(tr("Sending to ") + QString::fromStdString(provider.name) + "…");
  emit sendRequested(provider, request);
}

void MainWindow::stop() {
  if (!running_) return;
  showStatus(tr("Stopping…"));
  emit stopRequested();
}

void MainWindow::newChat() {
  if (running_) stop();
  history_.clear();
  chat_->clearTranscript();
  chart_->reset();
  acceptance_->reset();
  metrics_->clear();
  chat_->focusInput();
}

void MainWindow::setServeState(ServeState state) {
  serve_action_->setChecked(state == ServeState::Starting || state == ServeState::On);
  const QString name = tr("&Serve the local model (OpenAI-compatible)");
  serve_action_->setText(state == ServeState::Starting   ? tr("%1 — starting…").arg(name)
                         : state == ServeState::Stopping ? tr("%1 — stopping…").arg(name)
                                                         : name);
}

void MainWindow::setServeWarning(const QString& text) {
  if (!serve_warning_) {
    serve_warning_ = new QLabel(tr("⚠ Serving to every network without a key"), statusBar());
    serve_warning_->setObjectName("serveWarningLabel");
    serve_warning_->setStyleSheet("color: #c0392b; font-weight: bold");
    statusBar()->addPermanentWidget(serve_warning_);
  }
  serve_warning_->setToolTip(text);
  serve_warning_->setVisible(!text.isEmpty());
}

void MainWindow::onStreamEvent(const StreamEvent& event) {
  if (!running_) return;
  recorder_.record(event);
  if (event.kind == EventKind::TokenChunk) {
    const QString text = QString::fromStdString(event.text);
    if (!pending_text_.isEmpty() && pending_text_.back().second == event.drafted)
      pending_text_.back().first += text;
    else
      pending_text_.append({text, event.drafted});
  }
  if (event.kind == EventKind::Finished || event.kind == EventKind::Failed) {
    frame_timer_.stop();
    flushFrame();
    finishRun(event);
    return;
  }
  if (!frame_timer_.isActive()) frame_timer_.start();
}

void MainWindow::flushFrame() {
  for (const auto& [text, drafted] : pending_text_) chat_->appendAssistantText(text, drafted);
  pending_text_.clear();
  const bool final_frame = recorder_.hasTerminal();
  if (!final_frame && chart_clock_.isValid() && chart_clock_.elapsed() < kChartMs) {
    if (!frame_timer_.isActive()) frame_timer_.start();  // the chart catches up next frame
    return;
  }
  chart_clock_.start();
  chart_->appendFrom(recorder_.run());
  metrics_->showMetrics(computeMetrics(recorder_.run()));
}

void MainWindow::finishRun(const StreamEvent& end) {
  running_ = false;
  acceptance_->showHistogram(computeMetrics(recorder_.run()).accepted_histogram);
  chat_->setBusy(false);
  chat_->finishAssistantMessage();
  const QString answer = chat_->lastAssistantText();
  if (!answer.isEmpty()) history_.push_back({"assistant", answer.toStdString()});
  if (end.kind == EventKind::Failed) {
    const QString message = QString::fromStdString(end.text);
    chat_->endAssistantMessage(message, true);
    showStatus(tr("Failed: ") + message);
  } else if (end.text == "cancelled") {
    chat_->endAssistantMessage(tr("Stopped — the partial answer is kept."), false);
    showStatus(tr("Stopped."));
  } else {
    if (end.text == "length")
      chat_->endAssistantMessage(tr("Stopped at max_tokens (finish_reason: length)."), false);
    showStatus(tr("Done (finish_reason: %1).").arg(QString::fromStdString(end.text)));
  }
  emit runDisplayed();
}

void MainWindow::onRunWarnings(const QStringList& warnings) {
  for (const QString& w : warnings) chat_->endAssistantMessage(tr("Note: ") + w, false);
}

void MainWindow::showStatus(const QString& message) {
  statusBar()->showMessage(message);
}

void MainWindow::setCpuFallback(const QString& reason) {
  if (!cpu_fallback_) {
    cpu_fallback_ = new QLabel(tr("CPU: CUDA not used"), statusBar());
    cpu_fallback_->setObjectName("cpuFallbackLabel");
    statusBar()->addPermanentWidget(cpu_fallback_);
  }
  cpu_fallback_->setToolTip(reason);
  cpu_fallback_->setVisible(!reason.isEmpty());
}

}  // namespace ts::ui
