// Light and dark themes. "system" (the default) follows the desktop: the XDG desktop
// portal's org.freedesktop.appearance color-scheme, which GNOME, KDE and others publish
// (a change is applied at once), else the palette Qt's platform theme gives. "light" and
// "dark" force one. The choice is kept in <config dir>/ui.ini ("theme").
#pragma once
#include <QObject>
#include <QPalette>
#include <QString>

class QDBusMessage;

namespace ts {

namespace ui {
class MainWindow;
}

// "system" | "light" | "dark" (default "system").
QString chosenTheme();
void setChosenTheme(const QString& code);

// The desktop's preference as the portal states it (0 no preference, 1 dark, 2 light).
enum class ColorScheme { NoPreference = 0, Dark = 1, Light = 2 };

class ThemeController : public QObject {
  Q_OBJECT
 public:
  // Reads the desktop's preference (asynchronously) and watches it from now on.
  explicit ThemeController(QObject* parent = nullptr);
  void setChoice(const QString& code);  // applies at once
  QString choice() const { return choice_; }
  ColorScheme systemScheme() const { return system_; }
  bool isDark() const;  // what the application shows now

 signals:
  void applied(bool dark);

 private slots:
  void onSettingChanged(const QDBusMessage& message);

 private:
  void setSystemScheme(ColorScheme scheme);
  void apply();

  QString choice_ = "system";
  ColorScheme system_ = ColorScheme::NoPreference;
  QString platform_style_;     // the style Qt chose, restored when no override is needed
  QPalette platform_palette_;  // the platform theme's palette, light or dark
};

// View → Theme in `window` drives `theme` and is stored; the menu shows the choice.
void connectThemeMenu(ui::MainWindow* window, ThemeController* theme);

}  // namespace ts
