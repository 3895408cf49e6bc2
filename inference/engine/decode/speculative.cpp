#include "inference/engine/decode/speculative.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>

#include "inference/engine/core/thread_pool.h"
#include "inference/engine/cpu/cpu_forward.h"
#include "inference/engine/formats/model_loader.h"

namespace ts::engine {
namespace {

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The probability a draft distribution gave `token` (a deterministic proposal: 1).
float draftProbability(const std::vector<float>& q, int token) {
  return q.empty() ? 1.f : q[token];
}

}  // namespace

ModelDraft::ModelDraft(std::string name, std::shared_ptr<const Model> model, int max_positions,
                       KvFormat kv, int threads)
    : name_(std::move(name)),
      session_(std::make_unique<CpuSession>(std::move(model), max_positions, kv, threads)) {}

std::span<const float> ModelDraft::catchUp(std::span<const int> tokens, size_t rerun) {
  size_t kept = 0;
  while (kept < fed_.size() && kept < tokens.size() && fed_[kept] == tokens[kept]) ++kept;
  kept = std::min(kept, tokens.size() - std::min(rerun, tokens.size()));
  session_->truncate(static_cast<int>(kept));
  fed_.assign(tokens.begin(), tokens.end());
  if (kept == tokens.size()) return {};
  positions_run_ += static_cast<long long>(tokens.size() - kept);
  return session_->forwardBatch(tokens.subspan(kept), static_cast<int>(kept), false);
}

void ModelDraft::prime(std::span<const int> prompt) {
  if (prompt.size() > 1) catchUp(prompt.first(prompt.size() - 1), 0);
}

void ModelDraft::propose(std::span<const int> context, int k, Sampler& sampler, Draft& out) {
  out.tokens.clear();
  out.q.clear();
  // The draft runs the whole context and its own first k - 1 proposals.
  k = std::min<int>(k, session_->maxPositions() - static_cast<int>(context.size()) + 1);
  if (k <= 0 || context.empty()) return;
  // (at least the last token: the first proposal needs its logits)
  std::span<const float> logits = catchUp(context, 1);
  std::vector<int> history(context.begin(), context.end());
  for (int i = 0; i < k; ++i) {
    std::vector<float> q = sampler.probabilities(logits, history);
    const int token = sampler.draw(q);
    out.tokens.push_back(token);
    out.q.push_back(std::move(q));
    history.push_back(token);
    if (i + 1 == k) break;
    logits = session_->forwardBatch(std::span(&token, 1), static_cast<int>(fed_.size()), false);
    fed_.push_back(token);
    ++positions_run_;
  }
}

void LookupDraft::propose(std::span<const int> context, int k, Sampler&, Draft& out) {
  out.tokens.clear();
  out.q.clear();
  const int size = static_cast<int>(context.size());
  for (int n = std::min(max_ngram_, size - 1); n >= 1 && k > 0; --n) {
    const auto suffix = context.subspan(size - n);
    for (int start = size - n - 1; start >= 0; --start) {  // most recent match first
      if (!std::equal(suffix.begin(), suffix.end(), context.begin() + start)) continue;
      for (int i = start + n; i < size && static_cast<int>(out.tokens.size()) < k; ++i)
        out.tokens.push_back(context[i]);
      out.q.resize(out.tokens.size());  // deterministic: one-hot proposals
      return;
    }
  }
}

std::shared_ptr<const Model> selfDraftModel(const Model& target, int layers, int int4_group,
                                            const LoadProgress& progress) {
  auto draft = std::make_shared<Model>();
  draft->config = target.config;
  const int n = layers > 0 ? std::min(layers, target.config.n_layers) : target.config.n_layers;
  draft->config.n_layers = n;
  draft->token_embd = target.token_embd;
  draft->output_norm = target.output_norm;
  draft->vocab = target.vocab;
  draft->layers.resize(n);
  std::vector<std::pair<QuantMatrix*, const QuantMatrix*>> matrices = {
      {&draft->classifier, &target.classifier}};
  for (int l = 0; l < n; ++l) {
    const LayerWeights& from = target.layers[l];
    LayerWeights& to = draft->layers[l];
    to.attn_norm = from.attn_norm;
    to.ffn_norm = from.ffn_norm;
    for (auto [t, f] : {std::pair{&to.wq, &from.wq},
                        {&to.wk, &from.wk},
                        {&to.wv, &from.wv},
                        {&to.wo, &from.wo},
                        {&to.w_gate, &from.w_gate},
                        {&to.w_up, &from.w_up},
                        {&to.w_down, &from.w_down}})
      matrices.emplace_back(t, f);
  }
  ThreadPool pool(ThreadPool::defaultThreads());
  std::atomic<size_t> next{0};
  std::atomic<bool> cancelled{false}, out_of_memory{false};
  std::mutex reporting;  // progress is called by one thread at a time
  size_t done = 0;       // matrices converted (under `reporting`)
  pool.parallelFor(pool.threads(), [&](int, int) {
    for (size_t i; !cancelled && (i = next++) < matrices.size();) {
      try {  // (an exception must not leave a pool thread)
        *matrices[i].first = matrices[i].second->converted(WeightFormat::Int4, int4_group);
      } catch (const std::bad_alloc&) {  // the others stop too; thrown again below
        out_of_memory = cancelled = true;
        return;
      }
      if (!progress) continue;
      std::lock_guard lock(reporting);
      if (!progress(static_cast<double>(++done) / static_cast<double>(matrices.size())))
        cancelled = true;
    }
  });
  if (out_of_memory) throw std::bad_alloc();  // on the calling thread: makeDraftSource's value
  if (cancelled) return nullptr;
  draft->weight_format = WeightFormat::Int4;
  draft->cache_note = "self-draft of the loaded model";
  return draft;
}

Result<bool> checkSameVocabulary(const Model& target, const Model& draft) {
  if (draft.config.vocab != target.config.vocab)
    return fail("the draft model's vocabulary has " + std::to_string(draft.config.vocab) +
                " tokens, the target's " + std::to_string(target.config.vocab) +
                ": a draft must share the target's vocabulary");
  const auto& a = target.vocab.pieces;
  const auto& b = draft.vocab.pieces;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (a[i] != b[i])
      return fail("the draft model's vocabulary differs from the target's at token " +
                  std::to_string(i) + ": target '" + a[i] + "', draft '" + b[i] + "'");
  return true;
}

namespace {
template <class Field>
auto total(const std::vector<SpeculativeStep>& steps, Field field) {
  decltype(SpeculativeStep{}.*field) sum{};
  for (const auto& s : steps) sum += s.*field;
  return sum;
}
}  // namespace

namespace {
// The N of "prefix:N" (1 .. 1000), or `fallback` for the bare prefix.
Result<int> countAfter(const std::string& spec, const std::string& prefix, int fallback) {
  if (spec == prefix) return fallback;
  const std::string digits = spec.substr(prefix.size() + 1);
  char* end = nullptr;
  const long n = std::strtol(digits.c_str(), &end, 10);
  if (digits.empty() || *end != '\0' || n < 1 || n > 1000)
    return fail("--draft " + spec + ": expected " + prefix +
                ":N with N a whole number from 1 to 1000, found '" + digits + "'");
  return static_cast<int>(n);
}
}  // namespace

Result<std::unique_ptr<DraftSource>> makeDraftSource(const std::string& spec,
                                                     std::shared_ptr<const Model> target,
                                                     const LoadOptions& load, int max_positions,
                                                     KvFormat kv, int threads) {
  using Source = std::unique_ptr<DraftSource>;
  if (spec == "lookup" || spec.rfind("lookup:", 0) == 0) {
    auto n = countAfter(spec, "lookup", 3);
    if (!n) return fail(n.error());
    return Source(std::make_unique<LookupDraft>(n.value()));
  }
  // The target converted to int4 (first `layers` layers, or all of them): a draft source.
  const auto self = [&](int layers) -> Result<Source> {
    try {
      auto model = selfDraftModel(*target, layers, load.int4_group, load.progress);
      if (!model) return fail(kDraftCancelled);
      return Source(
          std::make_unique<ModelDraft>(spec, std::move(model), max_positions, kv, threads));
    } catch (const std::bad_alloc&) {  // what was converted is freed: the process goes on
      return fail("not enough memory to convert the draft (" + spec +
                  "): the int4 copy of the model's matrices needs more memory than is free; "
                  "draft with fewer layers (self-layers:N) or lookup");
    }
  };
  if (spec == "self-int4") return self(0);
  if (spec.rfind("self-layers", 0) == 0) {
    auto n = countAfter(spec, "self-layers", 0);
    if (!n || spec == "self-layers")
      return fail(n ? "--draft self-layers: expected self-layers:N (the first N layers)"
                    : n.error());
    if (n.value() > target->config.n_layers)
      return fail("--draft " + spec + ": the model has only " +
                  std::to_string(target->config.n_layers) + " layers");
    return self(n.value());
  }
  auto model = loadModel(spec, load);
  if (!model && model.error() == kLoadCancelled) return fail(kDraftCancelled);
  if (!model) return fail("--draft: " + model.error());
  if (auto same = checkSameVocabulary(*target, *model.value()); !same) return fail(same.error());
  return Source(std::make_unique<ModelDraft>(spec, model.value(), max_positions, kv, threads));
}

int SpeculativeStats::drafted() const {
  return total(steps, &SpeculativeStep::drafted);
}
int SpeculativeStats::accepted() const {
  return total(steps, &SpeculativeStep::accepted);
}
double SpeculativeStats::acceptanceRate() const {
  return drafted() > 0 ? static_cast<double>(accepted()) / drafted() : 0.0;
}
double SpeculativeStats::meanAcceptedLength() const {
  return steps.empty() ? 0.0 : static_cast<double>(accepted()) / steps.size();
}
std::vector<int> SpeculativeStats::histogram() const {
  int longest = 0;
  for (const auto& s : steps) longest = std::max(longest, s.k);
  std::vector<int> h(longest + 1, 0);
  for (const auto& s : steps) ++h[s.accepted];
  return h;
}
double SpeculativeStats::draftMs() const {
  return total(steps, &SpeculativeStep::draft_ms);
}
double SpeculativeStats::verifyMs() const {
  return total(steps, &SpeculativeStep::verify_ms);
}

SpeculativeDecoder::SpeculativeDecoder(DecodeSession& target, DraftSource& draft, Sampler& sampler,
                                       SpeculativeConfig config)
    : target_(target),
      draft_(draft),
      sampler_(sampler),
      config_(config),
      k_(std::clamp(config.k, 1, std::max(1, config.k_max))) {}

std::vector<int> SpeculativeDecoder::step(int budget) {
  const int length = static_cast<int>(context_.size());
  // Verification runs positions length - 1 .. length - 1 + k; every step commits at least
  // one token of its own, so drafting more than budget - 1 would be wasted.
  const int k = std::min({k_, budget - 1, target_.maxPositions() - length});
  if (length > target_.maxPositions()) return {};
  SpeculativeStep record;
  record.k = std::max(0, k);

  auto start = std::chrono::steady_clock::now();
  Draft draft;
  if (k > 0) draft_.propose(context_, k, sampler_, draft);
  record.draft_ms = msSince(start);
  const int drafted = static_cast<int>(draft.tokens.size());
  record.drafted = drafted;

  start = std::chrono::steady_clock::now();
  std::vector<int> run = {context_.back()};
  run.insert(run.end(), draft.tokens.begin(), draft.tokens.end());
  const std::span<const float> logits = target_.forwardBatch(run, length - 1, true);
  ++target_forwards_;
  const size_t vocab = static_cast<size_t>(target_.vocab());

  // Accept draft token x with probability min(1, p(x) / q(x)); at the first rejection
  // draw from norm(max(0, p - q)) instead and stop; if all pass, draw a bonus from p.
  std::vector<int> history = context_, committed;
  const bool greedy = sampler_.config().temperature <= 0.f;
  for (int i = 0; i <= drafted; ++i) {
    const std::vector<float> p = sampler_.probabilities(logits.subspan(i * vocab, vocab), history);
    if (i == drafted) {
      committed.push_back(sampler_.draw(p));
      break;
    }
    const int x = draft.tokens[i];
    const double ratio = p[x] / draftProbability(draft.q[i], x);
    const bool accept = greedy ? p[x] >= 1.f : sampler_.uniform() < ratio;
    if (accept) {
      committed.push_back(x);
      history.push_back(x);
      ++record.accepted;
      continue;
    }
    std::vector<float> residual = p;
    if (config_.residual == SpeculativeConfig::Residual::Exact) {
      double sum = 0;
      for (size_t j = 0; j < vocab; ++j) {
        const float q = draft.q[i].empty() ? (static_cast<int>(j) == x ? 1.f : 0.f) : draft.q[i][j];
        residual[j] = std::max(0.f, p[j] - q);
        sum += residual[j];
      }
      if (sum > 0)
        for (float& r : residual) r = static_cast<float>(r / sum);
      else
        residual = p;  // p == q everywhere: a rejection had probability 0
    }
    committed.push_back(sampler_.draw(residual));
    break;
  }
  // The target keeps the KV rows of the context's last token and the accepted drafts.
  target_.truncate(length + record.accepted);
  record.verify_ms = msSince(start);
  context_.insert(context_.end(), committed.begin(), committed.end());
  stats_.steps.push_back(record);
  if (config_.adaptive && drafted == k_) {
    if (record.accepted == drafted)
      k_ = std::min(k_ + 1, config_.k_max);
    else if (2 * record.accepted < drafted)
      k_ = std::max(1, k_ - 1);
  }
  return committed;
}

}  // namespace ts::engine
