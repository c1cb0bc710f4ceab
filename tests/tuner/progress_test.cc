// The status line's rate and time left count the running trials' shares, so
// they move while long trials run instead of waiting for one to end.
#include "tuner/progress.h"

#include <gtest/gtest.h>

#include <string>

namespace sweep {
namespace {

// algorithm.time_limit: the line shows it, and no trial starts after it, so
// the time left is at most the time to it, and gone once it passed.
TEST(ProgressTest, TheTimeLimitBoundsTheTimeLeft) {
  ProgressCounts c;
  c.completed = 10;
  c.planned = 1000;
  c.time_left_s = 90;
  std::string line = StatusLine("s", c, 10, 200);
  EXPECT_NE(line.find("time limit in 1:30"), std::string::npos) << line;
  EXPECT_NE(line.find("~1:30 left"), std::string::npos) << line;  // not 990 s at 1 trial/s
  c.time_left_s = 0;
  line = StatusLine("s", c, 100, 200);
  EXPECT_NE(line.find("time limit reached"), std::string::npos) << line;
  EXPECT_EQ(line.find(" left"), std::string::npos) << line;
}

// A study no connected runner can run says so, before fields of less use.
TEST(ProgressTest, AStudyNoRunnerCanRunSaysWhyItWaits) {
  ProgressCounts c;
  c.planned = 10;
  c.queued = 10;
  c.runners = 1;
  c.waiting = "waiting: no runner in the pool can run its trials (they need --allow-commands)";
  std::string line = StatusLine("s", c, 10, 120);
  EXPECT_NE(line.find("running 0  waiting: no runner in the pool can run its trials (they need "
                      "--allow-commands)"),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find("queued"), std::string::npos) << line;  // dropped first
}

TEST(ProgressTest, TheLastLongTrialBringsTheTimeLeftDown) {
  // 2 of 3 done in 10 minutes; the last one halfway, then nearly there.
  ProgressCounts c;
  c.completed = 2;
  c.running = 1;
  c.planned = 3;
  c.running_share = 0.5;
  std::string half = StatusLine("s", c, 600, 200);
  c.running_share = 0.9;
  std::string later = StatusLine("s", c, 700, 200);
  // 2.5 trials in 600 s: 0.5 left at 240 s a trial; then 0.1 left at ~241 s.
  EXPECT_NE(half.find("~2:00 left"), std::string::npos) << half;
  EXPECT_NE(later.find("~24s left"), std::string::npos) << later;
}

TEST(ProgressTest, ALongTrialLeftRunningAloneIsNotDoneAtTheParallelRate) {
  // Four runners ended 7 trials in 10 minutes, and the eighth, the last, is
  // a quarter done: the study's rate (7.25 trials in 600 s) would leave it
  // ~62 s, but one trial runs at a quarter of that (a trial takes ~331 s).
  ProgressCounts c;
  c.completed = 7;
  c.running = 1;
  c.planned = 8;
  c.running_share = 0.25;
  c.left_share = 0.75;
  EXPECT_NE(StatusLine("s", c, 600, 200).find("~1:02 left"), std::string::npos)
      << StatusLine("s", c, 600, 200);
  c.trial_rate = 7.25 / 2400;
  EXPECT_NE(StatusLine("s", c, 600, 200).find("~4:08 left"), std::string::npos)
      << StatusLine("s", c, 600, 200);
  // Where the rate says more, the rate stands.
  c.trial_rate = 1.0;
  EXPECT_NE(StatusLine("s", c, 600, 200).find("~1:02 left"), std::string::npos)
      << StatusLine("s", c, 600, 200);
  // A trial of one step says nothing of how far it is: no floor.
  c.trial_rate = 7.25 / 2400;
  c.left_share.reset();
  EXPECT_NE(StatusLine("s", c, 600, 200).find("~1:02 left"), std::string::npos)
      << StatusLine("s", c, 600, 200);
}

TEST(ProgressTest, ASlowLastTrialIsTimedByItsOwnPace) {
  // The study's rate and an average trial's speed both say about a minute;
  // the last trial has shown it takes 70 s a step and has 4 left.
  ProgressCounts c;
  c.completed = 11;
  c.running = 1;
  c.planned = 12;
  c.running_share = 0.5;
  c.left_share = 0.5;
  c.trial_rate = 1.0 / 120;
  EXPECT_NE(StatusLine("s", c, 600, 200).find("~1:00 left"), std::string::npos)
      << StatusLine("s", c, 600, 200);
  c.running_left_s = 4 * 70.0;
  EXPECT_NE(StatusLine("s", c, 600, 200).find("~4:40 left"), std::string::npos)
      << StatusLine("s", c, 600, 200);
}

TEST(ProgressTest, SlowRatesReadPerMinuteOrPerHour) {
  ProgressCounts c;
  c.completed = 1;
  c.planned = 10;
  EXPECT_NE(StatusLine("s", c, 120, 200).find("0.5 trials/min"), std::string::npos)
      << StatusLine("s", c, 120, 200);
  EXPECT_NE(StatusLine("s", c, 7200, 200).find("0.5 trials/h"), std::string::npos)
      << StatusLine("s", c, 7200, 200);
  EXPECT_NE(StatusLine("s", c, 2, 200).find("0.5 trials/s"), std::string::npos);
}

}  // namespace
}  // namespace sweep
