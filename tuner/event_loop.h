// The tuner's event loop: one Dispatcher (the network) and the StudyRuns it
// serves, over one Store. Each turn polls the socket, handles a batch of
// messages, commits it in one transaction (group commit), and acknowledges
// and assigns only once that commit is durable; the disk syncs one commit
// while the loop handles the next batch (storage/wal_sync.h). Studies are
// admitted and removed while it runs; the dispatcher finds them here by
// study id. The Server (tuner/server.h) owns the studies it holds.
// REQUIRES: external synchronization (one thread runs it).
#pragma once

#include <functional>
#include <map>
#include <set>
#include <vector>

#include "common/status.h"
#include "storage/sqlite_store.h"
#include "tuner/dispatcher.h"
#include "tuner/study_run.h"

namespace sweep {

// How a study leaves a running loop: the study event written (kind and
// cause) and the status it is stored with.
struct StudyRemoval {
  std::string kind = "removed";
  std::string cause = "its study was removed from the running tuner";
  StudyStatus stored = StudyStatus::kInterrupted;
};

class EventLoop : public TrialOwners {
 public:
  EventLoop(Store* store, Dispatcher* dispatcher, int heartbeat_ms)
      : store_(store), dispatcher_(dispatcher), heartbeat_ms_(heartbeat_ms) {
    dispatcher_->SetOwners(this);
  }
  ~EventLoop() override { dispatcher_->SetOwners(nullptr); }
  // Admits a study (not owned: it must outlive its Remove or the loop); the
  // dispatcher offers runners to the studies in the order added. Callable
  // at any time, a turn's callbacks included.
  void Add(StudyRun* study);
  // Takes a study out in this turn, once its messages are handled (or in
  // the next, when called between turns):
  // its running trials go back to its queue with their attempts open (as
  // Ctrl-C leaves them), their runners are told to drop them, and once
  // that is committed the loop forgets it; Removed() then lists it, and its
  // owner may destroy it. Messages about its trials that arrive later are
  // rejected like any on an ended lease.
  // `how`: the study event's kind and cause, and the status it is stored
  // with (a service's pause and cancel are removals too).
  void Remove(int64_t study_id, StudyRemoval how = StudyRemoval());
  // Called in every turn once the runners' messages are handled, before
  // removals and assignment: where a service handles its own requests
  // (admitting and removing studies among them). An error ends the turn.
  void SetTurnHook(std::function<Status()> hook) { turn_hook_ = std::move(hook); }
  // Studies removed since the last call, now free to destroy.
  std::vector<int64_t> TakeRemoved();
  bool Has(int64_t study_id) const { return Find(study_id) != nullptr; }
  // One turn. `draining`: start nothing new (Ctrl-C).
  Status Turn(bool draining);
  // Writes the studies' progress and commits without waiting for the disk;
  // what the commit made true (acks, assignments) goes out once it is
  // durable (a later turn, SendDurable or Flush).
  Status Commit();
  // Commits, waits until everything is durable, and sends what waited.
  Status Flush();
  bool Done() const;

  // TrialOwners.
  TrialOwner* FindOwner(int64_t study_id) override;
  const std::vector<int64_t>& OwnerOrder() const override { return order_; }

 private:
  // Carries out the removals asked for (see Remove).
  Status RemovePending();
  // Sends what waits for commits that are durable now; deletes the files
  // they replaced. A failed sync is an error: nothing more goes out.
  Status SendDurable();

  Store* store_;
  Dispatcher* dispatcher_;
  int heartbeat_ms_;
  // The study with this id, if admitted: a scan (a few studies; every
  // message about a trial looks its study up).
  StudyRun* Find(int64_t study_id) const {
    for (size_t i = 0; i < order_.size(); ++i)
      if (order_[i] == study_id) return studies_[i];
    return nullptr;
  }

  std::vector<StudyRun*> studies_;            // in the order admitted
  std::vector<int64_t> order_;                // their ids, in the same order
  std::map<int64_t, StudyRemoval> removing_;  // to take out at the end of the turn
  std::vector<int64_t> removed_;              // taken out, for TakeRemoved
  std::function<Status()> turn_hook_;
  int64_t last_commit_us_ = 0;
};

}  // namespace sweep
