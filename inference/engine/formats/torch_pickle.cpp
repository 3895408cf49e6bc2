#include "inference/engine/formats/torch_pickle.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

namespace ts::engine {
namespace {

// What a value is. Values live in one arena and refer to each other by index, so nothing
// here recurses (a deeply nested or self-referencing pickle cannot exhaust the C++ stack,
// and freeing it is one vector).
enum class Kind { None, Bool, Int, Float, String, Tuple, List, Dict, Global, Storage, Tensor };

struct Value {
  Kind kind = Kind::None;
  int64_t i = 0;              // Bool, Int; Storage: numel
  std::string s, s2;          // String; Global: module, name; Storage: type, key
  std::vector<size_t> items;  // Tuple, List; Dict: key, value, key, value...
  size_t depth = 0;           // containers: 1 + the deepest item's depth
  // Tensor: i indexes Interpreter::tensors_ (kept apart: most values are not tensors)
};

constexpr size_t kMaxKey = 64;        // a storage key: torch writes a decimal number
constexpr size_t kMaxName = 4096;     // a state dict key
constexpr size_t kMaxDimensions = 8;  // of a tensor

// Storages of every element type torch.save writes for a state dict; those the engine does
// not multiply (F64, I16, BOOL, ...) are refused later, by name, if a model needs them.
const std::set<std::string> kStorageTypes = {
    "BFloat16Storage", "HalfStorage",  "FloatStorage", "DoubleStorage", "ByteStorage",
    "CharStorage",     "ShortStorage", "IntStorage",   "LongStorage",   "BoolStorage"};
const std::set<std::string> kDtypes = {"bfloat16", "float16", "half", "float32", "float", "int64",
                                       "long",     "int32",   "int",  "uint8",   "int8",  "bool"};

// Globals a pickle may name: the functions this reader evaluates, and inert names (storage
// types, dtypes, tensor classes) that only appear as arguments.
bool allowedGlobal(const std::string& module, const std::string& name) {
  if (module == "collections") return name == "OrderedDict";
  if (module == "torch._utils") return name == "_rebuild_tensor_v2" || name == "_rebuild_parameter";
  if (module == "torch._tensor") return name == "_rebuild_from_type_v2";
  if (module == "torch.nn.parameter") return name == "Parameter";
  if (module == "torch")
    return kStorageTypes.count(name) || kDtypes.count(name) || name == "Size" || name == "Tensor";
  return false;
}

class Interpreter {
 public:
  Interpreter(std::span<const uint8_t> bytes, const TorchPickleLimits& limits)
      : b_(bytes), limits_(limits) {}

  Result<std::vector<TorchTensorRef>> run();

 private:
  std::span<const uint8_t> b_;
  const TorchPickleLimits& limits_;
  size_t at_ = 0;  // the next byte
  size_t op_ = 0;  // where the current opcode started
  std::vector<Value> values_;
  std::vector<size_t> stack_;
  std::vector<size_t> marks_;  // stack sizes at each MARK
  std::unordered_map<uint64_t, size_t> memo_;
  std::vector<TorchTensorRef> tensors_;  // what Tensor values index
  size_t items_ = 0;

  Error error(const std::string& what) const {
    return fail("data.pkl byte " + std::to_string(op_) + ": " + what);
  }
  bool take(size_t n, const uint8_t** p) {
    if (n > b_.size() - at_) return false;
    *p = b_.data() + at_;
    at_ += n;
    return true;
  }
  std::optional<uint64_t> unsignedLe(int n) {
    const uint8_t* p;
    if (!take(n, &p)) return std::nullopt;
    uint64_t v = 0;
    for (int k = n - 1; k >= 0; --k) v = v << 8 | p[k];
    return v;
  }
  std::optional<Error> push(Value v) {
    if (values_.size() >= limits_.values)
      return error("more than " + std::to_string(limits_.values) + " values");
    values_.push_back(std::move(v));
    return pushIndex(values_.size() - 1);
  }
  std::optional<Error> pushIndex(size_t v) {
    if (stack_.size() + marks_.size() >= limits_.stack)
      return error("the stack passes " + std::to_string(limits_.stack) + " entries");
    stack_.push_back(v);
    return std::nullopt;
  }
  std::optional<size_t> pop() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() == marks_.back())) return std::nullopt;
    const size_t v = stack_.back();
    stack_.pop_back();
    return v;
  }
  // The items pushed since the last MARK, which is removed.
  std::optional<std::vector<size_t>> popMark() {
    if (marks_.empty()) return std::nullopt;
    std::vector<size_t> items(stack_.begin() + marks_.back(), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }
  // Adds items to container `c`, keeping the nesting and item bounds.
  std::optional<Error> addItems(size_t c, const std::vector<size_t>& items) {
    if (items_ + items.size() > limits_.container_items)
      return error("more than " + std::to_string(limits_.container_items) + " container items");
    items_ += items.size();
    size_t depth = values_[c].depth;
    for (size_t v : items) depth = std::max(depth, values_[v].depth + 1);
    if (depth > limits_.nesting)
      return error("containers nested deeper than " + std::to_string(limits_.nesting));
    values_[c].depth = std::max<size_t>(depth, 1);
    auto& dst = values_[c].items;
    dst.insert(dst.end(), items.begin(), items.end());
    return std::nullopt;
  }
  std::optional<Error> container(Kind kind, const std::vector<size_t>& items) {
    Value v;
    v.kind = kind;
    v.depth = 1;
    if (auto e = push(std::move(v))) return e;
    return addItems(stack_.back(), items);
  }
  std::optional<Error> string(uint64_t n) {
    if (n > limits_.string_bytes)
      return error("a string of " + std::to_string(n) + " bytes (at most " +
                   std::to_string(limits_.string_bytes) + ")");
    const uint8_t* p;
    if (!take(n, &p)) return error("a string passes the end of the pickle");
    Value v;
    v.kind = Kind::String;
    v.s.assign(reinterpret_cast<const char*>(p), n);
    return push(std::move(v));
  }
  std::optional<Error> global(std::string module, std::string name) {
    if (!allowedGlobal(module, name))
      return error("refused pickle global '" + module + "." + name +
                   "' (only tensor-rebuilding globals are read)");
    Value v;
    v.kind = Kind::Global;
    v.s = std::move(module);
    v.s2 = std::move(name);
    return push(std::move(v));
  }
  std::optional<std::string> line() {
    const size_t start = at_;
    while (at_ < b_.size() && b_[at_] != '\n') {
      if (at_ - start > 256) return std::nullopt;
      ++at_;
    }
    if (at_ >= b_.size()) return std::nullopt;
    return std::string(reinterpret_cast<const char*>(b_.data() + start), at_++ - start);
  }
  std::optional<Error> step(uint8_t op, bool& stop);
  std::optional<Error> literal(uint8_t op);
  std::optional<Error> containerOp(uint8_t op);
  std::optional<Error> memoOp(uint8_t op);
  std::optional<size_t> topContainer(Kind kind) const;
  Error truncated() const { return error("the pickle ends inside an opcode's argument"); }
  std::optional<Error> persistentLoad();
  std::optional<Error> reduce();
  Result<size_t> call(size_t callable, size_t args);
  Result<size_t> rebuildTensor(size_t args_index);  // args: a tuple value
  Result<std::vector<TorchTensorRef>> stateDict(size_t top) const;
  std::string describe(size_t v) const;
  std::optional<std::vector<uint64_t>> ints(size_t tuple) const;
};

std::string Interpreter::describe(size_t index) const {
  const Value& v = values_[index];
  switch (v.kind) {
    case Kind::None:
      return "None";
    case Kind::Bool:
      return v.i ? "True" : "False";
    case Kind::Int:
      return "the integer " + std::to_string(v.i);
    case Kind::Float:
      return "a float";
    case Kind::String:
      return "the string '" + v.s.substr(0, 64) + "'";
    case Kind::Tuple:
      return "a tuple of " + std::to_string(v.items.size()) + " items";
    case Kind::List:
      return "a list";
    case Kind::Dict:
      return "a dict";
    case Kind::Global:
      return "'" + v.s + "." + v.s2 + "'";
    case Kind::Storage:
      return "a storage";
    case Kind::Tensor:
      return "a tensor";
  }
  return "a value";
}

// A tuple (or list) of non-negative integers.
std::optional<std::vector<uint64_t>> Interpreter::ints(size_t index) const {
  const Value& v = values_[index];
  if (v.kind != Kind::Tuple && v.kind != Kind::List) return std::nullopt;
  std::vector<uint64_t> out;
  for (size_t item : v.items) {
    if (values_[item].kind != Kind::Int || values_[item].i < 0) return std::nullopt;
    out.push_back(static_cast<uint64_t>(values_[item].i));
  }
  return out;
}

// ('storage', <Storage class>, key, location, numel) -> a storage reference.
std::optional<Error> Interpreter::persistentLoad() {
  const auto pid = pop();
  if (!pid) return error("BINPERSID with an empty stack");
  const Value& t = values_[*pid];
  const auto expected = [&] {
    return error("expected a persistent id ('storage', type, key, location, size), found " +
                 describe(*pid));
  };
  if (t.kind != Kind::Tuple || t.items.size() != 5) return expected();
  const Value &tag = values_[t.items[0]], &type = values_[t.items[1]], &key = values_[t.items[2]],
              &numel = values_[t.items[4]];
  if (tag.kind != Kind::String || tag.s != "storage" || key.kind != Kind::String ||
      values_[t.items[3]].kind != Kind::String || numel.kind != Kind::Int || numel.i < 0)
    return expected();
  if (type.kind != Kind::Global || type.s != "torch" || !kStorageTypes.count(type.s2))
    return error("expected a storage type (" + std::string("BFloat16Storage, HalfStorage, ...") +
                 "), found " + describe(t.items[1]));
  if (key.s.size() > kMaxKey)
    return error("expected a storage key of at most " + std::to_string(kMaxKey) +
                 " bytes, found one of " + std::to_string(key.s.size()));
  Value v;
  v.kind = Kind::Storage;
  v.s = type.s2;
  v.s2 = key.s;
  v.i = numel.i;
  return push(std::move(v));
}

// _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata])
Result<size_t> Interpreter::rebuildTensor(size_t args_index) {
  const std::vector<size_t>& a = values_[args_index].items;  // read before any push
  if (a.size() < 4 || a.size() > 7)
    return error(
        "_rebuild_tensor_v2: expected 4 to 7 arguments (storage, offset, size, stride, ...), "
        "found " +
        std::to_string(a.size()));
  if (values_[a[0]].kind != Kind::Storage)
    return error("_rebuild_tensor_v2: expected a storage, found " + describe(a[0]));
  if (values_[a[1]].kind != Kind::Int || values_[a[1]].i < 0)
    return error("_rebuild_tensor_v2: expected a storage offset, found " + describe(a[1]));
  // the lengths first: ints() walks the whole tuple
  const auto shortTuple = [&](size_t v) {
    return values_[v].items.size() <= kMaxDimensions ? ints(v) : std::nullopt;
  };
  const auto shape = shortTuple(a[2]), stride = shortTuple(a[3]);
  if (!shape || !stride || shape->size() != stride->size())
    return error("_rebuild_tensor_v2: expected a size and a stride of equal length (at most " +
                 std::to_string(kMaxDimensions) + " non-negative integers), found " +
                 describe(a[2]) + " and " + describe(a[3]));
  const Value& storage = values_[a[0]];
  TorchTensorRef t;
  t.storage_type = storage.s;
  t.storage_key = storage.s2;
  t.storage_numel = static_cast<uint64_t>(storage.i);
  t.offset = static_cast<uint64_t>(values_[a[1]].i);
  t.shape = *shape;
  t.stride.assign(stride->begin(), stride->end());
  Value v;
  v.kind = Kind::Tensor;
  v.i = static_cast<int64_t>(tensors_.size());
  tensors_.push_back(std::move(t));
  if (auto e = push(std::move(v))) return *e;
  return *pop();
}

Result<size_t> Interpreter::call(size_t callable, size_t args_index) {
  const Value& f = values_[callable];
  const Value& args = values_[args_index];
  if (f.kind != Kind::Global)
    return error("REDUCE: expected a callable global, found " + describe(callable));
  if (args.kind != Kind::Tuple)
    return error("REDUCE: expected an argument tuple, found " + describe(args_index));
  const std::vector<size_t>& a = args.items;  // only read before anything is pushed
  const std::string name = f.s + "." + f.s2;
  if (name == "collections.OrderedDict") {
    if (!a.empty())
      return error("OrderedDict: expected no arguments, found " + std::to_string(a.size()));
    if (auto e = container(Kind::Dict, {})) return *e;
    return *pop();
  }
  if (name == "torch._utils._rebuild_tensor_v2") return rebuildTensor(args_index);
  if (name == "torch._utils._rebuild_parameter") {  // (data, requires_grad, hooks)
    if (a.empty() || values_[a[0]].kind != Kind::Tensor)
      return error("_rebuild_parameter: expected a tensor, found " +
                   (a.empty() ? std::string("no arguments") : describe(a[0])));
    return a[0];
  }
  if (name == "torch._tensor._rebuild_from_type_v2") {  // (func, type, args, state)
    if (a.size() != 4 || values_[a[0]].kind != Kind::Global ||
        values_[a[0]].s2 != "_rebuild_tensor_v2" || values_[a[2]].kind != Kind::Tuple)
      return error(
          "_rebuild_from_type_v2: expected (_rebuild_tensor_v2, type, args, state), found " +
          describe(args_index) + (a.empty() ? std::string() : " starting with " + describe(a[0])));
    return rebuildTensor(a[2]);
  }
  if (name == "torch.Size") {  // torch.Size((rows, cols)) -> the tuple
    if (a.size() != 1 || values_[a[0]].items.size() > kMaxDimensions || !ints(a[0]))
      return error("torch.Size: expected one tuple of at most " + std::to_string(kMaxDimensions) +
                   " sizes, found " + describe(args_index));
    return a[0];
  }
  return error("refused pickle call of '" + name +
               "' (only tensor-rebuilding functions are called)");
}

std::optional<Error> Interpreter::reduce() {
  const auto args = pop();
  const auto callable = args ? pop() : std::nullopt;
  if (!callable) return error("REDUCE with fewer than 2 values on the stack");
  auto result = call(*callable, *args);
  if (!result) return Error{result.error()};
  return pushIndex(result.value());
}

// N, NEWTRUE / NEWFALSE, the integers, BINFLOAT and the strings: a value from the bytes.
std::optional<Error> Interpreter::literal(uint8_t op) {
  Value v;
  switch (op) {
    case 'N':
      return push(Value{});
    case 0x88:  // NEWTRUE
    case 0x89:  // NEWFALSE
      v.kind = Kind::Bool;
      v.i = op == 0x88;
      return push(std::move(v));
    case 'J':    // BININT: 4 bytes, signed
    case 'K':    // BININT1
    case 'M': {  // BININT2
      const auto n = unsignedLe(op == 'J' ? 4 : op == 'K' ? 1 : 2);
      if (!n) return truncated();
      v.kind = Kind::Int;
      v.i = op == 'J' ? static_cast<int32_t>(*n) : static_cast<int64_t>(*n);
      return push(std::move(v));
    }
    case 0x8a: {  // LONG1: n bytes, little-endian two's complement
      const auto n = unsignedLe(1);
      if (!n) return truncated();
      if (*n > 8) return error("an integer of " + std::to_string(*n) + " bytes (at most 8)");
      const auto raw = *n > 0 ? unsignedLe(static_cast<int>(*n)) : std::optional<uint64_t>(0);
      if (!raw) return truncated();
      v.kind = Kind::Int;
      v.i = static_cast<int64_t>(*raw);
      if (*n > 0 && *n < 8 && (*raw >> (8 * *n - 1)) & 1)  // negative: extend the sign
        v.i = static_cast<int64_t>(*raw | ~uint64_t{0} << (8 * *n));
      return push(std::move(v));
    }
    case 'G': {  // BINFLOAT: big-endian double
      const uint8_t* p;
      if (!take(8, &p)) return truncated();
      uint64_t raw = 0;
      for (int k = 0; k < 8; ++k) raw = raw << 8 | p[k];
      v.kind = Kind::Float;
      v.i = static_cast<int64_t>(raw);  // the bits; no caller needs the number
      return push(std::move(v));
    }
    default: {  // the strings: BINUNICODE, BINSTRING, BINBYTES (4-byte length), their
                // SHORT_ forms (1 byte), BINUNICODE8 / BINBYTES8 (8 bytes)
      const int length = op == 'X' || op == 'T' || op == 'B' ? 4 : op == 0x8d || op == 0x8e ? 8 : 1;
      const auto n = unsignedLe(length);
      return n ? string(*n) : truncated();
    }
  }
}

// The container on the stack's top, when it is a `kind` (APPEND[S] into a list, SETITEM[S]
// into a dict).
std::optional<size_t> Interpreter::topContainer(Kind kind) const {
  if (stack_.empty() || (!marks_.empty() && stack_.size() == marks_.back()) ||
      values_[stack_.back()].kind != kind)
    return std::nullopt;
  return stack_.back();
}

// Tuples, lists and dicts: made empty, from the marked items or the top values, or grown.
std::optional<Error> Interpreter::containerOp(uint8_t op) {
  switch (op) {
    case ')':
      return container(Kind::Tuple, {});
    case ']':
      return container(Kind::List, {});
    case '}':
      return container(Kind::Dict, {});
    case 't':    // TUPLE
    case 'l':    // LIST
    case 'd': {  // DICT
      auto items = popMark();
      if (!items) return error("a TUPLE, LIST or DICT without a MARK");
      if (op == 'd' && items->size() % 2) return error("DICT with an odd number of items");
      return container(op == 't' ? Kind::Tuple : op == 'l' ? Kind::List : Kind::Dict, *items);
    }
    case 'e':    // APPENDS
    case 'u': {  // SETITEMS
      auto items = popMark();
      if (!items) return error("APPENDS or SETITEMS without a MARK");
      if (op == 'u' && items->size() % 2) return error("SETITEMS with an odd number of items");
      const auto into = topContainer(op == 'e' ? Kind::List : Kind::Dict);
      if (!into)
        return error(op == 'e' ? "APPENDS to something other than a list"
                               : "SETITEMS on something other than a dict");
      return addItems(*into, *items);
    }
    default: {  // TUPLE1..3 (0x85..0x87), APPEND ('a'), SETITEM ('s'): from the top values
      const bool grow = op == 'a' || op == 's';
      std::vector<size_t> items(op == 'a' ? 1 : op == 's' ? 2 : op - 0x84);
      for (size_t k = items.size(); k-- > 0;) {
        const auto v = pop();
        if (!v) return error("a TUPLE1..3, APPEND or SETITEM with too few values");
        items[k] = *v;
      }
      if (!grow) return container(Kind::Tuple, items);
      const auto into = topContainer(op == 'a' ? Kind::List : Kind::Dict);
      if (!into)
        return error(op == 'a' ? "APPEND to something other than a list"
                               : "SETITEM on something other than a dict");
      return addItems(*into, items);
    }
  }
}

// BINPUT, LONG_BINPUT and MEMOIZE store the top value; BINGET and LONG_BINGET push one.
std::optional<Error> Interpreter::memoOp(uint8_t op) {
  if (op == 'h' || op == 'j') {
    const auto n = unsignedLe(op == 'h' ? 1 : 4);
    if (!n) return truncated();
    const auto it = memo_.find(*n);
    if (it == memo_.end()) return error("memo entry " + std::to_string(*n) + " was never stored");
    return pushIndex(it->second);
  }
  const auto n = op == 0x94 ? std::optional<uint64_t>(memo_.size()) : unsignedLe(op == 'q' ? 1 : 4);
  if (!n) return truncated();
  if (stack_.empty()) return error("a memo store with an empty stack");
  if (!memo_.count(*n) && memo_.size() >= limits_.memo_entries)
    return error("more than " + std::to_string(limits_.memo_entries) + " memo entries");
  memo_[*n] = stack_.back();
  return std::nullopt;
}

std::optional<Error> Interpreter::step(uint8_t op, bool& stop) {
  switch (op) {
    case 0x80: {  // PROTO
      const auto n = unsignedLe(1);
      if (!n) return truncated();
      if (*n < 2 || *n > 5)
        return error("expected pickle protocol 2 to 5, found " + std::to_string(*n));
      return std::nullopt;
    }
    case 0x95:  // FRAME: a length hint
      return unsignedLe(8) ? std::optional<Error>() : truncated();
    case '.':  // STOP
      stop = true;
      return std::nullopt;
    case '(':  // MARK
      if (stack_.size() + marks_.size() >= limits_.stack)
        return error("the stack passes " + std::to_string(limits_.stack) + " entries");
      marks_.push_back(stack_.size());
      return std::nullopt;
    case '0':  // POP
      return pop() ? std::optional<Error>() : error("POP with an empty stack");
    case '1':  // POP_MARK
      return popMark() ? std::optional<Error>() : error("POP_MARK without a MARK");
    case '2': {  // DUP
      const auto top = pop();
      if (!top) return error("DUP with an empty stack");
      stack_.push_back(*top);
      return pushIndex(*top);
    }
    case 'N':
    case 0x88:
    case 0x89:
    case 'J':
    case 'K':
    case 'M':
    case 0x8a:
    case 'G':
    case 'X':
    case 'T':
    case 'B':
    case 0x8c:
    case 'U':
    case 'C':
    case 0x8d:
    case 0x8e:
      return literal(op);
    case ')':
    case ']':
    case '}':
    case 't':
    case 'l':
    case 'd':
    case 0x85:
    case 0x86:
    case 0x87:
    case 'a':
    case 's':
    case 'e':
    case 'u':
      return containerOp(op);
    case 'q':
    case 'r':
    case 0x94:
    case 'h':
    case 'j':
      return memoOp(op);
    case 'c': {  // GLOBAL: "module\nname\n"
      auto module = line();
      auto name = module ? line() : std::nullopt;
      if (!name) return error("GLOBAL: expected 'module\\nname\\n', found a cut or overlong name");
      return global(*module, *name);
    }
    case 0x93: {  // STACK_GLOBAL
      const auto name = pop();
      const auto module = name ? pop() : std::nullopt;
      if (!module || values_[*name].kind != Kind::String || values_[*module].kind != Kind::String)
        return error(
            "STACK_GLOBAL: expected a module and a name (two strings) on the stack, found " +
            (module ? describe(*module) + " and " + describe(*name)
                    : std::string("fewer than two values")));
      return global(values_[*module].s, values_[*name].s);
    }
    case 'Q':
      return persistentLoad();
    case 'R':
      return reduce();
    case 'b': {  // BUILD: state for the object below it, which keeps no state here
      const auto state = pop();
      if (!state || stack_.empty()) return error("BUILD with fewer than 2 values on the stack");
      return std::nullopt;
    }
    default: {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", op);
      return error(
          std::string("unknown or refused pickle opcode ") + hex +
          (op >= 0x20 && op < 0x7f ? std::string(" '") + static_cast<char>(op) + "'" : ""));
    }
  }
}

Result<std::vector<TorchTensorRef>> Interpreter::stateDict(size_t top) const {
  const Value* dict = &values_[top];
  if (dict->kind != Kind::Dict)
    return fail("data.pkl: expected a state dict (a dict of tensors), found " + describe(top));
  std::vector<TorchTensorRef> out;
  std::set<std::string_view> names;
  std::optional<Error> bad;
  const auto collect = [&](const Value& d) {
    for (size_t k = 0; k + 1 < d.items.size() && !bad; k += 2) {
      const Value &key = values_[d.items[k]], &value = values_[d.items[k + 1]];
      if (key.kind != Kind::String || value.kind != Kind::Tensor) continue;
      // Each name once (a state dict's keys are unique): the output is never larger than
      // the names the pickle spells out.
      if (key.s.size() > kMaxName)
        bad = fail("data.pkl: expected tensor names of at most " + std::to_string(kMaxName) +
                   " bytes, found one of " + std::to_string(key.s.size()));
      else if (!names.insert(key.s).second)
        bad = fail("data.pkl: the state dict names the tensor '" + key.s.substr(0, 64) + "' twice");
      if (bad) break;
      out.push_back(tensors_[static_cast<size_t>(value.i)]);
      out.back().name = key.s;
    }
  };
  collect(*dict);
  if (out.empty())  // {"state_dict": {...}, ...} as training scripts save
    for (size_t k = 0; k + 1 < dict->items.size(); k += 2)
      if (values_[dict->items[k]].kind == Kind::String &&
          values_[dict->items[k]].s == "state_dict" &&
          values_[dict->items[k + 1]].kind == Kind::Dict)
        collect(values_[dict->items[k + 1]]);
  if (bad) return *bad;
  if (out.empty()) return fail("data.pkl: expected a state dict of tensors, found no tensors");
  return out;
}

Result<std::vector<TorchTensorRef>> Interpreter::run() {
  bool stop = false;
  while (!stop) {
    op_ = at_;
    if (at_ >= b_.size()) return fail("data.pkl: the pickle ends without STOP (a truncated file?)");
    if (auto e = step(b_[at_++], stop)) return *e;
  }
  if (stack_.empty()) return error("STOP with an empty stack");
  return stateDict(stack_.back());
}

}  // namespace

Result<std::vector<TorchTensorRef>> readTorchStateDict(std::span<const uint8_t> pickle,
                                                       const TorchPickleLimits& limits) {
  return Interpreter(pickle, limits).run();
}

}  // namespace ts::engine
