// stream-bench [--client] [--parser] [--gui] [--runs N] [--json]
//   --client  client timestamps vs the server's send times at 1,000 chunks/s (loopback)
//   --parser  SSE parser + chunk JSON + recorder throughput on one core, events/s
//   --gui     10 s at 1,000 tokens/s into the real window (offscreen): longest stall
//   --transcript  a chat of 200 Markdown answers: ending an answer, re-rendering all
// With no selection, all four run. Medians over --runs (default 5) where it applies.
#include <QApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>

#include "app/desktop/app_controller.h"
#include "inference/remote/chat_json.h"
#include "inference/remote/openai_client.h"
#include "inference/remote/sse_parser.h"
#include "tests/support/openai_test_server.h"
#include "ui/chat_panel.h"
#include "ui/main_window.h"

using namespace ts;
using ts::testing::OpenAiTestServer;
using ts::testing::ServerScript;

namespace {

QJsonObject summaryJson(std::vector<double> values) {
  const Summary s = summarize(std::move(values));
  return {{"count", static_cast<qint64>(s.count)},
          {"mean", s.mean},
          {"p50", s.p50},
          {"p99", s.p99},
          {"max", s.max}};
}

// Client vs truth: each run streams `chunks` chunks 1 ms apart from the in-process server.
QJsonObject benchClient(OpenAiTestServer& server, int runs, int chunks) {
  std::vector<double> ttft_err_ms, itl_err_ms, chunk_lag_ms;
  int coalesced = 0, total_chunks = 0;
  for (int r = 0; r < runs; ++r) {
    ServerScript s;
    s.ttft_ms = 20;
    s.gap_ms = 1.0;
    s.chunks = chunks;
    server.setScript(s);
    server.clearRequests();
    OpenAiClient client;
    QEventLoop loop;
    QObject::connect(&client, &OpenAiClient::runFinished, &loop, &QEventLoop::quit);
    RemoteEndpoint e;
    e.base_url = QString::fromStdString(server.baseUrl());
    GenerationRequest req;
    req.model = "test-model";
    req.messages = {{"user", "bench"}};
    req.params.max_tokens = chunks;
    client.start(e, req);
    loop.exec();
    const auto truth = server.requests().at(0).chunks;
    std::vector<int64_t> seen;
    for (const auto& ev : client.result().run.events)
      if (ev.kind == EventKind::TokenChunk) seen.push_back(ev.t_ns);
    if (seen.size() != truth.size()) {
      std::fprintf(stderr, "run %d: %zu chunks seen, %zu sent\n", r, seen.size(), truth.size());
      continue;
    }
    // Same process, same steady clock: TTFT error = client stamp − server send stamp.
    ttft_err_ms.push_back(std::abs(seen[0] - truth[0].t_ns) / 1e6);
    for (size_t i = 0; i < seen.size(); ++i) {
      chunk_lag_ms.push_back((seen[i] - truth[i].t_ns) / 1e6);
      if (i == 0) continue;
      const int64_t measured = seen[i] - seen[i - 1];
      const int64_t actual = truth[i].t_ns - truth[i - 1].t_ns;
      itl_err_ms.push_back(std::abs(measured - actual) / 1e6);
      if (measured == 0) ++coalesced;
    }
    total_chunks += static_cast<int>(seen.size());
  }
  return {{"runs", runs},
          {"chunks_per_run", chunks},
          {"chunks_per_s_scripted", 1000},
          {"ttft_abs_error_ms", summaryJson(ttft_err_ms)},
          {"itl_abs_error_ms", summaryJson(itl_err_ms)},
          {"chunk_lag_ms", summaryJson(chunk_lag_ms)},
          {"chunks_coalesced_into_one_read", coalesced},
          {"chunks_total", total_chunks}};
}

// The client's per-byte path without sockets: SSE parse, chunk JSON, record.
QJsonObject benchParser(int runs) {
  std::string stream;
  const int events = 200'000;
  for (int i = 0; i < events; ++i)
    stream +=
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\","
        "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" tok" +
        std::to_string(i % 97) + "\"},\"finish_reason\":null}]}\n\n";
  std::vector<double> rates, parse_only;
  for (int r = 0; r < runs; ++r) {
    QElapsedTimer clock;
    clock.start();
    SseParser parser;
    RunRecorder recorder;
    recorder.record(StreamEvent::started(0));
    std::vector<SseEvent> out;
    size_t recorded = 0;
    for (size_t pos = 0; pos < stream.size(); pos += 4096) {
      out.clear();
      parser.feed(std::string_view(stream).substr(pos, 4096), out);
      const int64_t t = monotonicNowNs();
      for (const auto& e : out) {
        const ChatBody c = parseChatChunk(e.data);
        if (!c.content.empty()) recorder.record(StreamEvent::chunk(t, c.content));
        ++recorded;
      }
    }
    rates.push_back(recorded / (clock.nsecsElapsed() / 1e9));
    clock.restart();
    SseParser bare;
    size_t n = 0;
    for (size_t pos = 0; pos < stream.size(); pos += 4096) {
      out.clear();
      bare.feed(std::string_view(stream).substr(pos, 4096), out);
      n += out.size();
    }
    parse_only.push_back(n / (clock.nsecsElapsed() / 1e9));
  }
  return {{"events", events},
          {"bytes", static_cast<qint64>(stream.size())},
          {"events_per_s_median", summarize(rates).p50},
          {"sse_only_events_per_s_median", summarize(parse_only).p50}};
}

// The real window and wiring, streaming 1,000 tokens/s for `seconds`; a 1 ms precise
// timer on the GUI thread measures how long the event loop was ever busy.
QJsonObject benchGui(OpenAiTestServer& server, double seconds) {
  ServerScript s;
  s.ttft_ms = 50;
  s.gap_ms = 1.0;
  s.chunks = static_cast<int>(seconds * 1000);
  server.setScript(s);
  QTemporaryDir dir;
  ui::MainWindow window;
  AppController controller(&window, ProviderStore(dir.filePath("p.json")), dir.filePath("logs"),
                           false);
  window.setProviders({{"bench", server.baseUrl(), "test-model", "", 60, 0}}, 0);
  window.show();
  std::vector<double> gaps_ms;
  QElapsedTimer clock;
  qint64 last = -1;
  QTimer ticker;
  ticker.setTimerType(Qt::PreciseTimer);
  ticker.setInterval(1);
  QObject::connect(&ticker, &QTimer::timeout, [&] {
    const qint64 now = clock.nsecsElapsed();
    if (last >= 0) gaps_ms.push_back((now - last) / 1e6);
    last = now;
  });
  QEventLoop loop;
  QObject::connect(&window, &ui::MainWindow::runDisplayed, &loop, &QEventLoop::quit);
  window.findChild<QPlainTextEdit*>("input")->setPlainText("stream fast");
  window.findChild<QSpinBox*>("maxTokensSpin")->setValue(s.chunks);
  clock.start();
  ticker.start();
  window.send();
  loop.exec();
  ticker.stop();
  const double wall_s = clock.nsecsElapsed() / 1e9;
  const RunMetrics m = computeMetrics(window.currentRun());
  const Summary g = summarize(gaps_ms);
  return {{"seconds_scripted", seconds},
          {"tokens", static_cast<qint64>(m.output_tokens)},
          {"wall_s", wall_s},
          {"answer_chars", window.chatPanel()->lastAssistantText().size()},
          {"longest_stall_ms", g.max - 1.0},
          {"tick_gap_p99_ms", g.p99},
          {"tick_gap_p50_ms", g.p50},
          {"ticks", static_cast<qint64>(g.count)}};
}

// A long chat: `exchanges` questions, each answered with Markdown (lists, a table, code
// blocks; 678 characters). Times how long ending an answer blocks the window (it is then
// rendered as Markdown) as the chat grows, and a whole re-render (View → Render answers
// as Markdown off and on), medians over `runs`.
QJsonObject benchTranscript(int exchanges, int runs) {
  QString md;
  for (int i = 0; i < 6; ++i)
    md +=
        "Some **bold** text and a list:\n\n- one\n- two\n\n```cpp\nint main() { return 0; }\n```"
        "\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n";
  std::vector<double> finish_ms, rerender_ms;
  for (int r = 0; r < runs; ++r) {
    ui::ChatPanel panel;
    panel.resize(900, 700);
    panel.show();
    QElapsedTimer clock;
    for (int n = 1; n <= exchanges; ++n) {
      panel.appendUserMessage("question");
      panel.beginAssistantMessage("model");
      panel.appendAssistantText(md);
      clock.start();
      panel.finishAssistantMessage();
      if (n == exchanges) finish_ms.push_back(clock.nsecsElapsed() / 1e6);
    }
    clock.start();
    panel.setRenderMarkdown(false);
    panel.setRenderMarkdown(true);
    rerender_ms.push_back(clock.nsecsElapsed() / 2e6);
  }
  return {{"exchanges", exchanges},
          {"answer_chars", md.size()},
          {"finish_last_answer_ms_median", summarize(finish_ms).p50},
          {"rerender_all_ms_median", summarize(rerender_ms).p50}};
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QStringList args = app.arguments().mid(1);
  const bool json = args.removeAll("--json") > 0;
  int runs = 5;
  if (const int i = args.indexOf("--runs"); i >= 0 && i + 1 < args.size()) {
    runs = std::max(1, args[i + 1].toInt());
    args.remove(i, 2);
  }
  const bool all = args.isEmpty();
  OpenAiTestServer server;
  if (server.start() < 0) {
    std::fprintf(stderr, "stream-bench: cannot start the test server\n");
    return 1;
  }
  QJsonObject out;
  if (all || args.contains("--client")) out.insert("client", benchClient(server, runs, 2000));
  if (all || args.contains("--parser")) out.insert("parser", benchParser(runs));
  if (all || args.contains("--gui")) out.insert("gui", benchGui(server, 10.0));
  if (all || args.contains("--transcript")) out.insert("transcript", benchTranscript(200, runs));
  server.stop();
  if (json) {
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
    return 0;
  }
  if (out.contains("client")) {
    const auto c = out.value("client").toObject();
    auto line = [&](const char* name, const char* key) {
      const auto o = c.value(key).toObject();
      std::printf("  %-26s p50 %.3f ms  p99 %.3f ms  max %.3f ms\n", name,
                  o.value("p50").toDouble(), o.value("p99").toDouble(), o.value("max").toDouble());
    };
    std::printf("client vs server truth, 1,000 chunks/s, %d runs x 2000 chunks:\n", runs);
    line("|TTFT error|", "ttft_abs_error_ms");
    line("|ITL error|", "itl_abs_error_ms");
    line("chunk lag (client-server)", "chunk_lag_ms");
    std::printf("  chunks read together: %d of %d\n",
                c.value("chunks_coalesced_into_one_read").toInt(), c.value("chunks_total").toInt());
  }
  if (out.contains("parser")) {
    const auto p = out.value("parser").toObject();
    std::printf(
        "parser + chunk JSON + recorder, one core: %.0f events/s (SSE alone %.0f events/s)\n",
        p.value("events_per_s_median").toDouble(),
        p.value("sse_only_events_per_s_median").toDouble());
  }
  if (out.contains("gui")) {
    const auto g = out.value("gui").toObject();
    std::printf(
        "GUI, %.0f s at 1,000 tokens/s: %lld tokens in %.2f s; longest event-loop stall %.1f ms "
        "(tick gap p50 %.2f ms, p99 %.2f ms)\n",
        g.value("seconds_scripted").toDouble(), g.value("tokens").toInteger(),
        g.value("wall_s").toDouble(), g.value("longest_stall_ms").toDouble(),
        g.value("tick_gap_p50_ms").toDouble(), g.value("tick_gap_p99_ms").toDouble());
  }
  if (out.contains("transcript")) {
    const auto t = out.value("transcript").toObject();
    std::printf(
        "transcript of %d Markdown answers (%d chars each): ending the last one %.1f ms, "
        "re-rendering them all %.1f ms (medians)\n",
        t.value("exchanges").toInt(), t.value("answer_chars").toInt(),
        t.value("finish_last_answer_ms_median").toDouble(),
        t.value("rerender_all_ms_median").toDouble());
  }
  return 0;
}
