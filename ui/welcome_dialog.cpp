#include "ui/welcome_dialog.h"

#include <QCommandLinkButton>
#include <QDialogButtonBox>
#include <QFontMetrics>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>

namespace ts::ui {
namespace {

constexpr int kMinimumWidth = 480;      // px
constexpr int kPreferredWidth = 560;    // px: descriptions in about two lines
constexpr int kTitleBarControls = 160;  // px a title bar keeps for its icon and buttons

}  // namespace

WelcomeDialog::WelcomeDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Welcome to TokenScope"));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(
      tr("<b>Chat with a model and watch every token arrive.</b><br>TTFT, TPOT and the gap "
         "before each token are measured as the answer streams. How would you like to "
         "start?"),
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  const struct {
    Choice choice;
    const char* name;
    QString title, detail;
  } options[] = {
      {Choice::DemoModel, "welcomeDemo", tr("Use the demo model"),
       tr("A tiny built-in model: no key, no GPU, no network. Its text is noise, its timings "
          "are real.")},
      {Choice::ApiKey, "welcomeApiKey", tr("Add an API key"),
       tr("TaoToken (one key, one base URL) or any OpenAI-compatible endpoint; the key goes "
          "to the system keychain.")},
      {Choice::LocalModel, "welcomeLocal", tr("Open a local model"),
       tr("A GGUF file, a Hugging Face folder or a llama2.c checkpoint, run by the built-in "
          "engine on the CPU or a CUDA GPU.")},
      {Choice::Download, "welcomeDownload", tr("Download a model"),
       tr("TinyStories or Baichuan2 from the Hugging Face hub, resumable and verified.")}};
  for (const auto& o : options) {
    auto* button = new QCommandLinkButton(o.title, o.detail, this);
    button->setObjectName(o.name);
    const Choice choice = o.choice;
    connect(button, &QCommandLinkButton::clicked, this, [this, choice] { choose(choice); });
    layout->addWidget(button);
  }
  auto* buttons = new QDialogButtonBox(this);
  QPushButton* skip = buttons->addButton(tr("&Skip"), QDialogButtonBox::RejectRole);
  skip->setObjectName("welcomeSkip");
  skip->setToolTip(tr("Start on the demo model; everything here is also in the Provider menu"));
  connect(skip, &QPushButton::clicked, this, [this] { choose(Choice::Skip); });
  layout->addWidget(buttons);
  // Wide enough for the whole title in a window manager's title bar and for the options'
  // descriptions to wrap in two or three lines (QCommandLinkButton wraps them): without it
  // the layout shrinks to its narrowest (~220 px, the title elided).
  const int title = QFontMetrics(font()).horizontalAdvance(windowTitle());
  setMinimumWidth(std::max(kMinimumWidth, title + kTitleBarControls));
  const int width = std::max(minimumWidth(), kPreferredWidth);
  resize(width,
         layout->hasHeightForWidth() ? layout->totalHeightForWidth(width) : sizeHint().height());
}

void WelcomeDialog::choose(Choice choice) {
  choice_ = choice;
  emit chosen(choice);
  if (choice == Choice::Skip)
    reject();
  else
    accept();
}

}  // namespace ts::ui
