// Manage the provider list: add (blank or from a preset), edit, duplicate, rename,
// delete and reorder. Changes apply on OK; Cancel leaves the list as it was.
#pragma once
#include <QDialog>
#include <vector>

#include "ui/provider_dialog.h"

class QListWidget;
class QPushButton;

namespace ts::ui {

class ProvidersDialog : public QDialog {
  Q_OBJECT
 public:
  ProvidersDialog(std::vector<ProviderSettings> providers, int selected,
                  std::vector<ProviderSettings> presets, UrlPreview preview,
                  QWidget* parent = nullptr);
  const std::vector<ProviderSettings>& providers() const { return providers_; }
  int current() const;

  // Without dialogs of their own, for keyboard-free use and tests.
  void duplicateCurrent();
  bool renameCurrent(const QString& name, QString* error = nullptr);
  void removeCurrent();
  void moveCurrent(int delta);  // -1 up, +1 down
  void addProvider(ProviderSettings provider);

 private:
  void refresh(int select);
  QString uniqueName(const QString& base) const;
  bool nameTaken(const QString& name, int except) const;
  void editCurrent();

  std::vector<ProviderSettings> providers_;
  std::vector<ProviderSettings> presets_;
  UrlPreview preview_;
  QListWidget* list_;
};

}  // namespace ts::ui
