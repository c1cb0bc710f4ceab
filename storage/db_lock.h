// The one-writer lock on a results database: a lock on the database file
// itself (its inode), so that a second tuner is refused whatever path names
// the file (a symbolic link, a hard link, `./`). It is an open-file-description
// lock (fcntl F_OFD_SETLK) on bytes far beyond any SQLite uses, so it never
// meets SQLite's own byte locks; the holder's pid is the offset of a second
// locked byte, so that anyone can ask who holds it without a side file. The
// kernel drops both when the process dies (kill -9 included).
//
// POSIX drops a process's fcntl locks on a file when any descriptor of that
// file closes, SQLite's included: so the holder closes its descriptor only
// after its SQLite connection closed, and Holder() keeps the descriptors it
// opens for the life of the process (a few databases at most).
// REQUIRES: external synchronization.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"

namespace sweep {

class DbLock {
 public:
  DbLock() = default;
  DbLock(const DbLock&) = delete;
  DbLock& operator=(const DbLock&) = delete;
  DbLock(DbLock&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  DbLock& operator=(DbLock&& o) noexcept;
  ~DbLock();

  // Locks the database file `db_path` (made empty if missing, as SQLite
  // would) without waiting. Held by another process (or another Store in
  // this one), through any path: kUnavailable naming the holder's pid.
  static Result<DbLock> Acquire(const std::string& db_path);
  // The pid of the process holding `db_path`'s lock (a running tuner), or
  // nullopt when none does (or there is no such file). Only looks.
  static Result<std::optional<int64_t>> Holder(const std::string& db_path);
  bool held() const { return fd_ >= 0; }
  // The database file, open read-write while held: what must sync it uses
  // this (opening and closing another descriptor would drop SQLite's locks).
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

 private:
  static Result<DbLock> AcquireOnce(const std::string& db_path);

  int fd_ = -1;
  std::string path_;
};

}  // namespace sweep
