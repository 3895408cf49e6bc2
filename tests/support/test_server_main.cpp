// tokenscope-test-server: the scripted OpenAI-compatible server as a program, for the
// screenshot script and for trying the app without a real provider. 127.0.0.1 only.
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <csignal>
#include <cstdio>
#include <thread>

#include "tests/support/openai_test_server.h"

namespace {
volatile std::sig_atomic_t g_stop = 0;
void onSignal(int) {
  g_stop = 1;
}
}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QCommandLineParser p;
  p.setApplicationDescription("Scripted OpenAI-compatible test server on 127.0.0.1.");
  p.addHelpOption();
  p.addOptions({{"port", "Port (0 = any free one; printed).", "N", "0"},
                {"ttft-ms", "Delay before the first content chunk.", "MS", "200"},
                {"gap-ms", "Gap between chunks.", "MS", "20"},
                {"chunks", "Content chunks per answer.", "N", "120"},
                {"tokens-per-chunk", "Tokens per chunk.", "N", "1"},
                {"no-usage", "Never send a usage chunk."},
                {"reject-stream-options", "Answer 400 to requests with stream_options."},
                {"status", "Answer with this HTTP status (401, 404, 429, 500...).", "CODE", "200"},
                {"stall-after", "Go silent after N chunks (see --stall-ms).", "N", "-1"},
                {"stall-ms", "How long to stay silent.", "MS", "0"},
                {"reset-after", "Drop the connection after N chunks.", "N", "-1"},
                {"malformed-after", "Send a line that is not JSON after N chunks.", "N", "-1"},
                {"no-done", "Do not send data: [DONE]."},
                {"models", "Comma-separated model ids served.", "IDS", "test-model"},
                {"answer-file",
                 "Answer with this file's text (word by word; --chunks defaults "
                 "to its word count).",
                 "FILE"}});
  p.process(app);
  ts::testing::ServerScript s;
  s.ttft_ms = p.value("ttft-ms").toInt();
  s.gap_ms = p.value("gap-ms").toDouble();
  s.chunks = p.value("chunks").toInt();
  s.tokens_per_chunk = std::max(1, p.value("tokens-per-chunk").toInt());
  s.usage = !p.isSet("no-usage");
  s.reject_stream_options = p.isSet("reject-stream-options");
  s.status = p.value("status").toInt();
  s.stall_after_chunks = p.value("stall-after").toInt();
  s.stall_ms = p.value("stall-ms").toInt();
  s.reset_after_chunks = p.value("reset-after").toInt();
  s.malformed_after_chunks = p.value("malformed-after").toInt();
  s.send_done = !p.isSet("no-done");
  if (p.isSet("answer-file")) {
    QFile file(p.value("answer-file"));
    if (!file.open(QIODevice::ReadOnly)) {
      std::fprintf(stderr, "tokenscope-test-server: cannot read %s\n",
                   qPrintable(p.value("answer-file")));
      return 1;
    }
    s.pieces = ts::testing::OpenAiTestServer::piecesOf(file.readAll().toStdString());
    if (!p.isSet("chunks")) s.chunks = static_cast<int>(s.pieces.size());
  }
  s.models.clear();
  for (const QString& m : p.value("models").split(',', Qt::SkipEmptyParts))
    s.models.push_back(m.trimmed().toStdString());

  ts::testing::OpenAiTestServer server;
  server.setScript(s);
  const int port = server.start(p.value("port").toInt());
  if (port < 0) {
    std::fprintf(stderr, "tokenscope-test-server: cannot listen on 127.0.0.1:%s\n",
                 qPrintable(p.value("port")));
    return 1;
  }
  std::printf("listening on %s\n", server.baseUrl().c_str());
  std::fflush(stdout);
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  server.stop();
  return 0;
}
