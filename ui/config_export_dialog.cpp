#include "ui/config_export_dialog.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QMessageBox>
#include <QTreeView>

namespace ts::ui {
namespace {
constexpr QSize kDialogSize(760, 460);  // px
}  // namespace

QString askConfigExportPath(QWidget* parent, const QString& suggested) {
  QFileDialog dialog(
      parent, QCoreApplication::translate("ts::ui::ConfigExport", "Export configuration"),
      QFileInfo(suggested).absolutePath(),
      QCoreApplication::translate("ts::ui::ConfigExport", "TOML (*.toml);;settings.json (*.json)"));
  dialog.setObjectName("configExportDialog");
  dialog.setAcceptMode(QFileDialog::AcceptSave);
  dialog.setFileMode(QFileDialog::AnyFile);
  dialog.selectFile(QFileInfo(suggested).fileName());
  // Qt's own dialog (no desktop portal) opens at 600 px with fixed columns, its dates cut to
  // "6 Dec …:49:53": wider (still within a 1024 × 700 screen), the names take the room
  // the size, type and date columns leave them.
  dialog.resize(kDialogSize);
  if (auto* details = dialog.findChild<QTreeView*>()) {
    QHeaderView* header = details->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(0, QHeaderView::Stretch);
  }
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
