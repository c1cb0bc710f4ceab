// algorithm.fail_fast: a study whose first trials all fail the same way has a
// mistake in its set-up (an objective metric the program never reports, a
// runner that may not run commands, a batch larger than the table), and
// every other trial would fail like them. When the first N trials to end in
// this run all failed the same way, before any trial completed, was stopped,
// paused or reported a finite objective (in this run or an earlier one), the
// study stops starting trials; a running trial that then does lifts the
// stop. A study where some trial succeeded is never stopped this way. Failures of a non-finite
// objective (a diverging learning rate) depend on the parameters and do not count. REQUIRES:
// external synchronization (the tuner's thread).
#pragma once

#include <string>

#include "common/trial_status.h"

namespace sweep {

class FailFast {
 public:
  // `needed`: N (0: never stop).
  explicit FailFast(int needed) : needed_(needed) {}

  // A trial ended in this run with `status`; `failure` is why, if it failed.
  void OnEnd(TrialStatus status, const std::string& failure);
  // Something works: a trial reported a finite objective or paused at a rung
  // (Hyperband's and PBT's live trials end only once their cohort does), or
  // the study had results before this run. It never stops the study after.
  void Disarm() {
    disarmed_ = true;
    stopped_ = false;
  }
  // The study stops: its first trials all failed as `failure()` says.
  bool stopped() const { return stopped_; }
  // The first of those failures, as the trial's row has it.
  const std::string& failure() const { return first_failure_; }
  int count() const { return same_; }
  // "its first 3 trials to end all failed the same way, before any completed: ..."
  std::string Reason() const;

  // Two failures are the same kind when they differ only in their numbers
  // (trial numbers, values, line numbers in a traceback).
  static std::string Kind(const std::string& failure);

 private:
  int needed_;
  bool disarmed_ = false;  // a trial completed, or failed another way
  bool stopped_ = false;
  int same_ = 0;
  std::string kind_, first_failure_;
};

}  // namespace sweep
