// The toolbar on top of the main window: the provider picker with Add / Edit / Remove /
// API key / Doctor, and the model box (an endpoint's ids, or any typed id) with refresh.
// It holds the provider list as the user edits it and reports every edit as an intent.
#pragma once
#include <QToolBar>
#include <optional>
#include <vector>

#include "inference/stream/provider_settings.h"
#include "ui/provider_dialog.h"

class QComboBox;

namespace ts::ui {

class ProviderBar : public QToolBar {
  Q_OBJECT
 public:
  explicit ProviderBar(QWidget* parent = nullptr);

  void setUrlPreview(UrlPreview preview) { url_preview_ = std::move(preview); }
  void setPresets(std::vector<ProviderSettings> presets) { presets_ = std::move(presets); }
  void setProviders(const std::vector<ProviderSettings>& providers, int current);
  const std::vector<ProviderSettings>& providers() const { return providers_; }
  int currentProvider() const;  // -1: none
  // Selects the provider named `name`; false when there is none.
  bool selectProvider(const QString& name);
  void setModel(const QString& model);
  QString model() const;  // the model box's text, trimmed
  // The selected provider with the model box's value as its model; nullopt when none.
  std::optional<ProviderSettings> currentProviderSettings() const;
  // Replaces the provider with the same name, keeps the selection, reports the edit.
  void replaceProvider(const ProviderSettings& provider);
  void setModelList(const QStringList& ids);  // keeps what is typed

  void editProvider(bool create);  // the provider dialog, on a new or the current provider
  void manageProviders();          // the providers dialog
  void removeProvider();
  void requestDoctor();
  void requestApiKey();

 signals:
  void providersEdited(const std::vector<ts::ProviderSettings>& providers, int current);
  void currentProviderChanged();  // another provider is selected, or the list was replaced
  void doctorRequested(const ts::ProviderSettings& provider);
  void apiKeyRequested(const ts::ProviderSettings& provider);
  void modelsRequested(const ts::ProviderSettings& provider);
  void status(const QString& message);  // for the status bar

 private:
  void refreshProviderCombo(int current);

  std::vector<ProviderSettings> providers_;
  std::vector<ProviderSettings> presets_;
  UrlPreview url_preview_;
  QComboBox* provider_combo_;
  QComboBox* model_combo_;
};

}  // namespace ts::ui
