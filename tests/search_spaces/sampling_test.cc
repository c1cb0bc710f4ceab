// Samplers: reproducibility, distributions, conditions and grid coverage.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "common/values.h"
#include "search_spaces/samplers.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"

namespace sweep {
namespace {

pb::Study Parse(const std::string& yaml) {
  auto p = ParseStudyYaml(yaml, "test.yaml");
  EXPECT_TRUE(p.ok()) << p.status().message();
  Status st = ValidateStudy(&*p);
  EXPECT_TRUE(st.ok()) << st.message();
  return p->study;
}

const char* kHead =
    "objective: {metric: value, goal: minimize}\ntask: {synthetic: {function: curve}}\n";

std::map<std::string, pb::Value> AsMap(const Params& p) {
  std::map<std::string, pb::Value> m;
  for (const auto& pv : p) m[pv.name()] = pv.value();
  return m;
}

TEST(SamplingTest, RandomTrialKDependsOnSeedAndKOnly) {
  pb::Study s = Parse(
      std::string(kHead) +
      "algorithm: {type: random, max_trials: 100}\nseed: 7\nparameters:\n"
      "  x1: {type: float, min: 0, max: 1}\n  x2: {type: int, min: 1, max: 100, log: true}\n");
  auto space = SearchSpace::Create(s);
  ASSERT_TRUE(space.ok());
  auto a = MakeRandomSampler(*space, 7), b = MakeRandomSampler(*space, 7),
       c = MakeRandomSampler(*space, 8);
  // Asking in a different order gives the same points.
  auto a5 = ParamsToJson(*a->Point(5));
  for (int k = 0; k < 5; ++k) (void)b->Point(k);
  EXPECT_EQ(a5, ParamsToJson(*b->Point(5)));
  EXPECT_NE(a5, ParamsToJson(*c->Point(5)));
  EXPECT_NE(a5, ParamsToJson(*a->Point(6)));
}

TEST(SamplingTest, UniformLogIntAndCategoricalDistributions) {
  pb::Study s = Parse(std::string(kHead) +
                      "algorithm: {type: random, max_trials: 100}\nparameters:\n"
                      "  x1: {type: float, min: -5, max: 10}\n"
                      "  lr: {type: float, min: 1.0e-4, max: 1.0, log: true}\n"
                      "  n: {type: int, min: 1, max: 4}\n"
                      "  s: {type: int, min: 0, max: 10, step: 5}\n"
                      "  opt: {type: categorical, values: [a, b, c]}\n");
  auto space = SearchSpace::Create(s);
  auto sampler = MakeRandomSampler(*space, 1);
  const int n = 20000;
  double sum = 0, log_below = 0;
  std::map<int64_t, int> ints, steps;
  std::map<std::string, int> cats;
  for (int k = 0; k < n; ++k) {
    auto m = AsMap(*sampler->Point(k));
    double x = m["x1"].number();
    ASSERT_GE(x, -5);
    ASSERT_LE(x, 10);
    sum += x;
    double lr = m["lr"].number();
    ASSERT_GE(lr, 1e-4);
    ASSERT_LE(lr, 1.0);
    log_below += lr < 1e-2;  // log-uniform: half the mass below the geometric midpoint
    ints[m["n"].integer()]++;
    steps[m["s"].integer()]++;
    cats[m["opt"].text()]++;
  }
  EXPECT_NEAR(sum / n, 2.5, 0.1);
  EXPECT_NEAR(log_below / n, 0.5, 0.02);
  ASSERT_EQ(ints.size(), 4u);
  for (auto [v, c] : ints) EXPECT_NEAR(c, n / 4.0, n * 0.02) << v;
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_TRUE(steps.count(0) && steps.count(5) && steps.count(10));
  ASSERT_EQ(cats.size(), 3u);
  for (auto [v, c] : cats) EXPECT_NEAR(c, n / 3.0, n * 0.02) << v;
}

TEST(SamplingTest, ConditionalParametersExistOnlyUnderTheirParent) {
  pb::Study s =
      Parse(std::string(kHead) +
            "algorithm: {type: random, max_trials: 100}\nparameters:\n"
            "  x1: {type: float, min: 0, max: 1}\n"
            "  optimizer: {type: categorical, values: [sgd, adam, rmsprop]}\n"
            "  momentum: {type: float, min: 0.5, max: 0.99, when: {optimizer: [sgd, rmsprop]}}\n"
            "  nesterov: {type: categorical, values: [true, false], when: {optimizer: sgd}}\n"
            "  dampening: {type: float, min: 0, max: 0.1, when: {nesterov: false}}\n");
  auto space = SearchSpace::Create(s);
  auto sampler = MakeRandomSampler(*space, 3);
  int nested = 0;
  for (int k = 0; k < 2000; ++k) {
    auto m = AsMap(*sampler->Point(k));
    std::string opt = m["optimizer"].text();
    EXPECT_EQ(m.count("momentum") == 1, opt == "sgd" || opt == "rmsprop");
    EXPECT_EQ(m.count("nesterov") == 1, opt == "sgd");
    bool damp = m.count("nesterov") && !m["nesterov"].flag();
    EXPECT_EQ(m.count("dampening") == 1, damp);
    nested += damp;
  }
  EXPECT_GT(nested, 100);
}

TEST(SamplingTest, GridCoversEveryPointExactlyOnceWithConditionalBranches) {
  pb::Study s = Parse(
      "objective: {metric: value, goal: minimize}\ntask: {synthetic: {function: rosenbrock}}\n"
      "algorithm: {type: grid}\nparameters:\n"
      "  x1: {type: categorical, values: [-1.5, 0.0, 1.0, 2.5]}\n"
      "  x2: {type: int, min: -2, max: 2}\n"
      "  optimizer: {type: categorical, values: [sgd, adam]}\n"
      "  momentum: {type: float, min: 0.5, max: 0.9, step: 0.4, when: {optimizer: sgd}}\n");
  auto space = SearchSpace::Create(s);
  auto grid = MakeGridSampler(*space, 1000000);
  ASSERT_EQ(*grid->Size(), 4 * 5 * 3);
  std::set<std::string> seen;
  for (int k = 0; k < 60; ++k) seen.insert(ParamsToJson(*grid->Point(k)));
  EXPECT_EQ(seen.size(), 60u);
  EXPECT_FALSE(grid->Point(60).has_value());
  EXPECT_EQ(*space->GridSize(100), 60u);
  EXPECT_FALSE(space->GridSize(59).ok());
}

TEST(SamplingTest, QuasiRandomIsReproducibleAndMoreEvenThanRandom) {
  pb::Study s = Parse(std::string(kHead) +
                      "algorithm: {type: quasirandom, max_trials: 64}\nparameters:\n"
                      "  x1: {type: float, min: 0, max: 1}\n  x2: {type: float, min: 0, max: 1}\n");
  auto space = SearchSpace::Create(s);
  auto q = MakeQuasiRandomSampler(*space, 5), r = MakeRandomSampler(*space, 5);
  EXPECT_EQ(ParamsToJson(*q->Point(10)),
            ParamsToJson(*MakeQuasiRandomSampler(*space, 5)->Point(10)));
  // Count empty cells of an 8x8 grid after 64 points: low discrepancy leaves far fewer.
  auto empty_cells = [](Sampler& smp) {
    std::set<int> cells;
    for (int k = 0; k < 64; ++k) {
      auto m = AsMap(*smp.Point(k));
      cells.insert(static_cast<int>(m["x1"].number() * 8) * 8 +
                   static_cast<int>(m["x2"].number() * 8));
    }
    return 64 - static_cast<int>(cells.size());
  };
  int qe = empty_cells(*q), re = empty_cells(*r);
  EXPECT_LT(qe, re);
  EXPECT_LE(qe, 16);  // random search leaves about 23 of 64 cells empty
}

}  // namespace
}  // namespace sweep
