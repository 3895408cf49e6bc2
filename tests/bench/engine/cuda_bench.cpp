#include "tests/bench/engine/cuda_bench.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "inference/engine/backend/backend_loader.h"
#include "inference/engine/backend/cuda_session.h"
#include "inference/engine/backend/plugin_abi.h"
#include "inference/engine/formats/model_loader.h"
#include "inference/engine/model/random_model.h"
#include "tests/bench/engine/bench_clock.h"

namespace ts::bench {
namespace {

using namespace ts::engine;

// --weights for random CUDA shapes in a GGUF type read as stored: q4_k, q5_k, q6_k, bf16,
// gguf-q4_0, gguf-q8_0 (q4_0 / q8_0 alone name the engine's runtime formats).
std::optional<TensorType> storedWeights(const std::string& name) {
  const std::pair<const char*, TensorType> names[] = {
      {"q4_k", TensorType::Q4_K}, {"q5_k", TensorType::Q5_K},      {"q6_k", TensorType::Q6_K},
      {"bf16", TensorType::BF16}, {"gguf-q4_0", TensorType::Q4_0}, {"gguf-q8_0", TensorType::Q8_0}};
  for (const auto& [n, type] : names)
    if (name == n) return type;
  return std::nullopt;
}

std::vector<int> promptOf(int n, int vocab) {
  std::vector<int> p(n);
  for (int i = 0; i < n; ++i) p[i] = (i * 7919 + 1) % vocab;
  return p;
}

// The model the bench runs: a random shape filled on the device (in a runtime format, or
// a GGUF type as stored), or a file's weights.
struct BenchModel {
  ModelConfig config;
  std::shared_ptr<Model> model;  // host weights only for --model
  std::unique_ptr<CudaModelView> view;
};
Result<BenchModel> benchModel(const CudaBenchArgs& a, WeightFormat format,
                              std::optional<TensorType> stored) {
  BenchModel out;
  if (!a.shape.empty()) {
    auto c = shapeConfig(a.shape, a.layers);
    if (!c) return fail(c.error());
    out.config = c.value();
    out.view = stored ? std::make_unique<CudaModelView>(out.config, *stored, 1234)
                      : std::make_unique<CudaModelView>(out.config, format, 128, 1234);
    return out;
  }
  LoadOptions o;
  o.weights = format;
  o.cache = false;
  auto loaded = loadModel(a.model_path, o);
  if (!loaded) return fail(loaded.error());
  out.model = loaded.value();
  out.config = out.model->config;
  out.view = std::make_unique<CudaModelView>(*out.model);
  return out;
}

using Fields = std::vector<std::pair<std::string, std::string>>;

// prefill_ms_N: a prompt of N positions in one pass (median of --repeat, after a warm-up).
void timePrefills(CudaSession& session, const CudaBenchArgs& a, int vocab, Fields& fields) {
  for (int p : a.prefills) {
    const std::vector<int> prompt = promptOf(p, vocab);
    std::vector<double> ms;
    for (int r = 0; r < a.repeat + 1; ++r) {  // the first run warms cuBLAS up
      session.truncate(0);
      const double t0 = now();
      session.forwardBatch(prompt, 0);
      if (r > 0) ms.push_back((now() - t0) * 1e3);
    }
    fields.push_back({"prefill_ms_" + std::to_string(p), number(median(ms))});
  }
}

// What one decode step reads besides the KV rows, a KV row's bytes, and the copy bandwidth.
struct DecodeBytes {
  double matrices = 0, kv_row = 0, copy_gb_s = 0;
};

// decode_tok_s_ctxN with its effective bandwidth and share of the copy bandwidth; returns
// the first context's step in ms.
double timeDecodes(CudaSession& session, const CudaBenchArgs& a, const ModelConfig& config,
                   const DecodeBytes& bytes, Fields& fields) {
  double step_ms_at_first_context = 0;
  for (int ctx : a.contexts) {
    const std::vector<int> prompt = promptOf(ctx, config.vocab);
    std::vector<double> rates;
    for (int r = 0; r < a.repeat; ++r) {
      session.truncate(0);
      session.forwardBatch(prompt, 0);
      int pos = ctx, token = 17;
      session.forwardBatch({&token, 1}, pos++);  // the first step captures the graph
      const double t0 = now();
      for (int i = 0; i < a.gen_tokens; ++i, ++pos) {
        token = (token * 31 + 7) % config.vocab;
        session.forwardBatch({&token, 1}, pos);
      }
      rates.push_back(a.gen_tokens / (now() - t0));
    }
    const double tok_s = median(rates);
    const double kv_bytes =
        2.0 * config.n_layers * config.n_kv_heads * bytes.kv_row * (ctx + a.gen_tokens / 2);
    const double effective = (bytes.matrices + kv_bytes) * tok_s / 1e9;
    const std::string c = std::to_string(ctx);
    fields.push_back({"decode_tok_s_ctx" + c, number(tok_s, 2)});
    fields.push_back({"decode_effective_gb_s_ctx" + c, number(effective, 1)});
    fields.push_back({"decode_bandwidth_share_ctx" + c, number(effective / bytes.copy_gb_s, 4)});
    if (ctx == a.contexts.front()) step_ms_at_first_context = 1e3 / tok_s;
  }
  return step_ms_at_first_context;
}

// Verify passes with every position's logits, at the first context, against one step: 5
// positions (K = 4) and 9 (K = 8, k_max: the largest the fused matvec and graphs take).
void timeVerifies(CudaSession& session, const CudaBenchArgs& a, int vocab, double step_ms,
                  Fields& fields) {
  const int ctx = a.contexts.front();
  session.truncate(0);
  session.forwardBatch(promptOf(ctx, vocab), 0);
  for (int positions : {5, 9}) {
    std::vector<int> window(positions);
    for (int i = 0; i < positions; ++i) window[i] = 11 + i;
    std::vector<double> verify_ms;
    for (int r = 0; r < std::max(5, a.repeat); ++r) {
      const double t0 = now();
      session.forwardBatch(window, ctx, true);
      verify_ms.push_back((now() - t0) * 1e3);
      session.truncate(ctx);
    }
    const std::string name = "verify" + std::to_string(positions);
    fields.push_back({name + "_ms", number(median(verify_ms))});
    fields.push_back({name + "_over_decode", number(median(verify_ms) / step_ms, 4)});
  }
}

}  // namespace

int runCudaBench(const CudaBenchArgs& a) {
  const CudaAvailability cuda = probeCuda();
  if (!cuda.usable || a.device >= static_cast<int>(cuda.devices.size())) {
    std::fprintf(
        stderr, "engine-bench: --backend cuda: %s\n",
        cuda.usable ? ("no CUDA device " + std::to_string(a.device)).c_str() : cuda.reason.c_str());
    return 1;
  }
  const std::optional<TensorType> stored =
      a.shape.empty() ? std::nullopt : storedWeights(a.weights);
  auto format = stored ? Result<WeightFormat>(WeightFormat::Stored) : parseWeightFormat(a.weights);
  auto kv = parseKvFormat(a.kv);
  if (!format || !kv) {
    std::fprintf(stderr, "engine-bench: %s\n", (!format ? format.error() : kv.error()).c_str());
    return 2;
  }
  auto bench = benchModel(a, format.value(), stored);
  if (!bench) {
    std::fprintf(stderr, "engine-bench: %s\n", bench.error().c_str());
    return 1;
  }
  const ModelConfig& config = bench->config;
  const CudaModelView& view = *bench->view;
  const int longest_context = *std::max_element(a.contexts.begin(), a.contexts.end());
  const int longest_prompt = *std::max_element(a.prefills.begin(), a.prefills.end());
  const int capacity = std::max(longest_context + a.gen_tokens + 8, longest_prompt);
  CudaOptions options;
  options.device = a.device;
  options.max_batch = longest_prompt;  // every timed prompt in one pass
  options.graph = a.graph;
  const auto memory = estimateCudaMemory(view, capacity, kv.value(), options);
  const auto created = CudaSession::create(view, config.vocab, capacity, kv.value(), options);
  if (!created) {
    std::fprintf(stderr, "engine-bench: %s\n", created.error().c_str());
    return 1;
  }
  CudaSession& session = *created.value();
  const TsCudaApi* api = loadCudaPlugin().api;
  char error[512] = {};
  double copy_gb_s = 0;
  if (api->copy_bandwidth(a.device, size_t{1} << 30, 10, &copy_gb_s, error, sizeof error) != 0) {
    std::fprintf(stderr, "engine-bench: copy bandwidth: %s\n", error);
    return 1;
  }
  // Bytes decode reads per token besides the KV cache: every matrix, one embedding row.
  const size_t embeddings = static_cast<size_t>(config.vocab) * config.dim * 4;
  const double matrix_bytes = memory ? double(memory.value().weights - embeddings) : 0.0;
  const double kv_row_bytes = (a.kv == "f32"   ? 4.0
                               : a.kv == "f16" ? 2.0
                                               : 1.0) *
                                  config.head_dim +
                              (a.kv == "int8" ? 4.0 : 0.0);
  std::vector<std::pair<std::string, std::string>> fields = {
      {"backend", "\"cuda\""},
      {"device", "\"" + cuda.devices[a.device].name + "\""},
      {"model", "\"" + config.describe() + "\""},
      {"weights", "\"" + a.weights + "\""},
      {"kv", "\"" + a.kv + "\""},
      {"graph", a.graph ? "true" : "false"},
      {"repeat", std::to_string(a.repeat)},
      {"weight_bytes", number(memory ? double(memory.value().weights) : 0.0, 0)},
      {"copy_bandwidth_gb_s", number(copy_gb_s, 1)}};
  try {
    timePrefills(session, a, config.vocab, fields);
    const DecodeBytes bytes{matrix_bytes, kv_row_bytes, copy_gb_s};
    const double step_ms = timeDecodes(session, a, config, bytes, fields);
    timeVerifies(session, a, config.vocab, step_ms, fields);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "engine-bench: %s\n", e.what());
    return 1;
  }
  if (a.json) {
    printJson(fields);
  } else {
    for (const auto& [k, v] : fields) std::printf("%-32s %s\n", k.c_str(), v.c_str());
  }
  return 0;
}

}  // namespace ts::bench
