#include "app/desktop/theme.h"

#include <QApplication>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusVariant>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <memory>

#include "app/desktop/ui_settings.h"
#include "ui/main_window.h"
#include "ui/palette_scheme.h"

namespace ts {
namespace {

const QString kPortalService = "org.freedesktop.portal.Desktop";
const QString kPortalPath = "/org/freedesktop/portal/desktop";
const QString kSettingsInterface = "org.freedesktop.portal.Settings";
const QString kAppearance = "org.freedesktop.appearance";
const QString kColorScheme = "color-scheme";

// The portal answers Read with the value wrapped in one or two variants (v or v<v>).
ColorScheme schemeOf(QVariant value) {
  while (value.metaType() == QMetaType::fromType<QDBusVariant>())
    value = value.value<QDBusVariant>().variant();
  switch (value.toUInt()) {
    case 1:
      return ColorScheme::Dark;
    case 2:
      return ColorScheme::Light;
    default:
      return ColorScheme::NoPreference;
  }
}

QPalette lightPalette() {
  const std::unique_ptr<QStyle> fusion(QStyleFactory::create("Fusion"));
  return fusion->standardPalette();
}

// Fusion's roles in dark greys; links and highlights in a blue that reads on them.
QPalette darkPalette() {
  QPalette p;
  const QColor window(0x2b, 0x2d, 0x30), base(0x1e, 0x1f, 0x22), text(0xe6, 0xe6, 0xe6);
  const QColor disabled(0x80, 0x80, 0x80), accent(0x3d, 0x8e, 0xe6);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, QColor(0x32, 0x34, 0x38));
  p.setColor(QPalette::ToolTipBase, window);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, QColor(0x35, 0x37, 0x3b));
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
  p.setColor(QPalette::Light, QColor(0x4a, 0x4c, 0x50));
  p.setColor(QPalette::Midlight, QColor(0x3e, 0x40, 0x44));
  p.setColor(QPalette::Mid, QColor(0x5a, 0x5c, 0x60));
  p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
  p.setColor(QPalette::Shadow, QColor(0x0c, 0x0c, 0x0d));
  p.setColor(QPalette::Highlight, accent);
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
  p.setColor(QPalette::LinkVisited, QColor(0xb3, 0x94, 0xff));
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, disabled);
  p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x50, 0x50, 0x50));
  return p;
}

}  // namespace

QString chosenTheme() {
  const QString code = uiSettings().value("theme", "system").toString();
  return code == "light" || code == "dark" ? code : QString("system");
}

void setChosenTheme(const QString& code) {
  uiSettings().setValue("theme", code);
}

ThemeController::ThemeController(QObject* parent)
    : QObject(parent),
      platform_style_(QApplication::style()->name()),
      platform_palette_(QApplication::palette()) {
  QDBusConnection bus = QDBusConnection::sessionBus();
  if (!bus.isConnected()) return;  // no session bus: the platform's palette it is
  bus.connect(kPortalService, kPortalPath, kSettingsInterface, "SettingChanged", this,
              SLOT(onSettingChanged(QDBusMessage)));
  QDBusMessage read =
      QDBusMessage::createMethodCall(kPortalService, kPortalPath, kSettingsInterface, "Read");
  read << kAppearance << kColorScheme;
  auto* watcher = new QDBusPendingCallWatcher(bus.asyncCall(read, 3000), this);
  connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher* w) {
    w->deleteLater();
    const QDBusPendingReply<QDBusVariant> reply = *w;
    if (!reply.isError()) setSystemScheme(schemeOf(reply.value().variant()));
  });
}

void ThemeController::setChoice(const QString& code) {
  choice_ = code == "light" || code == "dark" ? code : QString("system");
  apply();
}

bool ThemeController::isDark() const {
  return ui::isDarkPalette(QApplication::palette());
}

void ThemeController::onSettingChanged(const QDBusMessage& message) {
  // SettingChanged(namespace s, key s, value v)
  const QList<QVariant> args = message.arguments();
  if (args.size() == 3 && args[0].toString() == kAppearance && args[1].toString() == kColorScheme)
    setSystemScheme(schemeOf(args[2]));
}

void ThemeController::setSystemScheme(ColorScheme scheme) {
  system_ = scheme;
  if (choice_ == "system") apply();
}

void ThemeController::apply() {
  bool dark = ui::isDarkPalette(platform_palette_);
  if (choice_ != "system")
    dark = choice_ == "dark";
  else if (system_ != ColorScheme::NoPreference)
    dark = system_ == ColorScheme::Dark;
  const bool platform = dark == ui::isDarkPalette(platform_palette_);
  // The platform's own look when it already matches; else Fusion, which draws everything
  // from the palette, with a light or dark one.
  const QString style = platform ? platform_style_ : QString("Fusion");
  if (QApplication::style()->name().compare(style, Qt::CaseInsensitive) != 0)
    QApplication::setStyle(style);
  const QPalette palette = platform ? platform_palette_ : dark ? darkPalette() : lightPalette();
  // Each setPalette repaints every widget and re-renders the chat: only when it changes
  // (the portal's first answer usually confirms what is shown).
  if (palette != QApplication::palette()) QApplication::setPalette(palette);
  emit applied(dark);
}

void connectThemeMenu(ui::MainWindow* window, ThemeController* theme) {
  window->setChosenTheme(theme->choice());
  QObject::connect(window, &ui::MainWindow::themeChosen, theme,
                   [window, theme](const QString& code) {
                     setChosenTheme(code);
                     theme->setChoice(code);
                     window->setChosenTheme(code);
                   });
}

}  // namespace ts
