// The trial table: one checked transition, the queue, derived counts and
// the best trial.
#include "tuner/trial_table.h"

#include <gtest/gtest.h>

namespace sweep {
namespace {

Trial Make(int64_t id, TrialStatus s, std::optional<double> value = std::nullopt) {
  Trial t;
  t.id = id;
  t.number = id - 1;
  t.status = s;
  t.value = value;
  return t;
}

TEST(TrialTableTest, CountsFollowTransitionsAndTheQueueKeepsItsOrder) {
  TrialTable table(/*maximize=*/false);
  table.Insert(Make(1, TrialStatus::kQueued));
  table.Insert(Make(2, TrialStatus::kQueued));
  table.Insert(Make(3, TrialStatus::kPaused));
  EXPECT_EQ(table.Count(TrialStatus::kQueued), 2);
  EXPECT_EQ(table.queued(), 2u);
  Trial* first = table.PopQueued();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->id, 1);
  table.Transition(first, TrialStatus::kRunning);
  EXPECT_EQ(table.Count(TrialStatus::kRunning), 1);
  EXPECT_EQ(table.Count(TrialStatus::kQueued), 1);
  // A lost runner: back to the front of the queue.
  first->lease = 42;
  first->runner = "r0";
  first->pausing = true;
  first->pending = Decision::kStop;
  table.Transition(first, TrialStatus::kQueued, TrialTable::Where::kFront);
  EXPECT_EQ(first->lease, 0u);
  EXPECT_TRUE(first->runner.empty());
  EXPECT_FALSE(first->pausing);
  EXPECT_FALSE(first->pending.has_value());
  EXPECT_EQ(table.PopQueued()->id, 1);
  EXPECT_EQ(table.PopQueued()->id, 2);
  EXPECT_EQ(table.PopQueued(), nullptr);
  // A paused trial resumed joins the queue; one stopped leaves it at once.
  table.Transition(table.Find(3), TrialStatus::kQueued);
  table.Transition(table.Find(3), TrialStatus::kStopped);
  EXPECT_EQ(table.queued(), 0u);
  EXPECT_EQ(table.Count(TrialStatus::kStopped), 1);
  EXPECT_EQ(table.Count(TrialStatus::kPaused), 0);
}

TEST(TrialTableTest, TheBestIsDerivedFromCompletedTrials) {
  TrialTable table(/*maximize=*/true);
  EXPECT_EQ(table.best(), nullptr);
  table.Insert(Make(1, TrialStatus::kCompleted, 0.5));
  Trial& t = table.Insert(Make(2, TrialStatus::kRunning));
  t.value = 0.9;
  table.Transition(&t, TrialStatus::kCompleted);
  ASSERT_NE(table.best(), nullptr);
  EXPECT_EQ(table.best()->id, 2);
  table.Insert(Make(3, TrialStatus::kCompleted, 0.7));
  EXPECT_EQ(table.best()->id, 2);
  EXPECT_EQ(table.Count(TrialStatus::kCompleted), 3);
}

// The tuner's summary and `sweep best` named different trials when two
// tied (an H200 run: trial 2 completed first, trial 0 later with the same
// val_accuracy; the reader ranks ties by id).
TEST(TrialTableTest, ATieGoesToTheLowerIdWhicheverCompletedFirst) {
  TrialTable table(/*maximize=*/true);
  Trial& late = table.Insert(Make(1, TrialStatus::kRunning));
  table.Insert(Make(3, TrialStatus::kCompleted, 0.914));
  late.value = 0.914;
  table.Transition(&late, TrialStatus::kCompleted);
  ASSERT_NE(table.best(), nullptr);
  EXPECT_EQ(table.best()->id, 1);
  table.Insert(Make(2, TrialStatus::kCompleted, 0.914));
  EXPECT_EQ(table.best()->id, 1);
}

TEST(TrialTableTest, AnOrphanedCheckpointIsHandedBackForDeletion) {
  TrialTable table(false);
  Trial& t = table.Insert(Make(1, TrialStatus::kRunning));
  t.checkpoint_path = "/c/committed";
  t.unreported = Trial::Unreported{"/c/new", 3, 10, 7};
  auto orphan = table.Transition(&t, TrialStatus::kFailed);
  ASSERT_TRUE(orphan.has_value());
  EXPECT_EQ(*orphan, "/c/new");
  EXPECT_FALSE(t.unreported.has_value());
}

TEST(TrialTableDeathTest, AnIllegalTransitionIsABug) {
  TrialTable table(false);
  Trial& t = table.Insert(Make(1, TrialStatus::kCompleted, 1.0));
  EXPECT_DEATH(table.Transition(&t, TrialStatus::kRunning), "cannot go from completed to running");
}

}  // namespace
}  // namespace sweep
