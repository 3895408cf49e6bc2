#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>

#include "app/cli/common.h"
#include "app/cli/generate_command.h"
#include "app/cli/model_options.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/tokenizer/tokenizer.h"
#include "inference/sentencepiece/sentencepiece_tokenizer.h"

namespace ts {
namespace {

// The ids of --text, by the engine's tokenizer or (--sentencepiece) the sentencepiece
// library; nullopt after saying why the library cannot run.
std::optional<std::vector<int>> encode(const QCommandLineParser& p,
                                       const engine::Vocabulary& vocab) {
  const std::string text = p.value("text").toStdString();
  const bool bos = !p.isSet("no-bos");
  if (!p.isSet("sentencepiece")) return engine::Tokenizer(vocab).encode(text, bos);
  const std::string tok = p.value("tokenizer").toStdString();
  auto library = tok.ends_with(".model") ? SentencePieceTokenizer::fromFile(tok)
                                         : SentencePieceTokenizer::fromVocabulary(vocab);
  if (!library) {
    printErr("tokenscope-cli tokenize: " + QString::fromStdString(library.error()));
    return std::nullopt;
  }
  return library.value()->encode(text, bos);
}

void printTokens(const std::vector<int>& ids, const engine::Vocabulary& vocab, bool json) {
  QJsonArray id_array, pieces;
  for (int id : ids) {
    id_array.append(id);
    pieces.append(QString::fromStdString(vocab.pieces[id]));
  }
  if (json) {
    std::printf("%s\n", QJsonDocument(QJsonObject{{"ids", id_array}, {"pieces", pieces}})
                            .toJson(QJsonDocument::Compact)
                            .constData());
  } else {
    for (int i = 0; i < id_array.size(); ++i)
      printOut(QString("%1\t%2").arg(id_array[i].toInt()).arg(pieces[i].toString()));
  }
}

}  // namespace

int runTokenizeCommand(const QStringList& args) {
  QCommandLineParser p;
  p.setApplicationDescription("Shows how a model's vocabulary splits a text into tokens.");
  addModelOptions(p, false);
  p.addOptions({{"text", "The text.", "TEXT"},
                {"no-bos", "Do not start with the BOS token."},
                {"sentencepiece",
                 "Tokenize with the sentencepiece library (the model's tokenizer.model, or "
                 "one rebuilt from its vocabulary) instead of the engine's tokenizer."},
                {"json", "Print {\"ids\": [...], \"pieces\": [...]}."}});
  if (auto done = parseCommandLine(p, args, "tokenize")) return *done;
  if (!p.isSet("model") || !p.isSet("text")) {
    printErr("tokenscope-cli tokenize: expected --model PATH and --text TEXT");
    return 2;
  }
  // Only the vocabulary is read: no weights (a vocabulary-only GGUF works too).
  auto vocab =
      engine::loadVocabulary(p.value("model").toStdString(), p.value("tokenizer").toStdString());
  if (!vocab) {
    printErr("tokenscope-cli tokenize: " + QString::fromStdString(vocab.error()));
    return 1;
  }
  if (vocab->pieces.empty()) {
    printErr("tokenscope-cli tokenize: this model carries no vocabulary: give --tokenizer PATH");
    return 2;
  }
  const auto ids = encode(p, vocab.value());
  if (!ids) return 1;
  printTokens(*ids, vocab.value(), p.isSet("json"));
  return 0;
}

}  // namespace ts
