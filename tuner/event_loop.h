// The tuner's event loop: one Dispatcher (the network) and the StudyRuns it
// serves, over one Store. Each turn polls the socket, handles a batch of
// messages, commits it in one transaction (group commit), and acknowledges
// and assigns only once that commit is durable; the disk syncs one commit
// while the loop handles the next batch (storage/wal_sync.h). `sweep run`
// composes it with one study; tests compose it with several.
// REQUIRES: external synchronization (one thread runs it).
#pragma once

#include <vector>

#include "common/status.h"
#include "storage/sqlite_store.h"
#include "tuner/dispatcher.h"
#include "tuner/study_run.h"

namespace sweep {

class EventLoop {
 public:
  EventLoop(Store* store, Dispatcher* dispatcher, int heartbeat_ms)
      : store_(store), dispatcher_(dispatcher), heartbeat_ms_(heartbeat_ms) {}
  // The dispatcher offers runners to the studies in the order added.
  void Add(StudyRun* study);
  // One turn. `draining`: start nothing new (Ctrl-C).
  Status Turn(bool draining);
  // Writes the studies' progress and commits without waiting for the disk;
  // what the commit made true (acks, assignments) goes out once it is
  // durable (a later turn, SendDurable or Flush).
  Status Commit();
  // Commits, waits until everything is durable, and sends what waited.
  Status Flush();
  bool Done() const;

 private:
  // Sends what waits for commits that are durable now; deletes the files
  // they replaced. A failed sync is an error: nothing more goes out.
  Status SendDurable();

  Store* store_;
  Dispatcher* dispatcher_;
  int heartbeat_ms_;
  std::vector<StudyRun*> studies_;
  int64_t last_commit_us_ = 0;
};

}  // namespace sweep
