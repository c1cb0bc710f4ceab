// The policies that pick a study for an idle runner, scripted with plain
// values: round robin after the study served last, and weighted fair share;
// both skip studies with no work or at their max_running.
#include "tuner/assign_policy.h"

#include <gtest/gtest.h>

#include <map>

namespace sweep {
namespace {

AssignInput Input(std::vector<StudyLoad> studies, std::optional<int64_t> last = std::nullopt) {
  AssignInput in;
  in.studies = std::move(studies);
  in.runner.name = "r0";
  in.last_served = last;
  return in;
}

TEST(RoundRobinPolicyTest, TakesTheStudiesInTurnAfterTheOneServedLast) {
  RoundRobinPolicy p;
  std::vector<StudyLoad> s = {{7, true, 0, 0}, {3, true, 0, 0}, {9, true, 0, 0}};
  EXPECT_EQ(p.Pick(Input(s)), 7);
  EXPECT_EQ(p.Pick(Input(s, 7)), 3);
  EXPECT_EQ(p.Pick(Input(s, 3)), 9);
  EXPECT_EQ(p.Pick(Input(s, 9)), 7);  // wraps around
}

TEST(RoundRobinPolicyTest, SkipsStudiesWithoutWorkAndThoseAtTheirLimit) {
  RoundRobinPolicy p;
  std::vector<StudyLoad> s = {{1, false, 0, 0}, {2, true, 2, 2}, {3, true, 1, 2}};
  EXPECT_EQ(p.Pick(Input(s)), 3);
  EXPECT_EQ(p.Pick(Input(s, 3)), 3);  // the only one that may take it
  s[2].running = 2;
  EXPECT_EQ(p.Pick(Input(s)), std::nullopt);
  s[1].max_running = 0;  // no limit
  EXPECT_EQ(p.Pick(Input(s)), 2);
}

TEST(RoundRobinPolicyTest, AStudyServedLastThatIsGoneStartsAtTheFirst) {
  RoundRobinPolicy p;
  std::vector<StudyLoad> s = {{4, true, 0, 0}, {5, true, 0, 0}};
  EXPECT_EQ(p.Pick(Input(s, 99)), 4);
  EXPECT_EQ(p.Pick(Input({})), std::nullopt);
}

// Idle runners one after another, each taken by the study the policy picks
// (its running count grows, as the dispatcher's does): how many each got.
std::map<int64_t, int64_t> Fill(const AssignPolicy& p, std::vector<StudyLoad> s, int runners) {
  std::map<int64_t, int64_t> got;
  std::optional<int64_t> last;
  for (int r = 0; r < runners; ++r) {
    auto pick = p.Pick(Input(s, last));
    if (!pick) break;
    for (StudyLoad& x : s)
      if (x.study_id == *pick) ++x.running;
    ++got[*pick];
    last = pick;
  }
  return got;
}

TEST(FairSharePolicyTest, RunnersGoByWeight) {
  FairSharePolicy p;
  std::vector<StudyLoad> s = {{1, true, 0, 0, 1}, {2, true, 0, 0, 1}, {3, true, 0, 0, 2}};
  EXPECT_EQ(Fill(p, s, 8), (std::map<int64_t, int64_t>{{1, 2}, {2, 2}, {3, 4}}));
  // Round robin ignores weights.
  RoundRobinPolicy rr;
  EXPECT_EQ(Fill(rr, s, 9), (std::map<int64_t, int64_t>{{1, 3}, {2, 3}, {3, 3}}));
}

TEST(FairSharePolicyTest, TheStudyFurthestBelowItsShareGetsTheNextRunner) {
  FairSharePolicy p;
  // Study 1 holds 3 runners at weight 1; study 2 holds 4 at weight 10.
  std::vector<StudyLoad> s = {{1, true, 3, 0, 1}, {2, true, 4, 0, 10}};
  EXPECT_EQ(p.Pick(Input(s)), 2);
  s[1].running = 40;  // 4 a unit of weight, against 1's 3
  EXPECT_EQ(p.Pick(Input(s)), 1);
}

TEST(FairSharePolicyTest, FractionalSharesGoByWhatIsLeftBelowThenByTimeUsed) {
  // Priorities 1, 1, 2 and 4 on 4 runners: shares 0.5, 0.5, 1 and 2. A
  // runner freed by the first study goes to the last (1 below its share),
  // not to the first (0.5 below): fewest running per weight would have
  // kept one runner on every study, 1:1:1:1 (bench/service measured it).
  FairSharePolicy p;
  std::vector<StudyLoad> s = {
      {1, true, 0, 0, 1}, {2, true, 1, 0, 1}, {3, true, 1, 0, 2}, {4, true, 1, 0, 4}};
  AssignInput in = Input(s);
  in.runners = 4;
  EXPECT_EQ(p.Pick(in), 4);
  // The last half runner: the two priority-1 studies take turns, the one
  // that used less runner time first.
  in.studies = {{1, true, 0, 0, 1, 30},
                {2, true, 0, 0, 1, 20},
                {3, true, 1, 0, 2, 50},
                {4, true, 2, 0, 4, 100}};
  EXPECT_EQ(p.Pick(in), 2);
  in.studies[1].used_s = 40;
  EXPECT_EQ(p.Pick(in), 1);
}

TEST(FairSharePolicyTest, IsWorkConservingAndKeepsCaps) {
  FairSharePolicy p;
  // Study 3 has the largest weight but nothing to run; study 2 stops at 2.
  std::vector<StudyLoad> s = {{1, true, 0, 0, 1}, {2, true, 0, 2, 5}, {3, false, 0, 0, 10}};
  EXPECT_EQ(Fill(p, s, 6), (std::map<int64_t, int64_t>{{1, 4}, {2, 2}}));
  EXPECT_EQ(p.Pick(Input({{7, false, 0, 0, 1}})), std::nullopt);
}

TEST(FairSharePolicyTest, TiesGoInTurn) {
  FairSharePolicy p;
  std::vector<StudyLoad> s = {{1, true, 1, 0, 1}, {2, true, 1, 0, 1}, {3, true, 1, 0, 1}};
  EXPECT_EQ(p.Pick(Input(s)), 1);
  EXPECT_EQ(p.Pick(Input(s, 1)), 2);
  EXPECT_EQ(p.Pick(Input(s, 3)), 1);
}

TEST(CanRunTest, ARunnerGetsOnlyTrialsItCanRun) {
  RunnerAbilities cpu{"cpu", true, 0, false}, gpus{"g", true, 2, true}, old{"old"};
  RunnerNeeds none, one_gpu{1, false}, four_gpus{4, false}, command{0, true};
  EXPECT_TRUE(CanRun(cpu, none));
  EXPECT_FALSE(CanRun(cpu, one_gpu));
  EXPECT_FALSE(CanRun(cpu, command));
  EXPECT_TRUE(CanRun(gpus, one_gpu));
  EXPECT_FALSE(CanRun(gpus, four_gpus));
  EXPECT_TRUE(CanRun(gpus, command));
  // A runner from before abilities said nothing: anything, as before.
  EXPECT_TRUE(CanRun(old, four_gpus));
  EXPECT_TRUE(CanRun(old, command));
}

TEST(FairSharePolicyTest, AStudyTheRunnerCannotServeLeavesItToTheOthers) {
  FairSharePolicy fair;
  RoundRobinPolicy rr;
  // Study 1 needs a GPU and is far below its share; a CPU runner goes to 2.
  std::vector<StudyLoad> s = {{1, true, 0, 0, 10}, {2, true, 3, 0, 1}};
  s[0].needs.gpus = 1;
  AssignInput in = Input(s);
  in.runner = RunnerAbilities{"cpu", true, 0, true};
  in.runners = 4;
  EXPECT_EQ(fair.Pick(in), 2);
  EXPECT_EQ(rr.Pick(in), 2);
  in.runner.gpus = 1;
  EXPECT_EQ(fair.Pick(in), 1);
  EXPECT_EQ(rr.Pick(in), 1);
  // No study it can run: none, though both have work.
  in.studies[1].needs.commands = true;
  in.runner = RunnerAbilities{"plain", true, 0, false};
  EXPECT_EQ(fair.Pick(in), std::nullopt);
  EXPECT_EQ(rr.Pick(in), std::nullopt);
}

TEST(FairSharesTest, ProgressiveFillingWithCapsAndIdleStudies) {
  auto near = [](const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-9) << i;
  };
  // 1:1:10 over 12 runners.
  near(FairShares({{1, true, 0, 0, 1}, {2, true, 0, 0, 1}, {3, true, 0, 0, 10}}, 12), {1, 1, 10});
  // A cap of 2 on the heavy study: the rest is shared 1:1.
  near(FairShares({{1, true, 0, 0, 1}, {2, true, 0, 0, 1}, {3, true, 0, 2, 10}}, 12), {5, 5, 2});
  // A study without work keeps only what it runs.
  near(FairShares({{1, true, 0, 0, 1}, {2, false, 1, 0, 3}}, 8), {7, 1});
  // Fewer runners than anyone could use: by weight alone.
  near(FairShares({{1, true, 0, 0, 1}, {2, true, 0, 0, 3}}, 2), {0.5, 1.5});
  // Nothing to share, or no one to share it with.
  near(FairShares({{1, true, 0, 0, 1}}, 0), {0});
  EXPECT_TRUE(FairShares({}, 4).empty());
}

TEST(PlanPreemptionsTest, AHighPriorityNewcomerTakesWholeRunnersFromTheStudyOverItsShare) {
  // Priority 1 holds both runners; priority 10 arrives with work: shares
  // 0.18 and 1.82, so one runner moves (the second would leave the
  // newcomer only 0.82 short: less than a whole runner).
  std::vector<StudyLoad> s = {{1, true, 2, 0, 1}, {2, true, 0, 0, 10}};
  auto moves = PlanPreemptions(s, 2, {0, 0});
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].from, 1);
  EXPECT_EQ(moves[0].to, 2);
  // One already on its way: nothing more.
  EXPECT_TRUE(PlanPreemptions({{1, true, 1, 0, 1}, {2, true, 0, 0, 10}}, 2, {0, 1}).empty());
}

TEST(PlanPreemptionsTest, NothingMovesForAStudyWithoutWorkOrAFractionOffItsShare) {
  EXPECT_TRUE(PlanPreemptions({{1, true, 4, 0, 1}, {2, false, 0, 0, 10}}, 4, {}).empty());
  // Weights 2 and 1 on 2 runners: shares 1.33 and 0.67; 2 and 0 running is
  // only 0.67 off for the second: it waits for a trial to end.
  EXPECT_TRUE(PlanPreemptions({{1, true, 2, 0, 2}, {2, true, 0, 0, 1}}, 2, {}).empty());
  // Weights 1 and 2: shares 0.67 and 1.33, a whole runner short: one moves.
  EXPECT_EQ(PlanPreemptions({{1, true, 2, 0, 1}, {2, true, 0, 0, 2}}, 2, {}).size(), 1u);
  // At its share already (its cap): nothing.
  EXPECT_TRUE(PlanPreemptions({{1, true, 3, 0, 1}, {2, true, 1, 1, 10}}, 4, {}).empty());
}

TEST(PlanPreemptionsTest, SharesMovingTakeFromTheMostOverFirstForTheNeediest) {
  // 1:1:2 on 8 runners with the newcomer (3) at none: shares 2, 2, 4;
  // studies 1 and 2 hold 5 and 3, 3 and 1 over: all four go to study 3.
  std::vector<StudyLoad> s = {{1, true, 5, 0, 1}, {2, true, 3, 0, 1}, {3, true, 0, 0, 2}};
  auto moves = PlanPreemptions(s, 8, {0, 0, 0});
  std::map<int64_t, int> from;
  for (const auto& m : moves) {
    EXPECT_EQ(m.to, 3);
    ++from[m.from];
  }
  EXPECT_EQ(from[1], 3);
  EXPECT_EQ(from[2], 1);
}

}  // namespace
}  // namespace sweep
