#include "app/desktop/language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QPointer>
#include <QSettings>
#include <QTranslator>

#include "app/desktop/ui_settings.h"

namespace ts {
namespace {
// The translators installTranslations put in, to take out at the next switch.
QList<QPointer<QTranslator>>& installed() {
  static QList<QPointer<QTranslator>> list;
  return list;
}
}  // namespace

QString chosenLanguage() {
  const QString env = qEnvironmentVariable("TOKENSCOPE_LANGUAGE");
  if (!env.isEmpty()) return env;
  return uiSettings().value("language", "system").toString();
}

void setChosenLanguage(const QString& code) {
  uiSettings().setValue("language", code);
}

QString effectiveLanguage() {
  const QString chosen = chosenLanguage();
  const QString name = chosen == "system" ? QLocale::system().name() : chosen;
  return name.startsWith("zh") ? "zh_CN" : "en";
}

QString installTranslations(QCoreApplication& app) {
  // The translators installed before (a language switch): removed first, so that only the
  // language shown now translates; English is the source text.
  for (QPointer<QTranslator>& earlier : installed()) {
    if (earlier) QCoreApplication::removeTranslator(earlier);
    delete earlier;
  }
  installed().clear();
  const QString language = effectiveLanguage();
  if (language == "en") return language;
  auto* ours = new QTranslator(&app);
  installed().append(ours);
  if (ours->load(":/i18n/tokenscope_" + language + ".qm")) app.installTranslator(ours);
  auto* qt = new QTranslator(&app);  // standard buttons and dialogs, when installed
  installed().append(qt);
  if (qt->load("qtbase_" + language, QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
    app.installTranslator(qt);
  return language;
}

}  // namespace ts
