// The transcript on its own: answers re-rendered as Markdown when they end, notes that
// arrive mid-answer stay under it, drafted text survives rendering, a table in one answer
// does not disturb the next.
#include <QTest>
#include <QTextBrowser>

#include "ui/chat_panel.h"

using ts::ui::ChatPanel;

class TestChatPanel : public QObject {
  Q_OBJECT
 private slots:
  void aNoteMidAnswerStaysBelowIt() {
    ChatPanel panel;
    panel.appendUserMessage("q");
    panel.beginAssistantMessage("model");
    panel.appendAssistantText("Hello **x**");
    panel.endAssistantMessage("Note: slow start", false);
    panel.appendAssistantText(" and", true);  // an accepted draft token
    panel.appendAssistantText(" more");
    panel.finishAssistantMessage();
    const QString shown = panel.findChild<QTextBrowser*>("transcript")->toPlainText();
    QVERIFY2(shown.indexOf("Hello x and more") >= 0 &&
                 shown.indexOf("Hello x and more") < shown.indexOf("Note: slow start"),
             qPrintable(shown));
    QCOMPARE(panel.transcriptText(),
             QString("You\nq\nmodel\nHello **x** and more\nNote: slow start"));
    QCOMPARE(panel.draftedText(), QString(" and"));
    QCOMPARE(panel.copyText(1), QString("Hello **x** and more"));
    QCOMPARE(panel.copyLinks(), QStringList({"copy:message/0", "copy:message/1"}));
  }

  void answersAfterATableRenderToo() {
    ChatPanel panel;
    for (const QString& answer :
         {QString("| a | b |\n|---|---|\n| 1 | 2 |\n"), QString("```sh\nls\n```\nafter")}) {
      panel.appendUserMessage("q");
      panel.beginAssistantMessage("model");
      panel.appendAssistantText(answer);
      panel.finishAssistantMessage();
    }
    const QString shown = panel.findChild<QTextBrowser*>("transcript")->toPlainText();
    QVERIFY2(!shown.contains("|---|") && !shown.contains("```") && shown.contains("after") &&
                 shown.contains("ls"),
             qPrintable(shown));
    QCOMPARE(panel.copyLinks(), QStringList({"copy:message/0", "copy:message/1", "copy:message/2",
                                             "copy:message/3", "copy:code/3/0"}));
    QCOMPARE(panel.copyText(3, 0), QString("ls"));
    panel.clearTranscript();
    QVERIFY(panel.copyLinks().isEmpty());
    panel.appendUserMessage("again");
    QCOMPARE(panel.copyLinks(), QStringList({"copy:message/0"}));
  }
};

QTEST_MAIN(TestChatPanel)
#include "test_chat_panel.moc"
