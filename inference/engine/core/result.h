// Errors as values: bad input (files, options) never throws out of inference/engine; a
// Result holds either a value or a message that says what was expected and what was found.
// Only a broken caller contract (a position past the KV cache) throws std::out_of_range.
#pragma once
#include <string>
#include <utility>
#include <variant>

namespace ts::engine {

struct Error {
  std::string message;
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT
  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<T>(v_); }
  const T& value() const { return std::get<T>(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const std::string& error() const { return std::get<Error>(v_).message; }

 private:
  std::variant<T, Error> v_;
};

inline Error fail(std::string message) {
  return Error{std::move(message)};
}

}  // namespace ts::engine
