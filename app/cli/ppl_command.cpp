#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <cstdio>

#include "app/cli/common.h"
#include "app/cli/generate_command.h"
#include "app/cli/model_options.h"
#include "app/cli/options.h"
#include "inference/engine/decode/perplexity.h"
#include "inference/engine/tokenizer/tokenizer.h"

namespace ts {
namespace {

// The text's tokens (at least 2) and the window length; nullopt after saying why (exit 2).
struct PplInput {
  std::vector<int> tokens;
  int context = 0;
};
std::optional<PplInput> pplInput(const QCommandLineParser& p, const engine::Model& model,
                                 const engine::Tokenizer& tokenizer, const std::string& text) {
  if (model.vocab.pieces.empty()) {
    printErr("tokenscope-cli ppl: this model carries no vocabulary: give --tokenizer PATH");
    return std::nullopt;
  }
  OptionError err;
  const auto context = p.isSet("context")
                           ? parseIntOption("context", p.value("context"), 2, 1 << 20, err)
                           : std::optional<int>(model.config.context);
  if (!context) {
    printErr("tokenscope-cli ppl: " + err.message);
    return std::nullopt;
  }
  PplInput in{tokenizer.encode(text, false), *context};
  if (in.tokens.size() < 2) {
    printErr("tokenscope-cli ppl: the text is too short: expected at least 2 tokens");
    return std::nullopt;
  }
  return in;
}

void printPerplexity(const engine::PerplexityScores& s, const engine::Model& model, int context,
                     double seconds, bool json) {
  const double ppl = std::exp(s.nll / s.scored);
  const QJsonObject out{
      {"perplexity", ppl},
      {"mean_nll", s.nll / s.scored},
      {"tokens", static_cast<qint64>(s.scored)},
      {"windows", static_cast<qint64>(s.windows)},
      {"context", context},
      {"weight_format", QString::fromStdString(engine::weightFormatName(model.weight_format))},
      {"weights", QString::fromStdString(model.weightSummary())},
      {"seconds", seconds}};
  if (json)
    std::printf("%s", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
  else
    printOut(QString("perplexity %1 over %2 tokens (%3 windows of up to %4)")
                 .arg(ppl, 0, 'f', 4)
                 .arg(s.scored)
                 .arg(s.windows)
                 .arg(context));
}

}  // namespace

int runPplCommand(const QStringList& args) {
  QCommandLineParser p;
  p.setApplicationDescription(
      "Perplexity of a model on a text: exp(mean negative log-likelihood of each token given "
      "the ones before it), over consecutive windows of --context tokens that each start "
      "with BOS.");
  addModelOptions(p, true);
  p.addOptions({{"text", "A UTF-8 text file.", "FILE"},
                {"context", "Window length in tokens (default: the model's context).", "N"},
                {"json", "Print one JSON object."}});
  if (auto done = parseCommandLine(p, args, "ppl")) return *done;
  if (!p.isSet("model") || !p.isSet("text")) {
    printErr("tokenscope-cli ppl: expected --model PATH and --text FILE");
    return 2;
  }
  QFile file(p.value("text"));
  if (!file.open(QIODevice::ReadOnly)) {
    printErr(
        QString("tokenscope-cli ppl: cannot read %1: %2").arg(p.value("text"), file.errorString()));
    return 1;
  }
  auto model = load(p, true);
  if (!model) {
    printErr("tokenscope-cli ppl: " + QString::fromStdString(model.error()));
    return 1;
  }
  engine::Tokenizer tokenizer(model.value()->vocab);
  const auto in = pplInput(p, *model.value(), tokenizer, file.readAll().toStdString());
  if (!in) return 2;
  QElapsedTimer clock;
  clock.start();
  const auto scores =
      engine::scorePerplexity(model.value(), tokenizer.bos(), in->tokens, in->context);
  if (!scores) {  // memory for a window's KV cache ran out
    printErr("tokenscope-cli ppl: the engine failed: " + QString::fromStdString(scores.error()));
    return 1;
  }
  printPerplexity(scores.value(), *model.value(), in->context, clock.nsecsElapsed() / 1e9,
                  p.isSet("json"));
  return 0;
}

}  // namespace ts
