#include "ui/main_window.h"

#include <QActionGroup>
#include <QDataStream>
#include <QGuiApplication>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/acceptance_chart.h"
#include "ui/chat_panel.h"
#include "ui/latency_chart.h"
#include "ui/metrics_strip.h"
#include "ui/parameter_panel.h"
#include "ui/provider_bar.h"
#include "ui/run_display.h"
#include "ui/window_status_bar.h"

namespace ts::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("TokenScope"));
  // 1280 × 800 where the screen has room; on a smaller one (1024 × 700) within it, leaving
  // a title bar's height (a remembered size is fitted in restoreLayout).
  const QScreen* screen = QGuiApplication::primaryScreen();
  resize(screen ? QSize(1280, 800).boundedTo(screen->availableGeometry().size() - QSize(0, 40))
                : QSize(1280, 800));
  chat_ = new ChatPanel(this);
  metrics_ = new MetricsStrip(this);
  parameters_ = new ParameterPanel(this);
  chart_ = new LatencyChart(this);
  acceptance_ = new AcceptanceChart(this);
  display_ = new RunDisplay(chat_, chart_, acceptance_, metrics_, this);
  setCentralWidget(buildPanels());
  addToolBar(bar_ = new ProviderBar(this));
  setStatusBar(status_ = new WindowStatusBar(this));
  buildMenus();
  showStatus(tr("Ready"));

  connect(bar_, &ProviderBar::doctorRequested, this, &MainWindow::doctorRequested);
  connect(bar_, &ProviderBar::apiKeyRequested, this, &MainWindow::apiKeyRequested);
  connect(bar_, &ProviderBar::modelsRequested, this, &MainWindow::modelsRequested);
  connect(bar_, &ProviderBar::providersEdited, this, &MainWindow::providersEdited);
  connect(bar_, &ProviderBar::currentProviderChanged, this, &MainWindow::currentProviderChanged);
  connect(bar_, &ProviderBar::status, this, &MainWindow::showStatus);
  connect(display_, &RunDisplay::answered, this, &MainWindow::answered);
  connect(display_, &RunDisplay::status, this, &MainWindow::showStatus);
  connect(display_, &RunDisplay::finished, this, &MainWindow::runDisplayed);
  connect(chat_, &ChatPanel::sendClicked, this, &MainWindow::send);
  connect(chat_, &ChatPanel::stopClicked, this, &MainWindow::stop);
  connect(chat_, &ChatPanel::copied, this, &MainWindow::showStatus);
  chat_->focusInput();
}

QWidget* MainWindow::buildPanels() {
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
  parameters_->installEventFilter(this);  // their height changes: fitParameters
  right->installEventFilter(this);        // the column's height changes: the same
  fitParameters();
  right->addWidget(parameters_scroll);
  right->addWidget(chart_);
  right->addWidget(acceptance_);
  right->setStretchFactor(1, 1);
  auto* split = split_ = new QSplitter(Qt::Horizontal, this);
  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setChildrenCollapsible(false);
  return split;
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
  // As wide as the parameters need now (a row shown later may need more: their labels
  // would be cut), plus a scroll bar; the splitter then keeps that width.
  parameters_scroll_->setMinimumWidth(parameters_->minimumSizeHint().width() +
                                      parameters_scroll_->verticalScrollBar()->sizeHint().width());
}

void MainWindow::setUrlPreview(UrlPreview preview) {
  bar_->setUrlPreview(std::move(preview));
}
void MainWindow::setProviderPresets(std::vector<ProviderSettings> presets) {
  bar_->setPresets(std::move(presets));
}
void MainWindow::manageProviders() {
  bar_->manageProviders();
}
void MainWindow::setProviders(const std::vector<ProviderSettings>& providers, int current) {
  bar_->setProviders(providers, current);
}
const std::vector<ProviderSettings>& MainWindow::providers() const {
  return bar_->providers();
}
int MainWindow::currentProvider() const {
  return bar_->currentProvider();
}
void MainWindow::setModel(const QString& model) {
  bar_->setModel(model);
}
QString MainWindow::model() const {
  return bar_->model();
}
std::optional<ProviderSettings> MainWindow::currentProviderSettings() const {
  return bar_->currentProviderSettings();
}
void MainWindow::replaceProvider(const ProviderSettings& provider) {
  bar_->replaceProvider(provider);
}
void MainWindow::setModelList(const QStringList& ids, const QString& status) {
  bar_->setModelList(ids);
  showStatus(status);
}

void MainWindow::checkChoice(QActionGroup* group, const QString& code) {
  for (QAction* a : group->actions()) a->setChecked(a->data().toString() == code);
}
void MainWindow::setChosenTheme(const QString& code) {
  checkChoice(themes_, code);
}
void MainWindow::setChosenLanguage(const QString& code) {
  checkChoice(languages_, code);
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
  QByteArray saved_geometry, state, split, right;
  stream >> version >> saved_geometry >> state >> split >> right;
  if (version != 1 || stream.status() != QDataStream::Ok) return;  // none yet, or damaged
  restoreGeometry(saved_geometry);
  restoreState(state);
  split_->restoreState(split);
  right_split_->restoreState(right);
  // A size remembered from a larger screen (or an older build that grew the window) is
  // brought back within the screen this window opens on.
  const QScreen* where = screen() ? screen() : QGuiApplication::primaryScreen();
  if (!where || isMaximized() || isFullScreen()) return;
  const QRect room = where->availableGeometry();
  const QSize frame = frameGeometry().size() - geometry().size();  // title bar and borders
  const QSize fits = size().boundedTo(room.size() - frame);
  if (fits != size()) {
    resize(fits);
    move(room.topLeft());
  }
}

QString MainWindow::runAgain(const QString& provider, const GenerationRequest& request) {
  return run_again_ ? run_again_(provider, request) : tr("Nothing here can send a run again.");
}

void MainWindow::showError(const QString& title, const QString& text) {
  QMessageBox box(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  box.setTextInteractionFlags(Qt::TextSelectableByMouse);
  box.exec();
}

bool MainWindow::ask(const QString& title, const QString& question) {
  return QMessageBox::question(this, title, question) == QMessageBox::Yes;
}

void MainWindow::beginRun(const QString& label) {
  display_->begin(label);
}

void MainWindow::clearConversation() {
  chat_->clearTranscript();
  display_->clear();
  chat_->focusInput();
}

const RecordedRun& MainWindow::currentRun() const {
  return display_->run();
}
bool MainWindow::isRunning() const {
  return display_->isRunning();
}

void MainWindow::send() {
  emit submitRequested();
}

void MainWindow::stop() {
  if (!isRunning()) return;
  showStatus(tr("Stopping…"));
  emit stopRequested();
}

void MainWindow::newChat() {
  emit newChatRequested();
}

void MainWindow::onStreamEvent(const StreamEvent& event) {
  display_->onStreamEvent(event);
}

void MainWindow::onRunWarnings(const QStringList& warnings) {
  for (const QString& w : warnings) chat_->endAssistantMessage(tr("Note: ") + w, false);
}

void MainWindow::showStatus(const QString& message) {
  status_->showMessage(message);
}

void MainWindow::setCpuFallback(const QString& reason) {
  status_->setCpuFallback(reason);
}

void MainWindow::setServeWarning(const QString& text) {
  status_->setServeWarning(text);
}

void MainWindow::setPreparing(const QString& what, int percent) {
  status_->setPreparing(what, percent);
}

void MainWindow::setServeState(ServeState state) {
  serve_action_->setChecked(state == ServeState::Starting || state == ServeState::On);
  const QString name = tr("&Serve the local model (OpenAI-compatible)");
  serve_action_->setText(state == ServeState::Starting   ? tr("%1 — starting…").arg(name)
                         : state == ServeState::Stopping ? tr("%1 — stopping…").arg(name)
                                                         : name);
}

}  // namespace ts::ui
