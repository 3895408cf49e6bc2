// The plugin's C entry points (plugin_abi.h): each checks its arguments before anything
// reaches CUDA (null pointers, counts and sizes out of range: an error naming what was
// expected and what was found), catches every exception and reports it through the
// caller's error buffer, so nothing thrown crosses the C boundary.
#include <cstdio>
#include <exception>
#include <initializer_list>
#include <new>
#include <string>

#include "cuda/cuda_session.h"
#include "cuda/plugin_ops.h"
#include "inference/engine/backend/memory_estimate.h"
#include "inference/engine/backend/plugin_abi.h"
#include "inference/engine/backend/plugin_model_checks.h"

extern "C" int tokenscope_cuda_probe(TsCudaProbe* probe);  // plugin_probe.cu

struct TsCudaSession {
  ts::cuda::Session session;
  TsCudaSession(const TsCudaModel& m, const TsCudaSessionOptions& o) : session(m, o) {}
};

namespace {

template <typename Fn>
int guarded(char* error, size_t error_len, Fn&& fn) {
  try {
    fn();
    return 0;
  } catch (const std::bad_alloc&) {
    if (error && error_len) std::snprintf(error, error_len, "out of host memory");
  } catch (const std::exception& e) {
    if (error && error_len) std::snprintf(error, error_len, "%s", e.what());
  }
  return 1;
}

// Throws CudaError "<entry>: expected <what>, found <found>" unless ok.
void require(bool ok, const char* entry, const char* what, const std::string& found) {
  if (!ok)
    throw ts::cuda::CudaError(std::string(entry) + ": expected " + what + ", found " + found);
}
void requirePointer(const void* p, const char* entry, const char* what) {
  require(p != nullptr, entry, what, "a null pointer");
}

void requireArrays(std::initializer_list<const void*> arrays, const char* entry) {
  for (const void* p : arrays) requirePointer(p, entry, "every input and output array");
}
void requireSizes(std::initializer_list<int> sizes, const char* entry, const char* what) {
  std::string found;
  bool ok = true;
  for (int n : sizes) {
    found += (found.empty() ? "" : ", ") + std::to_string(n);
    ok = ok && n > 0;
  }
  require(ok, entry, what, found);
}

void requireModel(const TsCudaModel* m, const TsCudaSessionOptions* o, const char* entry) {
  requirePointer(m, entry, "a model");
  requirePointer(o, entry, "session options");
  // Shapes, rope_dim, int4 groups and every matrix against the model's dimensions, before
  // the estimate divides by a group or the upload reads rows x cols of a host array.
  if (const std::string problem = ts::cuda::modelProblem(*m); !problem.empty())
    throw ts::cuda::CudaError(std::string(entry) + ": " + problem);
  require(o->max_positions > 0, entry, "max_positions > 0", std::to_string(o->max_positions));
  require(o->max_batch >= 0, entry, "max_batch >= 0 (0: 1)", std::to_string(o->max_batch));
  require(o->kv_format >= TS_CUDA_KV_F32 && o->kv_format <= TS_CUDA_KV_INT8, entry,
          "a KV format 0 to 2 (f32, f16, int8)", std::to_string(o->kv_format));
}

int estimate(const TsCudaModel* model, const TsCudaSessionOptions* options, TsCudaMemory* memory,
             char* error, size_t error_len) {
  return guarded(error, error_len, [&] {
    requireModel(model, options, "estimate");
    requirePointer(memory, "estimate", "a TsCudaMemory to fill");
    *memory = ts::cuda::estimateMemory(*model, *options);
    TS_CUDA(cudaSetDevice(options->device));
    TS_CUDA(cudaMemGetInfo(&memory->device_free, &memory->device_total));
  });
}

int sessionCreate(const TsCudaModel* model, const TsCudaSessionOptions* options,
                  TsCudaSession** session, char* error, size_t error_len) {
  return guarded(error, error_len, [&] {
    requirePointer(session, "session_create", "a TsCudaSession* to fill");
    *session = nullptr;
    requireModel(model, options, "session_create");
    *session = new TsCudaSession(*model, *options);
  });
}

void sessionDestroy(TsCudaSession* session) {
  delete session;
}

int sessionForward(TsCudaSession* s, const int* tokens, int count, int pos, int all_logits,
                   float* logits, char* error, size_t error_len) {
  const int rc = guarded(error, error_len, [&] {
    requirePointer(s, "session_forward", "a session");
    requirePointer(tokens, "session_forward", "tokens");
    requirePointer(logits, "session_forward", "a logits array");
    require(count > 0, "session_forward", "count > 0", std::to_string(count));
    s->session.forward(tokens, count, pos, all_logits != 0, logits);
  });
  return rc != 0 && s && s->session.failed() ? 2 : rc;  // 2: the device's state is unknown
}

int sessionTruncate(TsCudaSession* s, int length, char* error, size_t error_len) {
  return guarded(error, error_len, [&] {
    requirePointer(s, "session_truncate", "a session");
    s->session.truncate(length);
  });
}

int copyBandwidth(int device, size_t bytes, int iterations, double* gb_per_s, char* error,
                  size_t error_len) {
  return guarded(error, error_len, [&] {
    requirePointer(gb_per_s, "copy_bandwidth", "a double to fill");
    require(device >= 0, "copy_bandwidth", "a device index >= 0", std::to_string(device));
    require(bytes > 0, "copy_bandwidth", "bytes > 0", std::to_string(bytes));
    require(iterations >= 1 && iterations <= 10000, "copy_bandwidth", "1 to 10,000 iterations",
            std::to_string(iterations));
    *gb_per_s = ts::cuda::copyBandwidth(device, bytes, iterations);
  });
}

int opEmbedding(const float* table, int vocab, int dim, const int* tokens, int count, float* out,
                char* error, size_t error_len) {
  return guarded(error, error_len, [&] {
    requireArrays({table, tokens, out}, "op_embedding");
    requireSizes({vocab, dim, count}, "op_embedding", "vocab, dim and count > 0");
    ts::cuda::opEmbedding(table, vocab, dim, tokens, count, out);
  });
}
int opRmsnorm(const float* x, const float* w, int count, int dim, float eps, float* out,
              char* error, size_t error_len) {
  return guarded(error, error_len, [&] {
    requireArrays({x, w, out}, "op_rmsnorm");
    requireSizes({count, dim}, "op_rmsnorm", "count and dim > 0");
    ts::cuda::opRmsnorm(x, w, count, dim, eps, out);
  });
}
int opRope(float* x, int count, int n_heads, int head_dim, int rope_dim, int pos, float theta,
           char* error, size_t error_len) {
  return guarded(error, error_len, [&] {
    requireArrays({x}, "op_rope");
    requireSizes({count, n_heads, head_dim}, "op_rope", "count, n_heads and head_dim > 0");
    require(rope_dim >= 0 && rope_dim <= head_dim && rope_dim % 2 == 0 && pos >= 0, "op_rope",
            "an even rope_dim within head_dim and pos >= 0",
            "rope_dim " + std::to_string(rope_dim) + ", pos " + std::to_string(pos));
    ts::cuda::opRope(x, count, n_heads, head_dim, rope_dim, pos, theta);
  });
}
int opSwiglu(const float* gate, const float* up, size_t n, float* out, char* error,
             size_t error_len) {
  return guarded(error, error_len, [&] {
    requireArrays({gate, up, out}, "op_swiglu");
    ts::cuda::opSwiglu(gate, up, n, out);
  });
}
int opMatmul(const TsCudaMatrix* w, const float* x, int count, const float* residual, int path,
             float* out, char* error, size_t error_len) {
  return guarded(error, error_len, [&] {
    requireArrays({w, x, out}, "op_matmul");
    requirePointer(w->data, "op_matmul", "the matrix's data");
    if (const std::string problem = ts::cuda::matrixFormatProblem(*w); !problem.empty())
      throw ts::cuda::CudaError("op_matmul: " + problem);
    if (w->format == TS_CUDA_W_INT8 || w->format == TS_CUDA_W_INT4 || w->format == TS_CUDA_W_Q8_0)
      requirePointer(w->scales, "op_matmul", "the matrix's scales");
    requireSizes({w->rows, w->cols, count}, "op_matmul", "rows, cols and count > 0");
    require(path >= 0 && path <= 2, "op_matmul", "path 0, 1 or 2", std::to_string(path));
    ts::cuda::opMatmul(*w, x, count, residual, path, out);
  });
}
int opAttention(const TsCudaAttentionOp* op, char* error, size_t error_len) {
  return guarded(error, error_len, [&] {
    requirePointer(op, "op_attention", "a TsCudaAttentionOp");
    requireArrays({op->k, op->v, op->q, op->out}, "op_attention");
    requireSizes({op->n_heads, op->n_kv_heads, op->head_dim, op->count}, "op_attention",
                 "n_heads, n_kv_heads, head_dim and count > 0");
    require(op->pos >= 0 && op->n_heads % op->n_kv_heads == 0 && op->path >= 0 && op->path <= 2,
            "op_attention", "pos >= 0, KV heads dividing heads and path 0, 1 or 2",
            "pos " + std::to_string(op->pos) + ", " + std::to_string(op->n_heads) + " / " +
                std::to_string(op->n_kv_heads) + " heads, path " + std::to_string(op->path));
    ts::cuda::opAttention(*op);
  });
}

const TsCudaApi kApi = {TOKENSCOPE_CUDA_ABI_VERSION,
                        tokenscope_cuda_probe,
                        estimate,
                        sessionCreate,
                        sessionDestroy,
                        sessionForward,
                        sessionTruncate,
                        copyBandwidth,
                        opEmbedding,
                        opRmsnorm,
                        opRope,
                        opSwiglu,
                        opMatmul,
                        opAttention};

}  // namespace

extern "C" __attribute__((visibility("default"))) const TsCudaApi* tokenscope_cuda_api(void) {
  return &kApi;
}
