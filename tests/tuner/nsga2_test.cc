// NSGA-II: generation 0 is the Halton sequence; later generations breed
// from the elite of the earlier ones without waiting for running trials;
// proposals are a pure function of (seed, number, table); parameter
// constraints hold; and on ZDT1 and DTLZ2 it beats quasi-random points'
// hypervolume at equal trials.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "common/pareto.h"
#include "search_spaces/space_point.h"
#include "trial_runner/synthetic.h"
#include "tuner/model_study.h"

namespace sweep {
namespace {

struct Nsga2Study {
  pb::Study study;
  std::unique_ptr<SearchSpace> space;
  TrialTable table{false};
  std::unique_ptr<Scheduler> s;
  int64_t next_id = 1;

  Nsga2Study(const std::string& algorithm, int inputs, int objectives, int seed,
             const std::string& extra = "") {
    std::string yaml = "name: t\ntask: {command: {argv: [train]}}\nalgorithm: " + algorithm +
                       "\nseed: " + std::to_string(seed) + "\nobjectives:\n";
    for (int k = 1; k <= objectives; ++k)
      yaml += "  - {metric: f" + std::to_string(k) + ", goal: minimize}\n";
    yaml += extra + "parameters:\n";
    for (int i = 1; i <= inputs; ++i)
      yaml += "  x" + std::to_string(i) + ": {type: float, min: 0, max: 1}\n";
    auto p = ParseStudyYaml(yaml, "t.yaml");
    EXPECT_TRUE(p.ok()) << p.status().message();
    Status st = ValidateStudy(&*p);
    EXPECT_TRUE(st.ok()) << st.message();
    study = p->study;
    space = std::make_unique<SearchSpace>(*SearchSpace::Create(study));
    s = MakeScheduler(study, *space, 0, 0, &table);
  }
  std::vector<double> Xs(const TrialSpec& spec, int inputs) const {
    std::vector<double> x;
    for (int i = 1; i <= inputs; ++i) x.push_back(X(spec, "x" + std::to_string(i)));
    return x;
  }
  Trial& Add(const TrialSpec& spec, TrialStatus status, std::vector<double> f) {
    Trial t;
    t.id = next_id++;
    t.number = spec.number;
    t.status = status;
    t.params = spec.params;
    if (status == TrialStatus::kCompleted) {
      t.objectives = std::move(f);
      t.value = t.objectives[0];
    }
    return table.Insert(std::move(t));
  }
};

TEST(Nsga2Test, GenerationZeroIsHaltonThenChildrenOfTheElite) {
  Nsga2Study f("{type: nsga2, max_trials: 12, nsga2: {population: 4}}", 2, 2, 7);
  auto halton = MakeQuasiRandomSampler(*f.space, 7);
  for (int k = 0; k < 12; ++k) {
    auto spec = f.s->NextTrial();
    ASSERT_TRUE(spec);
    if (k < 4) {
      EXPECT_EQ(ParamsToJson(spec->params.params()), ParamsToJson(*halton->Point(k)));
      EXPECT_EQ(spec->origin, "NSGA-II generation 0: quasi-random start-up point");
    } else {
      EXPECT_NE(spec->origin.find("NSGA-II generation " + std::to_string(k / 4) + ": "),
                std::string::npos);
      EXPECT_NE(spec->origin.find("of trials"), std::string::npos) << spec->origin;
    }
    f.Add(*spec, TrialStatus::kCompleted, Zdt1(f.Xs(*spec, 2)));
  }
  EXPECT_FALSE(f.s->NextTrial());
}

TEST(Nsga2Test, AGenerationDoesNotWaitForItsSlowestMembers) {
  Nsga2Study f("{type: nsga2, max_trials: 20, nsga2: {population: 4}}", 2, 2, 3);
  // Generation 0: two complete, two still run.
  for (int k = 0; k < 4; ++k) {
    auto spec = f.s->NextTrial();
    f.Add(*spec, k < 2 ? TrialStatus::kCompleted : TrialStatus::kRunning, Zdt1(f.Xs(*spec, 2)));
  }
  auto next = f.s->NextTrial();
  ASSERT_TRUE(next);
  EXPECT_NE(next->origin.find("from the elite of 2 completed trials"), std::string::npos)
      << next->origin;
  // With one completed, a quasi-random point instead.
  Nsga2Study g("{type: nsga2, max_trials: 20, nsga2: {population: 2}}", 2, 2, 3);
  auto a = g.s->NextTrial();
  g.Add(*a, TrialStatus::kCompleted, Zdt1(g.Xs(*a, 2)));
  auto b = g.s->NextTrial();
  g.Add(*b, TrialStatus::kRunning, {});
  auto c = g.s->NextTrial();
  EXPECT_NE(c->origin.find("fewer than 2 trials of the earlier generations have completed"),
            std::string::npos)
      << c->origin;
}

TEST(Nsga2Test, AProposalIsAPureFunctionOfSeedNumberAndTable) {
  Nsga2Study a("{type: nsga2, max_trials: 30, nsga2: {population: 6}}", 3, 2, 11);
  for (int k = 0; k < 20; ++k) {
    auto spec = a.s->NextTrial();
    a.Add(*spec, TrialStatus::kCompleted, Zdt1(a.Xs(*spec, 3)));
  }
  // A restarted tuner: a new scheduler over the same table.
  auto again = MakeScheduler(a.study, *a.space, 20, 0, &a.table);
  auto x = a.s->NextTrial(), y = again->NextTrial();
  EXPECT_EQ(x->number, y->number);
  EXPECT_EQ(ParamsToJson(x->params.params()), ParamsToJson(y->params.params()));
  EXPECT_EQ(x->origin, y->origin);
}

TEST(Nsga2Test, ChildrenSatisfyTheParameterConstraints) {
  Nsga2Study f("{type: nsga2, max_trials: 60, nsga2: {population: 10}}", 2, 2, 5,
               "parameter_constraints: [\"x1 + x2 <= 0.7\"]\n");
  int bred = 0;
  while (auto spec = f.s->NextTrial()) {
    auto x = f.Xs(*spec, 2);
    EXPECT_LE(x[0] + x[1], 0.7 + 1e-12) << spec->origin;
    // Children, not uniform draws.
    bred += spec->origin.find("crossover of trials") != std::string::npos ||
            spec->origin.find("a copy of trials") != std::string::npos;
    f.Add(*spec, TrialStatus::kCompleted, Zdt1(x));
  }
  EXPECT_EQ(f.table.size(), 60);
  EXPECT_GE(bred, 45);  // all but generation 0's ten
}

TEST(Nsga2Test, ChildrenStayOnTheGridOfStepsAndChoices) {
  // The same space with stepped and categorical parameters beside x1, x2.
  auto p = ParseStudyYaml(
      "name: t\ntask: {command: {argv: [train]}}\nalgorithm: {type: nsga2, max_trials: 80, "
      "nsga2: {population: 8}}\nobjectives: [{metric: f1, goal: minimize}, {metric: f2, goal: "
      "minimize}]\nparameters:\n  x1: {type: float, min: 0, max: 1}\n"
      "  batch: {type: int, min: 32, max: 512, step: 32}\n"
      "  lr: {type: float, min: 0.001, max: 1, log: true}\n"
      "  drop: {type: float, min: 0, max: 0.5, step: 0.1}\n"
      "  act: {type: categorical, values: [relu, tanh, gelu]}\n",
      "t.yaml");
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(ValidateStudy(&*p).ok());
  SearchSpace space = *SearchSpace::Create(p->study);
  TrialTable table(false);
  auto s = MakeScheduler(p->study, space, 0, 0, &table);
  int64_t id = 1;
  while (auto spec = s->NextTrial()) {
    pb::ParamSet set = spec->params;
    EXPECT_TRUE(CheckPoint(space, set).ok())
        << CheckPoint(space, set).message() << " " << spec->origin;
    Trial t;
    t.id = id++;
    t.number = spec->number;
    t.status = TrialStatus::kCompleted;
    t.params = spec->params;
    double batch = X(*spec, "batch"), x1 = X(*spec, "x1");
    t.objectives = {x1 + batch / 512, 1 - x1 + X(*spec, "drop")};
    t.value = t.objectives[0];
    table.Insert(std::move(t));
  }
  EXPECT_EQ(table.size(), 80);
}

double RunStudy(const std::string& algorithm, int inputs, int objectives, int seed, int trials) {
  Nsga2Study f(algorithm, inputs, objectives, seed);
  std::vector<std::vector<double>> fs;
  while (auto spec = f.s->NextTrial()) {
    auto x = f.Xs(*spec, inputs);
    std::vector<double> v = objectives == 2 ? Zdt1(x) : Dtlz2(x);
    fs.push_back(v);
    f.Add(*spec, TrialStatus::kCompleted, v);
  }
  EXPECT_EQ(static_cast<int>(fs.size()), trials);
  return Hypervolume(
      fs, objectives == 2 ? std::vector<double>{1.1, 11} : std::vector<double>{2.5, 2.5, 2.5});
}

TEST(Nsga2Test, BeatsQuasiRandomOnZdt1AndDtlz2AtEqualTrials) {
  for (int seed = 1; seed <= 3; ++seed) {
    double ga =
        RunStudy("{type: nsga2, max_trials: 300, nsga2: {population: 30}}", 6, 2, seed, 300);
    double qr = RunStudy("{type: quasirandom, max_trials: 300}", 6, 2, seed, 300);
    std::printf("ZDT1 seed %d: NSGA-II %.4f, quasi-random %.4f\n", seed, ga, qr);
    EXPECT_GT(ga, qr) << seed;
    double ga3 =
        RunStudy("{type: nsga2, max_trials: 300, nsga2: {population: 30}}", 6, 3, seed, 300);
    double qr3 = RunStudy("{type: quasirandom, max_trials: 300}", 6, 3, seed, 300);
    std::printf("DTLZ2 seed %d: NSGA-II %.4f, quasi-random %.4f\n", seed, ga3, qr3);
    EXPECT_GT(ga3, qr3) << seed;
  }
}

}  // namespace
}  // namespace sweep
