// The local engine on the generation thread, speaking the remote client's language: each
// request becomes the same StreamEvents (Started, a TokenChunk per token with n_tokens 1,
// Usage with the prompt and completion tokens, Finished or Failed) and the same
// RemoteResult, so the chat view, charts, metrics and run log treat both alike. The
// provider's shared engine (local_engines.h) is loaded on first use (reporting
// loadProgress; Stop cancels the load) and kept while the provider's settings stay the
// same; requests run on its scheduler, whose prefix cache keeps a conversation's KV rows
// between turns: a request prefills only the tokens after what it shares with an earlier
// one (an edited earlier message or system prompt cuts the reuse back to where they part).
// The prompt is built from the exact ids of the conversation's earlier turns
// (conversation_ids.h), so the cache is reused whatever the model emitted. Speculative
// sampling runs on the engine's session alone (Scheduler::exclusiveKeeping), which keeps
// the previous speculative turn's KV rows for the next. Stop takes effect within one step
// (one token).
#pragma once
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <utility>

#include "app/local/conversation_ids.h"
#include "app/local/local_engine_loader.h"
#include "app/local/local_engines.h"
#include "inference/engine/backend/decode_session.h"
#include "inference/engine/decode/speculative.h"
#include "inference/engine/model/kv_cache.h"
#include "inference/engine/model/model.h"
#include "inference/engine/tokenizer/tokenizer.h"
#include "inference/remote/openai_client.h"
#include "inference/stream/provider_settings.h"

namespace ts {

class LocalEngineWorker : public QObject {
  Q_OBJECT
 public:
  explicit LocalEngineWorker(std::atomic<bool>* cancel_flag) : cancel_flag_(cancel_flag) {}
  void start(const LocalEngineSpec& spec, const GenerationRequest& request);

 signals:
  void eventReady(const ts::StreamEvent& event);
  void runFinished(const ts::RemoteResult& result);
  void loadProgress(int percent);  // while the model loads at a run's start
  // Why CUDA is not used although the provider asked for it (no driver, no device, too
  // little memory): said once, when it first applies or changes (empty: CUDA or the CPU
  // as asked runs now), not with every answer.
  void backendNote(const QString& note);
  // A long first-use preparation inside a run (converting or loading the speculative
  // draft): what happens, e.g. "Converting the speculative draft (self-int4)…", and its
  // percent (0..100; -1 unknown); `what` "" when it is done.
  void localPreparing(const QString& what, int percent);

 private:
  QString ensureLoaded(const LocalEngineSpec& spec);  // "" or why the model cannot run
  // A failed run's kind and message; `reopened`: the pass failed on the device and the
  // scheduler let the session go (a Device failure, whose note offers the CPU).
  static std::pair<FailureKind, QString> failureOf(const std::string& error, bool reopened);
  void emitEvent(RemoteResult& result, StreamEvent event);
  // Speculative sampling with the request's draft (made once while the setting stays the
  // same) into `options`; "" or why it cannot start.
  QString useDraft(const SamplingParams& params, int context, engine::GenerateOptions& options);
  // Makes the draft source `spec`, saying so with localPreparing (null: `error` says why).
  std::unique_ptr<engine::DraftSource> makeDraft(const std::string& spec, int context,
                                                 QString& error);
  // On the model's scheduler, or its session alone for a speculative run: the outcome, or
  // why the engine failed.
  engine::Result<engine::GenerationOutcome> generate(
      const std::vector<int>& prompt, const engine::GenerateOptions& options,
      const std::function<bool(const engine::GeneratedToken&)>& on_token);

  std::atomic<bool>* cancel_flag_;
  LocalEngineSpec loaded_spec_;
  QString noted_;  // the backend note last said
  std::shared_ptr<SharedEngine> engine_;
  std::unique_ptr<engine::DraftSource> draft_;  // kept while the draft setting stays the same
  std::string draft_spec_;
  ConversationIds conversation_;  // the last conversation's ids, for the loaded model
};

}  // namespace ts
