// Several objectives, outcome constraints and parameter constraints in a
// study file: what validation refuses (with file:line), and that every
// sampler proposes only points that satisfy the parameter constraints.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "common/objectives.h"
#include "common/values.h"
#include "search_spaces/parameter_constraints.h"
#include "search_spaces/samplers.h"
#include "search_spaces/space_point.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"

namespace sweep {
namespace {

const char* kTwo =
    "objectives:\n"
    "  - {metric: f1, goal: minimize}\n"
    "  - {metric: f2, goal: minimize}\n";
const char* kTask = "task: {synthetic: {function: zdt1}}\n";
const std::string kZdt = std::string(kTwo) + kTask;
const char* kParams =
    "parameters:\n"
    "  x1: {type: float, min: 0, max: 1}\n"
    "  x2: {type: float, min: 0, max: 1}\n"
    "  k: {type: int, min: 1, max: 8}\n";

Status Check(const std::string& yaml, pb::Study* out = nullptr) {
  auto p = ParseStudyYaml(yaml, "s.yaml");
  if (!p.ok()) return p.status();
  Status st = ValidateStudy(&*p);
  if (out) *out = p->study;
  return st;
}

pb::Study Valid(const std::string& yaml) {
  pb::Study s;
  Status st = Check(yaml, &s);
  EXPECT_TRUE(st.ok()) << st.message();
  return s;
}

double X(const Params& p, const std::string& name) {
  for (const auto& pv : p) {
    double v = 0;
    if (pv.name() == name && ValueAsDouble(pv.value(), &v)) return v;
  }
  return std::nan("");
}

TEST(Objectives, SeveralObjectivesAndConstraintsValidate) {
  pb::Study s = Valid(kZdt +
                      "constraints:\n  - {metric: f1, max: 0.8}\n  - {metric: f2, min: 0}\n"
                      "parameter_constraints: [\"x1 + x2 <= 1.5\"]\n"
                      "algorithm: {type: random, max_trials: 10}\n" +
                      kParams);
  EXPECT_TRUE(HasSeveralObjectives(s));
  EXPECT_TRUE(TracksTrialValues(s));
  EXPECT_EQ(PrimaryObjective(s).metric(), "f1");
  EXPECT_EQ(ConstraintText(s.constraints(0)), "f1 <= 0.8");
  EXPECT_EQ(ConstraintText(s.constraints(1)), "0 <= f2");
}

TEST(Objectives, RefusalsNameTheFieldAndItsLine) {
  const std::string alg = "algorithm: {type: random, max_trials: 10}\n";
  struct Case {
    std::string yaml, want;
  } cases[] = {
      {"objective: {metric: f1, goal: minimize}\n" + kZdt + alg + kParams,
       "s.yaml:3:3: objectives: and objective are exclusive"},
      {"objectives: [{metric: f1, goal: minimize}]\ntask: {synthetic: {function: zdt1}}\n" + alg +
           kParams,
       "objectives: has one entry"},
      {std::string(kTwo) + "  - {metric: f3, goal: minimize}\n" + kTask + alg + kParams,
       "s.yaml:4:14: objectives[2].metric: 'f3' is not reported by this task"},
      {std::string(kTwo) + "  - {metric: f2, goal: maximize}\n" + kTask + alg + kParams,
       "objectives[2].metric: 'f2' is an objective already"},
      {kZdt + "algorithm: {type: gp, max_trials: 10}\n" + kParams,
       "algorithm.type: searches one objective; with several, use tpe (MOTPE), nsga2, asha"},
      {kZdt + "algorithm: {type: hyperband}\n" + kParams, "algorithm.type: searches one objective"},
      {kZdt + "constraints: [{metric: f1}]\n" + alg + kParams,
       "constraints[0]: needs min, max or both"},
      {kZdt + "constraints: [{metric: f1, min: 2, max: 1}]\n" + alg + kParams,
       "constraints[0]: min 2 is above max 1"},
      {kZdt + "constraints: [{metric: memory, max: 1}]\n" + alg + kParams,
       "constraints[0].metric: 'memory' is not reported by this task"},
      {kZdt + "parameter_constraints: [\"x1 + y2 <= 1\"]\n" + alg + kParams,
       "parameter_constraints[0]: 'x1 + y2 <= 1' names 'y2', which is no parameter; did you "
       "mean 'x2'?"},
      {kZdt + "parameter_constraints: [\"x1 + x2\"]\n" + alg + kParams,
       "'x1 + x2' compares nothing"},
      {kZdt + "parameter_constraints: [\"x1 + <= 2\"]\n" + alg + kParams,
       "parameter_constraints[0]: 'x1 + <= 2': "},
      {kZdt + "parameter_constraints: [\"x1 + x2 <= 0.0001\"]\n" + alg + kParams,
       "random points of the space satisfy them (at least 10 must); 'x1 + x2 <= 0.0001' rules "
       "out the most"},
  };
  for (const Case& c : cases) {
    Status st = Check(c.yaml);
    EXPECT_FALSE(st.ok()) << c.yaml;
    EXPECT_NE(st.message().find(c.want), std::string::npos) << st.message();
  }
  // PBT stays single-objective.
  Status pbt =
      Check(kZdt + "algorithm: {type: pbt, max_trials: 8, pbt: {population: 4, interval: 1}}\n" +
            kParams);
  EXPECT_NE(pbt.message().find("pbt optimises one objective"), std::string::npos) << pbt.message();
  // A categorical of text cannot be named.
  Status text = Check(kZdt + "parameter_constraints: [\"opt <= 1\"]\n" + alg + kParams +
                      "  opt: {type: categorical, values: [adam, sgd]}\n");
  EXPECT_NE(text.message().find("'opt', which is categorical with text values"), std::string::npos)
      << text.message();
}

TEST(ParameterConstraints, EverySamplerProposesOnlyFeasiblePoints) {
  for (const char* type : {"random", "quasirandom", "grid"}) {
    pb::Study s = Valid(kZdt + "parameter_constraints: [\"x1 + x2 <= 0.5\", " +
                        "\"k * x1 < 2\"]\nalgorithm: {type: " + type +
                        ", max_trials: 200}\nparameters:\n"
                        "  x1: {type: float, min: 0, max: 1, step: 0.1}\n"
                        "  x2: {type: float, min: 0, max: 1, step: 0.1}\n"
                        "  k: {type: int, min: 1, max: 8}\n");
    auto space = SearchSpace::Create(s);
    ASSERT_TRUE(space.ok()) << space.status().message();
    auto sampler = MakeSampler(s, *space);
    std::set<std::string> seen;
    for (int k = 0; k < 200; ++k) {
      auto p = sampler->Point(k);
      if (!p) break;
      EXPECT_LE(X(*p, "x1") + X(*p, "x2"), 0.5 + 1e-9) << type << " " << k;
      EXPECT_LT(X(*p, "k") * X(*p, "x1"), 2) << type << " " << k;
      seen.insert(ParamsToJson(*p));
    }
    EXPECT_GT(seen.size(), 50u) << type;
    if (std::string(type) == "grid") {
      // 21 of the 121 (x1, x2) pairs have x1 + x2 <= 0.5 (sums on a 0.1
      // grid: 1 + 2 + ... + 6), times the k values with k * x1 < 2.
      int want = 0;
      for (int a = 0; a <= 10; ++a)
        for (int b = 0; a + b <= 5; ++b)
          for (int c = 1; c <= 8; ++c) want += c * a < 20;
      EXPECT_EQ(sampler->Size(), want);
    }
  }
}

TEST(ParameterConstraints, AConditionalParameterHoldsWhereItIsInactive) {
  pb::Study s = Valid(
      "objective: {metric: value, goal: minimize}\ntask: {synthetic: {function: curve}}\n"
      "algorithm: {type: random, max_trials: 50}\n"
      "parameter_constraints: [\"n_units_2 <= n_units_1\"]\n"
      "parameters:\n"
      "  x1: {type: float, min: 0, max: 1}\n"
      "  layers: {type: int, min: 1, max: 2}\n"
      "  n_units_1: {type: int, min: 1, max: 100}\n"
      "  n_units_2: {type: int, min: 1, max: 100, when: {layers: 2}}\n");
  auto space = SearchSpace::Create(s);
  ASSERT_TRUE(space.ok());
  auto sampler = MakeSampler(s, *space);
  int one = 0, two = 0;
  for (int k = 0; k < 200; ++k) {
    Params p = *sampler->Point(k);
    if (X(p, "layers") == 1) {
      ++one;
      EXPECT_TRUE(std::isnan(X(p, "n_units_2")));
    } else {
      ++two;
      EXPECT_LE(X(p, "n_units_2"), X(p, "n_units_1"));
    }
  }
  EXPECT_GT(one, 50);
  EXPECT_GT(two, 50);
  // A person's point is checked too (sweep enqueue).
  auto ok = PointFromJson(*space, R"({"x1": 0.5, "layers": 2, "n_units_1": 10, "n_units_2": 5})");
  EXPECT_TRUE(ok.ok()) << ok.status().message();
  auto bad = PointFromJson(*space, R"({"x1": 0.5, "layers": 2, "n_units_1": 5, "n_units_2": 10})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("breaks the parameter constraint 'n_units_2 <= n_units_1'"),
            std::string::npos)
      << bad.status().message();
}

TEST(ParameterConstraints, ExpressionsUseMuParserOperators) {
  pb::Study s = Valid(
      "objective: {metric: value, goal: minimize}\ntask: {synthetic: {function: curve}}\n"
      "algorithm: {type: random, max_trials: 5}\n"
      "parameter_constraints: [\"batch_size * seq_len <= 65536 && (x1 > 0.1 || flag)\"]\n"
      "parameters:\n"
      "  x1: {type: float, min: 0, max: 1}\n"
      "  batch_size: {type: categorical, values: [64, 128, 256]}\n"
      "  seq_len: {type: int, min: 128, max: 1024, step: 128}\n"
      "  flag: {type: categorical, values: [true, false]}\n");
  auto c = ParameterConstraints::Create(s);
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto point = [](double x1, int64_t batch, int64_t seq, bool flag) {
    Params p;
    auto add = [&](const char* n, pb::Value v) {
      auto* pv = p.Add();
      pv->set_name(n);
      *pv->mutable_value() = v;
    };
    add("x1", NumberValue(x1));
    add("batch_size", IntegerValue(batch));
    add("seq_len", IntegerValue(seq));
    pb::Value f;
    f.set_flag(flag);
    add("flag", f);
    return p;
  };
  EXPECT_TRUE((*c)->Holds(point(0.5, 64, 1024, false)));    // 65536
  EXPECT_FALSE((*c)->Holds(point(0.5, 128, 1024, false)));  // 131072
  EXPECT_FALSE((*c)->Holds(point(0.05, 64, 128, false)));
  EXPECT_TRUE((*c)->Holds(point(0.05, 64, 128, true)));
}

}  // namespace
}  // namespace sweep
