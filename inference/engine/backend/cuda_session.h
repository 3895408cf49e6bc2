// The CUDA backend behind the DecodeSession interface: the model's matrices are handed to
// the plugin (backend/plugin_abi.h) in their runtime format and uploaded once; every pass
// runs on the device and returns logits to the host. Created only through the plugin, so
// the engine itself links no CUDA library.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "inference/engine/backend/decode_session.h"
#include "inference/engine/backend/plugin_abi.h"
#include "inference/engine/model/kv_cache.h"
#include "inference/engine/model/model.h"

namespace ts::engine {

struct CudaOptions {
  int device = 0;
  int max_batch = 512;  // positions per pass; longer prompts run in several passes
  bool graph = true;    // replay the one-token step from a CUDA graph
};

// The plugin's view of one matrix (host pointers into `m`, which must outlive the call).
// Throws std::invalid_argument for a matrix in the CPU's panels (QuantMatrix::panelled):
// hand it withoutPanels(), as CudaModelView does.
TsCudaMatrix cudaMatrixView(const QuantMatrix& m);
int cudaKvFormat(KvFormat format);

// The plugin's view of a whole model. Owns the layer array and the ALiBi slopes it
// points to; the weights stay in `model`, apart from those the plugin has no kernel for:
// stored GGUF matrices become the nearest runtime format at least as precise (Q8_0 ->
// q8_0 and Q4_0 -> int4 with group 32, both exact; K-quants -> q8_0; F16 -> f16; BF16 ->
// f16, converted at upload (f32 where a value passes f16's range: bf16FitsF16); F32 ->
// f32), a NormHead's row scales are applied, and the embedding table is f32.
class CudaModelView {
 public:
  explicit CudaModelView(const Model& model);
  // A model of `config`'s shape whose weights the plugin fills on the device with seeded
  // random values in `format` (benchmarks of full-size shapes).
  CudaModelView(const ModelConfig& config, WeightFormat format, int int4_group,
                unsigned long long seed);
  // The TsCudaModel points into this object's own arrays (layers_, slopes_): a copy or a
  // move would leave it pointing at another's.
  CudaModelView(const CudaModelView&) = delete;
  CudaModelView& operator=(const CudaModelView&) = delete;
  const TsCudaModel& get() const { return model_; }

 private:
  void setShape(const ModelConfig& c);
  // m, or a copy the plugin can read (kept in converted_).
  const QuantMatrix& readable(const QuantMatrix& m);
  std::vector<std::unique_ptr<QuantMatrix>> converted_;
  WeightBuffer<float> embedding_;  // when the model's table is not f32
  TsCudaModel model_{};
  std::vector<TsCudaLayer> layers_;
  std::vector<float> slopes_;
};

// Whether every value of a matrix fits f16's finite range (|v| <= 65504): a stored BF16
// matrix goes up to the device as f16 when it does (half of f32's bytes, the f16 matvec),
// else as f32.
bool bf16FitsF16(const QuantMatrix& m);

// Device memory a session would need, and what the device has free.
Result<TsCudaMemory> estimateCudaMemory(const CudaModelView& model, int max_positions, KvFormat kv,
                                        const CudaOptions& options = {});

class CudaSession : public DecodeSession {
 public:
  // Fails with the plugin's message: no plugin or device, not enough memory (with the
  // estimate), an unsupported shape.
  static Result<std::unique_ptr<CudaSession>> create(const CudaModelView& model, int vocab,
                                                     int max_positions, KvFormat kv,
                                                     const CudaOptions& options = {});
  ~CudaSession() override;

  // Throws std::runtime_error with the plugin's message (std::out_of_range past
  // maxPositions(), as the CPU session).
  std::span<const float> forwardBatch(std::span<const int> tokens, int pos,
                                      bool all_logits = false) override;
  void truncate(int length) override;
  int vocab() const override { return vocab_; }
  int maxPositions() const override { return max_positions_; }

 private:
  CudaSession(const TsCudaApi* api, TsCudaSession* session, int vocab, int max_positions)
      : api_(api), session_(session), vocab_(vocab), max_positions_(max_positions) {}
  const TsCudaApi* api_;
  TsCudaSession* session_;
  int vocab_, max_positions_;
  std::vector<float> logits_;
};

}  // namespace ts::engine
