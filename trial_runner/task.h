// What a trial runs. A task runs on the runner's worker thread (an instant
// one on its socket thread: RunsOnSocketThread); it reports steps through
// TaskContext and returns its final result. Tasks never touch sockets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proto/sweep.pb.h"

namespace sweep {

class TaskContext {
 public:
  virtual ~TaskContext() = default;
  // Streams one step's metrics to the tuner. Thread-safe.
  virtual void Report(int64_t step, const std::vector<pb::Metric>& metrics) = 0;
  // Sends the trial's state after `step` (sent before that step's Report).
  virtual void Checkpoint(int64_t step, std::string bytes) = 0;
  // True once the tuner asked the trial to stop; tasks poll it between steps.
  virtual bool StopRequested() const = 0;
  // True once the tuner wants the runner back (preemption): a task that can
  // checkpoint at any step sends one after its next step, and the trial
  // stops there (it goes on from that checkpoint later).
  virtual bool CheckpointWanted() const { return false; }
  // Whether a train task sends its checkpoint after `step` (it always does
  // after its last): a decision step, a preemption waiting, or the study's
  // resources.checkpoint_every_s passed since the last one sent.
  virtual bool CheckpointDue(int64_t /*step*/) const { return true; }
  // Sends lines of the trial's log (command tasks), in order.
  virtual void Log(std::string text) = 0;
  // The last step whose report (and checkpoint) the tuner has committed.
  virtual int64_t CommittedStep() const = 0;
  // CPU threads the trial may use now (asked between steps): the runner's
  // --threads, or more while other local runners on this host sit idle and
  // lend it their cores (trial_runner/core_share.h).
  virtual int CpuThreads() { return MaxCpuThreads(); }
  // The most CpuThreads() may ever say during this trial: the host's cores
  // when the runner shares them, else the runner's threads.
  virtual int MaxCpuThreads() const { return 1; }
};

struct TaskResult {
  pb::TrialOutcome outcome = pb::TRIAL_OUTCOME_COMPLETED;
  std::vector<pb::Metric> metrics;  // final metrics
  std::string error;                // for TRIAL_OUTCOME_FAILED
  int64_t step = 0;                 // last step reported
  // The process cannot run another trial (its GPU context is broken): the
  // runner ends once this result is acknowledged, and a fresh one (local
  // runners are restarted) takes its place.
  bool end_runner = false;
};

// Runs the task an assignment names (dispatches on assign.task().kind()).
TaskResult RunTask(const pb::Assign& assign, TaskContext* ctx);
// Whether the task is short and never blocks (an instant synthetic trial: no
// sleep, no rung to wait at, at most kInstantMaxSteps reports): the runner's
// socket thread runs it itself, without the hand-offs to the worker thread
// and back (most of what a benchmark trial cost: bench/RESULTS.md).
bool RunsOnSocketThread(const pb::Assign& assign);

}  // namespace sweep
