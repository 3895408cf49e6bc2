// Fenced code blocks found in answers, as CommonMark defines fences: what gets a Copy
// button, and what that button copies.
#include <QTest>

#include "ui/markdown_segments.h"

using ts::ui::MarkdownSegment;
using ts::ui::splitFencedCode;

namespace {

QString joined(const QList<MarkdownSegment>& segments) {
  QString out;
  for (const MarkdownSegment& s : segments) out += s.source;
  return out;
}

}  // namespace

class TestMarkdownSegments : public QObject {
  Q_OBJECT
 private slots:
  void proseAndCodeAlternate() {
    const QString text =
        "Intro **x**\n\n```cpp title\nint a;\n\nint b;\n```\nAfter\n~~~\nraw ```\n~~~\n";
    const auto s = splitFencedCode(text);
    QCOMPARE(s.size(), 4);
    QVERIFY(!s[0].is_code);
    QVERIFY(s[1].is_code);
    QCOMPARE(s[1].language, QString("cpp"));
    QCOMPARE(s[1].code, QString("int a;\n\nint b;"));
    QCOMPARE(s[2].source, QString("After\n"));
    QVERIFY(s[3].is_code);
    QCOMPARE(s[3].code, QString("raw ```"));  // a backtick line does not close a ~~~ fence
    QCOMPARE(joined(s), text);
  }

  // A longer opening fence needs as long a closing one; a shorter one is code.
  void closingFenceIsAtLeastAsLong() {
    const auto s = splitFencedCode("````md\n```\nnested\n```\n````\n");
    QCOMPARE(s.size(), 1);
    QCOMPARE(s[0].code, QString("```\nnested\n```"));
    QCOMPARE(s[0].language, QString("md"));
  }

  // A fence cut off (max_tokens) runs to the end; indented fences lose their indent;
  // four spaces is an indented code block, not a fence; `` ``` `` inline is not a fence.
  void unclosedIndentedAndNonFences() {
    auto s = splitFencedCode("text\n```python\nprint(1)\n");
    QCOMPARE(s.size(), 2);
    QCOMPARE(s[1].code, QString("print(1)"));
    s = splitFencedCode("  ```\n  two\n   three\n  ```");
    QCOMPARE(s.size(), 1);
    QCOMPARE(s[0].code, QString("two\n three"));
    s = splitFencedCode("    ```\nnot code\n");
    QCOMPARE(s.size(), 1);
    QVERIFY(!s[0].is_code);
    s = splitFencedCode("``` a ` b\nstill prose\n");
    QCOMPARE(s.size(), 1);
    QVERIFY(!s[0].is_code);
    QVERIFY(splitFencedCode(QString()).isEmpty());
  }
};

QTEST_MAIN(TestMarkdownSegments)
#include "test_markdown_segments.moc"
