// MOTPE and constrained TPE: the good/bad split by hand (fronts, the
// hypervolume subset, infeasible trials filling in), and MOTPE
// learning: on ZDT1 its front's hypervolume after 60 trials beats 60
// quasi-random points' on every seed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "common/pareto.h"
#include "trial_runner/synthetic.h"
#include "tuner/algorithms/tpe_split.h"
#include "tuner/model_study.h"

namespace sweep {
namespace {

TEST(TpeSplit, WholeFrontsThenTheLargestHypervolume) {
  // Front 0: (0,4) (1,1) (4,0); front 1: (2,2) (5,1) (1,5); front 2: (6,6).
  std::vector<SplitPoint> p = {{{0, 4}, 0}, {{1, 1}, 0}, {{4, 0}, 0}, {{2, 2}, 0},
                               {{5, 1}, 0}, {{1, 5}, 0}, {{6, 6}, 0}};
  TpeSplit s = SplitForTpe(p, 3);
  EXPECT_EQ(s.good, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(s.bad, (std::vector<size_t>{3, 4, 5, 6}));
  // Four: front 0 and the member of front 1 adding the most hypervolume
  // against front 1's reference (5.5, 5.5): (2,2) adds 3.5*3.5 = 12.25,
  // (5,1) 0.5*4.5, (1,5) 4.5*0.5.
  s = SplitForTpe(p, 4);
  EXPECT_EQ(s.good, (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(TpeSplit, InfeasibleTrialsFillTheGoodGroupOnlyWhenFewAreFeasible) {
  std::vector<SplitPoint> p = {{{0, 0}, 3}, {{5, 5}, 0}, {{0, 1}, 1}, {{6, 4}, 0}};
  TpeSplit two = SplitForTpe(p, 2);
  EXPECT_EQ(two.good, (std::vector<size_t>{1, 3}));  // both feasible, though worse
  TpeSplit three = SplitForTpe(p, 3);
  EXPECT_EQ(three.good, (std::vector<size_t>{1, 2, 3}));  // the least violation joins
  // One objective: by value, feasible first.
  std::vector<SplitPoint> one = {{{3}, 0}, {{1}, 0.5}, {{2}, 0}, {{0}, 0}};
  EXPECT_EQ(SplitForTpe(one, 2).good, (std::vector<size_t>{2, 3}));
}

// A ZDT1 study of `trials` trials run by `algorithm`; the hypervolume of
// its front against (1.1, 11).
double Zdt1Hypervolume(const std::string& algorithm, int seed, int trials) {
  const std::string params =
      "  x1: {type: float, min: 0, max: 1}\n  x2: {type: float, min: 0, max: 1}\n"
      "  x3: {type: float, min: 0, max: 1}\n  x4: {type: float, min: 0, max: 1}\n"
      "objectives: [{metric: f1, goal: minimize}, {metric: f2, goal: minimize}]\n";
  // ModelStudy writes `objective:`; several objectives replace it.
  auto p = ParseStudyYaml("name: t\ntask: {command: {argv: [train]}}\nalgorithm: " + algorithm +
                              "\nseed: " + std::to_string(seed) + "\nparameters:\n" + params,
                          "t.yaml");
  EXPECT_TRUE(p.ok()) << p.status().message();
  Status st = ValidateStudy(&*p);
  EXPECT_TRUE(st.ok()) << st.message();
  SearchSpace space = *SearchSpace::Create(p->study);
  TrialTable table(false);
  auto s = MakeScheduler(p->study, space, 0, 0, &table);
  std::vector<std::vector<double>> fs;
  int64_t id = 1;
  while (auto spec = s->NextTrial()) {
    std::vector<double> x;
    for (const char* n : {"x1", "x2", "x3", "x4"}) x.push_back(X(*spec, n));
    Trial t;
    t.id = id++;
    t.number = spec->number;
    t.status = TrialStatus::kCompleted;
    t.params = spec->params;
    t.objectives = Zdt1(x);
    t.value = t.objectives[0];
    fs.push_back(t.objectives);
    table.Insert(std::move(t));
  }
  EXPECT_EQ(static_cast<int>(fs.size()), trials);
  return Hypervolume(fs, {1.1, 11});
}

TEST(Motpe, BeatsQuasiRandomOnZdt1AtEqualTrials) {
  for (int seed = 1; seed <= 3; ++seed) {
    double motpe = Zdt1Hypervolume("{type: tpe, max_trials: 60}", seed, 60);
    double qr = Zdt1Hypervolume("{type: quasirandom, max_trials: 60}", seed, 60);
    EXPECT_GT(motpe, qr) << "seed " << seed;
    std::printf("seed %d: MOTPE %.4f, quasi-random %.4f\n", seed, motpe, qr);
  }
}

}  // namespace
}  // namespace sweep
