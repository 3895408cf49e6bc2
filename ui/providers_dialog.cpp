#include "ui/providers_dialog.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QUuid>
#include <QVBoxLayout>

namespace ts::ui {

ProvidersDialog::ProvidersDialog(std::vector<ProviderSettings> providers, int selected,
                                 std::vector<ProviderSettings> presets, UrlPreview preview,
                                 QWidget* parent)
    : QDialog(parent),
      providers_(std::move(providers)),
      presets_(std::move(presets)),
      preview_(std::move(preview)) {
  setWindowTitle(tr("Providers"));
  resize(640, 380);
  auto* layout = new QHBoxLayout(this);
  list_ = new QListWidget(this);
  list_->setObjectName("providerList");
  // A long URL or model path wraps within the list (no sideways scrolling to read it).
  list_->setWordWrap(true);
  list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  layout->addWidget(list_, 1);
  auto* side = new QVBoxLayout();
  auto* add = new QPushButton(tr("&Add"), this);
  auto* add_menu = new QMenu(add);
  add_menu->addAction(tr("Blank OpenAI-compatible endpoint"), this, [this] {
    ProviderSettings p;
    p.name = uniqueName(tr("New provider")).toStdString();
    p.base_url = "http://127.0.0.1:8000";
    p.default_model = "default";
    ProviderDialog dialog(p, preview_, this);
    if (dialog.exec() == QDialog::Accepted) addProvider(dialog.settings());
  });
  add_menu->addSeparator();
  for (const auto& preset : presets_)
    add_menu->addAction(tr("Preset: ") + QString::fromStdString(preset.name), this,
                        [this, preset] { addProvider(preset); });
  add->setMenu(add_menu);
  const auto button = [&](const QString& text, const char* name, auto slot) {
    auto* b = new QPushButton(text, this);
    b->setObjectName(name);
    connect(b, &QPushButton::clicked, this, slot);
    side->addWidget(b);
  };
  side->addWidget(add);
  button(tr("&Edit…"), "editProvider", [this] { editCurrent(); });
  button(tr("D&uplicate"), "duplicateProvider", [this] { duplicateCurrent(); });
  button(tr("Re&name…"), "renameProvider", [this] {
    if (current() < 0) return;
    bool ok = false;
    const QString name =
        QInputDialog::getText(this, tr("Rename provider"), tr("New name:"), QLineEdit::Normal,
                              QString::fromStdString(providers_[current()].name), &ok);
    QString error;
    if (ok && !renameCurrent(name, &error))
      QMessageBox::warning(this, tr("Rename provider"), error);
  });
  button(tr("&Delete"), "deleteProvider", [this] { removeCurrent(); });
  button(tr("Move &up"), "moveProviderUp", [this] { moveCurrent(-1); });
  button(tr("Move do&wn"), "moveProviderDown", [this] { moveCurrent(+1); });
  side->addStretch(1);
  auto* buttons =
      new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, Qt::Vertical, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  side->addWidget(buttons);
  layout->addLayout(side);
  connect(list_, &QListWidget::itemDoubleClicked, this, [this] { editCurrent(); });
  refresh(selected);
}

int ProvidersDialog::current() const {
  return list_->currentRow();
}

void ProvidersDialog::refresh(int select) {
  list_->clear();
  for (const auto& p : providers_)
    list_->addItem(QString("%1  —  %2")
                       .arg(QString::fromStdString(p.name), QString::fromStdString(p.base_url)));
  if (!providers_.empty())
    list_->setCurrentRow(std::clamp(select, 0, static_cast<int>(providers_.size()) - 1));
}

bool ProvidersDialog::nameTaken(const QString& name, int except) const {
  for (size_t i = 0; i < providers_.size(); ++i)
    if (static_cast<int>(i) != except &&
        QString::fromStdString(providers_[i].name).compare(name, Qt::CaseInsensitive) == 0)
      return true;
  return false;
}

QString ProvidersDialog::uniqueName(const QString& base) const {
  QString name = base;
  for (int n = 2; nameTaken(name, -1); ++n) name = QString("%1 (%2)").arg(base).arg(n);
  return name;
}

void ProvidersDialog::addProvider(ProviderSettings provider) {
  provider.name = uniqueName(QString::fromStdString(provider.name)).toStdString();
  provider.id = QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString();
  providers_.push_back(provider);
  refresh(static_cast<int>(providers_.size()) - 1);
}

void ProvidersDialog::editCurrent() {
  const int at = current();
  if (at < 0) return;
  ProviderDialog dialog(providers_[at], preview_, this);
  if (dialog.exec() != QDialog::Accepted) return;
  ProviderSettings edited = dialog.settings();
  if (nameTaken(QString::fromStdString(edited.name), at)) {
    QMessageBox::warning(this, tr("Provider"), tr("Another provider already has that name."));
    return;
  }
  edited.id = providers_[at].id;
  edited.key_source = providers_[at].key_source;
  providers_[at] = edited;
  refresh(at);
}

void ProvidersDialog::duplicateCurrent() {
  const int at = current();
  if (at < 0) return;
  ProviderSettings copy = providers_[at];
  copy.name = uniqueName(QString::fromStdString(copy.name) + tr(" copy")).toStdString();
  copy.id = QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString();
  // A keychain or file key belongs to the original; the copy starts from its variable.
  copy.key_source = KeySource::Environment;
  providers_.insert(providers_.begin() + at + 1, copy);
  refresh(at + 1);
}

bool ProvidersDialog::renameCurrent(const QString& name, QString* error) {
  const int at = current();
  const QString trimmed = name.trimmed();
  if (at < 0) return false;
  if (trimmed.isEmpty()) {
    if (error) *error = tr("A provider needs a name.");
    return false;
  }
  if (nameTaken(trimmed, at)) {
    if (error) *error = tr("A provider named '%1' already exists.").arg(trimmed);
    return false;
  }
  providers_[at].name = trimmed.toStdString();
  refresh(at);
  return true;
}

void ProvidersDialog::removeCurrent() {
  const int at = current();
  if (at < 0) return;
  providers_.erase(providers_.begin() + at);
  refresh(at);
}

void ProvidersDialog::moveCurrent(int delta) {
  const int at = current();
  const int to = at + delta;
  if (at < 0 || to < 0 || to >= static_cast<int>(providers_.size())) return;
  std::swap(providers_[at], providers_[to]);
  refresh(to);
}

}  // namespace ts::ui
