// What a backend's decoding session offers the algorithms above it (generation loops,
// speculative decoding): run positions, read logits, forget positions. The CPU session
// implements it; the CUDA session will, so speculative decoding runs on either unchanged.
#pragma once
#include <span>

namespace ts::engine {

class DecodeSession {
 public:
  virtual ~DecodeSession() = default;
  // Runs tokens[i] at positions pos + i in one pass (positions before pos must hold the
  // tokens before). Returns the logits of the last position [vocab], or with all_logits
  // those of every position [tokens.size(), vocab]; valid until the next call.
  virtual std::span<const float> forwardBatch(std::span<const int> tokens, int pos,
                                              bool all_logits) = 0;
  // Forgets every position >= length (the KV cache as if they had never been run).
  virtual void truncate(int length) = 0;
  virtual int vocab() const = 0;
  virtual int maxPositions() const = 0;
};

}  // namespace ts::engine
