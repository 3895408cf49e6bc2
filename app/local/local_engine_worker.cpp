#include "app/local/local_engine_worker.h"

#include <algorithm>

#include "app/server/local_server.h"
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
  options.sampling.seed = params.seed ? static_cast<uint64_t>(*params.seed) : 0;
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

QString LocalEngineWorker::useDraft(const SamplingParams& params, int context,
                                    engine::GenerateOptions& options) {
  if (params.draft.empty()) return {};
  if (!draft_ || draft_spec_ != params.draft) {
    draft_.reset();
    auto made = engine::makeDraftSource(params.draft, engine_->model, engine::LoadOptions{},
                                        context, engine_->kv, engine_->threads);
    if (!made)
      return tr("Speculative sampling cannot start: ") + QString::fromStdString(made.error());
    draft_ = std::move(made.value());
    draft_spec_ = params.draft;
  }
  options.draft = draft_.get();
  options.speculative.k = std::clamp(params.draft_k, 1, 8);
  options.speculative.adaptive = params.draft_auto;
  return {};
}

engine::GenerationOutcome LocalEngineWorker::generate(
    const std::vector<int>& prompt, const engine::GenerateOptions& options,
    const std::function<bool(const engine::GeneratedToken&)>& on_token) {
  engine::Scheduler& scheduler = *engine_->scheduler;
  engine::GenerationOutcome out;
  if (options.draft) {  // the session alone: its own KV cache, one sequence
    // Stop while it waits for the session (others' requests running) ends it there
    const bool ran = scheduler.exclusive(
        [&](engine::DecodeSession& session) {
          out = engine::generate(session, scheduler.tokenizer(), prompt, options, on_token);
        },
        cancel_flag_);
    if (!ran) out.finish = "cancelled";
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
  std::vector<engine::ChatMessage> messages;
  for (const auto& m : request.messages) messages.push_back({m.role, m.content});
  const int context = engine_->scheduler->context();
  const bool chat = server::isChatModel(*engine_->model);
  const engine::ChatRoles roles = engine_->model->generation.roles();
  const std::vector<int> prompt =
      engine::conversationPrompt(tokenizer, messages, chat, context - 1, roles);
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
  if (const QString error = useDraft(request.params, context, options); !error.isEmpty())
    return fail(FailureKind::BadRequest, error, "");
  const auto on_token = [&](const engine::GeneratedToken& t) {
    if (cancel_flag_->load()) return false;
    StreamEvent chunk = StreamEvent::chunk(monotonicNowNs(), t.text, t.id >= 0 ? 1 : 0);
    chunk.drafted = t.drafted;
    chunk.batch = t.batch;
    emitEvent(result, chunk);
    return true;
  };
  engine::GenerationOutcome out;
  try {
    out = generate(prompt, options, on_token);
  } catch (const std::exception& e) {
    return fail(FailureKind::Server, tr("The engine failed: ") + e.what(),
                result.run.contentText());
  }
  emitEvent(result, usageEvent(out, prompt.size()));
  result.cancelled = out.finish == "cancelled";
  emitEvent(result, StreamEvent::finished(monotonicNowNs(), out.finish));
  emit runFinished(result);
}

}  // namespace ts
