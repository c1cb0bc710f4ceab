// Makes a WAL database's commits durable off the writer's thread. The
// writer commits with synchronous=NORMAL (SQLite writes the WAL frames but
// does not fsync them) and asks for a sync; one thread fdatasyncs the WAL
// file, and each fdatasync covers every commit made before it began. So the
// writer goes on with the next batch while the disk works on the last one
// (pipelined group commit), and a commit is exactly as durable as under
// synchronous=FULL once its ticket is: SQLite itself still syncs around
// checkpoints and when the WAL is reused, as NORMAL does.
// Thread-safe: the writer's thread calls everything; the sync runs on a
// thread of its own.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/status.h"

namespace sweep {

class WalSync {
 public:
  // Syncs the WAL file at `wal_path` (opened when first synced) of the
  // database file open as `db_fd` (borrowed: it must outlive this). The
  // path is the name SQLite resolved (sqlite3_filename_wal): for a --db
  // that is a symlink, the WAL lies beside the file it points to. The
  // database file is never opened here: closing any descriptor of it would
  // drop this process's POSIX locks on it, SQLite's shared lock included,
  // and another process closing its connection could then checkpoint and
  // delete the WAL under the tuner (storage/db_lock.h).
  static Result<std::unique_ptr<WalSync>> Start(int db_fd, const std::string& wal_path);
  // Syncs what is pending, then stops the thread.
  ~WalSync();
  WalSync(const WalSync&) = delete;
  WalSync& operator=(const WalSync&) = delete;

  // Everything written to the WAL so far becomes durable with the returned
  // ticket (tickets grow by one per call).
  uint64_t Request();
  // The highest ticket whose writes are on disk (0: none yet).
  uint64_t durable() const;
  // The ticket of the latest Request.
  uint64_t requested() const;
  // Whether a requested sync has not finished yet.
  bool Syncing() const;
  // Readable whenever durable() advanced or a sync failed; Drain() empties it.
  int fd() const { return event_fd_; }
  void Drain();
  // Blocks until `ticket` is durable, or says why it never will be.
  Status Wait(uint64_t ticket);
  // The first failed sync. It is final: after a failed fdatasync Linux may
  // forget which pages it could not write, so nothing later is trusted.
  Status error() const;

 private:
  WalSync(int db_fd, std::string wal_path, std::string dir);
  void Loop();
  // One fdatasync of the WAL file (opened, or reopened if the file at the
  // path was replaced; when first opened, the database file and their
  // folder are synced too, so a new database's name and header last).
  Status SyncOnce();

  const int db_fd_;
  const std::string wal_path_, dir_;
  int wal_fd_ = -1;  // the sync thread's only
  int event_fd_ = -1;
  mutable std::mutex mu_;
  std::condition_variable work_, done_;
  uint64_t requested_ = 0, durable_ = 0;  // guarded by mu_
  bool stop_ = false;                     // guarded by mu_
  Status error_;                          // guarded by mu_
  std::thread thread_;
};

}  // namespace sweep
