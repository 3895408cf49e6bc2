// Help → About: a box with a title, a headline (rich text) and details (rich text); the
// app fills in what it knows (versions, CUDA).
#pragma once
#include <QString>

class QWidget;

namespace ts::ui {

// Non-modal, deleted on close; named "aboutBox".
void showAboutDialog(QWidget* parent, const QString& title, const QString& headline,
                     const QString& details);

}  // namespace ts::ui
