// Progress display for `sweep run` and `sweep watch`: a live status line on
// a terminal (cut to its width, so it never wraps), plain periodic log
// lines otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/trial_status.h"

namespace sweep {

struct ProgressCounts {
  int64_t completed = 0, failed = 0, stopped = 0, running = 0, queued = 0, paused = 0;
  // The six above from the counts per status.
  void SetStatuses(const TrialCounts& n) {
    using S = TrialStatus;
    completed = n[S::kCompleted], failed = n[S::kFailed], stopped = n[S::kStopped];
    running = n[S::kRunning], queued = n[S::kQueued], paused = n[S::kPaused];
  }
  std::optional<int64_t> planned;
  std::optional<double> best;
  // Several objectives or constraints: how many trials the front has
  // (shown instead of `best`).
  std::optional<int64_t> front;
  int runners = -1;  // -1: not known (sweep watch reads a database)
  // The last step the least advanced running trial reported: what moves
  // while long trials run and none has ended yet.
  std::optional<int64_t> slowest_step;
  // How far the running trials are, in trials: each adds the share of its
  // steps it has reported (step 5 of 20: 0.25), so the rate and the time
  // left move while long trials run, not only when one ends.
  double running_share = 0;
  // The most steps any running trial must still run before its algorithm
  // may end it (to its next decision step, else its last), in trials;
  // unset where that is not known: a task of one step, trials already
  // ending, the median rule (it may stop a trial at any step).
  std::optional<double> left_share;
  // The steps run so far over all of the study's trials, in trials (a trial
  // stopped at step 5 of 20 adds 0.25): the work `trial_rate` is measured
  // in, so that trials stopped early count for what they ran.
  double work = 0;
  // Trials per second, and so the time left: `rate` when given, else the
  // trials that ended after the first `ended_before` over the elapsed time
  // (a resumed study's earlier trials do not count).
  std::optional<double> rate;
  int64_t ended_before = 0;
  // One trial's speed, in trials per second of its own running time (the
  // `work` done over the time trials spent running, summed over trials):
  // when known, the time left is at least `left_share` at it, so a long
  // trial left running alone at the end is not counted as done at the
  // whole study's parallel rate.
  std::optional<double> trial_rate;
  // The longest any running trial still needs at its own pace in this run
  // (its time a step between its first and latest reports, over the steps
  // it must still run as for `left_share`, less the time since its latest
  // report), in seconds; unset while none has reported twice in this run.
  // The time left is at least this: a slow trial left running at the end
  // is timed by its own steps.
  std::optional<double> running_left_s;
  // Seconds until algorithm.time_limit (0 once it passed); unset without one.
  std::optional<double> time_left_s;
  // Why none of its trials can start ("waiting: no runner in the pool can
  // run its trials (they need --allow-commands; ...)"); "" when they can.
  std::string waiting;
};

// "[study] done 3/20  running 2 (slowest at step 40)  best 0.12  ~3:05 left
// 0:42 elapsed  1.5 trials/s  queued 15  runners 2": the fields in order,
// the least needed dropped first until the line fits `width` columns, then
// cut. The time left is the trials still planned at the rate, both counting
// the running trials' shares, and at least `left_share` at `trial_rate` and
// `running_left_s`.
std::string StatusLine(const std::string& study, const ProgressCounts& c, double elapsed_s,
                       size_t width);
// The status line redrawn in place on the terminal on `fd`: "\r", erase
// the line, the line cut one column short of the width (a line that fills
// the last column makes some terminals wrap before the next "\r").
std::string LiveStatusLine(int fd, const std::string& study, const ProgressCounts& c,
                           double elapsed_s);
// The columns of the terminal on `fd`, else $COLUMNS, else 80.
size_t TerminalWidth(int fd);
// "42s", "3:05", "1:02:03".
std::string FormatDuration(double seconds);

class Progress {
 public:
  Progress(std::string study, bool live);
  // Whether Update would draw now: at most every 250 ms (live), or log
  // every 10 s (plain).
  bool Due() const;
  // Draws (or logs) the line if Due(), or always with `force`. The first
  // update's ended trials (a resumed study's) are not counted in the rate.
  void Update(const ProgressCounts& c, bool force = false);
  // Clears the live line before other output.
  void Clear();

 private:
  std::string study_;
  bool live_;
  int64_t start_ms_;
  int64_t last_ms_ = 0;
  bool drawn_ = false;
  std::optional<int64_t> ended_before_;  // at the first update
  // Trial-seconds spent running since the first update (each update adds
  // the previous update's running count over the time between), for
  // ProgressCounts::trial_rate.
  double busy_s_ = 0;
  int64_t running_before_ = 0;
  double work_before_ = 0;  // ProgressCounts::work at the first update
};

}  // namespace sweep
