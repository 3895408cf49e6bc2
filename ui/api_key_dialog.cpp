#include "ui/api_key_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace ts::ui {

ApiKeyDialog::ApiKeyDialog(const ProviderSettings& provider, const QString& plaintext_path,
                           QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("API key — ") + QString::fromStdString(provider.name));
  setMinimumWidth(560);
  auto* layout = new QVBoxLayout(this);
  keychain_ = new QRadioButton(tr("Store the key in the system &keychain (recommended)"), this);
  keychain_->setObjectName("keychainRadio");
  env_ = new QRadioButton(tr("Read the key from an &environment variable"), this);
  env_->setObjectName("envRadio");
  file_ = new QRadioButton(tr("Save the key in a &plaintext file (not recommended)"), this);
  file_->setObjectName("fileRadio");
  keychain_note_ = new QLabel(this);
  keychain_note_->setObjectName("keychainNote");
  keychain_note_->setWordWrap(true);
  layout->addWidget(keychain_);
  layout->addWidget(keychain_note_);
  layout->addWidget(env_);
  layout->addWidget(file_);
  file_warning_ = new QLabel(
      tr("The key will be written unencrypted to %1, readable only by you (0600). Anyone "
         "with your account, or a backup of your home folder, can read it.")
          .arg(plaintext_path),
      this);
  file_warning_->setObjectName("fileWarning");
  file_warning_->setWordWrap(true);
  file_warning_->setStyleSheet("color: #c0392b");
  layout->addWidget(file_warning_);

  auto* form = new QFormLayout();
  auto* key_row = new QHBoxLayout();
  key_ = new QLineEdit(this);
  key_->setObjectName("keyEdit");
  key_->setEchoMode(QLineEdit::Password);
  key_->setPlaceholderText(tr("sk-…"));
  show_ = new QCheckBox(tr("Show"), this);
  key_row->addWidget(key_, 1);
  key_row->addWidget(show_);
  // A row of a layout gets no buddy from the form: without one the label would show
  // "API &key" with its ampersand.
  auto* key_label = new QLabel(tr("API &key"), this);
  key_label->setBuddy(key_);
  form->addRow(key_label, key_row);
  key_note_ = new QLabel(this);
  key_note_->setObjectName("keyNote");
  key_note_->setWordWrap(true);
  form->addRow("", key_note_);
  env_var_ = new QLineEdit(QString::fromStdString(provider.api_key_env), this);
  env_var_->setObjectName("envVarEdit");
  env_var_->setPlaceholderText("TAOTOKEN_API_KEY");
  form->addRow(tr("&Variable"), env_var_);
  layout->addLayout(form);

  auto* test_row = new QHBoxLayout();
  test_ = new QPushButton(tr("&Test"), this);
  test_->setObjectName("testKeyButton");
  test_->setToolTip(tr("Send one tiny request (max_tokens 1) with this key"));
  test_result_ = new QLabel(this);
  test_result_->setObjectName("testResult");
  test_result_->setWordWrap(true);
  test_row->addWidget(test_);
  test_row->addWidget(test_result_, 1);
  layout->addLayout(test_row);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  layout->addWidget(buttons_);

  switch (provider.key_source) {
    case KeySource::Keychain:
      keychain_->setChecked(true);
      break;
    case KeySource::PlaintextFile:
      file_->setChecked(true);
      break;
    case KeySource::Environment:
      env_->setChecked(true);
      break;
  }
  for (QRadioButton* r : {keychain_, env_, file_})
    connect(r, &QRadioButton::toggled, this, &ApiKeyDialog::refresh);
  connect(key_, &QLineEdit::textChanged, this, &ApiKeyDialog::refresh);
  connect(env_var_, &QLineEdit::textChanged, this, &ApiKeyDialog::refresh);
  connect(show_, &QCheckBox::toggled, this,
          [this](bool on) { key_->setEchoMode(on ? QLineEdit::Normal : QLineEdit::Password); });
  connect(test_, &QPushButton::clicked, this, [this] {
    test_result_->setText(tr("Testing…"));
    test_->setEnabled(false);
    emit testRequested(choice());
  });
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  refresh();
}

void ApiKeyDialog::setKeychainStatus(bool available, const QString& reason) {
  keychain_available_ = available;
  keychain_->setEnabled(available);
  keychain_note_->setText(available ? QString() : tr("Unavailable: ") + reason + ".");
  keychain_note_->setVisible(!available);
  if (!available && keychain_->isChecked()) env_->setChecked(true);
  refresh();
}

void ApiKeyDialog::setTestResult(bool ok, const QString& text) {
  test_->setEnabled(true);
  test_result_->setText(text);
  test_result_->setStyleSheet(ok ? "color: #1e8449" : "color: #c0392b");
}

ApiKeyChoice ApiKeyDialog::choice() const {
  ApiKeyChoice c;
  c.source = keychain_->isChecked() ? KeySource::Keychain
             : file_->isChecked()   ? KeySource::PlaintextFile
                                    : KeySource::Environment;
  c.key = key_->text().trimmed();
  c.trimmed = c.key.size() != key_->text().size();
  c.env_var = env_var_->text().trimmed();
  if (c.source == KeySource::Environment) c.key.clear();
  return c;
}

void ApiKeyDialog::refresh() {
  const ApiKeyChoice c = choice();
  const bool uses_key = c.source != KeySource::Environment;
  key_->setEnabled(uses_key);
  show_->setEnabled(uses_key);
  env_var_->setEnabled(!uses_key);
  file_warning_->setVisible(c.source == KeySource::PlaintextFile);
  QString note;
  if (uses_key && c.trimmed)
    note = tr("White space around the key (a pasted newline?) will be removed before it is saved.");
  else if (!uses_key && !c.env_var.isEmpty() &&
           !qEnvironmentVariableIsSet(c.env_var.toLocal8Bit().constData()))
    note = QString(tr("%1 is not set in this environment: run `export %1=<key>` before starting "
                      "TokenScope."))
               .arg(c.env_var);
  key_note_->setText(note);
  buttons_->button(QDialogButtonBox::Ok)
      ->setEnabled(uses_key ? !c.key.isEmpty() : !c.env_var.isEmpty());
}

}  // namespace ts::ui
