#include "app/server/model_server.h"

namespace ts::server {

engine::Vocabulary servedVocabulary(const engine::Model& model) {
  engine::Vocabulary vocab = model.vocab;
  if (vocab.pieces.empty())
    for (int i = 0; i < model.config.vocab; ++i)
      vocab.pieces.push_back("<" + std::to_string(i) + ">");
  return vocab;
}

engine::Result<engine::SchedulerOptions> sizedKvPool(const engine::Model& model,
                                                     engine::KvFormat kv, int positions,
                                                     engine::SchedulerOptions scheduling) {
  const engine::KvPoolRequest request{scheduling.kv_memory_mb,
                                      scheduling.kv_blocks * engine::kKvBlock};
  auto plan = engine::planKvPool(model.config, kv, positions, scheduling.max_running, request,
                                 engine::availableMemoryBytes());
  if (!plan) return engine::fail("KV cache: " + plan.error());
  scheduling.kv_blocks = plan.value().blocks;
  return scheduling;
}

std::function<engine::Result<std::unique_ptr<engine::DecodeSession>>()> reopenerFor(
    std::shared_ptr<engine::Model> model, int positions, engine::KvFormat kv,
    const engine::BackendRequest& backend) {
  return
      [model, positions, kv, backend]() -> engine::Result<std::unique_ptr<engine::DecodeSession>> {
        auto opened = engine::openSession(model, positions, kv, backend);
        if (!opened) return engine::fail(opened.error());
        return std::move(opened.value().session);
      };
}

engine::Result<ServedModel> serveModel(std::shared_ptr<engine::Model> model, int context,
                                       engine::KvFormat kv, const engine::BackendRequest& backend,
                                       const engine::SchedulerOptions& scheduling,
                                       ServerOptions options) {
  ServedModel out;
  out.positions = context > 0 ? context : engine::defaultPositions(model->config);
  const auto pool = sizedKvPool(*model, kv, out.positions, scheduling);
  if (!pool) return engine::fail(pool.error());
  auto opened = engine::openSession(model, out.positions, kv, backend);
  if (!opened) return engine::fail(opened.error());
  out.note = opened.value().note;
  out.backend = opened.value().backend + " (" + opened.value().device + ")";
  engine::SchedulerOptions options_with_reopen = pool.value();
  options_with_reopen.reopen = reopenerFor(model, out.positions, kv, backend);
  out.scheduler = std::make_shared<engine::Scheduler>(std::move(opened.value().session),
                                                      engine::Tokenizer(servedVocabulary(*model)),
                                                      options_with_reopen);
  out.server = std::make_unique<LocalServer>(model, out.scheduler, std::move(options));
  return out;
}

std::string describeScheduling(const engine::Scheduler& scheduler) {
  const engine::SchedulerOptions& o = scheduler.options();
  if (!scheduler.paged()) return "one request at a time (this backend has no paged KV cache)";
  return std::to_string(o.max_running) + " running, " +
         (o.prefill_chunk > 0 ? "prompt chunks of " + std::to_string(o.prefill_chunk)
                              : std::string("whole prompts")) +
         (o.tpot_target_ms > 0
              ? " paced to " + std::to_string(o.tpot_target_ms) + " ms per output token"
              : std::string()) +
         (o.separate_prefill_tokens > 0
              ? ", prompts over " + std::to_string(o.separate_prefill_tokens) +
                    " tokens prefilled separately on " +
                    std::to_string(o.separate_prefill_threads) + " thread(s)"
              : std::string()) +
         ", " + std::to_string(o.batch_tokens) + " tokens per step, " +
         std::to_string(o.kv_blocks) + " KV blocks of " + std::to_string(engine::kKvBlock);
}

}  // namespace ts::server
