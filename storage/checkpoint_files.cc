// Atomic checkpoint files.
#include "storage/checkpoint_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>

#include "common/posix_error.h"
#include "storage/db_files.h"

namespace sweep {

uint32_t Checksum(const std::string& data) {
  return static_cast<uint32_t>(
      adler32(1, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
}

namespace {

Status CheckFolder(const std::string& dir, bool create, const std::string& what_dir, int parents);

// Makes `dir`, and its missing parent first while `parents` allows.
Status MakeFolder(const std::string& dir, const std::string& what_dir, int parents) {
  if (mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) return Status::Ok();
  const size_t slash = dir.find_last_of('/');
  if (errno != ENOENT || parents == 0 || slash == std::string::npos || slash == 0)
    return PosixError("create " + what_dir, dir, errno);
  RETURN_IF_ERROR(CheckFolder(dir.substr(0, slash), true, "database folder", parents - 1));
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return PosixError("create " + what_dir, dir, errno);
  return Status::Ok();
}

Status CheckFolder(const std::string& dir, bool create, const std::string& what_dir, int parents) {
  struct stat st;
  // The folder above (the database's), checked on every call too: one
  // swapped for a link, or opened to others, since the last is refused.
  const size_t slash = dir.find_last_of('/');
  if (parents > 0 && slash != std::string::npos && slash > 0) {
    const std::string parent = dir.substr(0, slash);
    if (lstat(parent.c_str(), &st) == 0)
      RETURN_IF_ERROR(CheckFolder(parent, false, "database folder", 0));
  }
  if (lstat(dir.c_str(), &st) != 0) {
    int err = errno;
    if (err != ENOENT || !create) return PosixError("stat " + what_dir, dir, err);
    RETURN_IF_ERROR(MakeFolder(dir, what_dir, parents));
    if (lstat(dir.c_str(), &st) != 0) return PosixError("stat " + what_dir, dir, errno);
  }
  auto refuse = [&](const std::string& what) {
    return Status::FailedPrecondition(what_dir + " " + dir + " " + what +
                                      "; remove it (or use another --db) and run again");
  };
  if (S_ISLNK(st.st_mode)) return refuse("is a symbolic link");
  if (!S_ISDIR(st.st_mode)) return refuse("is not a directory");
  if (st.st_uid != geteuid()) {
    return refuse("is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
                  std::to_string(geteuid()) + ")");
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return refuse(std::string("is writable by ") +
                  ((st.st_mode & S_IWOTH) ? "everyone" : "its group") + " (mode " + mode + ")");
  }
  return Status::Ok();
}

}  // namespace

Status CheckCheckpointDir(const std::string& dir, bool create, const std::string& what_dir,
                          bool with_parent) {
  return CheckFolder(dir, create, what_dir, with_parent ? 1 : 0);
}

Result<std::string> WriteCheckpointFile(const std::string& dir, int64_t trial_number, int64_t step,
                                        const std::string& data) {
  RETURN_IF_ERROR(CheckCheckpointDir(dir, /*create=*/true));
  std::string path = dir + "/" + CheckpointFileName(trial_number, step);
  std::string tmp = path + ".tmp";
  // A temporary file left by a crash (or anything planted at its name) is
  // removed, not opened: O_EXCL | O_NOFOLLOW create a new file or fail.
  if (unlink(tmp.c_str()) != 0 && errno != ENOENT) return PosixError("unlink stale", tmp, errno);
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return PosixError("open", tmp, errno);
  // Each error is converted where it happens, before close or unlink can
  // change errno; the descriptor is closed on every path.
  Status st;
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      st = PosixError("write", tmp, errno);
      break;
    }
    off += static_cast<size_t>(n);
  }
  if (st.ok() && fsync(fd) != 0) st = PosixError("fsync", tmp, errno);
  if (close(fd) != 0 && st.ok()) st = PosixError("close", tmp, errno);
  if (st.ok() && rename(tmp.c_str(), path.c_str()) != 0)
    st = PosixError("rename", tmp + " to " + path, errno);
  if (!st.ok()) {
    unlink(tmp.c_str());
    return st;
  }
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return path;
}

Result<std::string> ReadCheckpointFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return PosixError("open checkpoint", path, errno);
  std::string out;
  char buf[1 << 16];
  while (true) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      Status st = PosixError("read checkpoint", path, errno);
      close(fd);
      return st;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

}  // namespace sweep
