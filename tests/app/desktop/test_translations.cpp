// Simplified Chinese: every string the code marks for translation is in the .ts and
// translated (placeholders and accelerators kept), and the window really shows it.
#include <QDialog>
#include <QDomDocument>
#include <QMenuBar>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "app/desktop/language.h"
#include "inference/remote/api_key.h"
#include "ui/main_window.h"

namespace {

struct Message {
  QString context, source, translation, type;
};

QList<Message> readTs(const QString& path) {
  QFile f(path);
  QList<Message> out;
  if (!f.open(QIODevice::ReadOnly)) return out;
  QDomDocument doc;
  doc.setContent(&f);
  const QDomNodeList contexts = doc.elementsByTagName("context");
  for (int i = 0; i < contexts.size(); ++i) {
    const QDomElement ctx = contexts.at(i).toElement();
    const QString name = ctx.firstChildElement("name").text();
    for (QDomElement m = ctx.firstChildElement("message"); !m.isNull();
         m = m.nextSiblingElement("message")) {
      const QDomElement t = m.firstChildElement("translation");
      out.append({name, m.firstChildElement("source").text(), t.text(), t.attribute("type")});
    }
  }
  return out;
}

QSet<QString> placeholders(const QString& s) {
  QSet<QString> out;
  auto it = QRegularExpression("%[1-9]").globalMatch(s);
  while (it.hasNext()) out.insert(it.next().captured());
  return out;
}

}  // namespace

class TestTranslations : public QObject {
  Q_OBJECT
 private slots:
  void everyMessageIsTranslatedFaithfully() {
    const QList<Message> messages = readTs(TOKENSCOPE_TS_FILE);
    QVERIFY2(messages.size() > 250, qPrintable(QString::number(messages.size())));
    for (const Message& m : messages) {
      const QString where = m.context + ": " + m.source;
      QVERIFY2(m.type.isEmpty(), qPrintable("not finished: " + where));
      QVERIFY2(!m.translation.isEmpty(), qPrintable("empty translation: " + where));
      QVERIFY2(placeholders(m.source) == placeholders(m.translation),
               qPrintable("placeholders differ: " + where));
      const bool source_has_accel = QRegularExpression("&[^ &]").match(m.source).hasMatch();
      if (source_has_accel)
        QVERIFY2(m.translation.contains('&'), qPrintable("lost its accelerator: " + where));
    }
  }

  void theTsFileHoldsEveryStringInTheCode() {
    QTemporaryDir dir;
    const QString fresh = dir.filePath("fresh.ts");
    QProcess lupdate;
    lupdate.setWorkingDirectory(TOKENSCOPE_SOURCE_DIR);
    lupdate.start(TOKENSCOPE_LUPDATE, {"-no-obsolete", "-locations", "none", "-I", ".", "ui", "app",
                                       "inference/remote", "-ts", fresh});
    QVERIFY(lupdate.waitForFinished(60000));
    QCOMPARE(lupdate.exitCode(), 0);
    QSet<QString> committed, current;
    for (const Message& m : readTs(TOKENSCOPE_TS_FILE))
      committed.insert(m.context + "|" + m.source);
    for (const Message& m : readTs(fresh)) current.insert(m.context + "|" + m.source);
    QVERIFY(!current.isEmpty());
    const QSet<QString> missing = current - committed;
    QVERIFY2(missing.isEmpty(),
             qPrintable("not in resources/translations/tokenscope_zh_CN.ts (run lupdate and "
                        "translate): " +
                        QStringList(missing.values()).join(" / ")));
  }

  void theWindowSpeaksChinese() {
    qputenv("TOKENSCOPE_LANGUAGE", "zh_CN");
    QCOMPARE(ts::installTranslations(*qApp), QString("zh_CN"));
    ts::ui::MainWindow window;
    QCOMPARE(window.findChild<QPushButton*>("sendButton")->text(), QString("发送(&S)"));
    QCOMPARE(window.menuBar()->actions().first()->text(), QString("文件(&F)"));
    QVERIFY(ts::authFixHint({{}, ts::KeyState::EnvUnset, "TAOTOKEN_API_KEY", false})
                .contains("环境变量 TAOTOKEN_API_KEY 未设置"));
    // The shortcuts list names menu items as read, without their access keys: "文件 → 新对话",
    // not "文件(F) → 新对话(N)".
    window.showShortcuts();
    auto* table = window.findChild<QDialog*>("shortcutsDialog")->findChild<QTableWidget*>();
    QStringList actions;
    for (int r = 0; r < table->rowCount(); ++r) actions << table->item(r, 1)->text();
    QVERIFY2(actions.join('\n').contains(QString::fromUtf8("文件 → ")),
             qPrintable(actions.join('\n')));
    QVERIFY2(!QRegularExpression("\\([A-Z]\\)").match(actions.join('\n')).hasMatch(),
             qPrintable(actions.join('\n')));
    // Installing again for English (a switch without a restart) takes the Chinese out:
    // a window built afterwards speaks English.
    qputenv("TOKENSCOPE_LANGUAGE", "en");
    QCOMPARE(ts::installTranslations(*qApp), QString("en"));
    ts::ui::MainWindow english;
    QCOMPARE(english.menuBar()->actions().first()->text(), QString("&File"));
    QCOMPARE(english.findChild<QPushButton*>("sendButton")->text(), QString("&Send"));
    qunsetenv("TOKENSCOPE_LANGUAGE");
  }

  void theChoiceIsRememberedAndEnvironmentWins() {
    QTemporaryDir dir;
    qputenv("TOKENSCOPE_CONFIG_DIR", dir.path().toUtf8());
    qunsetenv("TOKENSCOPE_LANGUAGE");
    QCOMPARE(ts::chosenLanguage(), QString("system"));  // nothing chosen yet
    ts::setChosenLanguage("zh_CN");
    QCOMPARE(ts::chosenLanguage(), QString("zh_CN"));
    QCOMPARE(ts::effectiveLanguage(), QString("zh_CN"));
    QVERIFY(QFile::exists(dir.filePath("ui.ini")));
    ts::setChosenLanguage("en");
    QCOMPARE(ts::effectiveLanguage(), QString("en"));
    qputenv("TOKENSCOPE_LANGUAGE", "zh_CN");  // the override beats the stored choice
    QCOMPARE(ts::effectiveLanguage(), QString("zh_CN"));
    qunsetenv("TOKENSCOPE_LANGUAGE");
    qunsetenv("TOKENSCOPE_CONFIG_DIR");
  }
};

QTEST_MAIN(TestTranslations)
#include "test_translations.moc"
