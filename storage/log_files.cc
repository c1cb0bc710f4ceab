// Appending to per-attempt log files, within the cap.
#include "storage/log_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/posix_error.h"
#include "storage/checkpoint_files.h"

namespace sweep {

std::string LogFilePrefix(int64_t trial_id) {
  return "trial-" + std::to_string(trial_id) + ".attempt-";
}

std::string LogFilePath(const std::string& dir, int64_t trial_id, int attempt) {
  return dir + "/" + LogFilePrefix(trial_id) + std::to_string(attempt) + ".log";
}

Result<LogAppend> AppendLogFile(const std::string& dir, int64_t trial_id, int attempt,
                                std::string_view text) {
  RETURN_IF_ERROR(CheckCheckpointDir(dir, /*create=*/true));
  LogAppend r;
  r.path = LogFilePath(dir, trial_id, attempt);
  int fd = open(r.path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return PosixError("open", r.path, errno);
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int err = errno;
    close(fd);
    return PosixError("fstat", r.path, err ? err : EINVAL);
  }
  int64_t room = std::max<int64_t>(0, kMaxLogFileBytes - static_cast<int64_t>(st.st_size));
  size_t keep = std::min<size_t>(text.size(), static_cast<size_t>(room));
  size_t off = 0;
  while (off < keep) {
    ssize_t n = write(fd, text.data() + off, keep - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return PosixError("write", r.path, err);
    }
    off += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return PosixError("close", r.path, errno);
  r.bytes = static_cast<int64_t>(st.st_size) + static_cast<int64_t>(keep);
  r.dropped = static_cast<int64_t>(text.size() - keep);
  return r;
}

}  // namespace sweep
