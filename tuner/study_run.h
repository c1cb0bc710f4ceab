// One study being run: its trial table, its algorithm, and its writes to the
// store. It owns the trials' states and decides what each message means;
// the Dispatcher owns the socket and the runners. Several StudyRuns can share
// one Dispatcher and one Store (one writer: the tuner's event loop commits).
// REQUIRES: external synchronization (the tuner's thread).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "proto/sweep.pb.h"
#include "search_spaces/space.h"
#include "storage/sqlite_store.h"
#include "tuner/ack_queue.h"
#include "tuner/dispatcher.h"
#include "tuner/fail_fast.h"
#include "tuner/progress.h"
#include "tuner/scheduler.h"
#include "tuner/study_checkpoint_files.h"
#include "tuner/study_writes.h"
#include "tuner/trial_logs.h"
#include "tuner/trial_pace.h"
#include "tuner/trial_table.h"
#include "tuner/trial_values.h"

namespace sweep {

class StudyRun : public TrialOwner {
 public:
  // Opens `study` (as ValidateStudy returns it: checked, defaults resolved) in `store`, re-queues
  // trials that were running when a tuner stopped, loads its trials and rebuilds the algorithm's
  // state by replaying the committed history. Leaves the store's
  // transaction open. Its checkpoints and command trials' logs go in its
  // folder in `db_folder`, the database's folder (storage/db_files.h), both
  // made when first needed.
  static Result<std::unique_ptr<StudyRun>> Open(Store* store, const pb::Study& study,
                                                std::string db_folder);

  const pb::Study& study() const { return study_; }
  int64_t id() const { return study_id_; }
  // Nothing runs, and nothing more will start: the algorithm has nothing
  // left, or the first trials all failed the same way (fail_fast()).
  bool Done() const;
  // algorithm.fail_fast: whether the study stopped because its first trials
  // all failed the same way, and why.
  const FailFast& fail_fast() const { return fail_fast_; }
  // How long tuners have run the study: its earlier runs (stored) and this
  // one since it opened.
  double RunSeconds() const { return run_base_s_ + (NowMs() - opened_ms_) / 1000.0; }
  // algorithm.time_limit has passed: no trial starts (study_progress.cc).
  bool TimeUp() const { return time_limit_s_ > 0 && RunSeconds() >= time_limit_s_; }
  // ... with `hard: true`, and trials still run: they are to stop now
  // (the event loop has the dispatcher ask them; Preempt agrees).
  bool HardStopDue() const {
    return hard_limit_ && TimeUp() && table_.Count(TrialStatus::kRunning) > 0;
  }
  // Once a turn: stores RunSeconds() every second (writes only; the caller
  // commits) and records the time limit's passing once.
  void Tick();
  ProgressCounts Counts() const;
  // Several objectives or constraints: the completed trials' front size
  // (study_progress.cc), computed again only when a trial completed.
  int64_t FrontSize() const;
  const TrialTable& trials() const { return table_; }

  // Carries out the algorithm's decisions about other trials: resume or stop
  // paused trials, create exploit children.
  void ApplyDirectives();
  // Before a commit: writes each trial's latest progress once.
  void WriteProgress();
  // After a commit that succeeded: queues the acks it made true on `d` (sent
  // once it is durable); the checkpoint files it replaced wait for ticket
  // `ticket` (Durable).
  void AfterCommit(Dispatcher* d, uint64_t ticket);
  // Commits up to `ticket` are on disk: deletes the files they replaced.
  void Durable(uint64_t ticket);
  // The first write that failed since the study opened, if any.
  const Status& write_error() const { return writes_.error(); }
  // Ctrl-C: running trials go back to the queue, each with its attempt
  // open, to go on when resumed, and an `interrupted` event (writes only;
  // the caller commits). Returns how many. Their leases stay with the
  // dispatcher (`sweep run` shuts the runners down next); a late message on
  // one is ignored here, since the trial no longer runs under it.
  // `cause` ends each trial's event: why its run stopped.
  int64_t Interrupt(const std::string& cause = "the tuner stopped");
  // The study stops running here (Ctrl-C, or removed from a running
  // server): Interrupt(cause), a study event of `kind` saying how many
  // trials were re-queued, and the study stored as interrupted (writes
  // only; the caller commits). Returns how many.
  int64_t Suspend(const std::string& kind, const std::string& cause,
                  StudyStatus stored = StudyStatus::kInterrupted);
  // In a service: its weight in the fair share (its priority, > 0) and a
  // cap on the runners its trials hold at once (0: none), on top of the
  // study's own max_concurrent.
  void SetShare(double priority, int64_t max_runners) {
    priority_ = priority > 0 ? priority : 1;
    max_runners_ = max_runners > 0 ? max_runners : 0;
  }
  // When nothing new should start (Ctrl-C): NextAssign returns nothing.
  void set_draining(bool draining) { draining_ = draining; }
  // A service pauses it (`sweep pause`): nothing new starts, and its
  // running trials agree to any preemption, at their next checkpoint, or
  // now, to run again from their start, for a command without checkpoint
  // folders. `reason` ("" again: not pausing) goes into their decisions.
  void set_pausing(const std::string& reason) { pausing_ = reason; }
  bool pausing() const { return !pausing_.empty(); }
  // In a service: how many runners its trials could use now (those running
  // and queued, and those its algorithm has yet to propose, within its
  // caps): what a launcher asks the cluster for (study_progress.cc).
  int64_t RunnersWanted() const;
  // Why none of its trials can run now, as OnWaiting said ("" once one
  // starts): `sweep studies` shows it.
  const std::string& waiting() const { return waiting_; }

  // TrialOwner.
  void OnStarted(int64_t trial_id) override;
  void OnReport(const std::string& runner_id, const pb::Report& report) override;
  void OnCheckpoint(const pb::Checkpoint& checkpoint) override;
  void OnLog(const pb::Log& log) override;
  void OnFinal(const pb::Final& final) override;
  void OnReleased(int64_t trial_id, bool started, const std::string& cause,
                  bool runner_died) override;
  void OnReattached(int64_t trial_id, const std::string& runner_id) override;
  void OnRunnerLeaving(int64_t trial_id, const std::string& why) override;
  void OnRunnerLeft(int64_t trial_id, const std::string& why) override;
  bool Owns(int64_t trial_id) const override { return table_.all().count(trial_id) > 0; }
  void OnRejected(int64_t trial_id, const std::string& what, const std::string& reason) override;
  std::optional<pb::Assign> NextAssign(const std::string& runner_name, uint64_t lease) override;
  // Not with a budget (a trial starts only while it has room) or a time
  // limit (none starts after it), nor with
  // max_concurrent: 1 (each trial is proposed after the last one ended),
  // nor for model-based search (each proposal learns from every result in
  // so far, not from those in when a queue was filled).
  bool QueueAhead() const override {
    return !study_.algorithm().has_budget() && time_limit_s_ == 0 && max_concurrent_ != 1 &&
           !scheduler_->LearnsFromEveryResult();
  }
  int64_t MaxConcurrent() const override {
    if (max_runners_ == 0) return max_concurrent_;
    return max_concurrent_ == 0 ? max_runners_ : std::min(max_concurrent_, max_runners_);
  }
  double Weight() const override { return priority_; }
  RunnerNeeds Needs() const override {
    return {study_.resources().gpus_per_trial(), study_.task().has_command()};
  }
  void OnWaiting(const std::string& why) override;
  const std::string& Name() const override { return study_.name(); }
  bool HasWork() const override {
    return !draining_ && pausing_.empty() && !fail_fast_.stopped() && !Done();
  }
  std::optional<bool> Preempt(int64_t trial_id, const std::string& reason) override;
  int64_t StallMs() const override { return stall_ms_; }

 private:
  StudyRun(Store* store, const pb::Study& study, SearchSpace space, std::string db_folder);
  Status Load();

  // The one way a trial changes status (TrialTable::Transition), plus the
  // clean-up of what the old state held on disk.
  void Move(Trial* t, TrialStatus to, TrialTable::Where where = TrialTable::Where::kBack);
  // Its runner stopped it after step `step` for a preemption: back to the
  // front of the queue, its attempt open, to go on from its checkpoint.
  void Preempted(Trial* t, int64_t step);
  // "the trial reported no 'val_acc' metric ...; it reported loss, val_accuracy; did you mean
  // 'val_accuracy'?" (tuner/study_values.cc)
  std::string MissingMetric(const pb::Final& fin) const;
  // `finals`: the metrics of the final message that ended it, if used; a
  // completed or stopped trial's objectives and constraint values are taken
  // from them, else from its reports (RecordValues).
  void Finish(Trial* t, TrialStatus status, std::optional<double> value, int64_t step,
              const std::string& metrics_json, const std::string& failure,
              const std::map<std::string, double>& finals = {});
  // tuner/study_values.cc: several objectives: each one's value in `report`
  // (NaN where it lacks one), in the study's order; empty for one objective.
  std::vector<double> ObjectivesIn(const pb::Report& report) const;
  // tuner/study_values.cc: a trial's objectives and constraint values where
  // it ended at `step` (tuner/trial_values.h), and their row in the store.
  FinishedValues ValuesAt(const Trial& t, int64_t step,
                          const std::map<std::string, double>& finals);
  // Also sets the trial's `objectives` and `violation`.
  void RecordValues(Trial* t, int64_t step, const std::map<std::string, double>& finals);
  // Puts a trial back in the queue with `attempts` counted.
  void Requeue(Trial* t, int attempts, TrialTable::Where where);
  // An attempt ended without a result (see TrialOwner::OnReleased).
  void LoseAttempt(Trial* t, const std::string& cause, bool runner_died);
  // The runner ended the segment the algorithm paused.
  void Pause(Trial* t);
  void Resume(Trial* t);
  // Records a decision with its reason, once per trial and step for
  // continue/stop (a re-run from a checkpoint may meet it again).
  void RecordDecision(Trial* t, int64_t step, Decision d, const std::string& reason);
  // Records t's unreported checkpoint if it belongs to `step`.
  // `now`: its report's time, so that a replay (which puts a checkpoint
  // before a report of the same time) meets it before the report, as the
  // algorithm did (PBT copies only from members with a checkpoint).
  void CommitCheckpoint(Trial* t, int64_t step, double now);
  // Checkpoint files (tuner/study_checkpoints.cc): each one written or
  // removed goes through the ledger.
  int64_t MaxCheckpointBytes() const;
  void RemoveUnnamedCheckpoints();  // at Load: files no row names
  // Removes checkpoints no decision can need until `bytes` more fit within
  // the study's budget; false if they still do not.
  bool MakeRoom(int64_t bytes);
  // The bytes the budget counts: each trial's latest checkpoint.
  int64_t KeptCheckpointBytes() const;
  // PBT's exploit: the replacement, a new trial from a verified copy of its
  // parent's checkpoint (nothing if a trial has its number already).
  void Replace(const Replacement& r);
  // A new trial from the algorithm, inserted in the store as running on
  // `runner_name` under `lease` (attempt 1); null if none.
  Trial* CreateTrial(const std::string& runner_name, uint64_t lease);
  // Its writes (tuner/study_writes.h): an event, a write's status, and the
  // time every row is stamped with, which from the history's replay in
  // Load() on comes after the latest report, checkpoint and trial end the
  // database held.
  void Event(int64_t trial_id, const std::string& kind, const std::string& detail) {
    writes_.Event(trial_id, kind, detail);
  }
  void Write(Status st) { writes_.Check(std::move(st)); }
  double Stamp() { return writes_.Stamp(); }
  // The trial a runner message is about, if it is running under `lease`
  // (the dispatcher checked its own lease table; this guards the study's).
  Trial* Running(int64_t trial_id, uint64_t lease);

  Store* store_;
  pb::Study study_;
  SearchSpace space_;
  int64_t study_id_ = 0;
  int max_retries_ = 2;
  int64_t stall_ms_ = 0;
  int64_t max_concurrent_ = 0;  // 0: no limit
  double priority_ = 1;         // SetShare
  int64_t max_runners_ = 0;     // SetShare; 0: no cap
  bool draining_ = false;
  std::string pausing_;    // set_pausing
  std::string waiting_;    // OnWaiting's, until a trial starts
  FailFast fail_fast_{0};  // the first trials' failures in this run
  double run_base_s_ = 0;  // RunSeconds() of the earlier runs, as stored
  int64_t opened_ms_ = NowMs();
  int64_t run_written_ms_ = 0;  // Tick's last write
  double time_limit_s_ = 0;     // algorithm.time_limit (0: none)
  bool hard_limit_ = false;
  bool time_up_told_ = false;
  std::string db_folder_;  // the database's folder, where the study's folder is
  // Each piece of the study's state with its owner:
  TrialTable table_;                       // the trials and their statuses
  std::unique_ptr<Scheduler> scheduler_;   // the algorithm
  TrialLogs logs_;                         // command trials' logs
  StudyWrites writes_;                     // stamps, events, the first failed write
  StudyCheckpointFiles checkpoint_files_;  // checkpoint files, their bytes, their removal
  AckQueue acks_;                          // what runners are owed after the next commit
  TrialPaces paces_;                       // the running trials' pace (Counts)
  std::set<int64_t> progress_dirty_;       // trials whose progress the next commit writes
  // Rejected messages per kind (report, final, ...), for rate-limiting their rows.
  std::map<std::string, int64_t> rejected_;
  static constexpr int64_t kRejectedRowsInFull = 10;
  int64_t checkpoints_refused_ = 0;  // for one warning in the log, not one each
  // FrontSize's last answer: (completed trials, front size).
  mutable std::pair<int64_t, int64_t> front_size_{-1, 0};
};

}  // namespace sweep
