// Attention's products on 512-bit registers (attention_avx512.cpp), for head_dim a multiple
// of 16; kernels_avx512.cpp puts them in the AVX-512 set. Arguments as Kernels::
// attention_scores / attention_values (kernels.h). x86-64 only, and only called where the
// CPU has AVX-512.
#pragma once
#include <cstddef>

#include "inference/engine/cpu/kernels/kernels.h"

namespace ts::engine::avx512 {

void attentionScores16(Kernels::Rows type, const void* rows, size_t row_stride, int keys,
                       const float* q, size_t q_stride, int queries, int head_dim, float* s,
                       size_t s_stride);
void attentionValues16(Kernels::Rows type, const void* rows, size_t row_stride, int keys,
                       const float* p, size_t p_stride, int queries, int head_dim, float* acc,
                       size_t acc_stride);

}  // namespace ts::engine::avx512
