#include "ui/provider_bar.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QUuid>

#include "ui/elided_label.h"
#include "ui/providers_dialog.h"

namespace ts::ui {
namespace {
constexpr int kWidestProvider = 280;  // px: with the model box, the toolbar fits 1024 px
}  // namespace

ProviderBar::ProviderBar(QWidget* parent) : QToolBar(tr("Provider"), parent) {
  setObjectName("providerToolbar");
  setMovable(false);
  url_preview_ = [](const QString& url) { return std::make_pair(url, false); };
  addWidget(new QLabel(tr(" Provider "), this));
  provider_combo_ = new ElidedComboBox(this);
  provider_combo_->setObjectName("providerCombo");
  // As wide as the longest name up to kWidestProvider px; a longer one is cut with "…"
  // (whole on hover and in the list): the toolbar must fit a 1024 px window.
  provider_combo_->setMinimumContentsLength(16);
  provider_combo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  provider_combo_->setMaximumWidth(kWidestProvider);
  addWidget(provider_combo_);
  addAction(tr("Add…"), this, [this] { editProvider(true); });
  addAction(tr("Edit…"), this, [this] { editProvider(false); });
  addAction(tr("Remove"), this, &ProviderBar::removeProvider);
  addAction(tr("API key…"), this, &ProviderBar::requestApiKey);
  addAction(tr("Doctor…"), this, &ProviderBar::requestDoctor)
      ->setToolTip(tr("Check this provider step by step (Ctrl+D)"));
  addSeparator();
  addWidget(new QLabel(tr(" Model "), this));
  model_combo_ = new QComboBox(this);
  model_combo_->setObjectName("modelCombo");
  model_combo_->setEditable(true);  // ids the endpoint does not list can be typed
  model_combo_->setInsertPolicy(QComboBox::NoInsert);
  model_combo_->lineEdit()->setObjectName("modelEdit");
  model_combo_->setMinimumContentsLength(20);
  model_combo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  model_combo_->setToolTip(tr("Model id: pick one the endpoint lists, or type any id"));
  addWidget(model_combo_);
  QAction* refresh = addAction("⟳", this, [this] {
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

void ProviderBar::setProviders(const std::vector<ProviderSettings>& providers, int current) {
  providers_ = providers;
  for (auto& p : providers_)  // every provider has a stable id before anything keys off it
    if (p.id.empty()) p.id = QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString();
  refreshProviderCombo(current);
}

void ProviderBar::refreshProviderCombo(int current) {
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

int ProviderBar::currentProvider() const {
  return provider_combo_->currentIndex();
}

bool ProviderBar::selectProvider(const QString& name) {
  for (size_t i = 0; i < providers_.size(); ++i) {
    if (QString::fromStdString(providers_[i].name) != name) continue;
    provider_combo_->setCurrentIndex(static_cast<int>(i));
    return true;
  }
  return false;
}

void ProviderBar::setModel(const QString& model) {
  model_combo_->setEditText(model);
}

QString ProviderBar::model() const {
  return model_combo_->currentText().trimmed();
}

std::optional<ProviderSettings> ProviderBar::currentProviderSettings() const {
  const int index = currentProvider();
  if (index < 0 || index >= static_cast<int>(providers_.size())) return std::nullopt;
  ProviderSettings p = providers_[index];
  if (!model().isEmpty()) p.default_model = model().toStdString();
  return p;
}

void ProviderBar::replaceProvider(const ProviderSettings& provider) {
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

void ProviderBar::setModelList(const QStringList& ids) {
  const QString keep = model();
  model_combo_->clear();
  model_combo_->addItems(ids);
  setModel(keep);
}

void ProviderBar::requestDoctor() {
  const auto provider = currentProviderSettings();
  if (!provider) return emit status(tr("Add a provider first (Provider → Add…)."));
  emit doctorRequested(*provider);
}

void ProviderBar::requestApiKey() {
  if (const auto p = currentProviderSettings()) emit apiKeyRequested(*p);
}

void ProviderBar::editProvider(bool create) {
  const int index = currentProvider();
  if (!create && index < 0) return emit status(tr("No provider to edit: add one first."));
  ProviderSettings initial;
  if (create) {
    initial.name = tr("New provider").toStdString();
    initial.default_model = "baichuan";
    initial.id = QUuid::createUuid().toString(QUuid::WithoutBraces).toStdString();
  } else {
    initial = providers_[index];
  }
  ProviderDialog dialog(initial, url_preview_, parentWidget());
  if (dialog.exec() != QDialog::Accepted) return;
  ProviderSettings edited = dialog.settings();
  for (size_t i = 0; i < providers_.size(); ++i) {
    if (providers_[i].name == edited.name && (create || static_cast<int>(i) != index)) {
      QMessageBox::warning(parentWidget(), tr("Provider"),
                           tr("A provider named '%1' already exists; choose another name.")
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

void ProviderBar::manageProviders() {
  ProvidersDialog dialog(providers_, currentProvider(), presets_, url_preview_, parentWidget());
  dialog.setObjectName("providersDialog");
  if (dialog.exec() != QDialog::Accepted) return;
  providers_ = dialog.providers();
  refreshProviderCombo(dialog.current());
  emit providersEdited(providers_, currentProvider());
}

void ProviderBar::removeProvider() {
  const int index = currentProvider();
  if (index < 0) return;
  providers_.erase(providers_.begin() + index);
  refreshProviderCombo(index);
  emit providersEdited(providers_, currentProvider());
}

}  // namespace ts::ui
