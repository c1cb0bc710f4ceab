// The tuner's event loop: one Dispatcher (the network) and the StudyRuns it
// serves, over one Store. Each turn polls the socket, handles a batch of
// messages, commits it in one transaction (group commit), and only then
// acknowledges and assigns. `sweep run` composes it with one study; tests
// compose it with several.
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
  // Writes the studies' progress and commits; then sends what the commit
  // made true (acks, assignments).
  Status Commit();
  bool Done() const;

 private:
  Store* store_;
  Dispatcher* dispatcher_;
  int heartbeat_ms_;
  std::vector<StudyRun*> studies_;
  int64_t last_commit_us_ = 0;
};

}  // namespace sweep
