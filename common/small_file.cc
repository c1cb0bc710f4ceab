// Opening a file by path behind the one guard, and reading a small one whole.
#include "common/small_file.h"

#include <unistd.h>

#include <cerrno>
#include <utility>

#include "common/posix_error.h"

namespace sweep {

namespace {

const char* Kind(mode_t mode) {
  return S_ISDIR(mode)    ? "a directory"
         : S_ISFIFO(mode) ? "a FIFO"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

}  // namespace

Result<CheckedFile> CheckedFile::Open(const std::string& path, const SmallFileOptions& options) {
  // O_NONBLOCK: opening a FIFO must not wait for its other end. It changes
  // nothing for the regular files that pass the check below.
  int flags = options.open_flags | O_NONBLOCK | O_CLOEXEC;
  if (!options.follow_symlinks) flags |= O_NOFOLLOW;
  int fd = open(path.c_str(), flags, 0600);
  if (fd < 0) {
    int err = errno;
    // ELOOP is what O_NOFOLLOW says of a symlink: name the rule, not only the errno.
    return PosixError(path + ": cannot open " + options.what, err,
                      err == ELOOP && !options.follow_symlinks
                          ? "sweep does not follow a symbolic link here"
                          : "");
  }
  CheckedFile file(fd, path, options);  // closes fd on every return below
  if (fstat(fd, &file.stat_) != 0) return PosixError(path + ": cannot stat " + options.what, errno);
  if (!S_ISREG(file.stat_.st_mode)) {
    return Status::InvalidArgument(path + ": a " + options.what +
                                   " must be a regular file, this is " + Kind(file.stat_.st_mode));
  }
  if (static_cast<uint64_t>(file.stat_.st_size) > options.max_bytes) return file.TooLarge();
  return file;
}

CheckedFile::CheckedFile(CheckedFile&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      stat_(o.stat_),
      path_(std::move(o.path_)),
      options_(std::move(o.options_)) {}

CheckedFile& CheckedFile::operator=(CheckedFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    stat_ = o.stat_;
    path_ = std::move(o.path_);
    options_ = std::move(o.options_);
  }
  return *this;
}

CheckedFile::~CheckedFile() {
  if (fd_ >= 0) close(fd_);
}

Result<std::string> CheckedFile::ReadAll() {
  std::string text;
  if (static_cast<uint64_t>(stat_.st_size) <= options_.max_bytes)
    text.reserve(static_cast<size_t>(stat_.st_size));
  char buf[1 << 16];
  // At most one byte past the cap: a file that grew since fstat is refused,
  // never cut short, and never read on without end.
  while (text.size() <= options_.max_bytes) {
    size_t room = options_.max_bytes - text.size();
    ssize_t n = read(fd_, buf, room < sizeof buf ? room + 1 : sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return PosixError(path_ + ": cannot read " + options_.what, errno);
    }
    if (n == 0) return text;
    text.append(buf, static_cast<size_t>(n));
  }
  return TooLarge();
}

Status CheckedFile::Close() {
  int fd = Release();
  if (fd >= 0 && close(fd) != 0)
    return PosixError(path_ + ": cannot close " + options_.what, errno);
  return Status::Ok();
}

int CheckedFile::Release() { return std::exchange(fd_, -1); }

Status CheckedFile::TooLarge() const {
  return Status::ResourceExhausted(path_ + ": " + options_.what + " is larger than " +
                                   std::to_string(options_.max_bytes) + " bytes");
}

Result<std::string> ReadSmallFile(const std::string& path, const SmallFileOptions& options) {
  ASSIGN_OR_RETURN(CheckedFile file, CheckedFile::Open(path, options));
  return file.ReadAll();
}

}  // namespace sweep
