// libtokenscope_fault_plugin.so: a stand-in for the CUDA plugin that fails the way a
// device does, for testing how the engine, the CLI and the app handle a CUDA failure
// mid-generation on machines without a GPU (TOKENSCOPE_CUDA_PLUGIN points at it). Plain
// C++, no CUDA. It reports one device, checks models with the real plugin's rules
// (plugin_model_checks.h) and estimates with its figures (memory_estimate.h); a session's
// passes give logits that pick token (position * 7 + 11) mod vocab, until forward call
// number TOKENSCOPE_FAULT_AT_FORWARD (default 3) fails with an illegal address, worded as
// the real plugin words a fault seen at a pass's synchronize, and returns 2 (failed on the
// device); every later call refuses, as the real session does. Only the first
// TOKENSCOPE_FAULT_SESSIONS sessions of the process fault (default: every one), so that a
// session opened in place of a failed one can run. It never claims to compute anything: ops and
// copies refuse.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "inference/engine/backend/memory_estimate.h"
#include "inference/engine/backend/plugin_abi.h"
#include "inference/engine/backend/plugin_model_checks.h"

struct TsCudaSession {
  int vocab = 0;
  int forwards = 0;
  int fail_at = 3;
  std::string failed;
};

namespace {

int say(char* error, size_t len, const std::string& text) {
  if (error && len) std::snprintf(error, len, "%s", text.c_str());
  return 1;
}

int probe(TsCudaProbe* p) {
  std::memset(p, 0, sizeof *p);
  p->abi_version = TOKENSCOPE_CUDA_ABI_VERSION;
  p->runtime_version = p->driver_version = 13000;
  p->device_count = 1;
  std::snprintf(p->devices[0].name, sizeof p->devices[0].name,
                "TokenScope fault-injecting test device");
  p->devices[0].total_bytes = size_t{80} << 30;
  p->devices[0].compute_major = 9;
  return 0;
}

int estimate(const TsCudaModel* m, const TsCudaSessionOptions* o, TsCudaMemory* memory, char* error,
             size_t len) {
  if (!m || !o || !memory) return say(error, len, "estimate: expected a model, options and memory");
  if (std::string problem = ts::cuda::modelProblem(*m); !problem.empty())
    return say(error, len, "estimate: " + problem);
  *memory = ts::cuda::estimateMemory(*m, *o);
  memory->device_total = memory->device_free = size_t{80} << 30;
  return 0;
}

int sessionCreate(const TsCudaModel* m, const TsCudaSessionOptions* o, TsCudaSession** session,
                  char* error, size_t len) {
  if (!m || !o || !session) return say(error, len, "session_create: expected a model and options");
  if (std::string problem = ts::cuda::modelProblem(*m); !problem.empty())
    return say(error, len, "session_create: " + problem);
  static int created = 0;  // sessions of this process
  auto* s = new TsCudaSession;
  s->vocab = m->vocab;
  if (const char* at = std::getenv("TOKENSCOPE_FAULT_AT_FORWARD")) s->fail_at = std::atoi(at);
  const char* faulting = std::getenv("TOKENSCOPE_FAULT_SESSIONS");
  ++created;
  if (faulting && created > std::atoi(faulting)) s->fail_at = -1;
  *session = s;
  return 0;
}

void sessionDestroy(TsCudaSession* s) {
  delete s;
}

int sessionForward(TsCudaSession* s, const int* tokens, int count, int pos, int all_logits,
                   float* logits, char* error, size_t len) {
  if (!s || !tokens || !logits || count <= 0)
    return say(error, len, "session_forward: expected a session, tokens and logits");
  if (!s->failed.empty())
    return 1 + say(error, len,
                   "this session failed earlier (" + s->failed +
                       "); the device's state is unknown: destroy the session and create another");
  if (++s->forwards == s->fail_at) {
    s->failed =
        "cudaStreamSynchronize(stream_): an illegal memory access was encountered (CUDA "
        "error 700 at fault_plugin.cpp) in a pass of " +
        std::to_string(count) + " position(s) at " + std::to_string(pos) +
        "; kernels run asynchronously: run again with TOKENSCOPE_CUDA_SYNC=1 to name the "
        "failing one";
    return 1 + say(error, len, s->failed);  // 2: failed on the device
  }
  const int rows = all_logits ? count : 1, first = pos + count - rows;
  for (int r = 0; r < rows; ++r) {
    float* row = logits + static_cast<size_t>(r) * s->vocab;
    std::fill(row, row + s->vocab, 0.f);
    row[((first + r) * 7 + 11) % s->vocab] = 1.f;
  }
  return 0;
}

int sessionTruncate(TsCudaSession* s, int, char* error, size_t len) {
  return s ? 0 : say(error, len, "session_truncate: expected a session");
}

int copyBandwidth(int, size_t, int, double*, char* error, size_t len) {
  return say(error, len, "copy_bandwidth: not in the fault-injecting test plugin");
}
int opEmbedding(const float*, int, int, const int*, int, float*, char* error, size_t len) {
  return say(error, len, "op_embedding: not in the fault-injecting test plugin");
}
int opRmsnorm(const float*, const float*, int, int, float, float*, char* error, size_t len) {
  return say(error, len, "op_rmsnorm: not in the fault-injecting test plugin");
}
int opRope(float*, int, int, int, int, int, float, char* error, size_t len) {
  return say(error, len, "op_rope: not in the fault-injecting test plugin");
}
int opSwiglu(const float*, const float*, size_t, float*, char* error, size_t len) {
  return say(error, len, "op_swiglu: not in the fault-injecting test plugin");
}
int opMatmul(const TsCudaMatrix*, const float*, int, const float*, int, float*, char* error,
             size_t len) {
  return say(error, len, "op_matmul: not in the fault-injecting test plugin");
}
int opAttention(const TsCudaAttentionOp*, char* error, size_t len) {
  return say(error, len, "op_attention: not in the fault-injecting test plugin");
}

const TsCudaApi kApi = {TOKENSCOPE_CUDA_ABI_VERSION,
                        probe,
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

extern "C" __attribute__((visibility("default"))) int tokenscope_cuda_probe(TsCudaProbe* p) {
  return probe(p);
}
extern "C" __attribute__((visibility("default"))) const TsCudaApi* tokenscope_cuda_api(void) {
  return &kApi;
}
