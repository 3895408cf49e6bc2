#include "app/cli/generate_command.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <cstdio>

#include "app/cli/common.h"
#include "app/cli/model_options.h"
#include "app/cli/options.h"
#include "app/cli/runtime_options.h"
#include "inference/engine/decode/generator.h"
#include "inference/engine/decode/open_session.h"
#include "inference/engine/decode/sampler.h"
#include "inference/engine/decode/speculative.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/tokenizer/chat_template.h"
#include "inference/engine/tokenizer/tokenizer.h"

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

// What generate will do, checked before the model loads: the runtime options (weights,
// backend, device, KV, threads) and the sampling, length and speculative settings.
struct GeneratePlan {
  RuntimePlan runtime;
  engine::GenerateOptions options;
};
std::optional<GeneratePlan> generatePlan(const QCommandLineParser& p, OptionError& err) {
  const auto runtime = runtimePlan(p, kWeightOptions | kEngineOptions, err);
  if (!runtime) return std::nullopt;
  const auto max_tokens = parseIntOption("max-tokens", p.value("max-tokens"), 1, 1 << 20, err);
  const auto temperature = parseDoubleOption("temperature", p.value("temperature"), 0, 10, err);
  const auto top_k = parseIntOption("top-k", p.value("top-k"), 0, 1 << 22, err);
  const auto top_p = parseDoubleOption("top-p", p.value("top-p"), 0.000001, 1, err);
  const auto penalty =
      parseDoubleOption("repetition-penalty", p.value("repetition-penalty"), 0.01, 100, err);
  const auto seed = parseDoubleOption("seed", p.value("seed"), 0, 9.0e15, err);
  const bool adaptive_k = p.value("draft-k") == "auto";
  const auto draft_k = adaptive_k ? std::optional<int>(4)
                                  : parseIntOption("draft-k", p.value("draft-k"), 1, 64, err);
  if (!err.message.isEmpty()) return std::nullopt;
  GeneratePlan plan{*runtime, {}};
  engine::GenerateOptions& o = plan.options;
  o.max_tokens = *max_tokens;
  o.sampling = {static_cast<float>(*temperature), *top_k, static_cast<float>(*top_p),
                static_cast<float>(*penalty), static_cast<uint64_t>(*seed)};
  o.chat = p.isSet("chat");
  o.speculative.k = *draft_k;
  o.speculative.adaptive = adaptive_k;
  return plan;
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

void addGenerateOptions(QCommandLineParser& p) {
  p.setApplicationDescription("Generates tokens with the local engine and measures it.");
  addModelOptions(p, true);
  addRuntimeOptions(p, kEngineOptions);
  p.addOptions({{"prompt", "Prompt text.", "TEXT"},
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

// The generated tokens and when they came (ns after the first step began).
struct Streamed {
  std::vector<int> ids;
  qint64 first_ns = 0, last_ns = 0;
};

// Generates from `prompt`, printing the text as it comes unless `json`; the outcome or why
// the engine failed (its device, its memory).
engine::Result<engine::GenerationOutcome> streamTokens(engine::DecodeSession& session,
                                                       const engine::Tokenizer& tokenizer,
                                                       const std::vector<int>& prompt,
                                                       const engine::GenerateOptions& options,
                                                       bool json, Streamed& out) {
  QElapsedTimer clock;
  clock.start();
  return engine::generate(session, tokenizer, prompt, options,
                          [&](const engine::GeneratedToken& t) {
                            if (t.id >= 0) {  // a token (not the bytes held to the end)
                              out.last_ns = clock.nsecsElapsed();
                              if (out.first_ns == 0) out.first_ns = out.last_ns;
                              out.ids.push_back(t.id);
                            }
                            if (!json) {
                              std::fwrite(t.text.data(), 1, t.text.size(), stdout);
                              std::fflush(stdout);
                            }
                            return true;
                          });
}

void printSummary(const QJsonObject& out, size_t prompt_tokens, double prefill_ms) {
  std::printf("\n");
  printErr(QString("%1 prompt tokens in %2 ms · TTFT %3 ms · %4 tokens · %5 tok/s decode")
               .arg(prompt_tokens)
               .arg(prefill_ms, 0, 'f', 1)
               .arg(out.value("ttft_ms").toDouble(), 0, 'f', 1)
               .arg(out.value("output_tokens").toInt())
               .arg(out.value("tokens_per_s").toDouble(), 0, 'f', 1));
}

// The session the plan asks for, with room for `capacity` positions; null after saying why.
std::optional<engine::OpenedSession> openFor(const std::shared_ptr<engine::Model>& model,
                                             int capacity, const RuntimePlan& plan) {
  auto opened = engine::openSession(model, capacity, plan.kv, plan.backend);
  if (!opened) {
    printErr("tokenscope-cli generate: " + QString::fromStdString(opened.error()));
    return std::nullopt;
  }
  if (!opened.value().note.empty())  // CUDA was asked for and the CPU runs: say why
    printErr("tokenscope-cli generate: " + QString::fromStdString(opened.value().note));
  return std::move(opened.value());
}

// --draft's source for the target `model` (its own vocabulary, to compare); null without
// --draft; nullopt after saying why it cannot draft.
std::optional<std::unique_ptr<engine::DraftSource>> draftFor(
    const QCommandLineParser& p, const std::shared_ptr<engine::Model>& model, int capacity,
    const RuntimePlan& plan) {
  if (!p.isSet("draft")) return std::unique_ptr<engine::DraftSource>();
  auto made = engine::makeDraftSource(p.value("draft").toStdString(), model, plan.load, capacity,
                                      plan.kv, plan.backend.threads);
  if (!made) {
    printErr("tokenscope-cli generate: " + QString::fromStdString(made.error()));
    return std::nullopt;
  }
  return std::move(made.value());
}

// Loads, tokenizes, opens the session (and the draft), generates and reports.
int runGenerate(const QCommandLineParser& p, GeneratePlan plan) {
  QElapsedTimer load_clock;
  load_clock.start();
  auto model = load(p, plan.runtime.load);
  const double load_ms = load_clock.nsecsElapsed() / 1e6;
  if (!model) {
    printErr("tokenscope-cli generate: " + QString::fromStdString(model.error()));
    return 1;
  }
  engine::Tokenizer tokenizer(model.value()->vocab);
  engine::GenerateOptions& options = plan.options;
  const auto prompt = promptOf(p, *model.value(), tokenizer, options.max_tokens);
  if (!prompt) return 2;
  const int capacity = static_cast<int>(prompt->size()) + options.max_tokens;
  auto opened = openFor(model.value(), capacity, plan.runtime);
  if (!opened) return 1;
  auto draft = draftFor(p, model.value(), capacity, plan.runtime);
  if (!draft) return 2;
  options.user_token = model.value()->generation.roles().user;
  options.draft = draft->get();
  const bool json = p.isSet("json");
  Streamed got;
  const auto generated = streamTokens(*opened->session, tokenizer, *prompt, options, json, got);
  if (!generated) {
    printErr("\ntokenscope-cli generate: the engine failed: " +
             QString::fromStdString(generated.error()) +
             (opened->backend == "cuda"
                  ? QString(" (after %1 tokens; the CUDA session was closed: --backend cpu runs "
                            "this on the CPU)")
                        .arg(got.ids.size())
                  : QString()));
    return 1;
  }
  const engine::GenerationOutcome& outcome = generated.value();
  QJsonObject out =
      generateJson(outcome, got.ids, prompt->size(), got.first_ns, got.last_ns, *opened,
                   *model.value(), plan.runtime.kv, plan.runtime.backend.threads, load_ms);
  if (outcome.speculative)
    addSpeculativeFields(out, *outcome.speculative, outcome.target_forwards, p.value("draft"),
                         p.value("draft-k"), static_cast<int>(got.ids.size()));
  if (json)
    std::printf("%s", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
  else
    printSummary(out, prompt->size(), outcome.prefill_ms);
  return 0;
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
  OptionError err;
  auto plan = generatePlan(p, err);
  if (!plan) {
    printErr("tokenscope-cli generate: " + err.message);
    return 2;
  }
  return runGenerate(p, std::move(*plan));
}

}  // namespace ts
