// How fast each running trial goes in this run, for the status line's time
// left (tuner/progress.h): the time and step of its first report in the run
// and the time of its latest. Its pace counts from its first report, so
// neither a wait behind a runner's other trials nor the program's start-up
// is in it. Owned by the StudyRun; a trial's entry goes whenever its status
// changes, so each run starts afresh.
// REQUIRES: external synchronization (the tuner's thread).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

namespace sweep {

class TrialPaces {
 public:
  void Reported(int64_t trial_id, int64_t step, int64_t now_ms);
  void Forget(int64_t trial_id) { paces_.erase(trial_id); }
  // What trial `trial_id`, now at `step`, needs to run `steps_left` more at
  // its pace, less the time since its latest report (at least 0); nullopt
  // until it has reported two steps in this run.
  std::optional<double> LeftMs(int64_t trial_id, int64_t step, int64_t steps_left,
                               int64_t now_ms) const;

 private:
  struct Pace {
    int64_t first_ms = 0, first_step = 0, last_ms = 0;
  };
  std::unordered_map<int64_t, Pace> paces_;
};

}  // namespace sweep
