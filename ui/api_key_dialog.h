// Where a provider's API key comes from: the OS keychain, an environment variable, or
// (after a warning) a plaintext file. The key is masked, trimmed (and the user told so),
// and can be tried with "Test" before it is saved.
#pragma once
#include <QDialog>

#include "inference/stream/provider_settings.h"

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;

namespace ts::ui {

struct ApiKeyChoice {
  KeySource source = KeySource::Keychain;
  QString key;      // trimmed; empty for the environment route
  QString env_var;  // for the environment route
  bool trimmed = false;
};

class ApiKeyDialog : public QDialog {
  Q_OBJECT
 public:
  ApiKeyDialog(const ProviderSettings& provider, const QString& plaintext_path,
               QWidget* parent = nullptr);
  void setKeychainStatus(bool available, const QString& reason);
  void setTestResult(bool ok, const QString& text);
  ApiKeyChoice choice() const;

 signals:
  void testRequested(const ts::ui::ApiKeyChoice& choice);

 private:
  void refresh();

  QRadioButton* keychain_;
  QRadioButton* env_;
  QRadioButton* file_;
  QLineEdit* key_;
  QCheckBox* show_;
  QLineEdit* env_var_;
  QLabel* key_note_;
  QLabel* keychain_note_;
  QLabel* file_warning_;
  QPushButton* test_;
  QLabel* test_result_;
  QDialogButtonBox* buttons_;
  bool keychain_available_ = true;
};

}  // namespace ts::ui
