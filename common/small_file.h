// The one guard in front of the files sweep opens by a path that a user or
// another program chose (study files, key files, a checkpoint's files, data
// files, trial logs): opened without blocking, so a FIFO cannot stall the
// open, then checked on the opened descriptor, so nothing can be swapped in
// between, to be a regular file within a size cap. ReadSmallFile reads one
// whole; the few that stream (gzip data) or append (logs) share the guard.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "common/status.h"

namespace sweep {

struct SmallFileOptions {
  // What the file is, named in every message after "a": "study file".
  std::string what = "file";
  // The most bytes it may hold. More is kResourceExhausted, refused by its
  // size before a byte is read, or when a read finds it grew past the cap:
  // a reader gets that code for the cap and for nothing else.
  size_t max_bytes = SIZE_MAX;
  // false adds O_NOFOLLOW: a symlink at the path itself is refused, for
  // files in folders where someone could have planted one.
  bool follow_symlinks = true;
  // How it is opened; O_NONBLOCK and O_CLOEXEC are always added. A file
  // made by O_CREAT gets mode 0600: what sweep writes is its user's alone.
  int open_flags = O_RDONLY;
};

// A regular file opened by path and checked; owns its descriptor.
// REQUIRES: external synchronization.
class CheckedFile {
 public:
  // Messages name the path and options.what: "s.yaml: cannot open study
  // file: Permission denied", "s.yaml: a study file must be a regular file,
  // this is a FIFO", "s.yaml: study file is larger than 1048576 bytes".
  static Result<CheckedFile> Open(const std::string& path, const SmallFileOptions& options);

  CheckedFile(CheckedFile&& o) noexcept;
  CheckedFile& operator=(CheckedFile&& o) noexcept;
  CheckedFile(const CheckedFile&) = delete;
  CheckedFile& operator=(const CheckedFile&) = delete;
  ~CheckedFile();

  int fd() const { return fd_; }
  // As fstat saw it at Open.
  const struct stat& stat() const { return stat_; }
  // The file from the current offset to its end, at most max_bytes.
  Result<std::string> ReadAll();
  // Closes it and says whether close failed (a write's error can show there).
  Status Close();
  // Hands the descriptor to the caller (zlib's gzdopen owns it after).
  int Release();

 private:
  CheckedFile(int fd, std::string path, SmallFileOptions options)
      : fd_(fd), path_(std::move(path)), options_(std::move(options)) {}
  Status TooLarge() const;

  int fd_ = -1;
  struct stat stat_ = {};
  std::string path_;
  SmallFileOptions options_;
};

// A small file whole: CheckedFile::Open, then ReadAll.
Result<std::string> ReadSmallFile(const std::string& path, const SmallFileOptions& options);

}  // namespace sweep
