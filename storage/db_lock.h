// The one-writer lock on a results database: an exclusive flock on
// `<db>.lock`, held for the life of the Store, with the holder's pid written
// into the file so that a second tuner can say who holds it. The kernel drops
// the lock when the process dies (kill -9 included), so a stale file never
// blocks. The file itself is left in place: removing it would let two
// processes lock two different inodes.
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

  // Locks `db_path + ".lock"` without waiting. Held by another process (or
  // another Store in this one): kUnavailable naming the holder's pid.
  static Result<DbLock> Acquire(const std::string& db_path);
  // The pid of the process holding `db_path`'s lock (a running tuner), or
  // nullopt when none does. Only looks: the lock is taken shared for a
  // moment, never written.
  static Result<std::optional<int64_t>> Holder(const std::string& db_path);
  bool held() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace sweep
