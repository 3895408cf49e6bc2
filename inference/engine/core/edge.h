// The engine's edge (inference/engine/README.md, "Errors"): what a run throws below the API
// the app calls -- the device failing mid-run ("CUDA: ..."), memory running out -- becomes an
// Error value here. A broken caller contract (std::logic_error, std::out_of_range among them)
// is a bug, not a user's error, and goes on as an exception.
#pragma once
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "inference/engine/core/result.h"

namespace ts::engine {

// Memory ran out while running the model; `doing` says for what ("for this pass of 3
// sequences"). Says what helps: the memory a run holds grows with each of these.
inline constexpr const char* kOutOfMemoryAdvice =
    "run fewer sequences at once, a smaller context or a smaller KV cache format (f16, int8)";
inline Error outOfMemory(const std::string& doing) {
  return fail("not enough memory " + doing + ": " + kOutOfMemoryAdvice);
}

// fn()'s value, or what failed below it: std::bad_alloc as outOfMemory(memory_doing), any
// other std::exception but a logic_error as its message.
template <class T, class Fn>
Result<T> caughtAtEdge(Fn&& fn, const std::string& memory_doing) {
  try {
    return fn();
  } catch (const std::logic_error&) {
    throw;  // a bug: the caller broke a contract
  } catch (const std::bad_alloc&) {
    return outOfMemory(memory_doing);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

}  // namespace ts::engine
