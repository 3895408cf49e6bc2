// The CUDA backend behind the DecodeSession interface: the model's matrices are handed to
// the plugin (backend/plugin_abi.h) in their runtime format and uploaded once; every pass
// runs on the device and returns logits to the host. Created only through the plugin, so
// the engine itself links no CUDA library.
#pragma once
#include <functional>
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
// points to; the weights stay in `model`: a file's stored matrices go to the device as
// stored (F32, F16, BF16, Q4_0, Q8_0, Q4_K, Q5_K, Q6_K: cudaStoredFormat), read from the
// mapped file, or from one copy of the rows where the CPU holds them in panels. Converted
// are only the stored types without a device kernel (Q4_1, Q5_0, Q5_1, Q2_K, Q3_K -> q8_0),
// a BF16 matrix with a value past f16's range (f32: prefill multiplies in f16), a NormHead
// classifier (its row scales applied: f16, f32 or q8_0), and the embedding table (f32).
class CudaModelView {
 public:
  explicit CudaModelView(const Model& model);
  // A model of `config`'s shape whose weights the plugin fills on the device with seeded
  // random values in `format` (benchmarks of full-size shapes).
  CudaModelView(const ModelConfig& config, WeightFormat format, int int4_group,
                unsigned long long seed);
  // The same with every matrix in a GGUF type the device reads as stored (Q4_K, Q6_K ...:
  // cudaStoredFormat), random values with valid block scales.
  CudaModelView(const ModelConfig& config, TensorType stored, unsigned long long seed);
  // The TsCudaModel points into this object's own arrays (layers_, slopes_): a copy or a
  // move would leave it pointing at another's.
  CudaModelView(const CudaModelView&) = delete;
  CudaModelView& operator=(const CudaModelView&) = delete;
  const TsCudaModel& get() const { return model_; }

 private:
  void setShape(const ModelConfig& c);
  void setRandomLayers(const ModelConfig& c, const std::function<TsCudaMatrix(int, int)>& matrix);
  // m as the plugin reads it: its own arrays or stored rows, or a copy (kept here).
  TsCudaMatrix view(const QuantMatrix& m);
  std::vector<std::unique_ptr<QuantMatrix>> converted_;
  std::vector<std::vector<uint8_t>> stored_rows_;  // panelled stored matrices' rows
  WeightBuffer<float> embedding_;                  // when the model's table is not f32
  TsCudaModel model_{};
  std::vector<TsCudaLayer> layers_;
  std::vector<float> slopes_;
};

// The plugin format (TS_CUDA_W_*) that reads a matrix stored as `type` as it is, or -1
// for a type the device has no kernel for (converted to q8_0).
int cudaStoredFormat(TensorType type);

// Device bytes of a stored matrix with weights "auto" (NormHead's classifier aside).
size_t cudaUploadBytes(const StoredMatrix& m);

// Whether every value of a matrix fits f16's finite range (|v| <= 65504): a NormHead
// classifier stored as BF16 or F16 goes up as f16 when it does, else as f32.
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
  // maxPositions(), as the CPU session); after that failed() is true: the plugin's
  // session refuses every later pass.
  std::span<const float> forwardBatch(std::span<const int> tokens, int pos,
                                      bool all_logits = false) override;
  void truncate(int length) override;
  int vocab() const override { return vocab_; }
  int maxPositions() const override { return max_positions_; }
  bool failed() const override { return failed_; }

 private:
  CudaSession(const TsCudaApi* api, TsCudaSession* session, int vocab, int max_positions)
      : api_(api), session_(session), vocab_(vocab), max_positions_(max_positions) {}
  const TsCudaApi* api_;
  TsCudaSession* session_;
  int vocab_, max_positions_;
  std::vector<float> logits_;
  bool failed_ = false;
};

}  // namespace ts::engine
