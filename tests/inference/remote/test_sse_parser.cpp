// The SSE parser, byte by byte: line ends, fields, comments, BOM, every split point.
#include <QTest>

#include "inference/remote/sse_parser.h"

using namespace ts;

namespace {

std::vector<SseEvent> parseWhole(std::string_view s, bool finish = true) {
  SseParser p;
  std::vector<SseEvent> out;
  p.feed(s, out);
  if (finish) p.finish(out);
  return out;
}

std::vector<SseEvent> parseBytewise(std::string_view s) {
  SseParser p;
  std::vector<SseEvent> out;
  for (char c : s) p.feed(std::string_view(&c, 1), out);
  p.finish(out);
  return out;
}

SseEvent ev(std::string data, std::string type = "message", std::string id = "",
            std::optional<int64_t> retry = std::nullopt) {
  return SseEvent{std::move(type), std::move(data), std::move(id), retry};
}

// A stream with every feature at once, used by the split tests.
const std::string kRich =
    "\xEF\xBB\xBF: keep-alive\r\n"
    "data: {\"a\":1}\r\n\r\n"
    "event: delta\rid: 7\rretry: 1500\rdata: line one\rdata:line two\r\r"
    "data\n\n"
    "data: 你好 😀\n\n"
    "data: [DONE]\n\n";

const std::vector<SseEvent> kRichEvents = {
    ev("{\"a\":1}"), ev("line one\nline two", "delta", "7", 1500), ev("", "message", "7"),
    ev("你好 😀", "message", "7"), ev("[DONE]", "message", "7")};

}  // namespace

class TestSseParser : public QObject {
  Q_OBJECT
 private slots:
  void lfLinesDispatchOnBlankLine() {
    QCOMPARE(parseWhole("data: hello\n\ndata: world\n\n"),
             (std::vector<SseEvent>{ev("hello"), ev("world")}));
  }
  void crlfAndCrLineEnds() {
    QCOMPARE(parseWhole("data: a\r\n\r\ndata: b\r\rdata: c\n\n"),
             (std::vector<SseEvent>{ev("a"), ev("b"), ev("c")}));
  }
  void multiLineDataJoinsWithNewline() {
    QCOMPARE(parseWhole("data: first\ndata: second\ndata:third\n\n"),
             std::vector<SseEvent>{ev("first\nsecond\nthird")});
  }
  void onlyOneLeadingSpaceIsRemoved() {
    QCOMPARE(parseWhole("data:  two spaces\n\n"), std::vector<SseEvent>{ev(" two spaces")});
  }
  void commentsAreSkippedAndCounted() {
    SseParser p;
    std::vector<SseEvent> out;
    p.feed(": keep-alive\n\n:\ndata: x\n\n", out);
    QCOMPARE(out, std::vector<SseEvent>{ev("x")});
    QCOMPARE(p.commentCount(), size_t{2});
  }
  void eventIdRetryFields() {
    const auto out = parseWhole("event: usage\nid: 42\nretry: 3000\ndata: u\n\ndata: v\n\n");
    QCOMPARE(out, (std::vector<SseEvent>{ev("u", "usage", "42", 3000), ev("v", "message", "42")}));
  }
  void invalidRetryAndUnknownFieldsAreIgnored() {
    QCOMPARE(parseWhole("retry: 12a\nfoo: bar\ndata: x\n\n"), std::vector<SseEvent>{ev("x")});
  }
  void eventWithoutDataIsNotDispatched() {
    QCOMPARE(parseWhole("event: ping\n\nid: 3\n\n"), std::vector<SseEvent>{});
  }
  void fieldWithoutColonIsAFieldWithEmptyValue() {
    QCOMPARE(parseWhole("data\n\n"), std::vector<SseEvent>{ev("")});
  }
  void bomIsStrippedOnlyAtTheStart() {
    QCOMPARE(parseWhole("\xEF\xBB\xBF"
                        "data: a\n\n"),
             std::vector<SseEvent>{ev("a")});
    // A BOM later is part of the field name, so that line is an unknown field.
    QCOMPARE(parseWhole("data: a\n\n\xEF\xBB\xBF"
                        "data: b\n\n"),
             std::vector<SseEvent>{ev("a")});
  }
  void bomSplitAcrossFeeds() {
    SseParser p;
    std::vector<SseEvent> out;
    p.feed("\xEF", out);
    p.feed("\xBB", out);
    p.feed(
        "\xBF"
        "da",
        out);
    p.feed("ta: ok\n\n", out);
    QCOMPARE(out, std::vector<SseEvent>{ev("ok")});
  }
  void shortInputThatLooksLikeABomPrefix() {
    QCOMPARE(parseWhole("\xEF"
                        "data: x\n\n")
                 .size(),
             size_t{0});  // "\xEF" "data" is not "data"
    SseParser p;
    std::vector<SseEvent> out;
    p.feed("d", out);  // shorter than a BOM and not a BOM prefix
    p.feed("ata: y\n\n", out);
    QCOMPARE(out, std::vector<SseEvent>{ev("y")});
  }
  void doneIsAnOrdinaryEvent() {
    QCOMPARE(parseWhole("data: [DONE]\n\n"), std::vector<SseEvent>{ev("[DONE]")});
  }
  void streamEndingWithoutBlankLineStillDeliversCompleteLines() {
    QCOMPARE(parseWhole("data: last\n"), std::vector<SseEvent>{ev("last")});
    QCOMPARE(parseWhole("data: last\n", false), std::vector<SseEvent>{});
    // An unterminated line may be cut mid-JSON: it is dropped.
    QCOMPARE(parseWhole("data: a\n\ndata: {\"trunc"), std::vector<SseEvent>{ev("a")});
  }
  void crlfSplitBetweenCrAndLf() {
    SseParser p;
    std::vector<SseEvent> out;
    p.feed("data: a\r", out);
    p.feed("\n\r", out);
    p.feed("\ndata: b\r\n\r\n", out);
    QCOMPARE(out, (std::vector<SseEvent>{ev("a"), ev("b")}));
  }
  void richStreamWhole() { QCOMPARE(parseWhole(kRich), kRichEvents); }
  void richStreamByteByByte() { QCOMPARE(parseBytewise(kRich), kRichEvents); }
  void richStreamSplitAtEveryPosition() {
    for (size_t cut = 0; cut <= kRich.size(); ++cut) {
      for (size_t cut2 = cut; cut2 <= kRich.size(); cut2 += 7) {
        SseParser p;
        std::vector<SseEvent> out;
        const std::string_view all(kRich);
        p.feed(all.substr(0, cut), out);
        p.feed(all.substr(cut, cut2 - cut), out);
        p.feed(all.substr(cut2), out);
        p.finish(out);
        if (out != kRichEvents)
          QFAIL(qPrintable(QString("split at %1/%2 differs").arg(cut).arg(cut2)));
      }
    }
  }
  void bytesFedCountsEverything() {
    SseParser p;
    std::vector<SseEvent> out;
    p.feed(kRich, out);
    QCOMPARE(p.bytesFed(), kRich.size());
  }
};

QTEST_GUILESS_MAIN(TestSseParser)
#include "test_sse_parser.moc"
