// Status code names and the errno conversion.
#include "common/status.h"

#include <cerrno>
#include <cstring>

namespace sweep {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kNotFound:
      return "not found";
    case StatusCode::kCorruption:
      return "corruption";
    case StatusCode::kIOError:
      return "I/O error";
    case StatusCode::kUnavailable:
      return "unavailable";
    case StatusCode::kFailedPrecondition:
      return "failed precondition";
    case StatusCode::kResourceExhausted:
      return "resource exhausted";
    case StatusCode::kInternal:
      return "internal error";
    case StatusCode::kUnknown:
      return "unknown";
  }
  return "unknown";
}

Status PosixError(const std::string& context, int error_number) {
  std::string message = context + ": " + std::strerror(error_number);
  switch (error_number) {
    case ENOENT:
      return Status::NotFound(std::move(message));
    case ENOSPC:
    case EDQUOT:
    case ENOMEM:
      return Status::ResourceExhausted(std::move(message));
    default:
      return Status::IOError(std::move(message));
  }
}

}  // namespace sweep
