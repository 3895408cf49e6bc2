// Exporting the configuration never writes where the next start reads without asking
// (issue 42): the save dialog proposes a file in Documents, a path a start reads
// (./config.toml) is written only after Yes, and a start that applies a config file from
// the working directory says so in the status bar.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QMessageBox>
#include <QPushButton>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <functional>

#include "app/config/config_files.h"
#include "app/config/config_locations.h"
#include "app/config/effective_config.h"
#include "app/desktop/app_controller.h"
#include "app/local/demo_model.h"
#include "ui/main_window.h"

using namespace ts;

namespace {

// Runs `act` on the first modal dialog of type T named `name` once it is open (the
// export's dialogs are modal: they run their own event loop inside the signal).
template <class T>
void whenOpen(const char* name, std::function<void(T*)> act) {
  auto* poll = new QTimer;
  QObject::connect(poll, &QTimer::timeout, poll, [poll, name, act] {
    auto* d = qobject_cast<T*>(QApplication::activeModalWidget());
    if (!d || d->objectName() != name) return;
    poll->stop();
    poll->deleteLater();
    act(d);
  });
  poll->start(20);
}

}  // namespace

class TestConfigExport : public QObject {
  Q_OBJECT
  QTemporaryDir home_;
  QString start_dir_;  // the working directory the app was "started from"
  std::unique_ptr<ui::MainWindow> window_;
  std::unique_ptr<AppController> controller_;

  QString status() const { return window_->statusBar()->currentMessage(); }

 private slots:
  void initTestCase() {
    qputenv("HOME", home_.path().toUtf8());
    qunsetenv("XDG_CONFIG_HOME");
    qunsetenv("TOKENSCOPE_CONFIG");
    QVERIFY(QDir(home_.path()).mkpath("Documents"));
    QVERIFY(QDir(home_.path()).mkpath("started-here"));
    qputenv("TOKENSCOPE_CONFIG_DIR", home_.filePath("config").toUtf8());
    start_dir_ = home_.filePath("started-here");
    QVERIFY(QDir::setCurrent(start_dir_));
  }
  void init() {
    window_ = std::make_unique<ui::MainWindow>();
    window_->setProviders({readyDefaultProvider()}, 0);
    controller_ = std::make_unique<AppController>(
        window_.get(), ProviderStore(home_.filePath("config/providers.json")),
        home_.filePath("logs"), true);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  }
  void cleanup() {
    controller_.reset();
    window_.reset();
    QFile::remove(start_dir_ + "/config.toml");
  }

  void whatStartReadsIsKnown() {
    const QString dir = config::configDirectory();
    QVERIFY(config::isReadAtStart(start_dir_ + "/config.toml", dir));
    QVERIFY(config::isReadAtStart("settings.json", dir));
    QVERIFY(config::isReadAtStart(dir + "/config.toml", dir));
    QVERIFY(!config::isReadAtStart(config::suggestedExportPath(), dir));
    QCOMPARE(config::suggestedExportPath(), home_.filePath("Documents/tokenscope-config.toml"));
    QCOMPARE(config::unexpectedOrigin(dir + "/config.toml", dir), QString());
    QCOMPARE(config::unexpectedOrigin("config.toml", dir),
             QString("found in the folder TokenScope was started from"));
  }

  // File → Export configuration: the dialog starts on Documents/tokenscope-config.toml.
  void exportProposesAFileNoStartReads() {
    QString proposed;
    whenOpen<QFileDialog>("configExportDialog", [&](QFileDialog* d) {
      proposed = d->selectedFiles().value(0);
      static_cast<QDialog*>(d)->accept();  // as Save does (QFileDialog's is protected)
    });
    emit window_->exportConfigRequested(QString());
    const QString expected = home_.filePath("Documents/tokenscope-config.toml");
    QCOMPARE(proposed, expected);
    QVERIFY(!config::isReadAtStart(proposed, config::configDirectory()));
    QVERIFY2(QFile::exists(expected), qPrintable(status()));
    QVERIFY2(status().startsWith("Exported " + expected), qPrintable(status()));
    QVERIFY(!QFile::exists(start_dir_ + "/config.toml"));
  }

  // A path the next start reads is written only after the user says Yes.
  void exportingWhereTheNextStartReadsAsksFirst() {
    const QString target = start_dir_ + "/config.toml";
    QString question;
    whenOpen<QMessageBox>("configExportConfirm", [&](QMessageBox* box) {
      question = box->text();
      box->button(QMessageBox::No)->click();
    });
    emit window_->exportConfigRequested(target);
    QVERIFY2(question.contains(target) && question.contains("every start"), qPrintable(question));
    QVERIFY(!QFile::exists(target));
    QVERIFY2(status().contains("not exported"), qPrintable(status()));

    whenOpen<QMessageBox>("configExportConfirm",
                          [](QMessageBox* box) { box->button(QMessageBox::Yes)->click(); });
    emit window_->exportConfigRequested(target);
    QVERIFY2(QFile::exists(target), qPrintable(status()));
  }

  // A start in a folder with a config.toml (temperature 0, 64 max tokens) says it used it.
  void aStartWithTheWorkingDirectorysConfigSaysSo() {
    config::ConfigValues values = config::EffectiveConfig().values();
    values["inference.temperature"] = 0.0;
    values["inference.max_tokens"] = 64;
    QCOMPARE(config::writeConfigFile(start_dir_ + "/config.toml", values), QString());
    config::ConfigFile file;
    const config::EffectiveConfig config =
        config::resolveConfig({}, QProcessEnvironment(), &file, nullptr);
    QVERIFY(file.ok());
    QCOMPARE(QFileInfo(config.configFile).absoluteFilePath(), start_dir_ + "/config.toml");
    controller_->applyConfig(config);
    QVERIFY2(status().startsWith("Using config.toml, found in the folder TokenScope was started "
                                 "from") &&
                 status().contains("temperature 0,") && status().contains("max tokens 64"),
             qPrintable(status()));
  }

  // The usual place (the config folder's config.toml) is no surprise: nothing is said.
  void theConfigFoldersFileIsNotAnnounced() {
    QVERIFY(QDir().mkpath(config::configDirectory()));
    const QString path = config::configDirectory() + "/config.toml";
    QCOMPARE(config::writeConfigFile(path, config::EffectiveConfig().values()), QString());
    const config::EffectiveConfig config =
        config::resolveConfig({}, QProcessEnvironment(), nullptr, nullptr);
    QCOMPARE(config.configFile, path);
    window_->showStatus("before");
    controller_->applyConfig(config);
    QCOMPARE(status(), QString("before"));
    QFile::remove(path);
  }
};

QTEST_MAIN(TestConfigExport)
#include "test_config_export.moc"
