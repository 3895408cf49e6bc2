// The C ABI between the engine and the CUDA plugin (libtokenscope_cuda.so).
// Plain C types only: the engine includes this without any CUDA header. Every call that
// can fail returns 0 on success, else non-zero with a message in `error` (never a key or
// a path the user did not give; at most error_len bytes, NUL-terminated).
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TOKENSCOPE_CUDA_ABI_VERSION 3

typedef struct TsCudaDeviceInfo {
  char name[256];
  size_t total_bytes;  // device memory, bytes
  int compute_major;
  int compute_minor;
} TsCudaDeviceInfo;

typedef struct TsCudaProbe {
  int abi_version;      // out: TOKENSCOPE_CUDA_ABI_VERSION of the plugin
  int runtime_version;  // out: cudaRuntimeGetVersion, e.g. 13000
  int driver_version;   // out: cudaDriverGetVersion, 0 when no driver
  int device_count;     // out: usable devices (at most 8 described)
  TsCudaDeviceInfo devices[8];
  char error[512];  // out: the runtime's error string when device_count == 0
} TsCudaProbe;

// Fills *probe. Returns 0 when at least one device is usable, else non-zero.
typedef int (*TsCudaProbeFn)(TsCudaProbe* probe);
#define TOKENSCOPE_CUDA_PROBE_SYMBOL "tokenscope_cuda_probe"

// Weight formats, laid out exactly as the engine's QuantMatrix stores them (so the host
// arrays are copied as they are). padded = cols rounded up to 64.
enum {
  TS_CUDA_W_F32 = 0,   // data: float [rows, cols]
  TS_CUDA_W_F16 = 1,   // data: IEEE half [rows, cols]
  TS_CUDA_W_INT8 = 2,  // data: int8 [rows, padded]; scales: [rows] (per output channel)
  TS_CUDA_W_INT4 = 3,  // data: [rows, padded / 2] bytes, 32 per pair of 32-blocks: byte j
                       // holds element j of block 2p (low nibble) and of block 2p + 1
                       // (high); value = (nibble - 8) * scale; scales: [rows, ceil(padded /
                       // group)]
  TS_CUDA_W_Q8_0 = 4,  // data: int8 [rows, padded]; scales: [rows, padded / 32]
  // A GGUF's rows exactly as the file stores them (ggml's block layouts, scales inside the
  // blocks; gguf_subblocks.h decodes them): data [rows, row bytes], scales null, cols a
  // whole number of blocks (32; 256 for the K-quants).
  TS_CUDA_W_GGUF_Q4_0 = 5,  // 18-byte blocks of 32
  TS_CUDA_W_GGUF_Q8_0 = 6,  // 34-byte blocks of 32
  TS_CUDA_W_GGUF_Q4_K = 7,  // 144-byte super-blocks of 256
  TS_CUDA_W_GGUF_Q5_K = 8,  // 176-byte super-blocks of 256
  TS_CUDA_W_GGUF_Q6_K = 9,  // 210-byte super-blocks of 256
  TS_CUDA_W_BF16 = 10       // data: bfloat16 [rows, cols]
};
enum { TS_CUDA_KV_F32 = 0, TS_CUDA_KV_F16 = 1, TS_CUDA_KV_INT8 = 2 };

typedef struct TsCudaMatrix {
  int format;  // TS_CUDA_W_*
  int rows, cols;
  int group;            // int4: inputs per scale (32, 64 or 128)
  const void* data;     // host memory, see the formats above
  const float* scales;  // host memory; null for f32 / f16
} TsCudaMatrix;

typedef struct TsCudaLayer {
  const float* attn_norm;  // [dim]
  TsCudaMatrix wq, wk, wv, wo;
  const float* ffn_norm;  // [dim]
  TsCudaMatrix gate, up, down;
} TsCudaLayer;

typedef struct TsCudaModel {
  int n_layers, dim, n_heads, n_kv_heads, head_dim, ffn_dim, vocab, rope_dim;
  float rms_eps, rope_theta;
  const float* alibi_slopes;  // [n_heads]: ALiBi bias instead of RoPE; null for RoPE
  const float* token_embd;    // [vocab, dim]
  const float* output_norm;   // [dim]
  TsCudaMatrix classifier;    // [vocab, dim]
  const TsCudaLayer* layers;  // [n_layers]
  // Non-zero: every pointer above may be null and the weights are filled on the device
  // with seeded random values in the formats the matrices name (benchmarks of full-size
  // shapes without 26 GB of host weights).
  unsigned long long random_seed;
} TsCudaModel;

typedef struct TsCudaSessionOptions {
  int device;
  int max_positions;  // KV cache capacity
  int kv_format;      // TS_CUDA_KV_*
  int max_batch;      // positions per pass; longer inputs run in passes of this size
  int use_graph;      // capture passes of up to 9 positions (decode, speculative verify)
                      // into CUDA graphs, one per length
} TsCudaSessionOptions;

// Device memory a session needs, bytes (computed before anything is allocated).
typedef struct TsCudaMemory {
  size_t weights, kv_cache, workspace, total;
  size_t device_free, device_total;  // cudaMemGetInfo at that moment
} TsCudaMemory;

typedef struct TsCudaSession TsCudaSession;

// One attention call for the self-test: stores k/v rows of positions [0, pos + count)
// into a fresh cache of kv_format, then attends queries at positions pos .. pos+count-1.
typedef struct TsCudaAttentionOp {
  int kv_format, n_heads, n_kv_heads, head_dim, pos, count;
  int path;                   // 0: the session's choice, 1: split-KV decode, 2: prefill
  const float* k;             // [pos + count, n_kv_heads * head_dim]
  const float* v;             // same
  const float* q;             // [count, n_heads * head_dim]
  const float* alibi_slopes;  // [n_heads] or null
  float* out;                 // [count, n_heads * head_dim]
  float* k_read;              // [pos + count, n_kv_heads * head_dim]: the cache read back,
  float* v_read;              // dequantized (checks the int8 write); may be null
} TsCudaAttentionOp;

typedef struct TsCudaApi {
  int abi_version;
  int (*probe)(TsCudaProbe* probe);
  // What a session for `model` with `options` needs, and what the device has free.
  int (*estimate)(const TsCudaModel* model, const TsCudaSessionOptions* options,
                  TsCudaMemory* memory, char* error, size_t error_len);
  // Checks the estimate against free memory, uploads the weights, allocates the cache.
  int (*session_create)(const TsCudaModel* model, const TsCudaSessionOptions* options,
                        TsCudaSession** session, char* error, size_t error_len);
  void (*session_destroy)(TsCudaSession* session);
  // Runs tokens[i] at positions pos + i; writes the logits of the last position [vocab]
  // to `logits` (host), or with all_logits those of every position [count, vocab].
  // Returns 2 (not 1) when the pass failed on the device: the session's state is unknown
  // and it refuses every later pass (destroy it and create another).
  int (*session_forward)(TsCudaSession* session, const int* tokens, int count, int pos,
                         int all_logits, float* logits, char* error, size_t error_len);
  // Forgets positions >= length (zeros their KV rows).
  int (*session_truncate)(TsCudaSession* session, int length, char* error, size_t error_len);
  // Device-to-device copy of `bytes`, median of `iterations`: (read + written) / time.
  int (*copy_bandwidth)(int device, size_t bytes, int iterations, double* gb_per_s, char* error,
                        size_t error_len);

  // Single ops on host arrays, for the self-test against their CPU twins. Outputs are
  // poisoned (NaN) on the device before each op runs.
  int (*op_embedding)(const float* table, int vocab, int dim, const int* tokens, int count,
                      float* out, char* error, size_t error_len);
  int (*op_rmsnorm)(const float* x, const float* weight, int count, int dim, float eps, float* out,
                    char* error, size_t error_len);
  // In place on x [count, n_heads * head_dim], positions pos .. pos + count - 1.
  int (*op_rope)(float* x, int count, int n_heads, int head_dim, int rope_dim, int pos, float theta,
                 char* error, size_t error_len);
  int (*op_swiglu)(const float* gate, const float* up, size_t n, float* out, char* error,
                   size_t error_len);
  // out[count, rows] = x[count, cols] . W^T (+ residual[count, rows] when non-null).
  // path: 0 the session's choice, 1 fused dequantize matvec (count <= 9), 2 cuBLAS.
  int (*op_matmul)(const TsCudaMatrix* w, const float* x, int count, const float* residual,
                   int path, float* out, char* error, size_t error_len);
  int (*op_attention)(const TsCudaAttentionOp* op, char* error, size_t error_len);
} TsCudaApi;

// Returns the plugin's table (static storage).
typedef const TsCudaApi* (*TsCudaApiFn)(void);
#define TOKENSCOPE_CUDA_API_SYMBOL "tokenscope_cuda_api"

#ifdef __cplusplus
}
#endif
