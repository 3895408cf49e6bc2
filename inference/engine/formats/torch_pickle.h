// The state dict inside a PyTorch checkpoint's data.pkl, read by interpreting the pickle
// symbolically: its opcodes build inert values here (numbers, strings, tuples, lists,
// dicts, names of globals), and the few calls torch.save's pickles make to rebuild tensors
// (REDUCE of an allowed function) are evaluated by this code, never by the pickle. Nothing
// is imported, created or run. An allow-list of globals (collections.OrderedDict,
// torch._utils._rebuild_tensor_v2 / _rebuild_parameter, torch._tensor._rebuild_from_type_v2,
// the storage types, torch.Size, dtypes); any other global, an opcode outside the
// protocol-2..5 subset torch writes, or a table, stack, nesting or string past its bound
// is refused with the byte where it happened.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "inference/engine/core/result.h"

namespace ts::engine {

// One tensor of the state dict, as the pickle describes it (its bytes are in the archive's
// record data/<storage_key>).
struct TorchTensorRef {
  std::string name;            // the state dict's key
  std::string storage_type;    // "BFloat16Storage", "HalfStorage", "FloatStorage", ...
  std::string storage_key;     // "0", "1", ...
  uint64_t storage_numel = 0;  // elements the storage holds (its persistent id says)
  uint64_t offset = 0;         // where the tensor starts in the storage, in elements
  std::vector<uint64_t> shape;
  std::vector<int64_t> stride;  // in elements
};

// Bounds of the interpreter; a pickle past one is refused.
struct TorchPickleLimits {
  size_t memo_entries = 1 << 20;     // BINPUT / MEMOIZE entries
  size_t values = 1 << 21;           // values built (each opcode builds at most one)
  size_t stack = 1 << 20;            // entries on the stack, marks included
  size_t container_items = 1 << 22;  // items in all tuples, lists and dicts
  size_t nesting = 200;              // containers inside containers
  size_t string_bytes = 1 << 20;     // one string or bytes value
};

// The tensors of the dict the pickle returns (a state dict: a dict or OrderedDict of name
// -> tensor; one holding a "state_dict" dict is read through it), in the pickle's order.
// Entries that are not tensors (metadata) are skipped.
Result<std::vector<TorchTensorRef>> readTorchStateDict(std::span<const uint8_t> pickle,
                                                       const TorchPickleLimits& limits = {});

}  // namespace ts::engine
