#include "inference/engine/formats/llama2c.h"

#include <climits>
#include <cstring>

namespace ts::engine {

Result<Llama2cLayout> parseLlama2c(std::span<const uint8_t> bytes) {
  Llama2cLayout L;
  Llama2cHeader& h = L.header;
  if (bytes.size() < 28)
    return fail("not a llama2.c checkpoint: expected a 28-byte header, found " +
                std::to_string(bytes.size()) + " bytes");
  int32_t raw[7];
  std::memcpy(raw, bytes.data(), sizeof(raw));
  h = {raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[5] > 0};
  if (h.vocab_size < 0) h.vocab_size = h.vocab_size == INT32_MIN ? 0 : -h.vocab_size;
  const auto bad = [&](const std::string& what, int32_t v) {
    return fail("not a llama2.c checkpoint: expected " + what + ", found " + std::to_string(v));
  };
  if (h.dim <= 0 || h.dim > 65536) return bad("dim in 1..65536", h.dim);
  if (h.hidden_dim <= 0 || h.hidden_dim > 262144)
    return bad("hidden_dim in 1..262144", h.hidden_dim);
  if (h.n_layers <= 0 || h.n_layers > 512) return bad("n_layers in 1..512", h.n_layers);
  if (h.n_heads <= 0 || h.dim % h.n_heads != 0) return bad("n_heads dividing dim", h.n_heads);
  if (h.n_kv_heads <= 0 || h.n_heads % h.n_kv_heads != 0)
    return bad("n_kv_heads dividing n_heads", h.n_kv_heads);
  if (h.vocab_size <= 0 || h.vocab_size > 1 << 22)
    return bad("vocab_size in 1..4194304", h.vocab_size);
  if (h.seq_len <= 0 || h.seq_len > 1 << 20) return bad("seq_len in 1..1048576", h.seq_len);

  const size_t dim = h.dim, hidden = h.hidden_dim, layers = h.n_layers, vocab = h.vocab_size;
  const size_t head = dim / h.n_heads, kv_dim = head * h.n_kv_heads;
  size_t at = 0;
  const auto take = [&at](size_t n) {
    const size_t start = at;
    at += n;
    return start;
  };
  L.token_embedding = take(vocab * dim);
  L.rms_att = take(layers * dim);
  L.wq = take(layers * dim * dim);
  L.wk = take(layers * kv_dim * dim);
  L.wv = take(layers * kv_dim * dim);
  L.wo = take(layers * dim * dim);
  L.rms_ffn = take(layers * dim);
  L.w1 = take(layers * hidden * dim);
  L.w2 = take(layers * dim * hidden);
  L.w3 = take(layers * hidden * dim);
  L.rms_final = take(dim);
  take(h.seq_len * head / 2);  // freq_cis_real, unused: RoPE is computed
  take(h.seq_len * head / 2);  // freq_cis_imag
  L.classifier = h.shared_classifier ? L.token_embedding : take(vocab * dim);
  const size_t need = 28 + at * sizeof(float);
  if (bytes.size() < need)
    return fail("truncated llama2.c checkpoint: the header (dim " + std::to_string(dim) +
                ", layers " + std::to_string(layers) + ", vocab " + std::to_string(vocab) +
                ") needs " + std::to_string(need) + " bytes, found " +
                std::to_string(bytes.size()));
  L.weights = reinterpret_cast<const float*>(bytes.data() + 28);
  return L;
}

Result<Vocabulary> parseLlama2cTokenizer(std::span<const uint8_t> bytes, int32_t vocab_size) {
  Vocabulary v;
  size_t pos = 0;
  const auto read = [&](void* out, size_t n) {
    if (bytes.size() - pos < n) return false;
    std::memcpy(out, bytes.data() + pos, n);
    pos += n;
    return true;
  };
  int32_t max_len = 0;
  if (!read(&max_len, 4) || max_len <= 0 || max_len > 65536)
    return fail("not a llama2.c tokenizer: expected a max piece length in 1..65536 first");
  v.pieces.reserve(vocab_size);
  for (int32_t i = 0; i < vocab_size; ++i) {
    float score = 0;
    int32_t len = 0;
    if (!read(&score, 4) || !read(&len, 4))
      return fail("truncated llama2.c tokenizer: expected " + std::to_string(vocab_size) +
                  " pieces, found " + std::to_string(i));
    if (len < 0 || len > max_len)
      return fail("llama2.c tokenizer piece " + std::to_string(i) + ": expected a length in 0.." +
                  std::to_string(max_len) + ", found " + std::to_string(len));
    std::string piece(static_cast<size_t>(len), '\0');
    if (!read(piece.data(), static_cast<size_t>(len)))
      return fail("truncated llama2.c tokenizer in piece " + std::to_string(i));
    const bool byte_piece = piece.size() == 6 && piece.rfind("<0x", 0) == 0 && piece[5] == '>';
    v.types.push_back(i == 0 ? 2 : (i <= 2 ? 3 : (byte_piece ? 6 : 1)));
    v.pieces.push_back(std::move(piece));
    v.scores.push_back(score);
  }
  return v;
}

}  // namespace ts::engine
