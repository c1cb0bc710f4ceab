// Status and Result<T>: the one error type at every module boundary.
// A Status is free on success (no allocation); errors carry a message that
// names the thing and the place.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace sweep {

// What kind of failure a Status is, so callers and tests branch on a code,
// never on message text (LevelDB's Status). Each foreign error space is
// converted to one of these in one function: PosixError (common/posix_error.h),
// ZmqError (common/zmq_socket.h), the SQLite conversion in storage/sqlite_util,
// and the protobuf, yaml-cpp and CUDA conversions beside their callers.
enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // the input is wrong: a study file, a flag, a message
  kNotFound,            // a file, study, trial or row that does not exist
  kCorruption,          // stored bytes that do not parse or do not match their checksum
  kIOError,             // the disk or the OS said no (ENOSPC, EACCES, EIO, ...)
  kUnavailable,         // a peer or socket that cannot be reached now
  kFailedPrecondition,  // the state forbids it (another tuner holds the study, ...)
  kResourceExhausted,   // out of memory, a size cap, a full queue
  kInternal,            // a broken invariant: a bug of ours
  kUnknown,             // a foreign error no other code fits
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) {
    if (code == StatusCode::kOk) return;
    rep_ = std::make_shared<const Rep>(Rep{code, std::move(message)});
  }
  static Status Ok() { return Status(); }
  // A foreign error with no better code (an unmapped SQLite code).
  static Status Unknown(std::string m) { return {StatusCode::kUnknown, std::move(m)}; }
  static Status InvalidArgument(std::string m) {
    return {StatusCode::kInvalidArgument, std::move(m)};
  }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status IOError(std::string m) { return {StatusCode::kIOError, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status FailedPrecondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status ResourceExhausted(std::string m) {
    return {StatusCode::kResourceExhausted, std::move(m)};
  }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  bool IsInvalidArgument() const { return code() == StatusCode::kInvalidArgument; }
  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsCorruption() const { return code() == StatusCode::kCorruption; }
  bool IsIOError() const { return code() == StatusCode::kIOError; }
  bool IsUnavailable() const { return code() == StatusCode::kUnavailable; }
  const std::string& message() const {
    static const std::string kOk = "ok";
    return rep_ ? rep_->message : kOk;
  }
  // Returns a copy whose message is prefixed by `context: `; the code stays.
  Status Wrap(const std::string& context) const {
    return ok() ? *this : Status(rep_->code, context + ": " + rep_->message);
  }

 private:
  struct Rep {
    StatusCode code;
    std::string message;
  };
  std::shared_ptr<const Rep> rep_;
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
