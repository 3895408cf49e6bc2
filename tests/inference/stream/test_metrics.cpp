// Metrics over hand-built event sequences: every definition in DESIGN.md, by number.
#include <QTest>

#include "inference/stream/metrics.h"

using namespace ts;

namespace {
constexpr int64_t kMs = 1'000'000;
constexpr int64_t kStart = 5'000 * kMs;  // an arbitrary monotonic origin

RecordedRun runOf(std::initializer_list<StreamEvent> events) {
  RunRecorder r;
  r.record(StreamEvent::started(kStart));
  for (const auto& e : events) r.record(e);
  return r.run();
}
StreamEvent chunkAt(int64_t ms, const char* text, int n = 0) {
  return StreamEvent::chunk(kStart + ms * kMs, text, n);
}
}  // namespace

class TestMetrics : public QObject {
  Q_OBJECT
 private slots:
  void singleTokenChunksWithUsage() {
    const auto run = runOf({chunkAt(100, "a"), chunkAt(110, "b"), chunkAt(130, "c"),
                            chunkAt(160, "d"), StreamEvent::usage(kStart + 170 * kMs, 7, 4),
                            StreamEvent::finished(kStart + 171 * kMs, "stop")});
    const RunMetrics m = computeMetrics(run);
    QCOMPARE(*m.ttft_ns, 100 * kMs);
    QCOMPARE(*m.e2e_ns, 160 * kMs);  // the trailing usage chunk does not extend E2E
    QCOMPARE(m.output_tokens, 4);
    QCOMPARE(m.output_tokens_source, TokenCountSource::Usage);
    QCOMPARE(*m.prompt_tokens, 7);
    QCOMPARE(*m.tpot_ns, 20.0 * kMs);  // (160 - 100) / (4 - 1)
    QCOMPARE(m.itl_ns, (std::vector<int64_t>{10 * kMs, 20 * kMs, 30 * kMs}));
    QCOMPARE(m.itl_per_token_ns.size(), size_t{3});  // 4 tokens in 4 chunks: one each
    QCOMPARE(*m.decode_tok_s, 50.0);                 // 3 tokens in 60 ms
    QCOMPARE(*m.overall_tok_s, 25.0);                // 4 tokens in 160 ms
    QCOMPARE(run.contentText(), std::string("abcd"));
  }

  void emptyFirstChunkIsNotTheFirstToken() {
    // OpenAI's first chunk carries the role and empty content: TTFT waits for text.
    const auto run = runOf({chunkAt(5, ""), chunkAt(80, "Hi"), chunkAt(90, "!")});
    const RunMetrics m = computeMetrics(run);
    QCOMPARE(*m.ttft_ns, 80 * kMs);
    QCOMPARE(m.content_chunks, 2);
    QCOMPARE(m.itl_ns, std::vector<int64_t>{10 * kMs});
  }

  void multiTokenChunksNormalisePerToken() {
    const auto run = runOf({chunkAt(50, "abc", 3), chunkAt(80, "defg", 4), chunkAt(90, "h", 1),
                            StreamEvent::usage(kStart + 95 * kMs, -1, 8)});
    const RunMetrics m = computeMetrics(run);
    QCOMPARE(m.output_tokens, 8);
    QCOMPARE(m.itl_ns, (std::vector<int64_t>{30 * kMs, 10 * kMs}));
    QCOMPARE(m.itl_per_token_ns, (std::vector<double>{7.5 * kMs, 10.0 * kMs}));  // 30/4, 10/1
    QCOMPARE(*m.tpot_ns, 40.0 * kMs / 7.0);
    QVERIFY(!m.prompt_tokens);
  }

  void missingUsageFallsBackToTokenizerThenChunks() {
    const auto run = runOf({chunkAt(10, "ab"), chunkAt(20, "cd"), chunkAt(40, "ef")});
    const RunMetrics by_chunks = computeMetrics(run);
    QCOMPARE(by_chunks.output_tokens, 3);
    QCOMPARE(by_chunks.output_tokens_source, TokenCountSource::Chunks);
    QCOMPARE(*by_chunks.tpot_ns, 15.0 * kMs);
    const RunMetrics by_tokenizer = computeMetrics(run, 6);
    QCOMPARE(by_tokenizer.output_tokens, 6);
    QCOMPARE(by_tokenizer.output_tokens_source, TokenCountSource::Tokenizer);
    QCOMPARE(*by_tokenizer.tpot_ns, 30.0 * kMs / 5.0);
    // k unknown and tokens != chunks: no per-token ITL is invented.
    QVERIFY(by_tokenizer.itl_per_token_ns.empty());
  }

  void singleTokenAnswerHasNoTpot() {
    const auto run = runOf({chunkAt(42, "Yes"), StreamEvent::usage(kStart + 43 * kMs, 3, 1)});
    const RunMetrics m = computeMetrics(run);
    QCOMPARE(*m.ttft_ns, 42 * kMs);
    QCOMPARE(*m.e2e_ns, 42 * kMs);
    QCOMPARE(m.output_tokens, 1);
    QVERIFY(!m.tpot_ns);
    QVERIFY(!m.decode_tok_s);
    QVERIFY(m.itl_ns.empty());
    QCOMPARE(*m.overall_tok_s, 1.0 / 0.042);
  }

  void allTokensInOneChunkGiveZeroTpotAndNoDecodeRate() {
    const auto run =
        runOf({chunkAt(30, "whole answer"), StreamEvent::usage(kStart + 31 * kMs, 3, 5)});
    const RunMetrics m = computeMetrics(run);
    QCOMPARE(*m.tpot_ns, 0.0);
    QVERIFY(!m.decode_tok_s);
  }

  void failedRunWithoutContentHasNoTimes() {
    const auto run =
        runOf({StreamEvent::failed(kStart + 3 * kMs, FailureKind::Auth, 401, "no", "")});
    const RunMetrics m = computeMetrics(run);
    QVERIFY(!m.ttft_ns);
    QVERIFY(!m.e2e_ns);
    QCOMPARE(m.output_tokens, 0);
    QVERIFY(!m.overall_tok_s);
    QCOMPARE(run.terminal()->failure, FailureKind::Auth);
  }

  void summaryPercentilesInterpolateLikeNumpy() {
    const Summary s = summarize({4, 1, 3, 2, 5, 6, 7, 8, 9, 10});
    QCOMPARE(s.count, size_t{10});
    QCOMPARE(s.mean, 5.5);
    QCOMPARE(s.p50, 5.5);
    QCOMPARE(s.p90, 9.1);
    QVERIFY(qAbs(s.p99 - 9.91) < 1e-12);
    QCOMPARE(s.min, 1.0);
    QCOMPARE(s.max, 10.0);
    QCOMPARE(summarize({}).count, size_t{0});
  }
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "test_metrics.moc"
