// Light and dark themes against a real session bus (dbus-run-session) on which the test
// plays the desktop: a stand-in for xdg-desktop-portal's Settings interface, on a
// connection of its own, answering Read and emitting SettingChanged as GNOME and KDE do.
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QDBusAbstractAdaptor>
#include <QDBusConnection>
#include <QDBusVariant>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include "app/desktop/theme.h"
#include "ui/latency_chart.h"
#include "ui/main_window.h"

namespace {

const char* kAppearance = "org.freedesktop.appearance";

class FakePortalSettings : public QDBusAbstractAdaptor {
  Q_OBJECT
  Q_CLASSINFO("D-Bus Interface", "org.freedesktop.portal.Settings")
 public:
  explicit FakePortalSettings(QObject* parent) : QDBusAbstractAdaptor(parent) {}
  uint scheme = 0;  // 0 no preference, 1 dark, 2 light
  int reads = 0;

  void change(uint to) {
    scheme = to;
    emit SettingChanged(kAppearance, "color-scheme", QDBusVariant(QVariant::fromValue(to)));
  }

 public slots:
  // Like the portal's (deprecated, still the common one) Read: the value in two variants.
  QDBusVariant Read(const QString& name_space, const QString& key) {
    ++reads;
    if (name_space != kAppearance || key != "color-scheme") return QDBusVariant(QVariant(0u));
    return QDBusVariant(QVariant::fromValue(QDBusVariant(QVariant::fromValue(scheme))));
  }

 signals:
  void SettingChanged(const QString& name_space, const QString& key, const QDBusVariant& value);
};

bool chartIsDark(ts::ui::MainWindow& window) {
  return window.findChild<ts::ui::LatencyChart*>()->chart()->backgroundBrush().color().lightness() <
         128;
}

bool transcriptIsDark(ts::ui::MainWindow& window) {
  return window.findChild<QTextBrowser*>("transcript")
             ->palette()
             .color(QPalette::Base)
             .lightness() < 128;
}

}  // namespace

class TestTheme : public QObject {
  Q_OBJECT
  QTemporaryDir config_;
  QObject host_;
  FakePortalSettings* portal_ = nullptr;
  QDBusConnection portal_bus_{QString()};
  QPalette platform_;

  void startPortal() { QVERIFY(portal_bus_.registerService("org.freedesktop.portal.Desktop")); }
  void stopPortal() { QVERIFY(portal_bus_.unregisterService("org.freedesktop.portal.Desktop")); }

 private slots:
  void initTestCase() {
    qputenv("TOKENSCOPE_CONFIG_DIR", config_.filePath("config").toUtf8());
    platform_ = QApplication::palette();
    QVERIFY2(platform_.color(QPalette::Window).lightness() >= 128,
             "the test expects a light platform palette (offscreen)");
    QVERIFY2(QDBusConnection::sessionBus().isConnected(), "run under dbus-run-session");
    portal_bus_ = QDBusConnection::connectToBus(QDBusConnection::SessionBus, "fake-portal");
    QVERIFY(portal_bus_.isConnected());
    portal_ = new FakePortalSettings(&host_);
    QVERIFY(portal_bus_.registerObject("/org/freedesktop/portal/desktop", &host_));
  }

  // "system": the desktop prefers dark → the whole window, charts included, is dark; the
  // desktop switches to light → so does TokenScope, at once.
  void systemFollowsTheDesktopAndItsChanges() {
    portal_->scheme = 1;
    startPortal();
    ts::ui::MainWindow window;
    window.show();
    ts::ThemeController theme;
    theme.setChoice("system");
    QTRY_VERIFY(theme.isDark());
    QCOMPARE(theme.systemScheme(), ts::ColorScheme::Dark);
    QVERIFY(portal_->reads >= 1);
    QTRY_VERIFY(chartIsDark(window));
    QVERIFY(transcriptIsDark(window));
    portal_->change(2);
    QTRY_VERIFY(!theme.isDark());
    QTRY_VERIFY(!chartIsDark(window));
    QVERIFY(!transcriptIsDark(window));
    portal_->change(1);
    QTRY_VERIFY(theme.isDark());
    stopPortal();
  }

  // View → Theme → Dark wins over a light desktop and is remembered; back to "Follow the
  // system" it is light again.
  void theMenuChoiceOverridesAndIsRemembered() {
    portal_->scheme = 2;
    startPortal();
    ts::ui::MainWindow window;
    ts::ThemeController theme;
    theme.setChoice(ts::chosenTheme());
    ts::connectThemeMenu(&window, &theme);
    QVERIFY(window.findChild<QAction*>("theme_system")->isChecked());
    QTRY_COMPARE(theme.systemScheme(), ts::ColorScheme::Light);
    QVERIFY(!theme.isDark());
    window.findChild<QAction*>("theme_dark")->trigger();
    QVERIFY(theme.isDark());
    QCOMPARE(ts::chosenTheme(), QString("dark"));
    QVERIFY(window.findChild<QAction*>("theme_dark")->isChecked());
    portal_->change(2);  // the desktop says light again: the explicit choice stays
    QTest::qWait(200);
    QVERIFY(theme.isDark());
    window.findChild<QAction*>("theme_light")->trigger();
    QVERIFY(!theme.isDark());
    window.findChild<QAction*>("theme_system")->trigger();
    QCOMPARE(ts::chosenTheme(), QString("system"));
    QVERIFY(!theme.isDark());
    QCOMPARE(QApplication::palette().color(QPalette::Window), platform_.color(QPalette::Window));
    stopPortal();
  }

  // No portal on the bus: "system" keeps the platform's palette as it is.
  void withoutAPortalThePlatformPaletteStays() {
    ts::ThemeController theme;
    theme.setChoice("system");
    QTest::qWait(300);
    QCOMPARE(theme.systemScheme(), ts::ColorScheme::NoPreference);
    QVERIFY(!theme.isDark());
    QCOMPARE(QApplication::palette().color(QPalette::Base), platform_.color(QPalette::Base));
  }
};

QTEST_MAIN(TestTheme)
#include "test_theme.moc"
