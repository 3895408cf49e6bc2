// The UI language: English or Simplified Chinese, chosen in View → Language, defaulting
// to the system locale. Stored in <config dir>/ui.ini; $TOKENSCOPE_LANGUAGE overrides.
#pragma once
#include <QString>

class QCoreApplication;

namespace ts {

// "system" | "en" | "zh_CN": what the user chose (default "system").
QString chosenLanguage();
void setChosenLanguage(const QString& code);
// The language that will be shown: "en" or "zh_CN".
QString effectiveLanguage();
// Installs TokenScope's and Qt's own translations for effectiveLanguage() in place of those
// it installed before; returns the language installed ("en" installs nothing). Widgets
// built afterwards speak it (WindowSession rebuilds the window for a switch).
QString installTranslations(QCoreApplication& app);

}  // namespace ts
