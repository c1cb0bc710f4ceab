// The one-writer lock on a results database file (see db_lock.h).
#include "storage/db_lock.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "common/posix_error.h"

namespace sweep {

namespace {

// The lock's byte, far beyond SQLite's (its lock bytes sit at 1 GiB), and
// the bytes after it, one of which the holder locks at its pid's offset.
constexpr off_t kLockByte = off_t{1} << 62;
constexpr off_t kPidSpan = off_t{1} << 23;  // above Linux's largest pid_max (2^22)

// F_OFD_GETLK/F_OFD_SETLK on [start, start + len): 0, or an errno.
int OfdLock(int fd, int cmd, short type, off_t start, off_t len, struct flock* out = nullptr) {
  struct flock fl = {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = start;
  fl.l_len = len;
  fl.l_pid = 0;  // required by the OFD commands
  while (fcntl(fd, cmd, &fl) != 0) {
    if (errno != EINTR) return errno;
  }
  if (out) *out = fl;
  return 0;
}

// The pid whose byte a holder locked, if it has locked it yet; else 0.
int64_t HolderPid(int fd) {
  struct flock fl = {};
  if (OfdLock(fd, F_OFD_GETLK, F_WRLCK, kLockByte + 1, kPidSpan, &fl) != 0) return 0;
  if (fl.l_type == F_UNLCK) return 0;
  return static_cast<int64_t>(fl.l_start - kLockByte - 1);
}

// Opens the database file for the lock, making it (empty) if missing.
Result<int> OpenForLock(const std::string& db_path) {
  for (int tries = 0;; ++tries) {
    int fd = open(db_path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd >= 0 || errno != ENOENT) {
      if (fd >= 0) return fd;
      break;
    }
    // SQLite would make it with these permissions (less the umask).
    fd = open(db_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) return fd;
    if (errno != EEXIST || tries > 3) break;  // made by another in between: open it
  }
  int err = errno;
  size_t slash = db_path.rfind('/');
  std::string folder = slash == std::string::npos ? "." : db_path.substr(0, slash + 1);
  if (err == ENOENT) {
    return Status::NotFound("--db " + db_path + ": the folder " + folder +
                            " does not exist; create it (mkdir -p) or pick another --db");
  }
  if (err == EACCES || err == EROFS) {
    // kFailedPrecondition, as before: the folder forbids it, the user picks another.
    return Status::FailedPrecondition(
        PosixError("--db " + db_path + ": cannot write the database or create files in " + folder,
                   err, "pick a folder you can write, e.g. --db $HOME/sweep.db")
            .message());
  }
  return PosixError("open", db_path, err);
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
  // Closing the descriptor releases the locks (the Store's connection has
  // closed by now: see db_lock.h).
  if (fd_ >= 0) close(fd_);
}

Result<DbLock> DbLock::Acquire(const std::string& db_path) {
  for (int tries = 0;; ++tries) {
    ASSIGN_OR_RETURN(DbLock lock, AcquireOnce(db_path));
    // The file locked must still be the one the path names: a file
    // removed or replaced in between would hold nobody off.
    struct stat held, named;
    if (fstat(lock.fd_, &held) != 0) return PosixError("fstat", db_path, errno);
    if (stat(db_path.c_str(), &named) == 0 && named.st_dev == held.st_dev &&
        named.st_ino == held.st_ino)
      return lock;
    if (tries >= 3) return Status::Unavailable(db_path + ": the file keeps changing under sweep");
  }
}

Result<DbLock> DbLock::AcquireOnce(const std::string& db_path) {
  DbLock lock;
  lock.path_ = db_path;
  ASSIGN_OR_RETURN(lock.fd_, OpenForLock(db_path));
  struct stat st;
  if (fstat(lock.fd_, &st) != 0) return PosixError("fstat", db_path, errno);
  if (!S_ISREG(st.st_mode))
    return Status::FailedPrecondition("--db " + db_path + ": is not a regular file");
  int err = OfdLock(lock.fd_, F_OFD_SETLK, F_WRLCK, kLockByte, 1);
  if (err == EAGAIN || err == EACCES) {
    int64_t pid = HolderPid(lock.fd_);
    return Status::Unavailable(
        db_path + ": in use by another sweep run (pid " +
        (pid > 0 ? std::to_string(pid) : std::string("unknown")) +
        ", which holds the lock on this file under whatever name it opened it); only one tuner "
        "may write a database: wait for it to finish, stop it, or use another --db");
  }
  if (err != 0) return PosixError("lock", db_path, err);
  const off_t pid = static_cast<off_t>(getpid());
  if (pid <= 0 || pid >= kPidSpan)
    return Status::Internal("pid out of range: " + std::to_string(pid));
  err = OfdLock(lock.fd_, F_OFD_SETLK, F_WRLCK, kLockByte + 1 + pid, 1);
  if (err != 0) return PosixError("lock", db_path, err);
  return lock;
}

Result<std::optional<int64_t>> DbLock::Holder(const std::string& db_path) {
  struct stat st;
  if (stat(db_path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::optional<int64_t>();
    return PosixError("stat", db_path, errno);
  }
  // One descriptor per file, kept open: closing it would drop the locks
  // this process's own SQLite connections hold on the file (db_lock.h).
  static std::mutex mu;
  static std::map<std::pair<dev_t, ino_t>, int> fds;
  constexpr size_t kMaxKept = 16;
  std::lock_guard<std::mutex> guard(mu);
  auto key = std::make_pair(st.st_dev, st.st_ino);
  auto it = fds.find(key);
  int fd = it == fds.end() ? open(db_path.c_str(), O_RDONLY | O_CLOEXEC) : it->second;
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<int64_t>();
    return PosixError("open", db_path, errno);
  }
  // Beyond a few databases a probe's descriptor is closed again: only a
  // process that reads that many at once (none of ours) risks its locks.
  const bool keep = it != fds.end() || fds.size() < kMaxKept;
  if (it == fds.end() && keep) fds.emplace(key, fd);
  struct flock fl = {};
  int err = OfdLock(fd, F_OFD_GETLK, F_WRLCK, kLockByte, 1, &fl);
  int64_t pid = err == 0 && fl.l_type != F_UNLCK ? HolderPid(fd) : 0;
  if (!keep) close(fd);
  if (err != 0) return PosixError("lock query", db_path, err);
  if (fl.l_type == F_UNLCK) return std::optional<int64_t>();
  if (pid <= 0) return Status::Unavailable(db_path + ": held by a tuner that is still starting");
  return std::optional<int64_t>(pid);
}

}  // namespace sweep
