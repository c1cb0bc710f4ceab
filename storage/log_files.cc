// Appending to per-attempt log files, within the cap.
#include "storage/log_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/posix_error.h"
#include "common/small_file.h"
#include "storage/checkpoint_files.h"
#include "storage/db_files.h"

namespace sweep {

std::string LogFilePath(const std::string& dir, int64_t trial_number, int attempt) {
  return dir + "/" + LogFileName(trial_number, attempt);
}

Result<LogAppend> AppendLogFile(const std::string& dir, int64_t trial_number, int attempt,
                                std::string_view text) {
  RETURN_IF_ERROR(CheckCheckpointDir(dir, /*create=*/true));
  LogAppend r;
  r.path = LogFilePath(dir, trial_number, attempt);
  // The guard of every file opened by path (common/small_file.h), made for
  // appending. No max_bytes: past the cap the rest is dropped and counted,
  // not refused, so the room left is worked out here.
  ASSIGN_OR_RETURN(CheckedFile file,
                   CheckedFile::Open(r.path, {.what = "log file",
                                              .follow_symlinks = false,
                                              .open_flags = O_WRONLY | O_APPEND | O_CREAT}));
  const int64_t size = static_cast<int64_t>(file.stat().st_size);
  int64_t room = std::max<int64_t>(0, kMaxLogFileBytes - size);
  size_t keep = std::min<size_t>(text.size(), static_cast<size_t>(room));
  size_t off = 0;
  while (off < keep) {
    ssize_t n = write(file.fd(), text.data() + off, keep - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return PosixError("write", r.path, errno);
    off += static_cast<size_t>(n);
  }
  RETURN_IF_ERROR(file.Close());
  r.bytes = size + static_cast<int64_t>(keep);
  r.dropped = static_cast<int64_t>(text.size() - keep);
  return r;
}

}  // namespace sweep
