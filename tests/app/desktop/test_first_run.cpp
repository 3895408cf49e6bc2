// The first-run welcome, in an empty home (config and data folders of its own): each way
// in opens what it says, Skip is a way out, and once anything was chosen the welcome is
// done for good.
#include <QAction>
#include <QApplication>
#include <QCommandLinkButton>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "app/desktop/app_controller.h"
#include "app/desktop/first_run.h"
#include "app/local/demo_model.h"
#include "ui/main_window.h"
#include "ui/welcome_dialog.h"

using namespace ts;

class TestFirstRun : public QObject {
  Q_OBJECT
  QTemporaryDir home_;
  std::unique_ptr<ui::MainWindow> window_;
  std::unique_ptr<AppController> controller_;

  ui::WelcomeDialog* welcome() {
    ui::WelcomeDialog* d = showWelcome(window_.get(), controller_.get());
    [&] { QVERIFY(QTest::qWaitForWindowExposed(d)); }();
    return d;
  }

 private slots:
  void initTestCase() {
    qputenv("HOME", home_.path().toUtf8());  // an empty home
    qunsetenv("XDG_CONFIG_HOME");
    qunsetenv("XDG_DATA_HOME");
    QStandardPaths::setTestModeEnabled(true);
    qputenv("TOKENSCOPE_CONFIG_DIR", home_.filePath("config").toUtf8());
  }
  void init() {
    window_ = std::make_unique<ui::MainWindow>();
    window_->setProviders({readyDefaultProvider()}, 0);
    controller_ = std::make_unique<AppController>(
        window_.get(), ProviderStore(home_.filePath("config/providers.json")),
        home_.filePath("logs"), true);
    window_->show();
  }
  void cleanup() {
    for (QWidget* w : QApplication::topLevelWidgets())
      if (w != window_.get()) w->close();
    controller_.reset();
    window_.reset();
  }

  void skipIsAWayOutAndTheWelcomeNeverComesBack() {
    QVERIFY(!welcomeDone());  // an empty home
    ui::WelcomeDialog* d = welcome();
    for (const char* name : {"welcomeDemo", "welcomeApiKey", "welcomeLocal", "welcomeDownload"})
      QVERIFY2(d->findChild<QCommandLinkButton*>(name), name);
    QTest::mouseClick(d->findChild<QPushButton*>("welcomeSkip"), Qt::LeftButton);
    QTRY_VERIFY(!d->isVisible() || d->isHidden());
    QVERIFY(welcomeDone());
    QCOMPARE(window_->currentProviderSettings()->id, std::string("demo-model"));
  }

  // Not a 219 px column with its title cut to "Welcom…nScope": at least 480 px, room for
  // the whole title beside a title bar's buttons, every option whole, and it fits a
  // 1024 × 700 screen.
  void theWelcomeIsWideEnoughForItsTitleAndText() {
    ui::WelcomeDialog* d = welcome();
    QVERIFY2(d->width() >= 480, qPrintable(QString::number(d->width())));
    const int title = QFontMetrics(d->font()).horizontalAdvance(d->windowTitle());
    QVERIFY2(title + 120 <= d->width(),
             qPrintable(QString("title %1 px in %2 px").arg(title).arg(d->width())));
    QVERIFY2(d->height() <= 700 - 30, qPrintable(QString::number(d->height())));
    for (auto* option : d->findChildren<QCommandLinkButton*>()) {
      const QRect r(option->mapTo(d, QPoint(0, 0)), option->size());
      QVERIFY2(d->rect().contains(r) && option->height() >= option->heightForWidth(option->width()),
               qPrintable(option->text()));
    }
    for (auto* label : d->findChildren<QLabel*>()) {
      if (!label->wordWrap()) continue;
      QVERIFY2(label->height() >= label->heightForWidth(label->width()), qPrintable(label->text()));
    }
  }

  void addingAnApiKeySelectsTaoTokenAndAsksForItsKey() {
    ui::WelcomeDialog* d = welcome();
    QSignalSpy asked(window_.get(), &ui::MainWindow::apiKeyRequested);
    QTest::mouseClick(d->findChild<QCommandLinkButton*>("welcomeApiKey"), Qt::LeftButton);
    QCOMPARE(asked.count(), 1);
    QCOMPARE(window_->currentProviderSettings()->name, std::string("TaoToken"));
    QCOMPARE(window_->currentProviderSettings()->base_url, std::string("https://taotoken.net/api"));
    // Saved: the next start opens on it.
    QCOMPARE(ProviderStore(home_.filePath("config/providers.json")).load().providers.size(),
             size_t{2});
  }

  void openingALocalModelOpensTheModelManager() {
    ui::WelcomeDialog* d = welcome();
    QTest::mouseClick(d->findChild<QCommandLinkButton*>("welcomeLocal"), Qt::LeftButton);
    QVERIFY(controller_->modelManager().dialog());
    QVERIFY(controller_->modelManager().dialog()->isVisible());
  }

  void downloadingOpensTheDownloadDialog() {
    ui::WelcomeDialog* d = welcome();
    QTest::mouseClick(d->findChild<QCommandLinkButton*>("welcomeDownload"), Qt::LeftButton);
    QTRY_VERIFY(window_->findChild<QDialog*>("downloadDialog"));
    QVERIFY(welcomeDone());
  }
};

QTEST_MAIN(TestFirstRun)
#include "test_first_run.moc"
