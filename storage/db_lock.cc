// The exclusive lock file beside a results database.
#include "storage/db_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "common/posix_error.h"

namespace sweep {

namespace {

// The pid the holder wrote, or "" while it is still writing it.
std::string ReadPid(int fd) {
  char buf[32];
  ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return "";
  std::string s(buf, static_cast<size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (char c : s)
    if (c < '0' || c > '9') return "";
  return s;
}

}  // namespace

DbLock& DbLock::operator=(DbLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    o.fd_ = -1;
  }
  return *this;
}

DbLock::~DbLock() {
  // Closing the descriptor releases the flock.
  if (fd_ >= 0) close(fd_);
}

Result<DbLock> DbLock::Acquire(const std::string& db_path) {
  DbLock lock;
  lock.path_ = db_path + ".lock";
  // O_NOFOLLOW: a symlink planted at the lock's name is refused, not followed.
  lock.fd_ = open(lock.path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (lock.fd_ < 0) {
    int err = errno;
    if (err == ELOOP)
      return Status::FailedPrecondition(lock.path_ + ": is a symbolic link; refusing to use it");
    // The database and its lock file live in the same folder: name it.
    size_t slash = db_path.rfind('/');
    std::string folder = slash == std::string::npos ? "." : db_path.substr(0, slash + 1);
    if (err == ENOENT) {
      return Status::NotFound("--db " + db_path + ": the folder " + folder +
                              " does not exist; create it (mkdir -p) or pick another --db");
    }
    if (err == EACCES || err == EROFS) {
      // kFailedPrecondition, as before: the folder forbids it, the user picks another.
      return Status::FailedPrecondition(
          PosixError("--db " + db_path + ": cannot create files in " + folder +
                         ", where the database and its lock file go",
                     err, "pick a folder you can write, e.g. --db $HOME/sweep.db")
              .message());
    }
    return PosixError("open lock file", lock.path_, err);
  }
  struct stat st;
  if (fstat(lock.fd_, &st) != 0) return PosixError("fstat", lock.path_, errno);
  if (!S_ISREG(st.st_mode))
    return Status::FailedPrecondition(lock.path_ + ": is not a regular file");
  // Readers that ask who holds the lock (`sweep studies`, the dashboard)
  // take it shared for a few microseconds: a tuner starting in that moment
  // tries again for up to 100 ms before it says another one holds it.
  for (int tries = 0; flock(lock.fd_, LOCK_EX | LOCK_NB) != 0;) {
    int err = errno;
    if (err == EINTR) continue;
    if (err == EWOULDBLOCK && ++tries < 50) {
      usleep(2000);
      continue;
    }
    if (err == EWOULDBLOCK) {
      std::string pid = ReadPid(lock.fd_);
      return Status::Unavailable(
          db_path + ": in use by another sweep run (pid " + (pid.empty() ? "unknown" : pid) +
          ", holding " + lock.path_ +
          "); only one tuner may write a database: wait for it to finish, stop it, or use "
          "another --db");
    }
    return PosixError("flock", lock.path_, err);
  }
  std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(lock.fd_, 0) != 0) return PosixError("ftruncate", lock.path_, errno);
  if (pwrite(lock.fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size()))
    return PosixError("write", lock.path_, errno);
  return lock;
}

Result<std::optional<int64_t>> DbLock::Holder(const std::string& db_path) {
  std::string path = db_path + ".lock";
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<int64_t>();
    return PosixError("open lock file", path, errno);
  }
  std::optional<int64_t> holder;
  while (flock(fd, LOCK_SH | LOCK_NB) != 0) {
    int err = errno;
    if (err == EINTR) continue;
    if (err != EWOULDBLOCK) {
      close(fd);
      return PosixError("flock", path, err);
    }
    std::string pid = ReadPid(fd);
    close(fd);
    if (pid.empty()) return Status::Unavailable(path + ": held by a tuner that is still starting");
    return std::optional<int64_t>(std::stoll(pid));
  }
  close(fd);  // free: releases the shared lock at once
  return holder;
}

}  // namespace sweep
