// Status and Result<T>: the one error type at every module boundary.
// A Status is free on success (no allocation); errors carry a message that
// names the thing and the place.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace sweep {

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string message) {
    Status s;
    s.message_ = std::make_shared<const std::string>(std::move(message));
    return s;
  }

  bool ok() const { return message_ == nullptr; }
  const std::string& message() const {
    static const std::string kOk = "ok";
    return message_ ? *message_ : kOk;
  }
  // Returns a copy whose message is prefixed by `context: `.
  Status Wrap(const std::string& context) const {
    return ok() ? *this : Error(context + ": " + *message_);
  }

 private:
  std::shared_ptr<const std::string> message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT
  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace sweep

#define SWEEP_CONCAT_INNER(a, b) a##b
#define SWEEP_CONCAT(a, b) SWEEP_CONCAT_INNER(a, b)

// Returns the status from the enclosing function when it is an error.
#define RETURN_IF_ERROR(expr)     \
  do {                            \
    ::sweep::Status _st = (expr); \
    if (!_st.ok()) return _st;    \
  } while (0)

// ASSIGN_OR_RETURN(auto x, MakeX()): unwraps a Result or returns its error.
#define ASSIGN_OR_RETURN(lhs, expr) ASSIGN_OR_RETURN_IMPL(SWEEP_CONCAT(_res_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()
