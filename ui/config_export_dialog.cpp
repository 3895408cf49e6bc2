#include "ui/config_export_dialog.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>

namespace ts::ui {

QString askConfigExportPath(QWidget* parent, const QString& suggested) {
  QFileDialog dialog(
      parent, QCoreApplication::translate("ts::ui::ConfigExport", "Export configuration"),
      QFileInfo(suggested).absolutePath(),
      QCoreApplication::translate("ts::ui::ConfigExport", "TOML (*.toml);;settings.json (*.json)"));
  dialog.setObjectName("configExportDialog");
  dialog.setAcceptMode(QFileDialog::AcceptSave);
  dialog.setFileMode(QFileDialog::AnyFile);
  dialog.selectFile(QFileInfo(suggested).fileName());
  if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return {};
  return dialog.selectedFiles().constFirst();
}

bool confirmExportReadAtStart(QWidget* parent, const QString& path) {
  QMessageBox box(
      QMessageBox::Warning,
      QCoreApplication::translate("ts::ui::ConfigExport", "Export configuration"),
      QCoreApplication::translate("ts::ui::ConfigExport",
                                  "TokenScope reads %1 at every start, so the next start "
                                  "would use this configuration's provider, temperature and "
                                  "max tokens.\n\nExport there anyway?")
          .arg(QDir::toNativeSeparators(path)),
      QMessageBox::Yes | QMessageBox::No, parent);
  box.setObjectName("configExportConfirm");
  box.setDefaultButton(QMessageBox::No);
  return box.exec() == QMessageBox::Yes;
}

}  // namespace ts::ui
