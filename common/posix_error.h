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
// (disk full)".
inline Status PosixError(const std::string& call, const std::string& path, int err) {
  std::string msg = call + " " + path + ": " + std::strerror(err);
  if (err == ENOSPC || err == EDQUOT) msg += " (disk full)";
  return Status::Error(msg);
}

}  // namespace sweep
