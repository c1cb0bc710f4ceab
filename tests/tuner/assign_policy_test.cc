// The policy that picks a study for an idle runner, scripted with plain
// values: round robin after the study served last, skipping studies with
// no work or at their max_running.
#include "tuner/assign_policy.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace sweep
