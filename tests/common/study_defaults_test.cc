// Defaults resolved once: ValidateStudy writes every default into the study
// it accepts, resolving is idempotent, set fields are kept, and a spec stored
// by an earlier version (no defaults in it) still resumes.
#include "common/study_defaults.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"

namespace sweep {
namespace {

pb::Study Validated(const std::string& task, const std::string& algorithm,
                    const std::string& parameters = "  x1: {type: float, min: 0, max: 1}\n",
                    const std::string& metric = "value") {
  auto p =
      ParseStudyYaml("name: t\nobjective: {metric: " + metric + ", goal: minimize}\ntask: " + task +
                         "\nalgorithm: " + algorithm + "\nparameters:\n" + parameters,
                     "t.yaml");
  EXPECT_TRUE(p.ok()) << p.status().message();
  Status st = ValidateStudy(&*p);
  EXPECT_TRUE(st.ok()) << st.message();
  return p->study;
}

bool Same(const pb::Study& a, const pb::Study& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

TEST(StudyDefaultsTest, ValidationWritesEveryDefaultOfAshaAndTheTask) {
  pb::Study s =
      Validated("{synthetic: {function: curve, steps: 27}}", "{type: asha, max_trials: 10}",
                "  x1: {type: float, min: 0, max: 1}\n  n: {type: int, min: 1, max: 8}\n");
  EXPECT_TRUE(s.has_seed());
  EXPECT_EQ(s.seed(), 0u);
  ASSERT_TRUE(s.task().has_stall_timeout_s());
  EXPECT_EQ(s.task().stall_timeout_s(), 1800);
  ASSERT_TRUE(s.algorithm().has_max_retries());
  EXPECT_EQ(s.algorithm().max_retries(), 2);
  const pb::AshaConfig& a = s.algorithm().asha();
  ASSERT_TRUE(a.has_min_resource() && a.has_max_resource() && a.has_reduction_factor() &&
              a.has_grace_period());
  EXPECT_EQ(a.min_resource(), 1);
  EXPECT_EQ(a.max_resource(), 27);  // the task's steps
  EXPECT_EQ(a.reduction_factor(), 3);
  EXPECT_EQ(a.grace_period(), 1);  // the first rung
  // An int parameter steps by 1; a float one stays continuous.
  ASSERT_TRUE(s.parameters(1).has_step());
  EXPECT_EQ(s.parameters(1).step(), 1);
  EXPECT_FALSE(s.parameters(0).has_step());
  // "No limit" stays unset.
  EXPECT_FALSE(s.algorithm().has_max_concurrent());
  EXPECT_FALSE(s.algorithm().has_budget());
}

TEST(StudyDefaultsTest, EachAlgorithmGetsItsOwnDefaultsAndNoOther) {
  pb::Study pbt = Validated("{synthetic: {function: curve, steps: 10}}", "{type: pbt}");
  const pb::PbtConfig& p = pbt.algorithm().pbt();
  EXPECT_EQ(p.population(), 8);
  EXPECT_EQ(p.perturbation_interval(), 1);
  EXPECT_EQ(p.quantile(), 0.25);
  EXPECT_EQ(p.resample_prob(), 0.25);
  EXPECT_EQ(p.max_steps(), 10);
  EXPECT_FALSE(pbt.algorithm().has_asha());
  EXPECT_FALSE(pbt.algorithm().has_hyperband());

  pb::Study random = Validated("{synthetic: {function: curve}}", "{type: random, max_trials: 2}");
  EXPECT_EQ(random.task().synthetic().steps(), 1);
  EXPECT_FALSE(random.algorithm().has_asha());

  pb::Study hb = Validated("{synthetic: {function: curve, steps: 9}}", "{type: hyperband}");
  EXPECT_TRUE(hb.algorithm().hyperband().has_min_resource());
  EXPECT_EQ(hb.algorithm().hyperband().max_resource(), 9);
  EXPECT_EQ(hb.algorithm().hyperband().reduction_factor(), 3);
  EXPECT_FALSE(hb.algorithm().has_pbt());

  pb::Study median =
      Validated("{synthetic: {function: curve, steps: 5}}", "{type: median, max_trials: 4}");
  EXPECT_EQ(median.algorithm().median().grace_period(), 1);
  EXPECT_EQ(median.algorithm().median().min_trials(), 3);
}

TEST(StudyDefaultsTest, SetFieldsAreKeptAndResolvingTwiceChangesNothing) {
  pb::Study s = Validated("{synthetic: {function: curve, steps: 27}, stall_timeout_s: 5}",
                          "{type: asha, max_trials: 10, max_retries: 0, "
                          "asha: {min_resource: 3, reduction_factor: 2}}");
  EXPECT_EQ(s.task().stall_timeout_s(), 5);
  EXPECT_EQ(s.algorithm().max_retries(), 0);
  EXPECT_EQ(s.algorithm().asha().min_resource(), 3);
  EXPECT_EQ(s.algorithm().asha().reduction_factor(), 2);
  EXPECT_EQ(s.algorithm().asha().grace_period(), 3);  // follows min_resource
  pb::Study again = s;
  ResolveDefaults(&again);
  EXPECT_TRUE(Same(s, again));
}

TEST(StudyDefaultsTest, TrainEpochsAreFixedOnlyWhereTheyAreNotSearched) {
  pb::Study fixed = Validated("{train: {model: mlp}}", "{type: random, max_trials: 2}",
                              "  lr: {type: float, min: 0.01, max: 0.1}\n", "val_loss");
  ASSERT_TRUE(fixed.task().train().has_epochs());
  EXPECT_EQ(fixed.task().train().epochs(), 10);
  EXPECT_EQ(TaskResource(fixed.task()), 10);
  pb::Study searched = Validated("{train: {model: mlp}}", "{type: random, max_trials: 2}",
                                 "  epochs: {type: int, min: 1, max: 3}\n", "val_loss");
  EXPECT_FALSE(searched.task().train().has_epochs());
}

TEST(StudyDefaultsTest, AStudyWithoutDefaultsResolvesToTheValidatedOne) {
  // What earlier versions stored: the study as parsed, defaults unset.
  auto parsed = ParseStudyYaml(
      "name: t\nobjective: {metric: value, goal: minimize}\n"
      "task: {synthetic: {function: curve, steps: 9}}\nalgorithm: {type: hyperband}\n"
      "parameters:\n  x1: {type: float, min: 0, max: 1}\n",
      "t.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  pb::Study stored = parsed->study;
  ASSERT_TRUE(ValidateStudy(&*parsed).ok());
  EXPECT_FALSE(Same(stored, parsed->study));
  ResolveDefaults(&stored);
  EXPECT_TRUE(Same(stored, parsed->study));
}

}  // namespace
}  // namespace sweep
