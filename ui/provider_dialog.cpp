#include "ui/provider_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>

namespace ts::ui {

ProviderDialog::ProviderDialog(const ProviderSettings& initial, UrlPreview preview, QWidget* parent)
    : QDialog(parent), preview_(std::move(preview)), initial_(initial) {
  setWindowTitle(tr("Provider"));
  auto* form = new QFormLayout(this);
  name_ = new QLineEdit(QString::fromStdString(initial.name), this);
  name_->setObjectName("providerName");
  form->addRow(tr("&Name"), name_);
  kind_ = new QComboBox(this);
  kind_->setObjectName("providerKind");
  kind_->addItem(tr("OpenAI-compatible endpoint"), static_cast<int>(ProviderKind::Remote));
  kind_->addItem(tr("Local engine (a model file on this machine)"),
                 static_cast<int>(ProviderKind::LocalEngine));
  kind_->setCurrentIndex(initial.kind == ProviderKind::LocalEngine ? 1 : 0);
  form->addRow(tr("&Kind"), kind_);
  base_url_ = new QLineEdit(QString::fromStdString(initial.base_url), this);
  base_url_->setObjectName("providerBaseUrl");
  base_url_->setPlaceholderText("https://taotoken.net/api");
  base_url_label_ = new QLabel(tr("&Base URL"), this);
  base_url_label_->setBuddy(base_url_);
  form->addRow(base_url_label_, base_url_);
  url_note_ = new QLabel(this);
  url_note_->setObjectName("providerUrlNote");
  url_note_->setWordWrap(true);
  form->addRow("", url_note_);
  model_ = new QLineEdit(QString::fromStdString(initial.default_model), this);
  model_->setObjectName("providerModel");
  form->addRow(tr("Default &model"), model_);
  key_env_ = new QLineEdit(QString::fromStdString(initial.api_key_env), this);
  key_env_->setObjectName("providerKeyEnv");
  key_env_->setPlaceholderText("TAOTOKEN_API_KEY");
  key_env_->setToolTip(
      tr("The name of the environment variable that holds the API key. The key "
         "itself is never stored by TokenScope."));
  form->addRow(tr("API key &variable"), key_env_);
  key_note_ = new QLabel(this);
  key_note_->setObjectName("providerKeyNote");
  key_note_->setWordWrap(true);
  form->addRow("", key_note_);
  timeout_ = new QSpinBox(this);
  timeout_->setRange(1, 3600);
  timeout_->setSuffix(tr(" s"));
  timeout_->setValue(initial.timeout_seconds);
  timeout_->setToolTip(tr("Longest wait for the connection, the first token, and between chunks."));
  form->addRow(tr("&Timeout"), timeout_);
  retries_ = new QSpinBox(this);
  retries_->setRange(0, 10);
  retries_->setValue(initial.max_retries);
  retries_->setToolTip(tr("Retries before the first token only; a stream is never replayed."));
  form->addRow(tr("Max &retries"), retries_);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  form->addRow(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  for (QLineEdit* e : {name_, base_url_, key_env_, model_})
    connect(e, &QLineEdit::textChanged, this, &ProviderDialog::revalidate);
  connect(kind_, &QComboBox::currentIndexChanged, this, &ProviderDialog::revalidate);
  revalidate();
}

void ProviderDialog::revalidate() {
  const bool local = kind_->currentData().toInt() == static_cast<int>(ProviderKind::LocalEngine);
  base_url_label_->setText(local ? tr("Model &file") : tr("&Base URL"));
  base_url_->setPlaceholderText(local ? tr("/path/to/model.gguf or a Hugging Face folder")
                                      : "https://taotoken.net/api");
  for (QWidget* w : std::initializer_list<QWidget*>{key_env_, timeout_, retries_})
    w->setEnabled(!local);
  if (local) {
    const QFileInfo file(base_url_->text().trimmed());
    const bool found = !base_url_->text().trimmed().isEmpty() && file.exists();
    url_note_->setText(
        found ? tr("Runs %1 in-process (loaded at the first message).").arg(file.absoluteFilePath())
              : tr("Give a GGUF file, a Hugging Face folder or a llama2.c "
                   "checkpoint that exists on this machine."));
    url_note_->setStyleSheet(found ? "color: palette(mid)" : "color: #c0392b");
    key_note_->setText(tr("No key: the model runs on this machine."));
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(found && !name_->text().trimmed().isEmpty());
    return;
  }
  const auto [url, is_error] = preview_(base_url_->text());
  url_note_->setText(is_error ? url : tr("Requests go to ") + url);
  url_note_->setStyleSheet(is_error ? "color: #c0392b" : "color: palette(mid)");
  const QString var = key_env_->text().trimmed();
  if (var.isEmpty())
    key_note_->setText(tr("No key will be sent (fine for local servers)."));
  else if (!qEnvironmentVariableIsSet(var.toLocal8Bit().constData()))
    key_note_->setText(tr("%1 is not set in this environment: run `export %1=<key>` before "
                          "starting TokenScope.")
                           .arg(var));
  else
    key_note_->setText(tr("%1 is set.").arg(var));
  buttons_->button(QDialogButtonBox::Ok)
      ->setEnabled(!is_error && !name_->text().trimmed().isEmpty() &&
                   !model_->text().trimmed().isEmpty());
}

ProviderSettings ProviderDialog::settings() const {
  ProviderSettings s = initial_;  // keeps id and key source
  s.kind = static_cast<ProviderKind>(kind_->currentData().toInt());
  s.name = name_->text().trimmed().toStdString();
  s.base_url = base_url_->text().trimmed().toStdString();
  s.default_model = model_->text().trimmed().toStdString();
  if (s.kind == ProviderKind::LocalEngine && s.default_model.empty())  // the file's name
    s.default_model = QFileInfo(base_url_->text().trimmed()).completeBaseName().toStdString();
  s.api_key_env = key_env_->text().trimmed().toStdString();
  s.timeout_seconds = timeout_->value();
  s.max_retries = retries_->value();
  return s;
}

}  // namespace ts::ui
