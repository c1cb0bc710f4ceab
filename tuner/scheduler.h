// The algorithm interface: pure decision makers. A scheduler proposes trials
// and turns each report into a decision with its reason; it never touches
// sockets, files or the database, so it is tested with scripted events and
// rebuilt after a crash by replaying the reports the database holds.
#pragma once

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proto/sweep.pb.h"
#include "search_spaces/samplers.h"
#include "tuner/decision.h"
#include "tuner/trial_table.h"

namespace sweep {

// A decision about a trial other than the one reporting (a rung or a
// generation completed): resume a paused trial (kContinue), stop it (kStop),
// or replace it (kExploit). Directives are idempotent: the tuner applies one
// only to a trial paused at `step`, and creates a replacement only if no
// trial has its number, so replaying history after a crash may repeat them
// safely. A member that ended before its generation was complete is replaced
// by a kExploit directive too (its trial has ended, so only the replacement
// is carried out).
struct Directive {
  int64_t number = 0;
  int64_t step = 0;  // the rung or generation step the trial is paused at
  Action action;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // The next new trial, or nullopt when none should start now.
  virtual std::optional<TrialSpec> NextTrial() = 0;
  // True once the algorithm will propose no more trials.
  virtual bool Exhausted() const = 0;
  // Total trials the algorithm plans, when known.
  virtual std::optional<int64_t> Planned() const = 0;
  // One report of `objective` at `step` (one unit of resource) of trial
  // `number`. Replaying a report already seen must not change the state.
  virtual Action OnReport(int64_t number, int64_t step, double objective) = 0;
  // The same for a study with several objectives: every objective at `step`
  // in the study's order (NaN where the report lacked one). An algorithm
  // that judges them all (multi-objective ASHA) overrides it; the others
  // judge the first.
  virtual Action OnReportAll(int64_t number, int64_t step, const std::vector<double>& objectives) {
    return OnReport(number, step, objectives.empty() ? NAN : objectives[0]);
  }
  // A report seen by a proposer that another algorithm wraps (BOHB's, inside
  // Hyperband): it learns from it, and decides nothing.
  virtual void Observe(int64_t /*number*/, int64_t /*step*/, double /*objective*/) {}
  // Trial `number` ended for good (completed, failed or stopped) at `step`:
  // synchronous algorithms stop waiting for it.
  virtual void OnEnd(int64_t /*number*/, int64_t /*step*/) {}
  // Trial `number` committed a checkpoint at `step`.
  virtual void OnCheckpoint(int64_t /*number*/, int64_t /*step*/) {}
  // Decisions about other trials made since the last call, in order.
  virtual std::vector<Directive> TakeDirectives() { return {}; }
  // Steps of trial `number` after which its runner waits for the decision.
  virtual std::vector<int64_t> DecisionSteps(int64_t /*number*/) const { return {}; }
  // The decision in force for trial `number` at decision step `step`, if one
  // was taken: a trial re-run from its checkpoint at that step (its runner
  // was lost, the tuner restarted) must honour it, since it will not report
  // that step again.
  virtual std::optional<Action> DecisionAt(int64_t /*number*/, int64_t /*step*/) const {
    return std::nullopt;
  }

  // What the study around an algorithm needs to know of it, asked here so
  // that no code outside tuner/algorithms/ goes by an algorithm's name.
  // Each proposal learns from every result in so far (model-based search):
  // trials are then not queued at runners ahead of time, where they would
  // have been proposed before results that came in meanwhile.
  virtual bool LearnsFromEveryResult() const { return false; }
  // It may stop a running trial at any step (the median rule): no step is
  // known ahead to be one the trial must reach (the time left).
  virtual bool MayStopAtAnyStep() const { return false; }
  // It may start a trial from a finished trial's checkpoint (PBT copies a
  // completed member's): those checkpoints are not removed to make room.
  virtual bool ReadsFinishedCheckpoints() const { return false; }
};

// Random, grid and quasi-random search: trial k gets the sampler's point k.
// `created` is how many trials the study already has, `consumed` how many
// steps they ran (both for resuming).
std::unique_ptr<Scheduler> MakeSamplingScheduler(const pb::Study& study, const SearchSpace& space,
                                                 int64_t created, int64_t consumed);

// The scheduler a study asks for (the factories live in tuner/algorithms/).
// `study` is as ValidateStudy returns it: every default resolved.
// `trials` is the study's trial table, which model-based search (TPE, BOHB)
// learns from; it must outlive the scheduler. Null: model-based search
// proposes its random start-up points only (`sweep plan`).
std::unique_ptr<Scheduler> MakeScheduler(const pb::Study& study, const SearchSpace& space,
                                         int64_t created, int64_t consumed,
                                         const TrialTable* trials = nullptr);

// Trials copied in by --from (finished without an attempt of their own):
// model-based search runs max_trials on top of them, as max_trials counts
// the study's own.
int64_t CopiedTrials(const TrialTable* trials);

// What code outside the schedulers must know of a study's algorithm before
// any scheduler runs (a study file's checks), answered here beside
// MakeScheduler, so that no other file goes by an algorithm's name.
struct AlgorithmTraits {
  // Its model learns from another study's finished trials (`--from`):
  // tpe, gp and auto. (Hyperband's and BOHB's trial numbers are places in brackets.)
  bool learns_from_copied_trials = false;
  // Its past decisions depend on max_trials, so a resume may not raise it
  // (PBT: "not exploited: max_trials reached").
  bool decisions_depend_on_max_trials = false;
  // A failed trial may run again (`--retry-failed`): no decision of its
  // depends on when trials end or what they reported (random, grid,
  // quasirandom, and tpe, gp and auto, whose proposals read the trials as
  // they are). Early stopping and PBT decided from the failed run.
  bool runs_failed_trials_again = false;
  // Trials a person chose (`sweep enqueue`) may join its own: not where a
  // trial's number is its place (a grid's point, Hyperband's and BOHB's
  // brackets, PBT's population).
  bool takes_enqueued_trials = false;
};
AlgorithmTraits TraitsOf(const pb::Study& study);

// The trials a study plans, as its tuner counts them (`done N/M`):
// max_trials, a grid's points, Hyperband's brackets, and for tpe, gp and auto the
// `copied` trials `--from` added (finished with no attempt of their own);
// nullopt when not known ahead (PBT).
std::optional<int64_t> PlannedTrialCount(const pb::Study& study, int64_t copied);

}  // namespace sweep
