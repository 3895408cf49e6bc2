#include "app/local/local_engine_worker.h"

#include <algorithm>

#include "app/server/local_server.h"
#include "inference/engine/decode/generator.h"
#include "inference/engine/decode/speculative.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/tokenizer/chat_template.h"

namespace ts {

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
  engine::Scheduler& scheduler = *engine_->scheduler;
  const engine::Tokenizer& tokenizer = scheduler.tokenizer();
  std::vector<engine::ChatMessage> messages;
  for (const auto& m : request.messages) messages.push_back({m.role, m.content});
  const int context = scheduler.context();
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
  engine::GenerateOptions options;
  options.max_tokens =
      std::min(request.params.max_tokens, context - static_cast<int>(prompt.size()));
  options.sampling.temperature = static_cast<float>(request.params.temperature);
  options.sampling.top_p = static_cast<float>(request.params.top_p);
  options.sampling.top_k = request.params.top_k;
  options.sampling.repetition_penalty = static_cast<float>(request.params.repetition_penalty);
  options.sampling.seed = request.params.seed ? static_cast<uint64_t>(*request.params.seed) : 0;
  options.chat = chat;
  options.user_token = roles.user;
  if (!request.params.draft.empty()) {  // speculative sampling with the chosen draft
    if (!draft_ || draft_spec_ != request.params.draft) {
      draft_.reset();
      auto made =
          engine::makeDraftSource(request.params.draft, engine_->model, engine::LoadOptions{},
                                  context, engine_->kv, engine_->threads);
      if (!made)
        return fail(
            FailureKind::BadRequest,
            tr("Speculative sampling cannot start: ") + QString::fromStdString(made.error()), "");
      draft_ = std::move(made.value());
      draft_spec_ = request.params.draft;
    }
    options.draft = draft_.get();
    options.speculative.k = std::clamp(request.params.draft_k, 1, 8);
    options.speculative.adaptive = request.params.draft_auto;
  }
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
    if (options.draft) {  // the session alone: its own KV cache, one sequence
      scheduler.exclusive([&](engine::DecodeSession& session) {
        out = engine::generate(session, tokenizer, prompt, options, on_token);
      });
    } else {  // batched with whatever else runs on the model (Serve), prefix cache shared
      engine::ScheduledRequest r;
      r.prompt = prompt;
      r.max_tokens = options.max_tokens;
      r.sampling = options.sampling;
      r.chat = chat;
      r.user_token = roles.user;
      r.cancel = cancel_flag_;  // also before the first token (a long prompt's prefill)
      out = scheduler.generate(r, on_token);
    }
  } catch (const std::exception& e) {
    return fail(FailureKind::Server, tr("The engine failed: ") + e.what(),
                result.run.contentText());
  }
  StreamEvent usage = StreamEvent::usage(monotonicNowNs(), static_cast<int64_t>(prompt.size()),
                                         static_cast<int64_t>(out.ids.size()));
  usage.prefill_ns = static_cast<int64_t>(out.prefill_ms * 1e6);
  usage.cached_tokens = out.cached_tokens;
  if (out.speculative) {
    usage.drafted_tokens = out.speculative->drafted();
    usage.accepted_tokens = out.speculative->accepted();
    for (int n : out.speculative->histogram()) usage.accepted_histogram.push_back(n);
  }
  emitEvent(result, usage);
  result.cancelled = out.finish == "cancelled";
  emitEvent(result, StreamEvent::finished(monotonicNowNs(), out.finish));
  emit runFinished(result);
}

}  // namespace ts
