#include "ui/about_dialog.h"

#include <QMessageBox>

namespace ts::ui {

void showAboutDialog(QWidget* parent, const QString& title, const QString& headline,
                     const QString& details) {
  auto* box =
      new QMessageBox(QMessageBox::Information, title, headline, QMessageBox::Close, parent);
  box->setObjectName("aboutBox");
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setInformativeText(details);
  box->show();
}

}  // namespace ts::ui
