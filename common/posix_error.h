// errno becomes Status here, once: the call that failed, the path it failed
// on, and the system's reason.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>

#include "common/status.h"

namespace sweep {

// `err` is errno captured right after `call` failed: any later call (close,
// unlink) may overwrite errno. E.g. "write /d/f.tmp: No space left on device
// (disk full)". ENOSPC/EDQUOT are kResourceExhausted, ENOENT kNotFound,
// the rest kIOError.
inline Status PosixError(const std::string& call, const std::string& path, int err) {
  std::string msg = call + " " + path + ": " + std::strerror(err);
  if (err == ENOSPC || err == EDQUOT) return Status::ResourceExhausted(msg + " (disk full)");
  if (err == ENOENT) return Status::NotFound(msg);
  return Status::IOError(msg);
}

}  // namespace sweep
