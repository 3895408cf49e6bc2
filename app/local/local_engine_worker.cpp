#include "app/local/local_engine_worker.h"

#include <QRandomGenerator>
#include <algorithm>

#include "inference/engine/decode/generator.h"
#include "inference/engine/decode/speculative.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/tokenizer/chat_template.h"

namespace ts {
namespace {

// The request's sampling settings, `max_tokens` at most.
engine::GenerateOptions generateOptions(const SamplingParams& params, int max_tokens) {
  engine::GenerateOptions options;
  options.max_tokens = std::min(params.max_tokens, max_tokens);
  options.sampling.temperature = static_cast<float>(params.temperature);
  options.sampling.top_p = static_cast<float>(params.top_p);
  options.sampling.top_k = params.top_k;
  options.sampling.repetition_penalty = static_cast<float>(params.repetition_penalty);
  // no seed: a new one each run (Run again samples anew; a set seed repeats the answer)
  options.sampling.seed =
      params.seed ? static_cast<uint64_t>(*params.seed) : QRandomGenerator::global()->generate64();
  return options;
}

// What a finished generation reports: the token counts, prefill time, cache reuse and
// speculative acceptance.
StreamEvent usageEvent(const engine::GenerationOutcome& out, size_t prompt_tokens) {
  StreamEvent usage = StreamEvent::usage(monotonicNowNs(), static_cast<int64_t>(prompt_tokens),
                                         static_cast<int64_t>(out.ids.size()));
  usage.prefill_ns = static_cast<int64_t>(out.prefill_ms * 1e6);
  usage.cached_tokens = out.cached_tokens;
  if (out.speculative) {
    usage.drafted_tokens = out.speculative->drafted();
    usage.accepted_tokens = out.speculative->accepted();
    for (int n : out.speculative->histogram()) usage.accepted_histogram.push_back(n);
  }
  return usage;
}

}  // namespace

std::unique_ptr<engine::DraftSource> LocalEngineWorker::makeDraft(const std::string& spec,
                                                                  int context, QString& error) {
  const bool lookup = spec.rfind("lookup", 0) == 0;  // nothing to prepare
  const QString name = QString::fromStdString(spec);
  const QString what = spec.rfind("self", 0) == 0
                           ? tr("Converting the speculative draft (%1)…").arg(name)
                           : tr("Loading the speculative draft (%1)…").arg(name);
  engine::LoadOptions load;
  int last_percent = -2;
  load.progress = [&](double fraction) {  // from the converting threads, one at a time
    const int percent = static_cast<int>(fraction * 100);
    if (percent != last_percent) emit localPreparing(what, last_percent = percent);
    return !cancel_flag_->load();
  };
  if (!lookup) emit localPreparing(what, last_percent = 0);
  auto made =
      engine::makeDraftSource(spec, engine_->model, load, context, engine_->kv, engine_->threads);
  if (!lookup) emit localPreparing(QString(), 100);
  if (made) return std::move(made.value());
  error = made.error() == engine::kDraftCancelled
              ? QString(engine::kDraftCancelled)
              : tr("Speculative sampling cannot start: ") + QString::fromStdString(made.error());
  return nullptr;
}

QString LocalEngineWorker::useDraft(const SamplingParams& params, int context,
                                    engine::GenerateOptions& options) {
  if (params.draft.empty()) return {};
  if (!draft_ || draft_spec_ != params.draft) {
    draft_.reset();
    draft_spec_.clear();
    QString error;
    draft_ = makeDraft(params.draft, context, error);
    if (!draft_) return error;
    draft_spec_ = params.draft;
  }
  options.draft = draft_.get();
  options.speculative.k = std::clamp(params.draft_k, 1, 8);
  options.speculative.adaptive = params.draft_auto;
  return {};
}

engine::Result<engine::GenerationOutcome> LocalEngineWorker::generate(
    const std::vector<int>& prompt, const engine::GenerateOptions& options,
    const std::function<bool(const engine::GeneratedToken&)>& on_token) {
  engine::Scheduler& scheduler = *engine_->scheduler;
  if (options.draft) {  // the session alone: its own KV cache, one sequence
    // Stop while it waits for the session (others' requests running) ends it there. What
    // the previous speculative turn left in the cache is kept: this one prefills the rest.
    engine::Result<engine::GenerationOutcome> out = engine::GenerationOutcome{};
    const auto ran = scheduler.exclusiveKeeping(
        [&](engine::DecodeSession& session, std::vector<int>& held) {
          engine::GenerateOptions keeping = options;
          keeping.held = &held;
          out = engine::generate(session, scheduler.tokenizer(), prompt, keeping, on_token);
        },
        cancel_flag_);
    if (!ran) return engine::fail(ran.error());          // the model was unloaded meanwhile
    if (!ran.value()) out.value().finish = "cancelled";  // Stop while it waited
    return out;
  }
  // batched with whatever else runs on the model (Serve), prefix cache shared
  engine::ScheduledRequest r;
  r.prompt = prompt;
  r.max_tokens = options.max_tokens;
  r.sampling = options.sampling;
  r.chat = options.chat;
  r.user_token = options.user_token;
  r.cancel = cancel_flag_;  // also before the first token (a long prompt's prefill)
  return scheduler.generate(r, on_token);
}

QString LocalEngineWorker::ensureLoaded(const LocalEngineSpec& spec) {
  if (engine_ && spec == loaded_spec_) return {};
  draft_.reset();
  draft_spec_.clear();
  conversation_.clear();  // its ids are the old model's
  engine_.reset();
  int last_percent = -1;
  const auto progress = [&](double fraction) {  // Stop cancels a load as well
    const int percent = static_cast<int>(fraction * 100);
    if (percent != last_percent) emit loadProgress(last_percent = percent);
    return !cancel_flag_->load();
  };
  QString error;
  engine_ = sharedLocalEngine(spec, error, progress);
  if (!engine_) return error;
  loaded_spec_ = spec;
  return {};
}

void LocalEngineWorker::emitEvent(RemoteResult& result, StreamEvent event) {
  result.run.events.push_back(event);
  emit eventReady(event);
}

std::pair<FailureKind, QString> LocalEngineWorker::failureOf(const std::string& error,
                                                             bool reopened) {
  QString message = tr("The engine failed: ") + QString::fromStdString(error);
  if (!reopened) return {FailureKind::Server, message};
  if (!message.endsWith('.')) message += '.';
  message +=
      tr(" The CUDA session was closed: the next message opens a new one. To run "
         "on the CPU instead, choose Backend: CPU in the provider's settings.");
  return {FailureKind::Device, message};  // the chat offers the CPU with one click
}

void LocalEngineWorker::start(const LocalEngineSpec& spec, const GenerationRequest& request) {
  RemoteResult result;
  result.final_url = spec.model_path;
  StreamEvent started = StreamEvent::started(monotonicNowNs());
  result.run.start_ns = started.t_ns;
  emitEvent(result, started);
  const auto fail = [&](FailureKind kind, const QString& message, const std::string& partial) {
    emitEvent(result,
              StreamEvent::failed(monotonicNowNs(), kind, 0, message.toStdString(), partial));
    emit runFinished(result);
  };
  if (const QString error = ensureLoaded(spec); !error.isEmpty()) {
    if (error == engine::kLoadCancelled) {  // Stop while loading: a cancelled, empty run
      result.cancelled = true;
      emitEvent(result, StreamEvent::finished(monotonicNowNs(), "cancelled"));
      emit runFinished(result);
      return;
    }
    return fail(FailureKind::ModelNotFound, tr("The local model cannot run: ") + error, "");
  }
  if (engine_->backend_note != noted_) emit backendNote(noted_ = engine_->backend_note);
  const engine::Tokenizer& tokenizer = engine_->scheduler->tokenizer();
  const int context = engine_->scheduler->context();
  const bool chat =
      engine::isChatModel(engine_->model->config.architecture, engine_->model->config.vocab);
  const engine::ChatRoles roles = engine_->model->generation.roles();
  const std::vector<int> prompt =
      conversation_.prompt(tokenizer, request.messages, chat, context - 1, roles);
  if (prompt.empty() || static_cast<int>(prompt.size()) >= context)
    return fail(FailureKind::BadRequest,
                tr("The prompt has %1 tokens and the context holds %2: shorten the conversation "
                   "or start a new chat.")
                    .arg(prompt.size())
                    .arg(context),
                "");
  engine::GenerateOptions options =
      generateOptions(request.params, context - static_cast<int>(prompt.size()));
  options.chat = chat;
  options.user_token = roles.user;
  if (const QString error = useDraft(request.params, context, options); !error.isEmpty()) {
    if (error != engine::kDraftCancelled) return fail(FailureKind::BadRequest, error, "");
    result.cancelled = true;  // Stop while the draft was prepared
    emitEvent(result, StreamEvent::finished(monotonicNowNs(), "cancelled"));
    emit runFinished(result);
    return;
  }
  std::vector<int> answer;  // the ids whose text was shown, as generated
  std::string shown;
  const auto on_token = [&](const engine::GeneratedToken& t) {
    if (cancel_flag_->load()) return false;
    StreamEvent chunk = StreamEvent::chunk(monotonicNowNs(), t.text, t.id >= 0 ? 1 : 0);
    chunk.drafted = t.drafted;
    chunk.batch = t.batch;
    if (t.id >= 0) answer.push_back(t.id);
    shown += t.text;
    emitEvent(result, chunk);
    return true;
  };
  const uint64_t reopened_before = engine_->scheduler->metrics().sessions_reopened;
  const auto outcome = generate(prompt, options, on_token);
  if (!outcome) {
    const bool reopened = engine_->scheduler->metrics().sessions_reopened > reopened_before;
    const auto [kind, message] = failureOf(outcome.error(), reopened);
    return fail(kind, message, result.run.contentText());
  }
  const engine::GenerationOutcome& out = outcome.value();
  conversation_.answered(answer, shown);  // the next turn continues from these ids
  emitEvent(result, usageEvent(out, prompt.size()));
  result.cancelled = out.finish == "cancelled";
  emitEvent(result, StreamEvent::finished(monotonicNowNs(), out.finish));
  emit runFinished(result);
}

}  // namespace ts
