// The plugin's C entry points (plugin_abi.h): each catches every exception and reports it
// through the caller's error buffer, so nothing thrown crosses the C boundary.
#include <cstdio>
#include <exception>
#include <new>

#include "cuda/cuda_session.h"
#include "cuda/plugin_ops.h"
#include "inference/engine/backend/memory_estimate.h"
#include "inference/engine/backend/plugin_abi.h"

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

int estimate(const TsCudaModel* model, const TsCudaSessionOptions* options, TsCudaMemory* memory,
             char* error, size_t error_len) {
  return guarded(error, error_len, [&] {
    *memory = ts::cuda::estimateMemory(*model, *options);
    TS_CUDA(cudaSetDevice(options->device));
    TS_CUDA(cudaMemGetInfo(&memory->device_free, &memory->device_total));
  });
}

int sessionCreate(const TsCudaModel* model, const TsCudaSessionOptions* options,
                  TsCudaSession** session, char* error, size_t error_len) {
  *session = nullptr;
  return guarded(error, error_len, [&] { *session = new TsCudaSession(*model, *options); });
}

void sessionDestroy(TsCudaSession* session) {
  delete session;
}

int sessionForward(TsCudaSession* s, const int* tokens, int count, int pos, int all_logits,
                   float* logits, char* error, size_t error_len) {
  return guarded(error, error_len,
                 [&] { s->session.forward(tokens, count, pos, all_logits != 0, logits); });
}

int sessionTruncate(TsCudaSession* s, int length, char* error, size_t error_len) {
  return guarded(error, error_len, [&] { s->session.truncate(length); });
}

int copyBandwidth(int device, size_t bytes, int iterations, double* gb_per_s, char* error,
                  size_t error_len) {
  return guarded(error, error_len,
                 [&] { *gb_per_s = ts::cuda::copyBandwidth(device, bytes, iterations); });
}

int opEmbedding(const float* table, int vocab, int dim, const int* tokens, int count, float* out,
                char* error, size_t error_len) {
  return guarded(error, error_len,
                 [&] { ts::cuda::opEmbedding(table, vocab, dim, tokens, count, out); });
}
int opRmsnorm(const float* x, const float* w, int count, int dim, float eps, float* out,
              char* error, size_t error_len) {
  return guarded(error, error_len, [&] { ts::cuda::opRmsnorm(x, w, count, dim, eps, out); });
}
int opRope(float* x, int count, int n_heads, int head_dim, int rope_dim, int pos, float theta,
           char* error, size_t error_len) {
  return guarded(error, error_len,
                 [&] { ts::cuda::opRope(x, count, n_heads, head_dim, rope_dim, pos, theta); });
}
int opSwiglu(const float* gate, const float* up, size_t n, float* out, char* error,
             size_t error_len) {
  return guarded(error, error_len, [&] { ts::cuda::opSwiglu(gate, up, n, out); });
}
int opMatmul(const TsCudaMatrix* w, const float* x, int count, const float* residual, int path,
             float* out, char* error, size_t error_len) {
  return guarded(error, error_len, [&] { ts::cuda::opMatmul(*w, x, count, residual, path, out); });
}
int opAttention(const TsCudaAttentionOp* op, char* error, size_t error_len) {
  return guarded(error, error_len, [&] { ts::cuda::opAttention(*op); });
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
