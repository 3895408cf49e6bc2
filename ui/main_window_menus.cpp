// The main window's menus and Help → Keyboard shortcuts (MainWindow's own translation
// context, kept apart from the assembly in main_window.cpp). Every item emits an intent.
#include <QActionGroup>
#include <QFileDialog>
#include <QMenuBar>
#include <QRegularExpression>

#include "ui/chat_panel.h"
#include "ui/main_window.h"
#include "ui/parameter_panel.h"
#include "ui/provider_bar.h"
#include "ui/table_dialog.h"

namespace ts::ui {

void MainWindow::buildMenus() {
  buildFileMenu();
  buildProviderMenu();
  buildViewMenu();
  buildToolsMenu();
  buildHelpMenu();
}

void MainWindow::buildFileMenu() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&New chat"), QKeySequence::New, this, &MainWindow::newChat);
  file->addSeparator();
  file->addAction(
          tr("&Import configuration…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I), this,
          [this] {
            const QString path =
                QFileDialog::getOpenFileName(this, tr("Import configuration"), QString(),
                                             tr("Configuration (*.json *.toml);;All files (*)"));
            if (!path.isEmpty()) emit importConfigRequested(path);
          })
      ->setObjectName("importConfigAction");
  // Where to is asked by the configuration's controller: it knows which paths a start reads.
  file->addAction(tr("&Export configuration…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S),
                  this, [this] { emit exportConfigRequested({}); });
  file->addAction(
      tr("&Export chat…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the chat"), "chat.md",
                                                          tr("Markdown (*.md);;JSON (*.json)"));
        if (!path.isEmpty()) emit exportChatRequested(path);
      });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

void MainWindow::buildProviderMenu() {
  QMenu* provider = menuBar()->addMenu(tr("&Provider"));
  provider->addAction(tr("&Manage providers…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M),
                      bar_, &ProviderBar::manageProviders);
  provider->addAction(tr("&Add…"), bar_, [this] { bar_->editProvider(true); });
  provider->addAction(tr("&Edit…"), bar_, [this] { bar_->editProvider(false); });
  provider->addAction(tr("&Remove"), bar_, &ProviderBar::removeProvider);
  provider->addAction(tr("API &key…"), QKeySequence(Qt::CTRL | Qt::Key_K), bar_,
                      &ProviderBar::requestApiKey);
  provider->addSeparator();
  provider->addAction(tr("Connection &doctor…"), QKeySequence(Qt::CTRL | Qt::Key_D), bar_,
                      &ProviderBar::requestDoctor);
  // Ctrl+O opens a model, as in LM Studio and Jan (Ctrl+Shift+O still works).
  QAction* open =
      provider->addAction(tr("Open a &local model…"), this, &MainWindow::modelManagerRequested);
  open->setObjectName("openLocalModelAction");
  open->setShortcuts({QKeySequence::Open, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O)});
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
  provider->addSeparator();
  // The lab's levers are the local engine's: offered here only while it is the provider.
  QAction* lever = provider->addAction(tr("Tr&y a lever…"), this, &MainWindow::leverLabRequested);
  lever->setObjectName("tryLeverAction");
  const auto local = [this, lever] {
    const auto p = currentProviderSettings();
    lever->setEnabled(p && p->kind == ProviderKind::LocalEngine);
  };
  connect(this, &MainWindow::currentProviderChanged, lever, local);
  local();
}

void MainWindow::buildToolsMenu() {
  QMenu* tools = menuBar()->addMenu(tr("&Tools"));
  QAction* lab = tools->addAction(tr("&Lever lab…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L),
                                  this, &MainWindow::leverLabRequested);
  lab->setObjectName("leverLabAction");
  lab->setToolTip(
      tr("Pull one lever of the local engine (weights, KV cache, speculative sampling, "
         "threads, prefill policy) against its baseline, measured with confidence intervals"));
}

void MainWindow::buildViewMenu() {
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
  QAction* mark = mark_drafted_ = view->addAction(tr("Mark accepted &draft tokens"));
  mark->setObjectName("markDraftedAction");
  mark->setCheckable(true);
  mark->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
  mark->setToolTip(
      tr("Speculative runs: tokens the draft proposed and the target accepted are "
         "shown on green; the rest the target produced itself"));
  connect(mark, &QAction::toggled, chat_, &ChatPanel::setMarkDrafted);
  QAction* markdown = render_markdown_ = view->addAction(tr("Re&nder answers as Markdown"));
  markdown->setObjectName("renderMarkdownAction");
  markdown->setCheckable(true);
  markdown->setChecked(true);
  markdown->setToolTip(tr("Off: answers are shown as plain text, exactly as they streamed"));
  connect(markdown, &QAction::toggled, chat_, &ChatPanel::setRenderMarkdown);
  view->addSeparator();
  view->addAction(tr("&Effective configuration…"), this, &MainWindow::effectiveConfigRequested);
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

void MainWindow::buildHelpMenu() {
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* keys = help->addAction(tr("&Keyboard shortcuts"), this, &MainWindow::showShortcuts);
  keys->setObjectName("shortcutsAction");
  keys->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Slash), QKeySequence::HelpContents});
  help->addAction(tr("&About TokenScope"), this, &MainWindow::aboutRequested)
      ->setObjectName("aboutAction");
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

void MainWindow::showShortcuts() {
  auto* dialog = new TableDialog(tr("Keyboard shortcuts"), {tr("Keys"), tr("Action")}, this);
  dialog->setObjectName("shortcutsDialog");
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  const auto plain = [](QString text) {
    // "文件(&F)" reads "文件" (a CJK label's access key in brackets), "&File" reads "File"
    return text.remove(QRegularExpression("\\(&[^&]\\)"))
        .remove(QRegularExpression("&(?!&)"))
        .remove("…")
        .trimmed();
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

}  // namespace ts::ui
