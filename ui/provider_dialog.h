// Add or edit one provider: name, base URL (with the final request URL previewed),
// default model, the environment variable holding the API key, timeout and retries.
#pragma once
#include <QDialog>
#include <functional>

#include "inference/stream/provider_settings.h"

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace ts::ui {

// Given a base URL as typed: the URL requests will go to, or an error (second = true).
using UrlPreview = std::function<std::pair<QString, bool>(const QString&)>;

class ProviderDialog : public QDialog {
  Q_OBJECT
 public:
  ProviderDialog(const ProviderSettings& initial, UrlPreview preview, QWidget* parent = nullptr);
  ProviderSettings settings() const;

 private:
  void revalidate();

  UrlPreview preview_;
  ProviderSettings initial_;
  QLineEdit* name_;
  QComboBox* kind_;
  QLineEdit* base_url_;
  QLabel* base_url_label_;
  QLabel* url_note_;
  QLineEdit* model_;
  QLineEdit* key_env_;
  QLabel* key_note_;
  QSpinBox* timeout_;
  QSpinBox* retries_;
  QDialogButtonBox* buttons_;
};

}  // namespace ts::ui
