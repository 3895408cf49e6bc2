// Speculative sampling (Leviathan et al. 2023; Chen et al. 2023): a cheap draft proposes
// K tokens, the target model scores all K + 1 positions in one batched forward, and a
// rejection rule keeps the output distribution exactly that of sampling from the target
// alone (with temperature 0: exactly the greedy tokens). Works on any DecodeSession.
#pragma once
#include <algorithm>
#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "inference/engine/backend/decode_session.h"
#include "inference/engine/core/edge.h"
#include "inference/engine/core/result.h"
#include "inference/engine/decode/sampler.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/kv_cache.h"
#include "inference/engine/model/model.h"

namespace ts::engine {

// Up to k proposed tokens and, for each, the distribution it was drawn from (after the
// same penalty / temperature / top-k / top-p as the target's); q[i] empty means the
// proposal is deterministic (q is one-hot at tokens[i]).
struct Draft {
  std::vector<int> tokens;
  std::vector<std::vector<float>> q;
};

class DraftSource {
 public:
  virtual ~DraftSource() = default;
  virtual std::string name() const = 0;
  // Proposes up to k tokens continuing `context` (prompt and output so far), drawing with
  // `sampler` (its settings and generator).
  virtual void propose(std::span<const int> context, int k, Sampler& sampler, Draft& out) = 0;
  // Runs a prompt ahead of its first proposal (a model draft's prefill: all of the prompt
  // but its last token, which the first proposal runs), so that prompt processing is done
  // with the target's rather than inside the first decoding step.
  virtual void prime(std::span<const int> /*prompt*/) {}
};

// A draft model with the target's vocabulary: a separate model, or the target itself at
// int4 and/or cut to its first layers. Keeps its own KV cache in step with the context:
// positions it drafted that the target rejected are forgotten on the next proposal.
class ModelDraft : public DraftSource {
 public:
  ModelDraft(std::string name, std::shared_ptr<const Model> model, int max_positions, KvFormat kv,
             int threads);
  std::string name() const override { return name_; }
  void propose(std::span<const int> context, int k, Sampler& sampler, Draft& out) override;
  void prime(std::span<const int> prompt) override;
  // Positions the draft model has run so far (prefill, catching up and drafting).
  long long positionsRun() const { return positions_run_; }

 private:
  // Brings the session to hold `tokens` (positions 0..), keeping the KV rows of the longest
  // prefix it already ran and rerunning at least the last `rerun` tokens; returns the
  // logits of the last token run (empty when nothing ran).
  std::span<const float> catchUp(std::span<const int> tokens, size_t rerun);

  std::string name_;
  std::unique_ptr<DecodeSession> session_;
  std::vector<int> fed_;  // tokens whose KV rows the session holds, positions 0..
  long long positions_run_ = 0;
};

// Prompt lookup (no model): finds the most recent earlier occurrence of the context's last
// n tokens (n from max_ngram down to 1) and proposes the tokens that followed it.
class LookupDraft : public DraftSource {
 public:
  explicit LookupDraft(int max_ngram = 3) : max_ngram_(max_ngram) {}
  std::string name() const override { return "lookup:" + std::to_string(max_ngram_); }
  void propose(std::span<const int> context, int k, Sampler& sampler, Draft& out) override;

 private:
  int max_ngram_;
};

// The target at int4 weights, with only its first `layers` layers when layers > 0.
// progress(fraction of the matrices converted, 0..1), called from the converting threads one
// at a time, may return false to cancel: the result is then null.
std::shared_ptr<const Model> selfDraftModel(const Model& target, int layers, int int4_group = 128,
                                            const LoadProgress& progress = {});
// A draft model must share the target's vocabulary: the error names both sizes, or the
// first piece that differs.
Result<bool> checkSameVocabulary(const Model& target, const Model& draft);

// A draft source from its command-line name: a model file or folder (loaded like the
// target, with `load`; its vocabulary must match), "self-int4", "self-layers:N" (the
// target's first N layers at int4) or "lookup" / "lookup:N" (n-grams up to N, default 3).
// load.progress reports a model draft's load or conversion; when it cancels, the error is
// kDraftCancelled.
inline constexpr const char* kDraftCancelled = "the draft's preparation was cancelled";
Result<std::unique_ptr<DraftSource>> makeDraftSource(const std::string& spec,
                                                     std::shared_ptr<const Model> target,
                                                     const LoadOptions& load, int max_positions,
                                                     KvFormat kv, int threads);

struct SpeculativeConfig {
  int k = 4;              // tokens drafted per step (the starting value when adaptive)
  bool adaptive = false;  // K grows while every draft is accepted, shrinks when few are
  int k_max = 8;
  // How a rejected position is resampled. Exact: from norm(max(0, p - q)), which makes
  // the output follow p. FromTarget: from p itself, a known mistake (it over-weights the
  // tokens the draft favours), kept so the distribution test proves it can fail.
  enum class Residual { Exact, FromTarget } residual = Residual::Exact;
};

struct SpeculativeStep {  // one draft + verify round, for the run's event record
  int drafted = 0, accepted = 0, k = 0;
  double draft_ms = 0, verify_ms = 0;
};

struct SpeculativeStats {
  std::vector<SpeculativeStep> steps;
  int drafted() const;
  int accepted() const;
  double acceptanceRate() const;       // accepted / drafted (0 when nothing was drafted)
  double meanAcceptedLength() const;   // accepted drafts per step
  std::vector<int> histogram() const;  // [n] = steps that accepted n drafts, n = 0..k_max
  double draftMs() const;
  double verifyMs() const;
};

class SpeculativeDecoder {
 public:
  // The target session holds nothing beyond what generate's `held` says.
  SpeculativeDecoder(DecodeSession& target, DraftSource& draft, Sampler& sampler,
                     SpeculativeConfig config);
  // Generates up to max_tokens tokens after `prompt` (at least one token), calling
  // on_token(token) -- or on_token(token, drafted), drafted = an accepted draft token rather
  // than one the target sampled -- for each in order; on_token returning false stops (e.g.
  // at the end of sequence token). Returns the generated tokens, or what failed below it as
  // an error (a session's device or memory failure; core/edge.h): never a throw but for a
  // broken caller contract (std::logic_error).
  // held: the target already holds the KV rows of prompt[0, held) (an earlier turn of the
  // conversation), so its prefill runs only the rest; at most prompt.size() - 1 counts.
  template <class OnToken>
  Result<std::vector<int>> generate(std::span<const int> prompt, int max_tokens, OnToken on_token,
                                    size_t held = 0) {
    return caughtAtEdge<std::vector<int>>(
        [&] { return run(prompt, max_tokens, on_token, held); },
        "for speculative decoding of " + std::to_string(prompt.size()) + " prompt tokens and " +
            std::to_string(max_tokens) + " more");
  }

  // The tokens whose KV rows the target holds now, positions 0.. (all of the context but
  // its last token, which was sampled and not run yet).
  std::span<const int> held() const {
    return std::span<const int>(context_).first(context_.empty() ? 0 : context_.size() - 1);
  }
  const SpeculativeStats& stats() const { return stats_; }
  double prefillMs() const { return prefill_ms_; }
  int targetForwards() const { return target_forwards_; }

 private:
  // One round: returns the tokens committed (1 .. k + 1; none when the cache is full).
  std::vector<int> step(int budget);
  // generate, below the edge: throws what the sessions throw.
  template <class OnToken>
  std::vector<int> run(std::span<const int> prompt, int max_tokens, OnToken on_token, size_t held);

  DecodeSession& target_;
  DraftSource& draft_;
  Sampler& sampler_;
  SpeculativeConfig config_;
  int k_;
  std::vector<int> context_;  // prompt + committed output; the target holds all but the last
  SpeculativeStats stats_;
  double prefill_ms_ = 0;
  int target_forwards_ = 0;
};

template <class OnToken>
std::vector<int> SpeculativeDecoder::run(std::span<const int> prompt, int max_tokens,
                                         OnToken on_token, size_t held) {
  std::vector<int> out;
  context_.clear();  // (held() says nothing is held when nothing runs)
  if (prompt.empty() || max_tokens <= 0) return out;
  context_.assign(prompt.begin(), prompt.end());
  // The target (and a model draft) first hold every prompt position but the last, which
  // each step's verify pass runs together with the drafted tokens: the prefill.
  const auto start = std::chrono::steady_clock::now();
  held = std::min(held, prompt.size() - 1);
  if (prompt.size() - 1 > held) {
    target_.forwardBatch(prompt.subspan(held, prompt.size() - 1 - held), static_cast<int>(held),
                         false);
    ++target_forwards_;
  }
  draft_.prime(prompt);
  prefill_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  while (static_cast<int>(out.size()) < max_tokens) {
    const std::vector<int> committed = step(max_tokens - static_cast<int>(out.size()));
    if (committed.empty()) break;  // the KV cache is full
    // A step commits its accepted drafts first, then the target's own token.
    const size_t accepted = static_cast<size_t>(stats_.steps.back().accepted);
    for (size_t i = 0; i < committed.size(); ++i) {
      out.push_back(committed[i]);
      bool go_on;
      if constexpr (std::is_invocable_v<OnToken, int, bool>)
        go_on = on_token(committed[i], i < accepted);
      else
        go_on = on_token(committed[i]);
      if (!go_on) return out;
    }
  }
  return out;
}

}  // namespace ts::engine
