// The CPU backend's per-row operations, shared by the forward pass and the CUDA
// self-test (each CUDA op is checked against its twin here).
#pragma once
#include <vector>

#include "inference/engine/model/kv_cache.h"

namespace ts::engine {

// out = x * w / sqrt(mean(x^2) + eps);  x, w, out: [n] (out may be x)
void rmsnorm(float* out, const float* x, const float* w, int n, float eps);
// Rotates adjacent pairs (x[2i], x[2i+1]) of each head by pos * theta^(-2i/rope_dim);
// the form GGUF llama/baichuan files and llama2.c checkpoints are stored for.
void rope(float* x, int n_heads, int head_dim, int rope_dim, int pos, float theta);
void softmax(float* x, int n);
// silu(gate) * up, element-wise into gate, with std::exp: the reference for Kernels::swiglu
// (which CpuSession runs) and for the CUDA plugin.
void swiglu(float* gate, const float* up, size_t n);

// One query head attending causally to positions 0 ..= at of `layer`: out[head_dim] =
// sum_t softmax(q . K[t] / sqrt(head_dim) + slope * (t - at)) V[t]. scratch: >= at + 1.
void attendHead(const KvCache& cache, int layer, const float* q, int at, int kv_head, int head_dim,
                float slope, float* scratch, float* out);

}  // namespace ts::engine
