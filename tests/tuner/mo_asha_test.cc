// Multi-objective ASHA with scripted reports: at each rung the results so
// far are ranked by Pareto front, then crowding; the top 1/eta continue;
// a replay gets the same decisions; a non-finite objective stops a trial.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "tuner/scheduler.h"

namespace sweep {
namespace {

std::unique_ptr<Scheduler> MoAsha(pb::Study* study) {
  auto p = ParseStudyYaml(
      "name: t\nobjectives: [{metric: acc, goal: maximize}, {metric: ms, goal: minimize}]\n"
      "task: {command: {argv: [train], steps: 9}}\n"
      "algorithm: {type: asha, max_trials: 20, asha: {min_resource: 1, reduction_factor: 3}}\n"
      "parameters:\n  x: {type: float, min: 0, max: 1}\n",
      "t.yaml");
  EXPECT_TRUE(p.ok()) << p.status().message();
  Status st = ValidateStudy(&*p);
  EXPECT_TRUE(st.ok()) << st.message();
  *study = p->study;
  static std::unique_ptr<SearchSpace> space;
  space = std::make_unique<SearchSpace>(*SearchSpace::Create(*study));
  return MakeScheduler(*study, *space, 0, 0);
}

std::string Word(const Action& a) {
  return a.decision == Decision::kContinue ? (a.reason.empty() ? "continue" : "promote") : "stop";
}

TEST(MoAshaTest, PromotesByParetoRankThenCrowding) {
  pb::Study study;
  auto s = MoAsha(&study);
  // (acc up, ms down). Trial 0 alone: promoted.
  EXPECT_EQ(Word(s->OnReportAll(0, 1, {0.80, 20})), "promote");
  // Trial 1 dominates 0: rank 1 of 2, keep 1.
  Action a = s->OnReportAll(1, 1, {0.90, 10});
  EXPECT_EQ(Word(a), "promote");
  EXPECT_EQ(a.reason,
            "promoted at rung 0 (step 1): acc 0.9, ms 10; front 0 of 2, place 1 of 2 by Pareto "
            "rank and crowding; the top 1 continue");
  // Trial 2 is dominated by 1: front 1, stopped.
  a = s->OnReportAll(2, 1, {0.85, 15});
  EXPECT_EQ(Word(a), "stop");
  EXPECT_NE(a.reason.find("front 1 of 3, place 2 of 3"), std::string::npos) << a.reason;
  // Trials 3..5: a trade-off against 1 (faster, less accurate) is on the
  // first front with it, but with 4 results only the top 1 continues and
  // of the front's two extremes (both infinitely far from a neighbour) the
  // earlier trial comes first; with 6 results the top 2 continue.
  EXPECT_EQ(Word(s->OnReportAll(3, 1, {0.50, 1})), "stop");
  EXPECT_EQ(Word(s->OnReportAll(4, 1, {0.40, 30})), "stop");
  a = s->OnReportAll(5, 1, {0.70, 5});
  EXPECT_NE(a.reason.find("front 0 of"), std::string::npos) << a.reason;
  EXPECT_EQ(Word(a), "stop");  // on the front, but crowded between 1 and 3
  // A replayed report gets the decision it got.
  EXPECT_EQ(Word(s->OnReportAll(2, 1, {0.99, 0.1})), "stop");
  // Not a rung: nothing is decided.
  EXPECT_EQ(Word(s->OnReportAll(1, 2, {0.9, 10})), "continue");
  // A missing objective stops the trial at a rung.
  a = s->OnReportAll(6, 1, {0.95, NAN});
  EXPECT_EQ(Word(a), "stop");
  EXPECT_EQ(a.reason, "stopped at rung 0 (step 1): ms is nan");
  // Rebuilt by replaying the same reports, the decisions are the same.
  pb::Study again;
  auto r = MoAsha(&again);
  const std::vector<std::pair<int64_t, std::vector<double>>> replay = {
      {0, {0.80, 20}}, {1, {0.90, 10}}, {2, {0.85, 15}},
      {3, {0.50, 1}},  {4, {0.40, 30}}, {5, {0.70, 5}}};
  std::string words;
  for (const auto& [n, v] : replay) words += Word(r->OnReportAll(n, 1, v)) + " ";
  EXPECT_EQ(words, "promote promote stop stop stop stop ");
}

}  // namespace
}  // namespace sweep
