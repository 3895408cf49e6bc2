// The model manager as a user meets it (issue 42): every fact row whole (text against its
// label's geometry) at the default size, on a 1024 × 700 screen and at the smallest size,
// before and after a load; plain wording for the heads; no "0%" before a load starts; Enter
// in the path field shows the facts and never loads; a successful load closes the dialog;
// what is in memory afterwards is the estimate's figure, with its parts.
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "app/desktop/model_manager.h"
#include "ui/model_manager_dialog.h"

using namespace ts;

namespace {

// "" when every fact row is whole: each label at least as wide and tall as its text,
// inside the dialog, and clear of the settings below; else what is cut.
QString clippedFacts(QDialog* dialog) {
  const QList<QLabel*> labels = dialog->findChildren<QLabel*>(
      QRegularExpression("^fact(Label|Value)$"), Qt::FindChildrenRecursively);
  if (labels.size() < 20) return QString("only %1 fact labels").arg(labels.size());
  auto* backend = dialog->findChild<QComboBox*>("backendCombo");
  const QRect settings(backend->mapTo(dialog, QPoint(0, 0)), backend->size());
  for (QLabel* l : labels) {
    const QString where =
        QString("'%1' at %2×%3: ").arg(l->text()).arg(dialog->width()).arg(dialog->height());
    if (!l->isVisible()) return where + "hidden";
    const QFontMetrics fm(l->font());
    if (l->width() < fm.horizontalAdvance(l->text()) || l->height() < fm.height())
      return where + QString("label %1×%2 for text %3×%4")
                         .arg(l->width())
                         .arg(l->height())
                         .arg(fm.horizontalAdvance(l->text()))
                         .arg(fm.height());
    const QRect r(l->mapTo(dialog, QPoint(0, 0)), l->size());
    if (!dialog->rect().contains(r)) return where + "outside the dialog";
    if (r.bottom() >= settings.top()) return where + "under the settings";
  }
  return {};
}

// The dialog at the largest size a 1024 × 700 screen leaves (a title bar of ~30 px).
constexpr int kSmallScreenWidth = 1024, kSmallScreenHeight = 700 - 30;

}  // namespace

class TestModelManager : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString shared_ = qEnvironmentVariable("TOKENSCOPE_SHARED_DIR", "../shared") + "/models";
  std::unique_ptr<QMainWindow> window_;
  std::unique_ptr<ModelManager> manager_;

  QString model(const char* relative) {
    const QString path = shared_ + "/" + relative;
    return QFile::exists(path) ? path : QString();
  }
  ui::ModelManagerDialog* openOn(const QString& path) {
    ui::ModelManagerDialog* d = manager_->open();
    d->setPath(path);
    return d;
  }
  void checkRowsWhole(ui::ModelManagerDialog* d) {
    QVERIFY(QTest::qWaitForWindowExposed(d));
    QString cut = clippedFacts(d);
    QVERIFY2(cut.isEmpty(), qPrintable("default size: " + cut));
    QVERIFY2(d->minimumSize().width() <= kSmallScreenWidth &&
                 d->minimumSize().height() <= kSmallScreenHeight,
             qPrintable(QString("minimum %1×%2 does not fit a 1024×700 screen")
                            .arg(d->minimumSize().width())
                            .arg(d->minimumSize().height())));
    d->resize(kSmallScreenWidth, kSmallScreenHeight);
    QTRY_COMPARE(d->size(), QSize(kSmallScreenWidth, kSmallScreenHeight));
    cut = clippedFacts(d);
    QVERIFY2(cut.isEmpty(), qPrintable("1024×700: " + cut));
    d->resize(d->minimumSize());
    QTRY_COMPARE(d->size(), d->minimumSize());
    cut = clippedFacts(d);
    QVERIFY2(cut.isEmpty(), qPrintable("smallest size: " + cut));
  }

 private slots:
  void initTestCase() {
    qputenv("TOKENSCOPE_CONFIG_DIR", dir_.filePath("config").toUtf8());  // ui.ini
    qputenv("XDG_CACHE_HOME", dir_.filePath("cache").toUtf8());          // conversions
  }
  void init() {
    window_ = std::make_unique<QMainWindow>();
    window_->resize(1024, 700);
    window_->show();
    manager_ = std::make_unique<ModelManager>(window_.get());
  }
  void cleanup() {
    if (manager_->dialog()) delete manager_->dialog();
    manager_.reset();
    window_.reset();
  }

  // The longest values there are: a PyTorch checkpoint with a NormHead, and a K-quant GGUF
  // with three stored types.
  void everyRowIsWholeAtEverySize_data() {
    QTest::addColumn<QString>("path");
    QTest::newRow("Baichuan2 PyTorch") << model("baichuan2-tiny/7b-bf16");
    QTest::newRow("Q4_K_M GGUF") << model("ktiny/ktiny-Q4_K_M.gguf");
  }
  void everyRowIsWholeAtEverySize() {
    QFETCH(QString, path);
    if (path.isEmpty()) QSKIP("the shared fixtures are absent");
    ui::ModelManagerDialog* d = openOn(path);
    QVERIFY2(d->factsText().contains("On disk: "), qPrintable(d->factsText()));
    checkRowsWhole(d);
  }

  // "Heads 16 of 128" read as 16 of 128 heads: the count, the KV heads and the head size
  // are named.
  void headsAreNamed() {
    const QString path = model("stories260K-altered/stories260K.gguf");
    if (path.isEmpty()) QSKIP("the shared fixtures are absent");
    ui::ModelManagerDialog* d = openOn(path);
    QVERIFY2(d->factsText().contains("Attention heads: 8 · KV heads 4 · head size 8"),
             qPrintable(d->factsText()));
  }

  // Before Load nothing shows a percentage; during the load the bar is there.
  void noPercentageBeforeALoadStarts() {
    const QString path = model("baichuan-tiny-rope/baichuan-tiny-rope-32L-f32.gguf");
    if (path.isEmpty()) QSKIP("the shared fixtures are absent");
    ui::ModelManagerDialog* d = openOn(path);
    QVERIFY(QTest::qWaitForWindowExposed(d));
    auto* bar = d->findChild<QProgressBar*>("loadProgress");
    QVERIFY2(!bar->isVisible(), qPrintable("idle bar shows " + bar->text()));
    auto* load = d->findChild<QPushButton*>("loadButton");
    QVERIFY(load->isEnabled());
    QSignalSpy loaded(manager_.get(), &ModelManager::loaded);
    QTest::mouseClick(load, Qt::LeftButton);
    QVERIFY(bar->isVisible());
    QVERIFY(loaded.wait(20000));
  }

  // Return in the path field shows the facts; only the Load button loads.
  void enterInThePathFieldDoesNotLoad() {
    const QString path = model("aidreams260K/aidreams260K.gguf");
    if (path.isEmpty()) QSKIP("the shared fixtures are absent");
    ui::ModelManagerDialog* d = manager_->open();
    QVERIFY(QTest::qWaitForWindowExposed(d));
    QSignalSpy asked(d, &ui::ModelManagerDialog::loadRequested);
    auto* field = d->findChild<QLineEdit*>("modelPath");
    QCOMPARE(QApplication::focusWidget(), field);  // typing goes to the path at once
    QVERIFY(field->text().isEmpty());
    QTest::keyClicks(field, path);
    QTest::keyClick(field, Qt::Key_Return);
    QVERIFY2(d->factsText().contains("Layers: 4"), qPrintable(d->factsText()));
    QVERIFY(d->findChild<QPushButton*>("loadButton")->isEnabled());
    QTest::keyClick(field, Qt::Key_Return);  // again, with Load enabled
    QTest::keyClick(field, Qt::Key_Enter);
    QCOMPARE(asked.count(), 0);
    QVERIFY(d->isVisible());
    QVERIFY(!d->isLoading());
  }

  // A successful load closes the dialog and reports the model; reopened on it, the rows are
  // whole and what it holds is the estimate's figure, split into its parts.
  void aLoadClosesTheDialogAndMatchesTheEstimate() {
    const QString path = model("baichuan-tiny-rope/baichuan-tiny-rope-32L-f32.gguf");
    if (path.isEmpty()) QSKIP("the shared fixtures are absent");
    ui::ModelManagerDialog* d = openOn(path);
    QVERIFY(QTest::qWaitForWindowExposed(d));
    const QString estimate = d->findChild<QLabel*>("memoryEstimate")->text();
    const QRegularExpressionMatch weights =
        QRegularExpression("weights ([0-9.]+ [KMG]iB)").match(estimate);
    QVERIFY2(weights.hasMatch(), qPrintable(estimate));
    QSignalSpy loaded(manager_.get(), &ModelManager::loaded);
    QTest::mouseClick(d->findChild<QPushButton*>("loadButton"), Qt::LeftButton);
    QVERIFY(loaded.wait(20000));
    QCOMPARE(loaded.at(0).at(0).toString(), path);
    QTRY_VERIFY(!manager_->dialog());  // closed (and deleted)

    d = manager_->open(path);
    const QString status = d->findChild<QLabel*>("loadStatus")->text();
    const QRegularExpressionMatch held =
        QRegularExpression(
            "^In memory: baichuan-tiny-rope-32L-f32.gguf, loaded in [0-9.]+ s with "
            "auto weights: ([0-9.]+) MiB \\(matrices [0-9.]+ MiB \\+ token "
            "embeddings and norms [0-9.]+ MiB\\); estimated before loading: "
            "([0-9.]+) MiB")
            .match(status);
    QVERIFY2(held.hasMatch(), qPrintable(status));
    QCOMPARE(held.captured(2), weights.captured(1).section(' ', 0, 0));
    // The same quantity: what the model holds is within 2% of the estimate (the issue's
    // 421.2 vs 366.8 MiB left the token embeddings out).
    QVERIFY2(std::abs(held.captured(1).toDouble() / held.captured(2).toDouble() - 1) < 0.02,
             qPrintable(status));
    checkRowsWhole(d);
  }
};

QTEST_MAIN(TestModelManager)
#include "test_model_manager.moc"
