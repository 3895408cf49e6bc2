// engine-bench (--model PATH | --random SHAPE [--layers N]) [--backend cpu] [--threads N]
//              [--weights f32|f16|int8|int4] [--kv f32|f16|int8] [--prompt-tokens N]
//              [--gen-tokens N] [--repeat R] [--json]
// Prefill and decode speed of the CPU engine (medians over R runs) and the machine's
// memory-read bandwidth measured in the same run (after each decode run), with decode's
// effective bandwidth (weight bytes read per token x tokens/s) as a share of it. No Qt: builds
// engine-only.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "inference/engine/cpu_forward.h"
#include "inference/engine/random_model.h"
#include "inference/engine/weight_buffer.h"

using namespace ts::engine;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// GB/s of summing a 1 GiB f32 buffer with `threads` threads, with the same vector
// kernels as the engine, so the figure is the memory's limit, not the adder's. Measured
// right after each decode run: this machine's bandwidth drifts by tens of percent within
// a minute, so decode is compared with the bandwidth of the same moment.
class BandwidthProbe {
 public:
  explicit BandwidthProbe(int threads) : buf_((1ull << 30) / sizeof(float), 1.0f), pool_(threads) {}

  double measure() {  // median of 3 passes
    const int threads = pool_.threads();
    const size_t n = buf_.size();
    std::vector<double> rates;
    for (int r = 0; r < 3; ++r) {
      std::vector<double> partial(threads, 0);
      const double t0 = now();
      pool_.parallelFor(threads, [&](int b, int e) {
        for (int t = b; t < e; ++t) {
          const size_t begin = n / threads * t, end = t + 1 == threads ? n : n / threads * (t + 1);
          partial[t] = activeKernels().sum_f32(buf_.data() + begin, end - begin);
        }
      });
      const double dt = now() - t0;
      double total = 0;
      for (double p : partial) total += p;
      if (total < 0) std::printf("impossible\n");  // keeps the sums alive
      rates.push_back(n * sizeof(float) / dt / 1e9);
    }
    return median(rates);
  }

 private:
  WeightBuffer<float> buf_;  // allocated as the weights are (huge pages where granted)
  ThreadPool pool_;
};

}  // namespace

int main(int argc, char** argv) {
  std::string model_path, shape, weights = "f32", kv = "f32", backend = "cpu";
  int layers = 0, threads = ThreadPool::defaultThreads(), prompt_tokens = 128, gen_tokens = 32,
      repeat = 3;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "engine-bench: %s expects a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--model")
      model_path = value("--model");
    else if (a == "--random")
      shape = value("--random");
    else if (a == "--layers")
      layers = std::atoi(value("--layers").c_str());
    else if (a == "--backend")
      backend = value("--backend");
    else if (a == "--threads")
      threads = std::max(1, std::atoi(value("--threads").c_str()));
    else if (a == "--weights")
      weights = value("--weights");
    else if (a == "--kv")
      kv = value("--kv");
    else if (a == "--prompt-tokens")
      prompt_tokens = std::max(1, std::atoi(value("--prompt-tokens").c_str()));
    else if (a == "--gen-tokens")
      gen_tokens = std::max(1, std::atoi(value("--gen-tokens").c_str()));
    else if (a == "--repeat")
      repeat = std::max(1, std::atoi(value("--repeat").c_str()));
    else if (a == "--json")
      json = true;
    else {
      std::fprintf(stderr, "engine-bench: unknown option '%s'\n", a.c_str());
      return 2;
    }
  }
  if (model_path.empty() == shape.empty()) {
    std::fprintf(stderr, "engine-bench: expected exactly one of --model PATH or --random SHAPE\n");
    return 2;
  }
  if (backend != "cpu") {
    std::fprintf(stderr,
                 "engine-bench: --backend: expected 'cpu', found '%s' (CUDA is not wired yet)\n",
                 backend.c_str());
    return 2;
  }
  auto format = parseWeightFormat(weights);
  auto kv_format = parseKvFormat(kv);
  if (!format || !kv_format) {
    std::fprintf(stderr, "engine-bench: %s\n",
                 (!format ? format.error() : kv_format.error()).c_str());
    return 2;
  }
  std::shared_ptr<Model> model;
  if (!shape.empty()) {
    auto config = shapeConfig(shape, layers);
    if (!config) {
      std::fprintf(stderr, "engine-bench: %s\n", config.error().c_str());
      return 2;
    }
    model = randomModel(config.value(), format.value(), 1234);
  } else {
    LoadOptions options;
    options.weights = format.value();
    options.cache = false;  // measure the kernels; never write beside the model
    auto loaded = loadModel(model_path, options);
    if (!loaded) {
      std::fprintf(stderr, "engine-bench: %s\n", loaded.error().c_str());
      return 1;
    }
    model = loaded.value();
  }
  const ModelConfig& c = model->config;
  const int capacity =
      std::min(prompt_tokens + gen_tokens, std::max(c.context, prompt_tokens + gen_tokens));
  const double bytes_per_token = static_cast<double>(model->weight_bytes());
  BandwidthProbe probe(threads);
  std::vector<double> pp, tg, bandwidth, share;
  for (int r = 0; r < repeat; ++r) {
    CpuSession session(model, capacity, kv_format.value(), threads);
    int pos = 0;
    double t0 = now();
    std::vector<int> prompt(prompt_tokens);
    for (int i = 0; i < prompt_tokens; ++i) prompt[i] = (i * 7919 + 1) % c.vocab;
    std::span<const float> logits = session.forwardBatch(prompt, 0);  // batched prefill
    pos = prompt_tokens;
    pp.push_back(prompt_tokens / (now() - t0));
    t0 = now();
    for (int i = 0; i < gen_tokens; ++i) {
      const int next =
          static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
      logits = session.forward(next, pos++);
    }
    tg.push_back(gen_tokens / (now() - t0));
    bandwidth.push_back(probe.measure());
    share.push_back(bytes_per_token * tg.back() / 1e9 / bandwidth.back());
  }
  const double pp_rate = median(pp), tg_rate = median(tg), bw = median(bandwidth);
  const double effective = bytes_per_token * tg_rate / 1e9;
  const double decode_share = median(share);  // of the ratios of each run
  if (json) {
    std::printf(
        "{\n  \"model\": \"%s\",\n  \"weights\": \"%s\",\n  \"kv\": \"%s\",\n  \"threads\": %d,\n"
        "  \"prompt_tokens\": %d,\n  \"gen_tokens\": %d,\n  \"repeat\": %d,\n"
        "  \"pp_tok_s\": %.3f,\n  \"tg_tok_s\": %.3f,\n  \"weight_bytes\": %.0f,\n"
        "  \"read_bandwidth_gb_s\": %.3f,\n  \"decode_effective_gb_s\": %.3f,\n"
        "  \"decode_bandwidth_share\": %.4f,\n  \"kernels\": \"%s\"\n}\n",
        c.describe().c_str(), weights.c_str(), kv.c_str(), threads, prompt_tokens, gen_tokens,
        repeat, pp_rate, tg_rate, bytes_per_token, bw, effective, decode_share,
        activeKernels().name);
  } else {
    std::printf("%s\nweights %s, KV %s, %d thread(s), %s kernels, %d runs (medians)\n",
                c.describe().c_str(), weights.c_str(), kv.c_str(), threads, activeKernels().name,
                repeat);
    std::printf("  prefill  pp%-5d %10.2f tok/s (batched)\n", prompt_tokens, pp_rate);
    std::printf("  decode   tg%-5d %10.2f tok/s\n", gen_tokens, tg_rate);
    std::printf(
        "  memory read bandwidth %.2f GB/s; decode reads %.1f MB/token -> %.2f GB/s; %.0f%% of "
        "the bandwidth measured right after it (median of the runs' ratios)\n",
        bw, bytes_per_token / 1e6, effective, 100 * decode_share);
  }
  return 0;
}
