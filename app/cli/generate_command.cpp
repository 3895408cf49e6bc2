#include "app/cli/generate_command.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <cstdio>

#include "app/cli/common.h"
#include "app/cli/model_options.h"
#include "app/cli/options.h"
#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/decode/generator.h"
#include "inference/engine/decode/open_session.h"
#include "inference/engine/decode/sampler.h"
#include "inference/engine/decode/speculative.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/tokenizer/chat_template.h"
#include "inference/engine/tokenizer/tokenizer.h"
#include "inference/sentencepiece/sentencepiece_tokenizer.h"

namespace ts {
namespace {

// The speculative fields of generate's JSON (issue interface): totals, the histogram of
// accepted lengths and one event per draft + verify step.
void addSpeculativeFields(QJsonObject& out, const engine::SpeculativeStats& s, int target_forwards,
                          const QString& draft, const QString& k, int generated) {
  QJsonArray histogram, steps;
  for (int n : s.histogram()) histogram.append(n);
  for (const engine::SpeculativeStep& step : s.steps)
    steps.append(QJsonObject{{"k", step.k},
                             {"drafted", step.drafted},
                             {"accepted", step.accepted},
                             {"draft_ms", step.draft_ms},
                             {"verify_ms", step.verify_ms}});
  out["draft"] = draft;
  out["draft_k"] = k;
  out["steps"] = static_cast<int>(s.steps.size());
  out["drafted_tokens"] = s.drafted();
  out["accepted_tokens"] = s.accepted();
  out["acceptance_rate"] = s.acceptanceRate();
  out["mean_accepted_length"] = s.meanAcceptedLength();
  out["accepted_length_histogram"] = histogram;
  out["draft_ms"] = s.draftMs();
  out["verify_ms"] = s.verifyMs();
  out["target_forwards"] = target_forwards;
  out["tokens_per_target_forward"] =
      s.steps.empty() ? 0.0 : static_cast<double>(generated) / s.steps.size();
  out["speculative_steps"] = steps;
}

QJsonObject describe(const engine::ModelConfig& c) {
  return {{"architecture", QString::fromStdString(c.architecture)},
          {"source_format", QString::fromStdString(c.source_format)},
          {"layers", c.n_layers},
          {"dim", c.dim},
          {"heads", c.n_heads},
          {"kv_heads", c.n_kv_heads},
          {"head_dim", c.head_dim},
          {"ffn_dim", c.ffn_dim},
          {"vocab", c.vocab},
          {"context", c.context},
          {"positional", c.positional == engine::Positional::Rope ? "rope" : "alibi"},
          {"norm_head", c.norm_head},
          {"description", QString::fromStdString(c.describe())}};
}

// The prompt's ids: --prompt-ids as given, or --prompt tokenized (in the model's chat
// format with --chat); nullopt after saying why.
std::optional<std::vector<int>> promptOf(const QCommandLineParser& p, const engine::Model& model,
                                         const engine::Tokenizer& tokenizer, int max_tokens) {
  std::vector<int> prompt;
  OptionError err;
  if (p.isSet("prompt-ids")) {
    for (const QString& part : p.value("prompt-ids").split(',', Qt::SkipEmptyParts)) {
      const auto id = parseIntOption("prompt-ids", part, 0, model.config.vocab - 1, err);
      if (!id) {
        printErr("tokenscope-cli generate: " + err.message);
        return std::nullopt;
      }
      prompt.push_back(*id);
    }
  } else {
    if (model.vocab.pieces.empty()) {
      printErr(
          "tokenscope-cli generate: --prompt needs a vocabulary, and this model has none: "
          "give --tokenizer PATH or use --prompt-ids");
      return std::nullopt;
    }
    const std::string text = p.value("prompt").toStdString();
    prompt = p.isSet("chat") ? engine::baichuanChatPrompt(tokenizer, {{"user", text}},
                                                          model.config.context - max_tokens,
                                                          model.generation.roles())
                             : engine::completionPrompt(tokenizer, text);
  }
  if (prompt.empty()) {
    printErr("tokenscope-cli generate: the prompt is empty");
    return std::nullopt;
  }
  return prompt;
}

// The sampling, length and speculative settings of the command line, checked.
struct GenerateSettings {
  engine::GenerateOptions options;
  int device = 0;
};
std::optional<GenerateSettings> generateSettings(const QCommandLineParser& p) {
  OptionError err;
  const auto max_tokens = parseIntOption("max-tokens", p.value("max-tokens"), 1, 1 << 20, err);
  const auto temperature = parseDoubleOption("temperature", p.value("temperature"), 0, 10, err);
  const auto top_k = parseIntOption("top-k", p.value("top-k"), 0, 1 << 22, err);
  const auto top_p = parseDoubleOption("top-p", p.value("top-p"), 0.000001, 1, err);
  const auto penalty =
      parseDoubleOption("repetition-penalty", p.value("repetition-penalty"), 0.01, 100, err);
  const auto seed = parseDoubleOption("seed", p.value("seed"), 0, 9.0e15, err);
  const auto device = parseIntOption("device", p.value("device"), 0, 63, err);
  const bool adaptive_k = p.value("draft-k") == "auto";
  const auto draft_k = adaptive_k ? std::optional<int>(4)
                                  : parseIntOption("draft-k", p.value("draft-k"), 1, 64, err);
  if (!err.message.isEmpty()) {
    printErr("tokenscope-cli generate: " + err.message);
    return std::nullopt;
  }
  GenerateSettings s;
  s.options.max_tokens = *max_tokens;
  s.options.sampling = {static_cast<float>(*temperature), *top_k, static_cast<float>(*top_p),
                        static_cast<float>(*penalty), static_cast<uint64_t>(*seed)};
  s.options.chat = p.isSet("chat");
  s.options.speculative.k = *draft_k;
  s.options.speculative.adaptive = adaptive_k;
  s.device = *device;
  return s;
}

// What a run measured, as generate's JSON (issue interface).
QJsonObject generateJson(const engine::GenerationOutcome& outcome,
                         const std::vector<int>& generated, size_t prompt_tokens, qint64 first_ns,
                         qint64 last_ns, const engine::OpenedSession& opened,
                         const engine::Model& model, engine::KvFormat kv, int threads,
                         double load_ms) {
  const qint64 prefill_ns = static_cast<qint64>(outcome.prefill_ms * 1e6);
  const int n = static_cast<int>(generated.size());
  const double ttft_ms = first_ns / 1e6, e2e_ms = last_ns / 1e6;
  QJsonArray ids;
  for (int id : generated) ids.append(id);
  QJsonObject out{
      {"token_ids", ids},
      {"text", QString::fromStdString(outcome.text)},
      {"prompt_tokens", static_cast<int>(prompt_tokens)},
      {"prefill_ms", prefill_ns / 1e6},
      {"prefill_tok_s", prompt_tokens / (prefill_ns / 1e9)},
      {"ttft_ms", ttft_ms},
      {"tpot_ms", n > 1 ? QJsonValue((e2e_ms - ttft_ms) / (n - 1)) : QJsonValue()},
      {"tokens_per_s",
       n > 1 && e2e_ms > ttft_ms ? QJsonValue((n - 1) / ((e2e_ms - ttft_ms) / 1e3)) : QJsonValue()},
      {"output_tokens", n},
      {"finish_reason", QString::fromStdString(outcome.finish)},
      {"backend", QString::fromStdString(opened.backend)},
      {"device", QString::fromStdString(opened.device)},
      {"weight_format", QString::fromStdString(engine::weightFormatName(model.weight_format))},
      {"weights", QString::fromStdString(model.weightSummary())},
      {"weight_bytes", static_cast<qint64>(model.weight_bytes())},
      {"kv_format", QString::fromStdString(engine::kvFormatName(kv))},
      {"threads", threads},
      {"load_ms", load_ms},
      {"quant_cache", QString::fromStdString(model.cache_note)},
      {"model", describe(model.config)}};
  if (!opened.note.empty()) out["backend_note"] = QString::fromStdString(opened.note);
  if (!model.load_note.empty()) out["load_note"] = QString::fromStdString(model.load_note);
  return out;
}

// Negative log-likelihood of every token given the ones before it, over consecutive
// windows of `context` positions that each start with BOS.
struct Scores {
  double nll = 0;
  int64_t scored = 0, windows = 0;
};
Scores scoreWindows(const std::shared_ptr<engine::Model>& model, const engine::Tokenizer& tokenizer,
                    const std::vector<int>& tokens, int context) {
  const int vocab = model->config.vocab;
  Scores s;
  const size_t step = static_cast<size_t>(context) - 1;  // + BOS at the start of each window
  constexpr size_t kChunk = 64;  // positions per batched pass (bounds the logits buffer)
  for (size_t start = 0; start < tokens.size(); start += step, ++s.windows) {
    engine::CpuSession session(model, context, engine::KvFormat::F32,
                               engine::ThreadPool::defaultThreads());
    // Inputs BOS, t[start], ..., t[end - 2] predict t[start], ..., t[end - 1].
    const size_t end = std::min(tokens.size(), start + step);
    std::vector<int> inputs = {tokenizer.bos()};
    inputs.insert(inputs.end(), tokens.begin() + start, tokens.begin() + end - 1);
    for (size_t first = 0; first < inputs.size(); first += kChunk) {
      const size_t count = std::min(kChunk, inputs.size() - first);
      const auto all = session.forwardBatch(std::span(inputs).subspan(first, count),
                                            static_cast<int>(first), true);
      for (size_t j = 0; j < count; ++j) {
        const auto logits = all.subspan(j * vocab, vocab);
        const float max = *std::max_element(logits.begin(), logits.end());
        double sum = 0;
        for (float l : logits) sum += std::exp(static_cast<double>(l - max));
        s.nll -= (logits[tokens[start + first + j]] - max) - std::log(sum);  // -log softmax
        ++s.scored;
      }
    }
  }
  return s;
}

void addGenerateOptions(QCommandLineParser& p) {
  p.setApplicationDescription("Generates tokens with the local engine and measures it.");
  addModelOptions(p, true);
  p.addOptions({{"backend",
                 "cpu (the reference), cuda, or auto (CUDA when a device is usable, else the CPU "
                 "backend, saying why).",
                 "NAME", "cpu"},
                {"device", "CUDA device index (default 0).", "N", "0"},
                {"kv", "KV cache format: f16 (default), f32 or int8.", "FORMAT", "f16"},
                {"threads", "CPU threads (default: one per core).", "N"},
                {"prompt", "Prompt text.", "TEXT"},
                {"prompt-ids", "Prompt as token ids, e.g. 1,303,281.", "IDS"},
                {"chat",
                 "Wrap the prompt in the Baichuan chat format (the role tokens of the model's "
                 "generation_config.json, else 195 / 196)."},
                {"max-tokens", "Most tokens to generate.", "N", "128"},
                {"temperature", "0 = greedy (default 0).", "T", "0"},
                {"top-k", "Keep the K most likely tokens (0 = all).", "K", "0"},
                {"top-p", "Nucleus mass (default 1).", "P", "1"},
                {"repetition-penalty", "Penalty for tokens already seen (default 1).", "R", "1"},
                {"seed", "Sampling seed (default 0).", "S", "0"},
                {"draft",
                 "Speculative sampling: a draft model PATH (same vocabulary), self-int4, "
                 "self-layers:N or lookup[:N].",
                 "SOURCE"},
                {"draft-k", "Tokens drafted per step, or auto (default 4).", "K|auto", "4"},
                {"json", "Print one JSON object."}});
}

}  // namespace

int runGenerateCommand(const QStringList& args) {
  QCommandLineParser p;
  addGenerateOptions(p);
  if (auto done = parseCommandLine(p, args, "generate")) return *done;
  if (!p.isSet("model") || (p.isSet("prompt") == p.isSet("prompt-ids"))) {
    printErr(
        "tokenscope-cli generate: expected --model PATH and exactly one of --prompt TEXT or "
        "--prompt-ids 1,2,3");
    return 2;
  }
  if (auto backend = engine::parseBackend(p.value("backend").toStdString()); !backend) {
    printErr("tokenscope-cli generate: --backend: " + QString::fromStdString(backend.error()));
    return 2;
  }
  auto settings = generateSettings(p);
  if (!settings) return 2;
  engine::GenerateOptions& options = settings->options;
  QElapsedTimer load_clock;
  load_clock.start();
  auto model = load(p, true);
  const double load_ms = load_clock.nsecsElapsed() / 1e6;
  if (!model) {
    printErr("tokenscope-cli generate: " + QString::fromStdString(model.error()));
    return 1;
  }
  engine::Tokenizer tokenizer(model.value()->vocab);
  const auto prompt = promptOf(p, *model.value(), tokenizer, options.max_tokens);
  if (!prompt) return 2;
  const int capacity = static_cast<int>(prompt->size()) + options.max_tokens;
  const auto kv = engine::parseKvFormat(p.value("kv").toStdString());
  if (!kv) {
    printErr("tokenscope-cli generate: --kv: " + QString::fromStdString(kv.error()));
    return 2;
  }
  OptionError err;
  const auto threads = p.isSet("threads")
                           ? parseIntOption("threads", p.value("threads"), 1, 1024, err)
                           : std::optional<int>(engine::ThreadPool::defaultThreads());
  if (!threads) {
    printErr("tokenscope-cli generate: " + err.message);
    return 2;
  }
  engine::BackendRequest request;
  request.name = p.value("backend").toStdString();
  request.threads = *threads;
  request.cuda.device = settings->device;
  auto opened = engine::openSession(model.value(), capacity, kv.value(), request);
  if (!opened) {
    printErr("tokenscope-cli generate: " + QString::fromStdString(opened.error()));
    return 1;
  }
  if (!opened.value().note.empty())  // CUDA was asked for and the CPU runs: say why
    printErr("tokenscope-cli generate: " + QString::fromStdString(opened.value().note));
  std::unique_ptr<engine::DraftSource> draft;
  if (p.isSet("draft")) {
    auto load_options = loadOptions(p, true);
    load_options.value().tokenizer_path.clear();  // the draft's own vocabulary, to compare
    auto made = engine::makeDraftSource(p.value("draft").toStdString(), model.value(),
                                        load_options.value(), capacity, kv.value(), *threads);
    if (!made) {
      printErr("tokenscope-cli generate: " + QString::fromStdString(made.error()));
      return 2;
    }
    draft = std::move(made.value());
  }
  options.user_token = model.value()->generation.roles().user;
  options.draft = draft.get();
  const bool json = p.isSet("json");
  QElapsedTimer clock;
  clock.start();
  std::vector<int> generated;
  qint64 first_ns = 0, last_ns = 0;
  const engine::GenerationOutcome outcome = engine::generate(
      *opened.value().session, tokenizer, *prompt, options, [&](const engine::GeneratedToken& t) {
        if (t.id >= 0) {  // a token (not the bytes held to the end)
          last_ns = clock.nsecsElapsed();
          if (first_ns == 0) first_ns = last_ns;
          generated.push_back(t.id);
        }
        if (!json) {
          std::fwrite(t.text.data(), 1, t.text.size(), stdout);
          std::fflush(stdout);
        }
        return true;
      });
  QJsonObject out = generateJson(outcome, generated, prompt->size(), first_ns, last_ns,
                                 opened.value(), *model.value(), kv.value(), *threads, load_ms);
  if (outcome.speculative)
    addSpeculativeFields(out, *outcome.speculative, outcome.target_forwards, p.value("draft"),
                         p.value("draft-k"), static_cast<int>(generated.size()));
  if (json) {
    std::printf("%s", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
  } else {
    std::printf("\n");
    printErr(QString("%1 prompt tokens in %2 ms · TTFT %3 ms · %4 tokens · %5 tok/s decode")
                 .arg(prompt->size())
                 .arg(outcome.prefill_ms, 0, 'f', 1)
                 .arg(out.value("ttft_ms").toDouble(), 0, 'f', 1)
                 .arg(generated.size())
                 .arg(out.value("tokens_per_s").toDouble(), 0, 'f', 1));
  }
  return 0;
}

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
  const std::string text = p.value("text").toStdString();
  std::vector<int> ids;
  if (p.isSet("sentencepiece")) {
    const std::string tok = p.value("tokenizer").toStdString();
    auto library = tok.ends_with(".model") ? SentencePieceTokenizer::fromFile(tok)
                                           : SentencePieceTokenizer::fromVocabulary(vocab.value());
    if (!library) {
      printErr("tokenscope-cli tokenize: " + QString::fromStdString(library.error()));
      return 1;
    }
    ids = library.value()->encode(text, !p.isSet("no-bos"));
  } else {
    ids = engine::Tokenizer(vocab.value()).encode(text, !p.isSet("no-bos"));
  }
  QJsonArray id_array, pieces;
  for (int id : ids) {
    id_array.append(id);
    pieces.append(QString::fromStdString(vocab->pieces[id]));
  }
  if (p.isSet("json")) {
    std::printf("%s\n", QJsonDocument(QJsonObject{{"ids", id_array}, {"pieces", pieces}})
                            .toJson(QJsonDocument::Compact)
                            .constData());
  } else {
    for (int i = 0; i < id_array.size(); ++i)
      printOut(QString("%1\t%2").arg(id_array[i].toInt()).arg(pieces[i].toString()));
  }
  return 0;
}

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
  const std::string text = file.readAll().toStdString();
  auto model = load(p, true);
  if (!model) {
    printErr("tokenscope-cli ppl: " + QString::fromStdString(model.error()));
    return 1;
  }
  if (model.value()->vocab.pieces.empty()) {
    printErr("tokenscope-cli ppl: this model carries no vocabulary: give --tokenizer PATH");
    return 2;
  }
  const engine::ModelConfig& config = model.value()->config;
  OptionError err;
  const auto context = p.isSet("context")
                           ? parseIntOption("context", p.value("context"), 2, 1 << 20, err)
                           : std::optional<int>(config.context);
  if (!context) {
    printErr("tokenscope-cli ppl: " + err.message);
    return 2;
  }
  engine::Tokenizer tokenizer(model.value()->vocab);
  const std::vector<int> tokens = tokenizer.encode(text, false);
  if (tokens.size() < 2) {
    printErr("tokenscope-cli ppl: the text is too short: expected at least 2 tokens");
    return 2;
  }
  QElapsedTimer clock;
  clock.start();
  const Scores scores = scoreWindows(model.value(), tokenizer, tokens, *context);
  const double nll = scores.nll;
  const int64_t scored = scores.scored, windows = scores.windows;
  const double ppl = std::exp(nll / scored);
  const QJsonObject out{
      {"perplexity", ppl},
      {"mean_nll", nll / scored},
      {"tokens", static_cast<qint64>(scored)},
      {"windows", static_cast<qint64>(windows)},
      {"context", *context},
      {"weight_format",
       QString::fromStdString(engine::weightFormatName(model.value()->weight_format))},
      {"weights", QString::fromStdString(model.value()->weightSummary())},
      {"seconds", clock.nsecsElapsed() / 1e9}};
  if (p.isSet("json"))
    std::printf("%s", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
  else
    printOut(QString("perplexity %1 over %2 tokens (%3 windows of up to %4)")
                 .arg(ppl, 0, 'f', 4)
                 .arg(scored)
                 .arg(windows)
                 .arg(*context));
  return 0;
}

}  // namespace ts
