#include "inference/engine/backend/cuda_session.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "inference/engine/backend/backend_loader.h"
#include "inference/engine/backend/memory_estimate.h"
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

int cudaStoredFormat(TensorType type) {
  switch (type) {
    case TensorType::F32:
      return TS_CUDA_W_F32;
    case TensorType::F16:
      return TS_CUDA_W_F16;
    case TensorType::BF16:
      return TS_CUDA_W_BF16;
    case TensorType::Q4_0:
      return TS_CUDA_W_GGUF_Q4_0;
    case TensorType::Q8_0:
      return TS_CUDA_W_GGUF_Q8_0;
    case TensorType::Q4_K:
      return TS_CUDA_W_GGUF_Q4_K;
    case TensorType::Q5_K:
      return TS_CUDA_W_GGUF_Q5_K;
    case TensorType::Q6_K:
      return TS_CUDA_W_GGUF_Q6_K;
    default:  // Q4_1, Q5_0, Q5_1, Q2_K, Q3_K: converted to q8_0
      return -1;
  }
}

size_t cudaUploadBytes(const StoredMatrix& m) {
  TsCudaMatrix v{};
  const int stored = cudaStoredFormat(m.type);
  v.format = stored >= 0 ? stored : TS_CUDA_W_Q8_0;
  v.rows = m.rows;
  v.cols = m.cols;
  v.group = 32;
  return cuda::matrixBytes(v);
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

TsCudaMatrix CudaModelView::view(const QuantMatrix& m) {
  const bool stored = m.format() == WeightFormat::Stored;
  // BF16 goes up as stored where cuBLAS's f16 inputs hold its values (prefill dequantizes
  // to f16) and its rows are whole 32-element sub-blocks; else converted, below.
  const bool bf16_as_stored =
      !stored || m.storedType() != TensorType::BF16 || (m.cols() % 32 == 0 && bf16FitsF16(m));
  if (stored && m.rowScales().empty() && bf16_as_stored) {
    if (const int format = cudaStoredFormat(m.storedType()); format >= 0) {
      // The file's rows as they are: the mapped bytes themselves, or (where the CPU holds
      // the matrix in its panels) one copy of the rows in the file's order.
      TsCudaMatrix v{};
      v.format = format;
      v.rows = m.rows();
      v.cols = m.cols();
      v.group = 32;
      if (m.panelled()) {
        stored_rows_.push_back(m.storedRows());
        v.data = stored_rows_.back().data();
      } else {
        v.data = m.storage();
      }
      return v;
    }
  }
  if (!stored && m.rowScales().empty() && !m.panelled()) return cudaMatrixView(m);
  // Converted: a stored type without a kernel (Q4_1, Q5_0, Q5_1, Q2_K, Q3_K -> q8_0, at
  // least as precise), a BF16 matrix with a value past f16's range or a partial sub-block,
  // a NormHead's row scales applied (F16 / BF16 -> f16, or f32 where a value passes f16's
  // range; F32 -> f32; quantized -> q8_0), or the arrays out of the CPU's panels.
  WeightFormat format = m.format();
  if (stored) switch (m.storedType()) {
      case TensorType::F16:
      case TensorType::BF16:
        format = bf16FitsF16(m) ? WeightFormat::F16 : WeightFormat::F32;
        break;
      case TensorType::F32:
        format = WeightFormat::F32;
        break;
      default:
        format = WeightFormat::Q8_0;
    }
  converted_.push_back(
      std::make_unique<QuantMatrix>(m.converted(format, m.group()).withoutPanels()));
  return cudaMatrixView(*converted_.back());
}

CudaModelView::CudaModelView(const Model& m) {
  setShape(m.config);
  const QuantMatrix& table = m.token_embd;
  if (table.format() == WeightFormat::F32) {
    model_.token_embd = table.f32Data();
  } else if (table.format() == WeightFormat::Stored && table.storedType() == TensorType::F32) {
    model_.token_embd = static_cast<const float*>(table.storage());
  } else {
    // To f32 (the device gathers f32 rows), split over the cores: a 13B's 125,696 rows
    // would take seconds on one.
    embedding_.resize(static_cast<size_t>(table.rows()) * table.cols());
    const int workers = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 16u));
    std::vector<std::exception_ptr> failures(workers);
    std::vector<std::thread> threads;
    const auto convert = [&](int w) {
      try {
        for (int r = w; r < table.rows(); r += workers)
          table.rowF32(r, embedding_.data() + static_cast<size_t>(r) * table.cols());
      } catch (...) {  // memory: thrown again on this thread once all have joined
        failures[w] = std::current_exception();
      }
    };
    for (int w = 1; w < workers; ++w) {
      try {
        threads.emplace_back(convert, w);
      } catch (const std::system_error&) {  // no thread to be had: this one does its rows
        convert(w);
      }
    }
    convert(0);
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& f : failures)
      if (f) std::rethrow_exception(f);
    model_.token_embd = embedding_.data();
  }
  model_.output_norm = m.output_norm.data();
  model_.classifier = view(m.classifier);
  for (const LayerWeights& w : m.layers)
    layers_.push_back({w.attn_norm.data(), view(w.wq), view(w.wk), view(w.wv), view(w.wo),
                       w.ffn_norm.data(), view(w.w_gate), view(w.w_up), view(w.w_down)});
  model_.layers = layers_.data();
}

void CudaModelView::setRandomLayers(const ModelConfig& c,
                                    const std::function<TsCudaMatrix(int, int)>& matrix) {
  setShape(c);
  const int q = c.n_heads * c.head_dim, kv = c.n_kv_heads * c.head_dim;
  model_.classifier = matrix(c.vocab, c.dim);
  for (int l = 0; l < c.n_layers; ++l)
    layers_.push_back({nullptr, matrix(q, c.dim), matrix(kv, c.dim), matrix(kv, c.dim),
                       matrix(c.dim, q), nullptr, matrix(c.ffn_dim, c.dim),
                       matrix(c.ffn_dim, c.dim), matrix(c.dim, c.ffn_dim)});
  model_.layers = layers_.data();
}

CudaModelView::CudaModelView(const ModelConfig& c, WeightFormat format, int group,
                             unsigned long long seed) {
  model_.random_seed = seed ? seed : 1;
  setRandomLayers(c, [&](int rows, int cols) { return shapeOnly(format, rows, cols, group); });
}

CudaModelView::CudaModelView(const ModelConfig& c, TensorType stored, unsigned long long seed) {
  model_.random_seed = seed ? seed : 1;
  const int format = cudaStoredFormat(stored);
  if (format < 0)
    throw std::invalid_argument("CudaModelView: the device reads no " + typeName(stored) +
                                " rows as stored");
  setRandomLayers(c, [&](int rows, int cols) {
    TsCudaMatrix m{};
    m.format = format;
    m.rows = rows;
    m.cols = cols;
    m.group = 32;
    return m;
  });
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
  for (int t : tokens)
    if (t < 0 || t >= vocab_)
      throw std::runtime_error("forward: token " + std::to_string(t) +
                               " outside the vocabulary of " + std::to_string(vocab_));
  if (const int rc = api_->session_forward(session_, tokens.data(), n, pos, all_logits ? 1 : 0,
                                           logits_.data(), error, sizeof error);
      rc != 0) {
    failed_ = rc == 2;  // the device's state is unknown (else: memory, an argument)
    throw std::runtime_error(std::string("CUDA: ") + error);
  }
  return logits_;
}

void CudaSession::truncate(int length) {
  char error[1024] = {};
  if (api_->session_truncate(session_, length, error, sizeof error) != 0)
    throw std::runtime_error(std::string("CUDA: ") + error);
}

}  // namespace ts::engine
