// What a backend's decoding session offers the algorithms above it (generation loops,
// speculative decoding, the serving scheduler): run positions, read logits, forget
// positions; and, where the backend pages its KV cache, passes over several sequences at
// once, each in its own blocks of a shared pool.
#pragma once
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>

namespace ts::engine {

// One sequence's share of a multi-sequence pass: tokens[i] at position pos + i of a
// sequence whose KV positions are the pool blocks `blocks` in order (kKvBlock positions
// each, covering positions 0 .. pos + tokens.size() - 1; positions before pos hold the
// sequence's earlier tokens).
struct SequencePass {
  std::span<const int> tokens;
  int pos = 0;
  std::span<const int> blocks;
  bool all_logits = false;  // every position's logits, else the last one's
};

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
  // True once a pass failed in a way that leaves the backend's state unknown (a CUDA
  // fault: the device's context may be poisoned): every later pass would fail too, so
  // the owner lets this session go and opens another (SchedulerOptions::reopen).
  virtual bool failed() const { return false; }

  // Paged KV: gives the session a pool of `blocks` blocks (replacing any before) for
  // forwardSequences; false when the backend has none. The CUDA session has none until a
  // device can verify a paged attention kernel: the scheduler then runs its sequences one
  // after another through forwardBatch.
  virtual bool usePagedKv(int /*blocks*/) { return false; }
  // Runs every pass in one forward pass: each weight is read once for all their tokens, and
  // each sequence's positions attend to its own blocks only. Returns the logits of each
  // pass in order (its last position's [vocab], or every position's with all_logits); valid
  // until the next call. Requires usePagedKv (std::logic_error otherwise).
  virtual std::span<const float> forwardSequences(std::span<const SequencePass> passes);
  // Copies every row of pool block `from` into block `to` (a prefix cache's copy on write).
  virtual void copyKvBlock(int from, int to);
  // Allocates the memory of these pool blocks now, where not yet done, so that the next
  // pass does not: std::bad_alloc when memory runs out (the scheduler then preempts
  // instead of failing the pass). Blocks allocated stay allocated.
  virtual void allocateKvBlocks(std::span<const int> /*blocks*/) {}
  // Bytes of KV cache memory allocated now (the pool's, with paged KV), and of one pool
  // block.
  virtual size_t kvCacheBytes() const { return 0; }
  virtual size_t kvBlockBytes() const { return 0; }

  // Separate prefill (the serving scheduler's prefill worker, scheduler.h), where the
  // backend has it (the CPU session); the defaults say it has not, and the scheduler then
  // keeps every prompt in its steps.
  // A second session of the same model and KV format with a KV cache of its own of
  // `max_positions` and `threads` threads of its own, to run beside this one on another
  // thread; null when the backend cannot (the default: CUDA would need a stream of its own
  // per session, out of scope for now).
  virtual std::unique_ptr<DecodeSession> spawn(int /*max_positions*/, int /*threads*/) const {
    return nullptr;
  }
  // Copies the KV rows of positions [from, to) of this session's own cache into the pool
  // blocks `table` of `paged` (a sequence's block table, kKvBlock positions per block,
  // covering `to`; `paged` a session of the same model and KV format with usePagedKv), as
  // stored: bit for bit, so that the sequence goes on exactly as if its steps had computed
  // them. std::logic_error by default.
  virtual void copyKvToBlocks(DecodeSession& paged, std::span<const int> table, int from, int to);
  // The other way: the rows of positions [from, to) held by `paged`'s pool blocks `table`
  // into this session's own cache (a cached prompt prefix for the worker to go on from).
  virtual void copyKvFromBlocks(DecodeSession& paged, std::span<const int> table, int from, int to);
};

inline std::span<const float> DecodeSession::forwardSequences(std::span<const SequencePass>) {
  throw std::logic_error("forwardSequences: this backend has no paged KV cache");
}

inline void DecodeSession::copyKvBlock(int, int) {
  throw std::logic_error("copyKvBlock: this backend has no paged KV cache");
}

inline void DecodeSession::copyKvToBlocks(DecodeSession&, std::span<const int>, int, int) {
  throw std::logic_error("copyKvToBlocks: this backend cannot copy its KV cache");
}

inline void DecodeSession::copyKvFromBlocks(DecodeSession&, std::span<const int>, int, int) {
  throw std::logic_error("copyKvFromBlocks: this backend cannot copy its KV cache");
}

}  // namespace ts::engine
