// tokenscope-screenshot-tour: the README's comparison and benchmark screenshots, taken of
// the app's own windows (MainWindow, AppController, the history's comparison view and
// the benchmark dialog) driven like a user would, against two scripted gateways on
// 127.0.0.1 — a slower "Gateway A" and a faster "Gateway B" — and, for the prefill-chunk
// sweep, a local model: random weights 2,048 wide (four layers, int8) with the demo model's
// vocabulary, big enough that reading a prompt costs what a chunk trades. Run under Xvfb
// by tests/screenshot.sh. Usage: tokenscope-screenshot-tour OUTPUT-DIR
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <cstdio>

#include "app/desktop/app_controller.h"
#include "app/local/demo_model.h"
#include "app/local/loaded_models.h"
#include "app/store/run_store.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/random_model.h"
#include "tests/support/openai_test_server.h"
#include "ui/benchmark_dialog.h"
#include "ui/comparison_view.h"
#include "ui/main_window.h"

namespace {

using ts::testing::OpenAiTestServer;
using ts::testing::ServerScript;

bool save(QWidget* window, const QString& path) {
  QTest::qWait(400);  // the last frames and chart animations paint
  const bool ok = window->grab().save(path);
  std::fprintf(ok ? stdout : stderr, "%s %s\n", ok ? "saved" : "cannot save", qPrintable(path));
  return ok;
}

int fail(const char* what) {
  std::fprintf(stderr, "screenshot tour: %s\n", what);
  return 1;
}

// The local model of the chunk sweep, registered as loaded under `path` (no file: the app
// finds it among the loaded models while the caller holds it). Null when the demo
// vocabulary cannot be made.
std::shared_ptr<ts::engine::Model> registerSweepModel(const QString& path,
                                                      const QString& demo_path) {
  if (!ts::ensureDemoModel(demo_path).isEmpty()) return nullptr;
  auto demo = ts::engine::loadModel(demo_path.toStdString());
  auto config = ts::engine::shapeConfig("baichuan-7b", 4);
  if (!demo || !config) return nullptr;
  ts::engine::ModelConfig c = config.value();
  c.dim = 2048, c.n_heads = c.n_kv_heads = 16, c.head_dim = c.rope_dim = 128, c.ffn_dim = 5504;
  c.vocab = demo.value()->config.vocab;
  c.context = 2048;
  auto model = ts::engine::randomModel(c, ts::engine::WeightFormat::Int8, 7);
  model->vocab = demo.value()->vocab;
  ts::LoadedModels::add(path, "auto", model);
  return model;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  if (argc != 2) return fail("usage: tokenscope-screenshot-tour OUTPUT-DIR");
  const QDir out(QString::fromLocal8Bit(argv[1]));
  QTemporaryDir work;
  if (!out.exists() || !work.isValid()) return fail("the output folder does not exist");

  // Two gateways serving the same answer: A takes longer to the first token and streams
  // with a wider gap than B.
  OpenAiTestServer gateway_a, gateway_b;
  ServerScript a, b;
  a.ttft_ms = 240, a.gap_ms = 14, a.chunks = 90;
  b.ttft_ms = 90, b.gap_ms = 7, b.chunks = 90;
  gateway_a.setScript(a);
  gateway_b.setScript(b);
  if (gateway_a.start() <= 0 || gateway_b.start() <= 0) return fail("cannot listen on 127.0.0.1");

  ts::ui::MainWindow window;
  window.setProviders({{"Gateway A", gateway_a.baseUrl(), "test-model", "", 60, 2},
                       {"Gateway B", gateway_b.baseUrl(), "test-model", "", 60, 2}},
                      0);
  ts::AppController controller(&window, ts::ProviderStore(work.filePath("providers.json")),
                               work.filePath("logs"), false);
  controller.setRunStore(std::make_unique<ts::RunStore>(work.filePath("runs.sqlite")));
  window.resize(1200, 760);
  window.show();

  // One run on each gateway, as a user would: pick the provider, type, send.
  QList<qint64> ids;
  for (int provider : {0, 1}) {
    window.findChild<QComboBox*>("providerCombo")->setCurrentIndex(provider);
    window.newChat();
    window.findChild<QPlainTextEdit*>("input")->setPlainText("Why is the first token slow?");
    bool shown = false;
    const auto c =
        QObject::connect(&window, &ts::ui::MainWindow::runDisplayed, [&shown] { shown = true; });
    window.send();
    if (!QTest::qWaitFor([&] { return shown; }, 20000)) return fail("a chat run did not finish");
    QObject::disconnect(c);
    ids << controller.runStore()->list().first().id;
  }

  // History → Compare of the two runs.
  ts::ui::ComparisonView* view = controller.history().compare(ids, false);
  if (!view) return fail("the comparison view did not open");
  view->resize(1200, 820);
  if (!save(view, out.filePath("comparison.png"))) return 1;
  view->close();

  // Provider → Benchmark on gateway B: a concurrency sweep 1, 2, 4, 8 against a TTFT SLO.
  window.findChild<QAction*>("benchmarkAction")->trigger();
  ts::ui::BenchmarkDialog* bench = controller.benchmark();
  if (!bench) return fail("the benchmark dialog did not open");
  bench->findChild<QLineEdit*>("benchValues")->setText("1,2,4,8");
  bench->findChild<QSpinBox*>("benchRequests")->setValue(8);
  bench->findChild<QSpinBox*>("benchWarmup")->setValue(1);
  bench->findChild<QSpinBox*>("benchMaxTokens")->setValue(32);
  bench->findChild<QDoubleSpinBox*>("benchSloTtft")->setValue(150);
  bool finished = false;
  QObject::connect(bench, &ts::ui::BenchmarkDialog::sweepFinished,
                   [&finished] { finished = true; });
  bench->resize(1100, 760);
  bench->findChild<QPushButton*>("benchStart")->click();
  if (!QTest::qWaitFor([&] { return finished; }, 60000))
    return fail("the benchmark sweep did not end");
  if (!save(bench, out.filePath("benchmark-sweep.png"))) return 1;
  bench->close();

  // Provider → Benchmark on a local model: the prefill chunk swept at concurrency 4 with
  // a long prompt, numbered per request (each read in full): the TTFT / TPOT trade-off.
  const QString local_path = work.filePath("sweep-model.gguf");
  const auto sweep_model = registerSweepModel(local_path, work.filePath("demo.gguf"));
  if (!sweep_model) return fail("the local sweep model could not be made");
  ts::ProviderSettings local{
      "Local (random, 2,048 wide)", local_path.toStdString(), "sweep", "", 60, 0};
  local.kind = ts::ProviderKind::LocalEngine;
  local.local.threads = 2;
  window.setProviders({local}, 0);
  window.findChild<QAction*>("benchmarkAction")->trigger();
  ts::ui::BenchmarkDialog* chunks = controller.benchmark();
  if (!chunks) return fail("the local benchmark dialog did not open");
  auto* axis = chunks->findChild<QComboBox*>("benchAxis");
  axis->setCurrentIndex(axis->findData(static_cast<int>(ts::ui::SweepKind::PrefillChunk)));
  QString prompt;
  for (int i = 0; i < 12; ++i)
    prompt +=
        "The first token waits for the whole prompt to be read; every later token waits "
        "for one step of the batch it runs in. ";
  chunks->findChild<QPlainTextEdit*>("benchPrompt")->setPlainText(prompt);
  chunks->findChild<QLineEdit*>("benchValues")->setText("8,32,128,0");
  chunks->findChild<QSpinBox*>("benchConcurrency")->setValue(4);
  chunks->findChild<QSpinBox*>("benchRequests")->setValue(8);
  chunks->findChild<QSpinBox*>("benchWarmup")->setValue(1);
  chunks->findChild<QSpinBox*>("benchMaxTokens")->setValue(24);
  finished = false;
  QObject::connect(chunks, &ts::ui::BenchmarkDialog::sweepFinished,
                   [&finished] { finished = true; });
  chunks->resize(1100, 760);
  chunks->findChild<QPushButton*>("benchStart")->click();
  if (!QTest::qWaitFor([&] { return finished; }, 150000))
    return fail("the prefill-chunk sweep did not end");
  if (!save(chunks, out.filePath("benchmark-chunks.png"))) return 1;
  return 0;
}
