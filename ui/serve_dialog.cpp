#include "ui/serve_dialog.h"

#include <QCheckBox>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QGroupBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace ts::ui {
namespace {

constexpr const char* kWarningStyle = "color: #c0392b; font-weight: bold";

QLabel* wrapped(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  label->setTextFormat(Qt::PlainText);  // "<key>" is text
  label->setWordWrap(true);
  return label;
}

}  // namespace

ServeDialog::ServeDialog(const ServeChoice& choice, bool serving, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("Serve settings"));
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(
      wrapped(tr("Provider → Serve the local model makes the selected local model available "
                 "to other tools through the OpenAI API."),
              this));

  auto* listen = new QGroupBox(tr("Listen on"), this);
  auto* listen_layout = new QVBoxLayout(listen);
  loopback_ = new QRadioButton(tr("&This computer only (127.0.0.1)"), listen);
  loopback_->setObjectName("serveLoopback");
  every_network_ =
      new QRadioButton(tr("&Every network (0.0.0.0): other computers can connect"), listen);
  every_network_->setObjectName("serveEveryNetwork");
  listen_layout->addWidget(loopback_);
  listen_layout->addWidget(every_network_);
  (choice.every_network ? every_network_ : loopback_)->setChecked(true);
  layout->addWidget(listen);

  auto* key = new QGroupBox(tr("API key"), this);
  auto* key_layout = new QVBoxLayout(key);
  require_key_ = new QCheckBox(tr("Require an API &key"), key);
  require_key_->setObjectName("serveRequireKey");
  require_key_->setChecked(choice.require_key);
  key_layout->addWidget(require_key_);
  auto* how = wrapped(tr("Clients send it as the header Authorization: Bearer <key>. It is kept in "
                         "the system keychain and shown once, when it is made."),
                      key);
  key_layout->addWidget(how);
  auto* state_row = new QHBoxLayout;
  key_state_ = wrapped(QString(), key);
  key_state_->setObjectName("serveKeyState");
  new_key_ = new QPushButton(tr("&New key…"), key);
  new_key_->setObjectName("serveNewKey");
  new_key_->setToolTip(
      tr("Make a new key and show it once; the old one stops working the next "
         "time Serve starts"));
  state_row->addWidget(key_state_, 1);
  state_row->addWidget(new_key_, 0, Qt::AlignTop);
  key_layout->addLayout(state_row);
  layout->addWidget(key);

  warning_ = wrapped(QString(), this);
  warning_->setObjectName("serveWarning");
  warning_->setStyleSheet(kWarningStyle);
  warning_->hide();
  layout->addWidget(warning_);
  if (serving) {
    auto* note =
        wrapped(tr("Serve is running: these settings apply the next time it starts."), this);
    note->setObjectName("serveRunningNote");
    note->setStyleSheet("color: palette(mid)");
    layout->addWidget(note);
  }
  layout->addStretch(1);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->setObjectName("serveButtons");
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(new_key_, &QPushButton::clicked, this, &ServeDialog::newKeyRequested);
  for (QAbstractButton* b :
       {static_cast<QAbstractButton*>(every_network_), static_cast<QAbstractButton*>(require_key_)})
    connect(b, &QAbstractButton::toggled, this, [this] {
      refresh();
      emit choiceChanged(this->choice());
    });
  refresh();
  setMinimumWidth(520);
}

ServeChoice ServeDialog::choice() const {
  return {every_network_->isChecked(), require_key_->isChecked()};
}

void ServeDialog::setWarning(const QString& text) {
  warning_->setText(text.isEmpty() ? QString() : QString("⚠ ") + text);
  warning_->setVisible(!text.isEmpty());
  fitHeight();
}

void ServeDialog::fitHeight() {
  // Wrapped labels change height with the text and the width: grow so that nothing is
  // squeezed (a top-level window's minimum height ignores height-for-width by itself).
  layout()->activate();
  const int wanted =
      layout()->hasHeightForWidth() ? layout()->totalHeightForWidth(width()) : sizeHint().height();
  if (wanted != minimumHeight()) setMinimumHeight(wanted);
  if (wanted > height()) resize(width(), wanted);
}

void ServeDialog::resizeEvent(QResizeEvent* event) {
  QDialog::resizeEvent(event);
  fitHeight();
}

bool ServeDialog::event(QEvent* event) {
  const bool handled = QDialog::event(event);
  // The layout has just been redone (a text changed): its heights are current only now.
  if (event->type() == QEvent::LayoutRequest) fitHeight();
  return handled;
}

void ServeDialog::setKeyState(ServeKeyState state, const QString& detail) {
  key_ = state;
  key_detail_ = detail;
  refresh();
}

void ServeDialog::refresh() {
  QString text;
  bool error = false;
  switch (key_) {
    case ServeKeyState::Checking:
      text = tr("Looking for the key in the keychain…");
      break;
    case ServeKeyState::Stored:
      text =
          tr("A key is kept in the keychain. It is not shown again: make a new one if it is "
             "lost.");
      break;
    case ServeKeyState::Missing:
      text = require_key_->isChecked()
                 ? tr("No key yet: one is made and shown once when these settings are saved.")
                 : tr("No key yet.");
      break;
    case ServeKeyState::Unavailable:
      text = tr("The keychain cannot be used (%1): Serve cannot require a key until it can.")
                 .arg(key_detail_);
      error = require_key_->isChecked();
      break;
  }
  key_state_->setText(text);
  key_state_->setStyleSheet(error ? kWarningStyle : "");
  fitHeight();
  new_key_->setEnabled(key_ == ServeKeyState::Stored || key_ == ServeKeyState::Missing);
}

ServeKeyDialog::ServeKeyDialog(const QString& key, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("The API key for Serve"));
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(wrapped(tr("Serve the local model requires this key. Copy it into the "
                               "tools that call it (header Authorization: Bearer <key>)."),
                            this));
  auto* row = new QHBoxLayout;
  key_ = new QLineEdit(key, this);
  key_->setObjectName("serveKeyEdit");
  key_->setReadOnly(true);
  key_->setMinimumWidth(key_->fontMetrics().horizontalAdvance(key) + 24);
  auto* copy = new QPushButton(tr("&Copy"), this);
  copy->setObjectName("serveKeyCopy");
  row->addWidget(key_, 1);
  row->addWidget(copy);
  layout->addLayout(row);
  auto* once = wrapped(tr("It will not be shown again. If it is lost, make a new one under "
                          "Provider → Serve settings…"),
                       this);
  once->setStyleSheet("font-weight: bold");
  layout->addWidget(once);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(copy, &QPushButton::clicked, this, [this] {
    QGuiApplication::clipboard()->setText(key_->text());
    emit copied(tr("The key for Serve is on the clipboard."));
  });
}

}  // namespace ts::ui
