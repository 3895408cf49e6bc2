// Checks on the errors engine calls return: the message of a failed Result, and that a
// message says what a test expects it to say.
#pragma once
#include <string>

#include "inference/engine/core/result.h"
#include "tests/inference/engine/check.h"

namespace ts::testing {

// The error of a failed result ("" when it succeeded).
template <class T>
std::string errorOf(const engine::Result<T>& r) {
  return r.ok() ? "" : r.error();
}

// Passes when `got` contains `want`; the line shows the whole message.
inline void expectError(const std::string& got, const std::string& want, const std::string& what) {
  check(got.find(want) != std::string::npos, what + ": '" + got + "'");
}

}  // namespace ts::testing
