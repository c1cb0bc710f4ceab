#include "tuner/fail_fast.h"

#include <gtest/gtest.h>

namespace sweep {
namespace {

const TrialStatus kFailed = TrialStatus::kFailed;

TEST(FailFastTest, StopsWhenTheFirstTrialsAllFailTheSameWay) {
  FailFast f(3);
  f.OnEnd(kFailed, "the program exited with code 1; last lines of stderr:\n  line 12: x=0.31");
  f.OnEnd(kFailed, "the program exited with code 1; last lines of stderr:\n  line 12: x=0.7");
  EXPECT_FALSE(f.stopped());
  f.OnEnd(kFailed, "the program exited with code 1; last lines of stderr:\n  line 12: x=1e-3");
  EXPECT_TRUE(f.stopped());
  EXPECT_EQ(f.count(), 3);
  // Those running when it stopped end too: the count stays that of the rule.
  f.OnEnd(kFailed, "the program exited with code 1; last lines of stderr:\n  line 12: x=0.2");
  EXPECT_EQ(f.count(), 3);
  EXPECT_NE(f.Reason().find("its first 3 trials to end all failed the same way"),
            std::string::npos);
  EXPECT_NE(f.Reason().find("x=0.31"), std::string::npos);  // the first one, as it was
  // One still running completes: the set-up works after all.
  f.OnEnd(TrialStatus::kCompleted, "");
  EXPECT_FALSE(f.stopped());
  f.OnEnd(kFailed, "the program exited with code 1; last lines of stderr:\n  line 12: x=0.5");
  EXPECT_FALSE(f.stopped());
}

TEST(FailFastTest, NeverStopsOnceATrialSucceededOrWasStopped) {
  for (TrialStatus first : {TrialStatus::kCompleted, TrialStatus::kStopped}) {
    FailFast f(3);
    f.OnEnd(first, "");
    for (int i = 0; i < 10; ++i) f.OnEnd(kFailed, "the trial reported no 'acc' metric");
    EXPECT_FALSE(f.stopped());
  }
}

TEST(FailFastTest, DifferentFailuresOrDivergingObjectivesAreNotASetUpMistake) {
  FailFast f(3);
  f.OnEnd(kFailed, "the program exited with code 1");
  f.OnEnd(kFailed, "the program was killed by signal 9 (SIGKILL)");
  f.OnEnd(kFailed, "the program exited with code 1");
  f.OnEnd(kFailed, "the program exited with code 1");
  EXPECT_FALSE(f.stopped());
  FailFast nan(2);
  for (int i = 0; i < 5; ++i) nan.OnEnd(kFailed, "objective 'val_loss' is nan");
  EXPECT_FALSE(nan.stopped());
  FailFast off(0);
  for (int i = 0; i < 5; ++i) off.OnEnd(kFailed, "the trial reported no 'acc' metric");
  EXPECT_FALSE(off.stopped());
}

// A finite objective reported, or results from an earlier run: the set-up
// works, and failures after that never stop the study.
TEST(FailFastTest, DisarmedForGoodOnceSomethingWorks) {
  FailFast f(2);
  f.OnEnd(kFailed, "CUDA out of memory: tried to allocate 2.00 GiB");
  f.Disarm();
  for (int i = 0; i < 5; ++i) f.OnEnd(kFailed, "CUDA out of memory: tried to allocate 4.00 GiB");
  EXPECT_FALSE(f.stopped());
  FailFast g(2);
  g.OnEnd(kFailed, "a");
  g.OnEnd(kFailed, "a");
  ASSERT_TRUE(g.stopped());
  g.Disarm();  // one still running reported its objective
  EXPECT_FALSE(g.stopped());
}

TEST(FailFastTest, KindsDifferOnlyInNumbers) {
  EXPECT_EQ(FailFast::Kind("batch_size 128 is more than the 21 examples"),
            "batch_size # is more than the # examples");
  EXPECT_EQ(FailFast::Kind("x=0.25 y=1e-3 z=2.5E+10."), "x=# y=# z=#.");
  EXPECT_NE(FailFast::Kind("code 1"), FailFast::Kind("signal 9 (SIGKILL)"));
}

}  // namespace
}  // namespace sweep
