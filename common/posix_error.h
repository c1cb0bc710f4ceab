// errno becomes Status here, once: what was being done, the system's reason,
// and the code that errno maps to. No other code calls strerror.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>

#include "common/status.h"

namespace sweep {

// `err` is errno captured right after the call failed: any later call
// (close, unlink) may overwrite errno. The message is "<context>: <reason>",
// e.g. "s.yaml: cannot open study file: Permission denied", and then
// " (<hint>)" where the caller knows what the user can do about it.
// ENOSPC/EDQUOT are kResourceExhausted (the reason says "(disk full)"),
// ENOENT kNotFound, the rest kIOError.
inline Status PosixError(const std::string& context, int err, const std::string& hint = "") {
  std::string msg = context + ": " + std::strerror(err);
  if (err == ENOSPC || err == EDQUOT) msg += " (disk full)";
  if (!hint.empty()) msg += " (" + hint + ")";
  if (err == ENOSPC || err == EDQUOT) return Status::ResourceExhausted(std::move(msg));
  if (err == ENOENT) return Status::NotFound(std::move(msg));
  return Status::IOError(std::move(msg));
}

// LevelDB's env_posix shape, for a call whose name says enough:
// "<call> <path>: <reason>", e.g. "write /d/f.tmp: No space left on device
// (disk full)".
inline Status PosixError(const std::string& call, const std::string& path, int err) {
  return PosixError(call + " " + path, err);
}

}  // namespace sweep
