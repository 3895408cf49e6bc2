#include "inference/engine/lab/lab_arms.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "inference/engine/formats/model_writer.h"
#include "inference/engine/formats/quant_cache.h"

namespace ts::engine::lab {
namespace {

// GGUF types the weights lever writes a file of (the runtime has no conversion to them).
std::optional<TensorType> fileType(const std::string& value) {
  if (value == "q4_0") return TensorType::Q4_0;
  if (value == "q4_k") return TensorType::Q4_K;
  if (value == "q6_k") return TensorType::Q6_K;
  return std::nullopt;
}

// Where the baseline goes as a GGUF of type `value`: beside the quantization cache, keyed
// like it by the source's name, size and sampled content ("" without a cache directory).
std::string labFilePath(const LabSettings& s, const std::string& value) {
  LoadOptions key = s.load;
  key.weights = WeightFormat::F32;
  std::string cache = quantCachePath(s.model_path, key);  // ".../NAME-f32-KEY.tsq"
  if (cache.empty()) return "";
  if (const size_t f32 = cache.rfind("-f32-"); f32 != std::string::npos) cache.erase(f32, 4);
  if (cache.ends_with(".tsq")) cache.resize(cache.size() - 4);
  return cache + "." + value + ".gguf";  // ".../NAME-KEY.q4_0.gguf"
}

// The baseline written once as a GGUF of `type`; the file's path.
Result<std::string> fileOfType(const LabSettings& s, const Model& base, TensorType type,
                               const std::string& value) {
  const std::string path = labFilePath(s, value);
  if (path.empty())
    return fail("--vary weights=" + value + " writes the model as " + value +
                " in the cache directory, and there is none (set XDG_CACHE_HOME or HOME)");
  if (std::filesystem::exists(path)) return path;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  const std::string partial = path + ".partial";
  auto written = writeGguf(base, partial, type, false);
  if (!written) return fail("writing the model as " + value + ": " + written.error());
  std::error_code ec;
  std::filesystem::rename(partial, path, ec);
  if (ec) return fail("writing the model as " + value + ": " + ec.message());
  return path;
}

}  // namespace

Result<std::shared_ptr<const Model>> variantModel(const LabSettings& s,
                                                  const std::shared_ptr<const Model>& base,
                                                  const std::string& value) {
  LoadOptions load = s.load;
  load.progress = nullptr;
  std::string path = s.model_path;
  if (const auto type = fileType(value)) {
    auto file = fileOfType(s, *base, *type, value);
    if (!file) return fail(file.error());
    path = file.value();
    load.weights = WeightFormat::Stored;
  } else if (auto format = parseWeightFormat(value)) {
    load.weights = format.value();
  } else if (std::filesystem::exists(value)) {
    path = value;
  } else {
    return fail(
        "--vary weights: expected auto, f32, f16, int8, int4, q8_0, q4_0, q4_k, q6_k or "
        "the path of the same model in another file, found '" +
        value + "'");
  }
  auto loaded = loadModel(path, load);
  if (!loaded) return fail("--vary weights=" + value + ": " + loaded.error());
  return std::shared_ptr<const Model>(loaded.value());
}

LabSettings settingsWithWeights(const LabSettings& settings, const std::string& value) {
  LabSettings s = settings;
  if (fileType(value)) {
    s.model_path = labFilePath(settings, value);
    s.load.weights = WeightFormat::Stored;
  } else if (auto format = parseWeightFormat(value)) {
    s.load.weights = format.value();
  } else {
    s.model_path = value;
    s.load.weights = WeightFormat::Stored;
  }
  return s;
}

namespace {

// The baseline's settings with the lever at `value` (and draft K `k`), before its session:
// the model shared with the baseline unless the lever is the weights.
Result<Arm> variantArm(const LabSettings& s, const Lever& lever, const std::string& value, int k,
                       bool several_ks, const std::shared_ptr<const Model>& base) {
  Arm arm;
  arm.value = lever.name == "draft" && several_ks ? value + " K" + std::to_string(k) : value;
  arm.model = base;
  arm.kv = s.kv;
  arm.threads = s.backend.threads;
  arm.draft_spec = s.draft;  // the baseline's own draft, unless the lever is the draft
  arm.draft_k = s.draft_k;
  arm.scheduling = s.scheduling;
  if (lever.name == "weights") {
    auto model = variantModel(s, base, value);
    if (!model) return fail(model.error());
    arm.model = model.value();
  } else if (lever.name == "kv") {
    arm.kv = parseKvFormat(value).value();
  } else if (lever.name == "threads") {
    arm.threads = std::stoi(value);
  } else if (lever.name == "prefill") {
    if (auto ok = applyPrefillPolicy(value, arm.scheduling); !ok) return fail(ok.error());
  } else {
    arm.draft_spec = value;
    arm.draft_k = k;
  }
  return arm;
}

}  // namespace

ArmDescription Arm::describe() const {
  return {model->weightSummary(),
          static_cast<double>(model->weight_bytes()),
          kvFormatName(kv),
          threads,
          draft_spec,
          draft_k,
          backend,
          device};
}

int armPositions(const LabSettings& s) {
  int k = 0;
  for (int v : s.draft_ks) k = std::max(k, v);
  return s.prompt_tokens + s.gen_tokens + k + 1;
}

double residentMiB() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024;  // kB
  return 0;
}

Result<std::vector<Arm>> makeArms(const LabSettings& s, const Lever& lever,
                                  const std::function<Result<bool>(Arm&)>& prime,
                                  const LabProgress& progress, const std::atomic<bool>* cancel) {
  const double process_mb = residentMiB();
  std::vector<Arm> arms;
  // Per model: the growth its first arm measured, and that arm's KV bytes.
  std::map<const Model*, std::pair<double, double>> growth;
  const auto finish = [&](Arm& arm, double before_mb) -> Result<bool> {
    BackendRequest request = s.backend;
    request.threads = arm.threads;
    auto opened = openSession(arm.model, armPositions(s), arm.kv, request);
    if (!opened) return fail(opened.error());
    arm.session = std::move(opened->session);
    arm.backend = opened->backend;
    arm.device = opened->device;
    if (!arm.draft_spec.empty()) {
      auto draft =
          makeDraftSource(arm.draft_spec, arm.model, s.load, armPositions(s), arm.kv, arm.threads);
      if (!draft) return fail("--vary draft=" + arm.draft_spec + ": " + draft.error());
      arm.draft = std::move(draft.value());
    }
    if (auto primed = prime(arm); !primed) return fail(primed.error());
    const double grew = residentMiB() - before_mb;
    const double kv_mb = arm.session->kvCacheBytes() / 1048576.0;
    if (auto it = growth.find(arm.model.get()); it == growth.end()) {
      growth[arm.model.get()] = {grew, kv_mb};
      arm.resident_mb = process_mb + grew;
    } else {  // the model was resident already: its growth, with this arm's KV cache
      arm.resident_mb = process_mb + it->second.first - it->second.second + grew;
    }
    return true;
  };
  const int total = 1 + static_cast<int>(lever.values.size());
  auto step = [&](const std::string& text, int done) {
    if (progress) progress(text, 0.25 * done / total);
  };
  step("loading the baseline", 0);
  double before = residentMiB();
  LoadOptions load = s.load;
  auto base = loadModel(s.model_path, load);
  if (!base) return fail(base.error());
  Arm a;
  a.model = base.value();
  a.kv = s.kv;
  a.threads = s.backend.threads;
  a.draft_spec = s.draft;
  a.draft_k = s.draft_k;
  a.scheduling = s.scheduling;
  if (auto done = finish(a, before); !done) return fail(done.error());
  arms.push_back(std::move(a));
  for (size_t v = 0; v < lever.values.size(); ++v) {
    if (cancel && cancel->load()) return fail("cancelled");
    const std::string& value = lever.values[v];
    step("preparing " + lever.name + "=" + value, 1 + static_cast<int>(v));
    const std::vector<int> ks = lever.name == "draft" ? s.draft_ks : std::vector<int>{0};
    for (int k : ks) {
      before = residentMiB();
      auto made = variantArm(s, lever, value, k, ks.size() > 1, arms.front().model);
      if (!made) return fail(made.error());
      Arm& arm = made.value();
      if (auto done = finish(arm, before); !done) return fail(done.error());
      arms.push_back(std::move(arm));
    }
  }
  return arms;
}

}  // namespace ts::engine::lab
