// Checks on the errors engine calls return: the message of a failed Result, and that a
// message says what a test expects it to say.
#pragma once
#include <string>
#include <utility>

#include "inference/engine/core/result.h"
#include "tests/inference/engine/check.h"

namespace ts::testing {

// The error of a failed result ("" when it succeeded).
template <class T>
std::string errorOf(const engine::Result<T>& r) {
  return r.ok() ? "" : r.error();
}

// The value of a result that must succeed; otherwise a FAIL line with its error, and T{} (the
// test goes on: its later checks then fail on the empty value).
template <class T>
T valueOf(engine::Result<T> r, const std::string& what) {
  if (r.ok()) return std::move(r.value());
  check(false, what + ": " + r.error());
  return T{};
}

// Passes when `got` contains `want`; the line shows the whole message.
inline void expectError(const std::string& got, const std::string& want, const std::string& what) {
  check(got.find(want) != std::string::npos, what + ": '" + got + "'");
}

}  // namespace ts::testing
