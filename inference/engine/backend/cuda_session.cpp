#include "inference/engine/backend/cuda_session.h"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "inference/engine/backend/backend_loader.h"
#include "inference/engine/model/positional.h"

namespace ts::engine {
namespace {

int cudaWeightFormat(WeightFormat format) {
  switch (format) {
    case WeightFormat::F32:
      return TS_CUDA_W_F32;
    case WeightFormat::F16:
      return TS_CUDA_W_F16;
    case WeightFormat::Int8:
      return TS_CUDA_W_INT8;
    case WeightFormat::Int4:
      return TS_CUDA_W_INT4;
    case WeightFormat::Q8_0:
      return TS_CUDA_W_Q8_0;
    case WeightFormat::Stored:  // never handed over: CudaModelView converts these
      return TS_CUDA_W_F32;
  }
  return TS_CUDA_W_F32;
}

TsCudaMatrix shapeOnly(WeightFormat format, int rows, int cols, int group) {
  TsCudaMatrix m{};
  m.format = cudaWeightFormat(format);
  m.rows = rows;
  m.cols = cols;
  m.group = group;
  return m;
}

TsCudaSessionOptions sessionOptions(int max_positions, KvFormat kv, const CudaOptions& o) {
  TsCudaSessionOptions s{};
  s.device = o.device;
  s.max_positions = max_positions;
  s.kv_format = cudaKvFormat(kv);
  s.max_batch = o.max_batch;
  s.use_graph = o.graph ? 1 : 0;
  return s;
}

}  // namespace

TsCudaMatrix cudaMatrixView(const QuantMatrix& m) {
  if (m.panelled())  // the plugin reads the arrays' layouts (plugin_abi.h), never panels
    throw std::invalid_argument("cudaMatrixView: a " + m.formatName() +
                                " matrix in the CPU's panels; expected its arrays "
                                "(QuantMatrix::withoutPanels)");
  TsCudaMatrix v = shapeOnly(m.format(), m.rows(), m.cols(), m.group());
  v.data = m.storage();
  v.scales = m.scales();
  return v;
}

int cudaKvFormat(KvFormat format) {
  switch (format) {
    case KvFormat::F32:
      return TS_CUDA_KV_F32;
    case KvFormat::F16:
      return TS_CUDA_KV_F16;
    case KvFormat::Int8:
      return TS_CUDA_KV_INT8;
  }
  return TS_CUDA_KV_F32;
}

void CudaModelView::setShape(const ModelConfig& c) {
  model_.n_layers = c.n_layers;
  model_.dim = c.dim;
  model_.n_heads = c.n_heads;
  model_.n_kv_heads = c.n_kv_heads;
  model_.head_dim = c.head_dim;
  model_.ffn_dim = c.ffn_dim;
  model_.vocab = c.vocab;
  model_.rope_dim = c.rope_dim;
  model_.rms_eps = c.rms_eps;
  model_.rope_theta = c.rope_theta;
  if (c.positional == Positional::Alibi) {
    slopes_ = alibiSlopes(c.n_heads);
    model_.alibi_slopes = slopes_.data();
  }
}

bool bf16FitsF16(const QuantMatrix& m) {
  std::vector<float> row(m.cols());
  for (int r = 0; r < m.rows(); ++r) {
    m.rowF32(r, row.data());
    for (float v : row) {
      const float a = std::fabs(v);
      if (!(a <= 65504.f)) return false;  // past f16's largest finite value, or NaN
    }
  }
  return true;
}

const QuantMatrix& CudaModelView::readable(const QuantMatrix& m) {
  const bool stored = m.format() == WeightFormat::Stored;
  if (!stored && m.rowScales().empty() && !m.panelled()) return m;
  // The plugin's nearest format at least as precise (converted() keeps Q4_0 / Q8_0 exact).
  WeightFormat format = m.format();
  if (stored) switch (m.storedType()) {
      case TensorType::Q4_0:
        format = WeightFormat::Int4;
        break;
      case TensorType::BF16:  // to f16 at upload: its bytes, and the f16 matvec (below)
      case TensorType::F16:
        format = WeightFormat::F16;
        break;
      case TensorType::F32:
        format = WeightFormat::F32;
        break;
      default:
        format = WeightFormat::Q8_0;
    }
  // the arrays, not the CPU's panels (converted() leaves integer formats in those)
  auto copy = std::make_unique<QuantMatrix>(m.converted(format, m.group()).withoutPanels());
  // BF16 holds values f16 cannot (|v| > 65504): such a matrix goes up as f32 instead. Every
  // other value converts exactly down to f16's smallest normal (6.1e-5; 11 bits of mantissa
  // to bf16's 8); below it f16's subnormals keep it within 3e-8.
  if (stored && m.storedType() == TensorType::BF16 && !bf16FitsF16(m))
    copy = std::make_unique<QuantMatrix>(m.converted(WeightFormat::F32));
  converted_.push_back(std::move(copy));
  return *converted_.back();
}

CudaModelView::CudaModelView(const Model& m) {
  setShape(m.config);
  const QuantMatrix& table = m.token_embd;
  if (table.format() == WeightFormat::F32) {
    model_.token_embd = table.f32Data();
  } else if (table.format() == WeightFormat::Stored && table.storedType() == TensorType::F32) {
    model_.token_embd = static_cast<const float*>(table.storage());
  } else {
    embedding_.resize(static_cast<size_t>(table.rows()) * table.cols());
    for (int r = 0; r < table.rows(); ++r)
      table.rowF32(r, embedding_.data() + static_cast<size_t>(r) * table.cols());
    model_.token_embd = embedding_.data();
  }
  model_.output_norm = m.output_norm.data();
  model_.classifier = cudaMatrixView(readable(m.classifier));
  for (const LayerWeights& w : m.layers)
    layers_.push_back({w.attn_norm.data(), cudaMatrixView(readable(w.wq)),
                       cudaMatrixView(readable(w.wk)), cudaMatrixView(readable(w.wv)),
                       cudaMatrixView(readable(w.wo)), w.ffn_norm.data(),
                       cudaMatrixView(readable(w.w_gate)), cudaMatrixView(readable(w.w_up)),
                       cudaMatrixView(readable(w.w_down))});
  model_.layers = layers_.data();
}

CudaModelView::CudaModelView(const ModelConfig& c, WeightFormat format, int group,
                             unsigned long long seed) {
  setShape(c);
  model_.random_seed = seed ? seed : 1;
  const int q = c.n_heads * c.head_dim, kv = c.n_kv_heads * c.head_dim;
  model_.classifier = shapeOnly(format, c.vocab, c.dim, group);
  for (int l = 0; l < c.n_layers; ++l)
    layers_.push_back(
        {nullptr, shapeOnly(format, q, c.dim, group), shapeOnly(format, kv, c.dim, group),
         shapeOnly(format, kv, c.dim, group), shapeOnly(format, c.dim, q, group), nullptr,
         shapeOnly(format, c.ffn_dim, c.dim, group), shapeOnly(format, c.ffn_dim, c.dim, group),
         shapeOnly(format, c.dim, c.ffn_dim, group)});
  model_.layers = layers_.data();
}

Result<TsCudaMemory> estimateCudaMemory(const CudaModelView& model, int max_positions, KvFormat kv,
                                        const CudaOptions& options) {
  const CudaPlugin plugin = loadCudaPlugin();
  if (!plugin.api) return fail(plugin.reason);
  const TsCudaSessionOptions o = sessionOptions(max_positions, kv, options);
  TsCudaMemory memory{};
  char error[1024] = {};
  if (plugin.api->estimate(&model.get(), &o, &memory, error, sizeof error) != 0)
    return fail(std::string("CUDA: ") + error);
  return memory;
}

Result<std::unique_ptr<CudaSession>> CudaSession::create(const CudaModelView& model, int vocab,
                                                         int max_positions, KvFormat kv,
                                                         const CudaOptions& options) {
  const CudaPlugin plugin = loadCudaPlugin();
  if (!plugin.api) return fail(plugin.reason);
  const TsCudaSessionOptions o = sessionOptions(max_positions, kv, options);
  TsCudaSession* session = nullptr;
  char error[1024] = {};
  if (plugin.api->session_create(&model.get(), &o, &session, error, sizeof error) != 0)
    return fail(std::string("CUDA: ") + error);
  return std::unique_ptr<CudaSession>(new CudaSession(plugin.api, session, vocab, max_positions));
}

CudaSession::~CudaSession() {
  api_->session_destroy(session_);
}

std::span<const float> CudaSession::forwardBatch(std::span<const int> tokens, int pos,
                                                 bool all_logits) {
  const int n = static_cast<int>(tokens.size());
  if (n == 0 || pos < 0 || pos + n > max_positions_)
    throw std::out_of_range("forward: positions " + std::to_string(pos) + ".." +
                            std::to_string(pos + n - 1) + " outside the KV cache of " +
                            std::to_string(max_positions_));
  logits_.resize(static_cast<size_t>(all_logits ? n : 1) * vocab_);
  char error[1024] = {};
  if (api_->session_forward(session_, tokens.data(), n, pos, all_logits ? 1 : 0, logits_.data(),
                            error, sizeof error) != 0)
    throw std::runtime_error(std::string("CUDA: ") + error);
  return logits_;
}

void CudaSession::truncate(int length) {
  char error[1024] = {};
  if (api_->session_truncate(session_, length, error, sizeof error) != 0)
    throw std::runtime_error(std::string("CUDA: ") + error);
}

}  // namespace ts::engine
