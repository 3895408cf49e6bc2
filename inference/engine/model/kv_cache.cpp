#include "inference/engine/model/kv_cache.h"

#include "inference/engine/cpu/kernels/kernels.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>

#include "inference/engine/core/tensor_types.h"
#include "inference/engine/model/kv_int8.h"

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

namespace {

// K and V of `rows` rows of head_dim values (int8: and a scale per row).
size_t kvBytes(KvFormat format, size_t rows, int head_dim) {
  const size_t per_value = format == KvFormat::F32 ? 4 : format == KvFormat::F16 ? 2 : 1;
  return 2 * rows * (head_dim * per_value + (format == KvFormat::Int8 ? 4 : 0));
}

}  // namespace

void KvBlock::allocate(KvFormat format, size_t rows, int head_dim) {
  const size_t n = rows * head_dim;
  switch (format) {
    case KvFormat::F32:
      kf.assign(n, 0.f);
      vf.assign(n, 0.f);
      break;
    case KvFormat::F16:
      kh.assign(n, 0);
      vh.assign(n, 0);
      break;
    case KvFormat::Int8:
      kq.assign(n, 0);
      vq.assign(n, 0);
      k_scale.assign(rows, 0.f);
      v_scale.assign(rows, 0.f);
      break;
  }
}

KvBlockPool::KvBlockPool(int blocks, int layers, int kv_heads, int head_dim, KvFormat format)
    : format_(format),
      layers_(layers),
      kv_heads_(kv_heads),
      head_dim_(head_dim),
      blocks_(std::max(blocks, 0)) {}

namespace {
std::atomic<int> failing_allocations{0};

// The test hook's turn: true (and one fewer to go) while failures are armed.
bool injectedFailure() {
  int n = failing_allocations.load();
  while (n > 0)
    if (failing_allocations.compare_exchange_weak(n, n - 1)) return true;
  return false;
}
}  // namespace

void testing::failKvBlockAllocations(int count) {
  failing_allocations = std::max(count, 0);
}

size_t kvBlockBytes(KvFormat format, int layers, int kv_heads, int head_dim) {
  return kvBytes(format, static_cast<size_t>(layers) * kKvBlock * kv_heads, head_dim);
}

KvBlock& KvBlockPool::block(int id) {
  std::unique_ptr<KvBlock>& b = blocks_.at(id);
  if (!b) {
    if (injectedFailure()) throw std::bad_alloc();
    auto fresh = std::make_unique<KvBlock>();
    fresh->allocate(format_, static_cast<size_t>(layers_) * kKvBlock * kv_heads_, head_dim_);
    b = std::move(fresh);
    ++allocated_;
  }
  return *b;
}

void KvBlockPool::allocate(std::span<const int> ids) {
  for (int id : ids) block(id);
}

void KvBlockPool::copy(int from, int to) {
  const KvBlock& source = block(from);
  block(to) = source;
}

size_t KvBlockPool::bytes() const {
  return static_cast<size_t>(allocated_) * blockBytes();
}

size_t KvBlockPool::blockBytes() const {
  return kvBlockBytes(format_, layers_, kv_heads_, head_dim_);
}

KvCache::KvCache(int layers, int positions, int kv_heads, int head_dim, KvFormat format)
    : format_(format),
      layers_(layers),
      positions_(positions),
      kv_heads_(kv_heads),
      head_dim_(head_dim),
      table_((std::max(positions, 0) + kKvBlock - 1) / kKvBlock),
      owned_(table_.size()) {}

KvCache::KvCache(KvBlockPool& pool, std::span<const int> table)
    : format_(pool.format()),
      layers_(pool.layers()),
      positions_(static_cast<int>(table.size()) * kKvBlock),
      kv_heads_(pool.kvHeads()),
      head_dim_(pool.headDim()) {
  table_.reserve(table.size());
  for (int id : table) table_.push_back(&pool.block(id));
}

KvCache::KvCache(const KvCache& o)
    : format_(o.format_),
      layers_(o.layers_),
      positions_(o.positions_),
      kv_heads_(o.kv_heads_),
      head_dim_(o.head_dim_),
      table_(o.table_.size()),
      owned_(o.table_.size()) {
  for (size_t i = 0; i < table_.size(); ++i)
    if (o.table_[i]) {
      owned_[i] = std::make_unique<Block>(*o.table_[i]);
      table_[i] = owned_[i].get();
    }
}

KvCache& KvCache::operator=(const KvCache& o) {
  if (this != &o) *this = KvCache(o);
  return *this;
}

KvCache::Block& KvCache::allocate(int pos) {
  Block*& b = table_[pos / kKvBlock];
  if (b) return *b;  // a view's blocks are all there
  auto& owned = owned_[pos / kKvBlock];
  owned = std::make_unique<Block>();
  owned->allocate(format_, static_cast<size_t>(layers_) * kKvBlock * kv_heads_, head_dim_);
  b = owned.get();
  return *b;
}

void KvCache::clear(int from, int to) {
  from = std::max(0, from);
  to = std::min(positions_, to);
  for (int pos = from; pos < to; ++pos) {
    const size_t index = pos / kKvBlock;
    Block* b = table_[index];
    if (!b) continue;
    if (pos % kKvBlock == 0 && pos + kKvBlock <= to && !owned_.empty()) {
      table_[index] = nullptr;  // the whole own block: give it back
      owned_[index].reset();
      pos += kKvBlock - 1;
      continue;
    }
    for (int layer = 0; layer < layers_; ++layer)
      for (int head = 0; head < kv_heads_; ++head) {
        const size_t r = row(layer, pos, head);
        const auto zero = [&](auto& values, size_t per_row) {
          if (!values.empty())
            std::fill(values.begin() + r * per_row, values.begin() + (r + 1) * per_row, 0);
        };
        for (auto* v : {&b->kf, &b->vf}) zero(*v, head_dim_);
        for (auto* v : {&b->kh, &b->vh}) zero(*v, head_dim_);
        for (auto* v : {&b->kq, &b->vq}) zero(*v, head_dim_);
        for (auto* v : {&b->k_scale, &b->v_scale}) zero(*v, 1);
      }
  }
}

void KvCache::copyRows(const KvCache& o, int from, int to) {
  if (format_ != o.format_ || layers_ != o.layers_ || kv_heads_ != o.kv_heads_ ||
      head_dim_ != o.head_dim_)
    throw std::invalid_argument("KvCache::copyRows: caches of different formats or shapes");
  if (from < 0 || to > positions_ || to > o.positions_)
    throw std::out_of_range("KvCache::copyRows: positions " + std::to_string(from) + ".." +
                            std::to_string(to - 1) + " outside a cache of " +
                            std::to_string(std::min(positions_, o.positions_)));
  for (int pos = from; pos < to;) {  // block by block
    const int end = std::min(to, (pos / kKvBlock + 1) * kKvBlock), n = end - pos;
    const Block* source = o.table_[pos / kKvBlock];
    Block& target = allocate(pos);
    // A (layer, head)'s rows of one block are one run: n rows from pos's row.
    const auto copy = [&](auto member, size_t per_row) {
      auto& into = target.*member;
      if (into.empty()) return;  // not this format's buffer
      for (int layer = 0; layer < layers_; ++layer)
        for (int head = 0; head < kv_heads_; ++head) {
          const size_t at = row(layer, pos, head) * per_row, count = n * per_row;
          if (source)
            std::copy_n((source->*member).begin() + at, count, into.begin() + at);
          else
            std::fill_n(into.begin() + at, count, 0);
        }
    };
    copy(&Block::kf, head_dim_);
    copy(&Block::vf, head_dim_);
    copy(&Block::kh, head_dim_);
    copy(&Block::vh, head_dim_);
    copy(&Block::kq, head_dim_);
    copy(&Block::vq, head_dim_);
    copy(&Block::k_scale, 1);
    copy(&Block::v_scale, 1);
    pos = end;
  }
}

namespace {

template <class V>
bool allZero(const V& v) {
  return std::all_of(v.begin(), v.end(), [](auto x) { return x == 0; });
}

}  // namespace

bool KvCache::operator==(const KvCache& o) const {
  if (format_ != o.format_ || layers_ != o.layers_ || positions_ != o.positions_ ||
      kv_heads_ != o.kv_heads_ || head_dim_ != o.head_dim_)
    return false;
  for (size_t i = 0; i < table_.size(); ++i) {
    const Block* a = table_[i];
    const Block* b = o.table_[i];
    if (!a && !b) continue;
    if (!a || !b) {  // a block never written equals one of zeros
      const Block& held = a ? *a : *b;
      if (!allZero(held.kf) || !allZero(held.vf) || !allZero(held.kh) || !allZero(held.vh) ||
          !allZero(held.kq) || !allZero(held.vq) || !allZero(held.k_scale) ||
          !allZero(held.v_scale))
        return false;
      continue;
    }
    if (a->kf != b->kf || a->vf != b->vf || a->kh != b->kh || a->vh != b->vh || a->kq != b->kq ||
        a->vq != b->vq || a->k_scale != b->k_scale || a->v_scale != b->v_scale)
      return false;
  }
  return true;
}

void KvCache::reserve(int from, int to) {
  for (int pos = from; pos < to; pos += kKvBlock - pos % kKvBlock) allocate(pos);
}

void KvCache::store(int layer, int pos, const float* k, const float* v) {
  Block& b = allocate(pos);
  for (int h = 0; h < kv_heads_; ++h) {
    const size_t r = row(layer, pos, h), at = r * head_dim_;
    const float* kh = k + h * head_dim_;
    const float* vh = v + h * head_dim_;
    switch (format_) {
      case KvFormat::F32:
        std::copy(kh, kh + head_dim_, b.kf.begin() + at);
        std::copy(vh, vh + head_dim_, b.vf.begin() + at);
        break;
      case KvFormat::F16:
        activeKernels().to_f16(kh, b.kh.data() + at, head_dim_);
        activeKernels().to_f16(vh, b.vh.data() + at, head_dim_);
        break;
      case KvFormat::Int8: {
        const auto quantize = [&](const float* src, int8_t* dst, float& scale) {
          float amax = 0.f;
          for (int i = 0; i < head_dim_; ++i) amax = std::max(amax, std::abs(src[i]));
          scale = kv_int8::scaleFor(amax);
          for (int i = 0; i < head_dim_; ++i) dst[i] = kv_int8::quantize(src[i], scale);
        };
        quantize(kh, b.kq.data() + at, b.k_scale[r]);
        quantize(vh, b.vq.data() + at, b.v_scale[r]);
        break;
      }
    }
  }
}

float KvCache::dotKey(int layer, int pos, int head, const float* q) const {
  const Block& b = block(pos);
  const size_t r = row(layer, pos, head), at = r * head_dim_;
  switch (format_) {
    case KvFormat::F32:
      return activeKernels().dot_f32(b.kf.data() + at, q, head_dim_);
    case KvFormat::F16:
      return activeKernels().dot_f16(b.kh.data() + at, q, head_dim_);
    case KvFormat::Int8:
      return activeKernels().dot_i8_f32(b.kq.data() + at, q, head_dim_) * b.k_scale[r];
  }
  return 0.f;
}

void KvCache::addValue(int layer, int pos, int head, float weight, float* out) const {
  const Block& b = block(pos);
  const size_t r = row(layer, pos, head), at = r * head_dim_;
  switch (format_) {
    case KvFormat::F32:
      return activeKernels().axpy_f32(out, weight, b.vf.data() + at, head_dim_);
    case KvFormat::F16:
      return activeKernels().axpy_f16(out, weight, b.vh.data() + at, head_dim_);
    case KvFormat::Int8:
      return activeKernels().axpy_i8(out, weight * b.v_scale[r], b.vq.data() + at, head_dim_);
  }
}

KvCache::Rows KvCache::rows(int layer, int from, int head, bool values) const {
  const Block& b = block(from);
  const size_t r = row(layer, from, head), at = r * head_dim_, stride = head_dim_;
  switch (format_) {
    case KvFormat::F32:
      return {Kernels::Rows::F32, (values ? b.vf : b.kf).data() + at, stride, nullptr, 0};
    case KvFormat::F16:
      return {Kernels::Rows::F16, (values ? b.vh : b.kh).data() + at, stride, nullptr, 0};
    case KvFormat::Int8:
      return {Kernels::Rows::I8, (values ? b.vq : b.kq).data() + at, stride,
              (values ? b.v_scale : b.k_scale).data() + r, 1};
  }
  return {};
}

size_t KvBlock::bytes() const {
  return (kf.size() + vf.size()) * 4 + (kh.size() + vh.size()) * 2 + kq.size() + vq.size() +
         (k_scale.size() + v_scale.size()) * 4;
}

size_t KvCache::bytes() const {
  size_t n = 0;
  for (const Block* b : table_)
    if (b) n += b->bytes();
  return n;
}

size_t KvCache::capacityBytes() const {
  return kvBytes(format_, static_cast<size_t>(layers_) * positions_ * kv_heads_, head_dim_);
}

}  // namespace ts::engine
