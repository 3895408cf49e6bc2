// A GPU failing mid-answer, as a user of the app meets it (issue 44): the demo model runs
// on "CUDA" (the fault-injecting plugin stands in for it: its first session's second pass
// faults as an illegal address does). The chat shows the failure with a "Run this
// provider on the CPU" link; clicking it makes the provider's backend the CPU, saved to
// providers.json, and the next message is answered.
#include <QFile>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include "app/desktop/app_controller.h"
#include "app/local/demo_model.h"
#include "ui/main_window.h"

using namespace ts;

class TestGpuFailure : public QObject {
  Q_OBJECT
  QTemporaryDir home_;
  std::unique_ptr<ui::MainWindow> window_;
  std::unique_ptr<AppController> controller_;

  QString transcript() const {
    return window_->findChild<QTextBrowser*>("transcript")->toPlainText();
  }
  void send(const QString& text) {
    auto* input = window_->findChild<QPlainTextEdit*>("input");
    input->setFocus();
    QTest::keyClicks(input, text);
    QTest::mouseClick(window_->findChild<QPushButton*>("sendButton"), Qt::LeftButton);
  }

 private slots:
  void initTestCase() {
    qputenv("HOME", home_.path().toUtf8());
    qputenv("TOKENSCOPE_CONFIG_DIR", home_.filePath("config").toUtf8());
    qputenv("XDG_CACHE_HOME", home_.filePath("cache").toUtf8());
    qputenv("TOKENSCOPE_CUDA_PLUGIN", TOKENSCOPE_FAULT_PLUGIN_FILE);
    qputenv("TOKENSCOPE_FAULT_AT_FORWARD", "2");
    qputenv("TOKENSCOPE_FAULT_SESSIONS", "1");
  }
  void cleanupTestCase() {
    controller_.reset();
    window_.reset();
    qunsetenv("TOKENSCOPE_CUDA_PLUGIN");
  }

  void aGpuFailureOffersTheCpuInOneClick() {
    window_ = std::make_unique<ui::MainWindow>();
    ProviderSettings demo = readyDefaultProvider();  // local engine, backend "auto"
    QCOMPARE(demo.local.backend, std::string("auto"));
    window_->setProviders({demo}, 0);
    controller_ = std::make_unique<AppController>(
        window_.get(), ProviderStore(home_.filePath("config/providers.json")),
        home_.filePath("logs"), true);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    send("Hello");
    QTRY_VERIFY_WITH_TIMEOUT(transcript().contains("Run this provider on the CPU"), 60000);
    QVERIFY2(transcript().contains("an illegal memory access was encountered"),
             qPrintable(transcript()));
    auto* browser = window_->findChild<QTextBrowser*>("transcript");
    QVERIFY(browser->toHtml().contains("tokenscope:use-cpu"));
    emit browser->anchorClicked(QUrl("tokenscope:use-cpu"));  // the link, clicked
    QCOMPARE(window_->providers().at(0).local.backend, std::string("cpu"));
    QVERIFY2(window_->statusBar()->currentMessage().contains("runs on the CPU now"),
             qPrintable(window_->statusBar()->currentMessage()));
    QFile saved(home_.filePath("config/providers.json"));
    QVERIFY(saved.open(QIODevice::ReadOnly));
    QVERIFY2(saved.readAll().contains("\"cpu\""), "the CPU backend is saved");
    send("Again");
    QTRY_VERIFY_WITH_TIMEOUT(
        window_->statusBar()->currentMessage().startsWith("Done (finish_reason"), 60000);
  }
};

QTEST_MAIN(TestGpuFailure)
#include "test_gpu_failure.moc"
