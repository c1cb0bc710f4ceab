// One study's trials as the tuner knows them: each trial's state, its place
// in the queue, and the counts per status, all changed through one checked
// Transition(). Counts and the best trial are derived here, never kept by
// hand elsewhere. REQUIRES: external synchronization (the tuner's thread).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/trial_status.h"
#include "proto/sweep.pb.h"
#include "tuner/decision.h"

namespace sweep {

struct Trial {
  int64_t id = 0;
  int64_t number = 0;
  TrialStatus status = TrialStatus::kQueued;
  int attempts = 0;
  pb::ParamSet params;
  // While running: the lease and the runner (its name, for the database)
  // that hold it. The dispatcher owns the socket side of the lease.
  uint64_t lease = 0;
  std::string runner;
  int64_t last_step = 0;
  // The furthest step of attempt `attempts` whose objective report is
  // stored: a step at or before it runs again, and the algorithm has
  // already judged it.
  int64_t attempt_reported = 0;
  std::optional<double> last_objective;
  std::optional<double> value;  // completed trials: the objective
  // Studies with several objectives or with constraints
  // (common/objectives.h): a completed or stopped trial's objectives as
  // reported (NaN: missing) and its total constraint violation (0:
  // feasible; +infinity: a constrained metric was missing), as table
  // trial_values holds them.
  std::vector<double> objectives;
  double violation = 0;
  std::string checkpoint_path;  // latest committed checkpoint
  int64_t checkpoint_step = 0;
  uint32_t checkpoint_checksum = 0;
  int64_t parent_id = 0;      // PBT: the trial whose checkpoint it started from
  int64_t decided_step = -1;  // latest step whose continue/stop decision is recorded
  // Its next run continues attempt `attempts` (it was paused, or cut short
  // by Ctrl-C or a killed tuner) rather than beginning a new one; stored.
  bool attempt_open = false;
  // While running: this run began a new attempt (so a run its runner never
  // began gives that attempt back).
  bool new_attempt = false;
  // The algorithm paused it; its runner is ending the segment. A directive
  // that arrives meanwhile is applied once the runner confirms.
  bool pausing = false;
  // A stop or pause was decided at decided_step: reports its runner sent
  // before it heard are dropped, never recorded past the decision.
  bool segment_ended = false;
  // A service took its runner back (StudyRun::Preempt): why, until it
  // leaves running (its runner stops at its next checkpoint).
  std::string preempting;
  // The study's hard time limit stops it (algorithm.time_limit): its
  // preemption ends it, stopped, instead of sending it back to the queue.
  bool stops_at_limit = false;
  std::optional<Decision> pending;
  // A checkpoint on disk whose step's report has not arrived yet: it is
  // recorded in the same transaction as that report, so a restart never
  // sees one without the other.
  struct Unreported {
    std::string path;
    int64_t step = 0, bytes = 0;
    uint32_t checksum = 0;
  };
  std::optional<Unreported> unreported;
  // Forgets the unreported checkpoint; returns its file for deletion unless
  // it is the committed one.
  std::optional<std::string> DropUnreported() {
    std::optional<std::string> orphan;
    if (unreported && unreported->path != checkpoint_path) orphan = unreported->path;
    unreported.reset();
    return orphan;
  }
  bool in_queue = false;
};

class TrialTable {
 public:
  explicit TrialTable(bool maximize) : maximize_(maximize) {}

  // Adds a trial loaded from the database or just created; a queued one
  // joins the back of the queue.
  Trial& Insert(Trial t);
  Trial* Find(int64_t id);
  Trial* FindNumber(int64_t number);
  const std::unordered_map<int64_t, Trial>& all() const { return trials_; }

  enum class Where { kBack, kFront };
  // The one way a trial's status changes. Checks CanTransition (a wrong one
  // is a bug: it aborts), and resets what belongs to the old state: the
  // lease, runner, pausing flag and pending decision. A trial
  // that becomes queued joins the queue at `where`; one that leaves it is
  // taken out. Returns the unreported checkpoint file that is now orphaned
  // (for the caller to delete), if any.
  std::optional<std::string> Transition(Trial* t, TrialStatus to, Where where = Where::kBack);

  // The next queued trial (taken out of the queue, still kQueued), or null.
  Trial* PopQueued();
  size_t queued() const { return queue_.size(); }

  int64_t Count(TrialStatus s) const { return counts_[s]; }
  const TrialCounts& Counts() const { return counts_; }
  int64_t size() const { return static_cast<int64_t>(trials_.size()); }
  // The best completed trial by objective, or null.
  const Trial* best() const { return best_id_ ? &trials_.at(best_id_) : nullptr; }

 private:
  void Account(const Trial& t, int delta);

  bool maximize_;
  std::unordered_map<int64_t, Trial> trials_;
  std::unordered_map<int64_t, int64_t> by_number_;
  std::deque<int64_t> queue_;
  TrialCounts counts_;
  int64_t best_id_ = 0;
};

}  // namespace sweep
