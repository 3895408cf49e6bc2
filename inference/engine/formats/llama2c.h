// llama2.c checkpoints (.bin, legacy version 0: a 7 x int32 header, then f32 weights) and
// their tokenizer .bin (max piece length, then score/length/bytes per piece). Pure parsers.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "inference/engine/core/result.h"
#include "inference/engine/tokenizer/vocabulary.h"

namespace ts::engine {

struct Llama2cHeader {
  int32_t dim = 0, hidden_dim = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, vocab_size = 0,
          seq_len = 0;
  bool shared_classifier = true;  // a negative vocab_size in the file means a separate one
};

// Offsets in floats from the start of the weights (right after the header).
struct Llama2cLayout {
  Llama2cHeader header;
  size_t token_embedding = 0;  // [vocab, dim]
  size_t rms_att = 0;          // [layers, dim]
  size_t wq = 0;               // [layers, n_heads*head, dim]
  size_t wk = 0;               // [layers, n_kv_heads*head, dim]
  size_t wv = 0;               // [layers, n_kv_heads*head, dim]
  size_t wo = 0;               // [layers, dim, n_heads*head]
  size_t rms_ffn = 0;          // [layers, dim]
  size_t w1 = 0;               // [layers, hidden, dim] (gate)
  size_t w2 = 0;               // [layers, dim, hidden] (down)
  size_t w3 = 0;               // [layers, hidden, dim] (up)
  size_t rms_final = 0;        // [dim]
  size_t classifier = 0;       // [vocab, dim]; == token_embedding when shared
  const float* weights = nullptr;
};

Result<Llama2cLayout> parseLlama2c(std::span<const uint8_t> bytes);

Result<Vocabulary> parseLlama2cTokenizer(std::span<const uint8_t> bytes, int32_t vocab_size);

}  // namespace ts::engine
