#include "inference/engine/model/kv_cache.h"

#include "inference/engine/cpu/kernels/kernels.h"

#include <algorithm>
#include <cmath>

#include "inference/engine/core/tensor_types.h"

namespace ts::engine {

Result<KvFormat> parseKvFormat(const std::string& name) {
  if (name == "f32") return KvFormat::F32;
  if (name == "f16") return KvFormat::F16;
  if (name == "int8") return KvFormat::Int8;
  return fail("unknown KV cache format: expected f32, f16 or int8, found '" + name + "'");
}

std::string kvFormatName(KvFormat format) {
  return format == KvFormat::F16 ? "f16" : format == KvFormat::Int8 ? "int8" : "f32";
}

KvCache::KvCache(int layers, int positions, int kv_heads, int head_dim, KvFormat format)
    : format_(format),
      layers_(layers),
      positions_(positions),
      kv_heads_(kv_heads),
      head_dim_(head_dim) {
  const size_t rows = static_cast<size_t>(layers) * positions * kv_heads;
  const size_t n = rows * head_dim;
  switch (format) {
    case KvFormat::F32:
      kf_.assign(n, 0.f);
      vf_.assign(n, 0.f);
      break;
    case KvFormat::F16:
      kh_.assign(n, 0);
      vh_.assign(n, 0);
      break;
    case KvFormat::Int8:
      kq_.assign(n, 0);
      vq_.assign(n, 0);
      k_scale_.assign(rows, 0.f);
      v_scale_.assign(rows, 0.f);
      break;
  }
}

void KvCache::clear(int from, int to) {
  from = std::max(0, from);
  to = std::min(positions_, to);
  for (int layer = 0; layer < layers_ && from < to; ++layer) {
    const size_t first = row(layer, from, 0), last = row(layer, to, 0);  // [first, last) rows
    const auto zero = [&](auto& values, size_t per_row) {
      if (!values.empty())
        std::fill(values.begin() + first * per_row, values.begin() + last * per_row, 0);
    };
    for (auto* v : {&kf_, &vf_}) zero(*v, head_dim_);
    for (auto* v : {&kh_, &vh_}) zero(*v, head_dim_);
    for (auto* v : {&kq_, &vq_}) zero(*v, head_dim_);
    for (auto* v : {&k_scale_, &v_scale_}) zero(*v, 1);
  }
}

bool KvCache::operator==(const KvCache& o) const {
  return format_ == o.format_ && layers_ == o.layers_ && positions_ == o.positions_ &&
         kv_heads_ == o.kv_heads_ && head_dim_ == o.head_dim_ && kf_ == o.kf_ && vf_ == o.vf_ &&
         kh_ == o.kh_ && vh_ == o.vh_ && kq_ == o.kq_ && vq_ == o.vq_ && k_scale_ == o.k_scale_ &&
         v_scale_ == o.v_scale_;
}

void KvCache::store(int layer, int pos, const float* k, const float* v) {
  for (int h = 0; h < kv_heads_; ++h) {
    const size_t r = row(layer, pos, h), at = r * head_dim_;
    const float* kh = k + h * head_dim_;
    const float* vh = v + h * head_dim_;
    switch (format_) {
      case KvFormat::F32:
        std::copy(kh, kh + head_dim_, kf_.begin() + at);
        std::copy(vh, vh + head_dim_, vf_.begin() + at);
        break;
      case KvFormat::F16:
        for (int i = 0; i < head_dim_; ++i) {
          kh_[at + i] = f32ToF16(kh[i]);
          vh_[at + i] = f32ToF16(vh[i]);
        }
        break;
      case KvFormat::Int8: {
        const auto quantize = [&](const float* src, int8_t* dst, float& scale) {
          float amax = 0.f;
          for (int i = 0; i < head_dim_; ++i) amax = std::max(amax, std::abs(src[i]));
          scale = amax > 0 ? amax / 127.f : 1.f;
          for (int i = 0; i < head_dim_; ++i)
            dst[i] = static_cast<int8_t>(std::clamp(std::lround(src[i] / scale), -127L, 127L));
        };
        quantize(kh, kq_.data() + at, k_scale_[r]);
        quantize(vh, vq_.data() + at, v_scale_[r]);
        break;
      }
    }
  }
}

float KvCache::dotKey(int layer, int pos, int head, const float* q) const {
  const size_t r = row(layer, pos, head), at = r * head_dim_;
  float sum = 0.f;
  switch (format_) {
    case KvFormat::F32:
      return activeKernels().dot_f32(kf_.data() + at, q, head_dim_);
    case KvFormat::F16:
      return activeKernels().dot_f16(kh_.data() + at, q, head_dim_);
    case KvFormat::Int8:
      return activeKernels().dot_i8_f32(kq_.data() + at, q, head_dim_) * k_scale_[r];
  }
  return sum;
}

void KvCache::addValue(int layer, int pos, int head, float weight, float* out) const {
  const size_t r = row(layer, pos, head), at = r * head_dim_;
  switch (format_) {
    case KvFormat::F32:
      return activeKernels().axpy_f32(out, weight, vf_.data() + at, head_dim_);
    case KvFormat::F16:
      return activeKernels().axpy_f16(out, weight, vh_.data() + at, head_dim_);
    case KvFormat::Int8: {
      return activeKernels().axpy_i8(out, weight * v_scale_[r], vq_.data() + at, head_dim_);
    }
  }
}

size_t KvCache::bytes() const {
  return (kf_.size() + vf_.size()) * 4 + (kh_.size() + vh_.size()) * 2 + kq_.size() + vq_.size() +
         (k_scale_.size() + v_scale_.size()) * 4;
}

}  // namespace ts::engine
