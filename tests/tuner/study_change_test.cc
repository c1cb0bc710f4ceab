// tuner/study_change: which changes to a study file a resume accepts, and
// how the rest are named.
#include "tuner/study_change.h"

#include <gtest/gtest.h>

#include "common/study_defaults.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"

namespace sweep {
namespace {

pb::Study Parse(const std::string& yaml) {
  auto parsed = ParseStudyYaml(yaml, "s.yaml");
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok()) return {};
  Status st = ValidateStudy(&*parsed);
  EXPECT_TRUE(st.ok()) << st.message();
  return parsed->study;
}

const char* kCommand =
    "name: c\nobjective: {metric: loss, goal: minimize}\n"
    "task:\n  command:\n    argv: [python3, train.py]\n"
    "    env: {A: '1', B: '2', C: '3', D: '{lr}'}\n"
    "algorithm: {type: random, max_trials: 4}\nparameters:\n"
    "  lr: {type: float, min: 0.001, max: 0.1}\n";

// A map's entries come in no fixed order: the same file is the same study
// however they are iterated (one parse against many).
TEST(StudyChangeTest, TheSameCommandEnvironmentIsNoChange) {
  pb::Study stored = Parse(kCommand);
  for (int i = 0; i < 20; ++i) {
    auto changes = CompareStudies(stored, Parse(kCommand));
    ASSERT_TRUE(changes.ok()) << changes.status().message();
    EXPECT_TRUE(changes->empty());
  }
  std::string other = kCommand;
  other.replace(other.find("C: '3'"), 6, "C: '4'");
  auto changes = CompareStudies(stored, Parse(other));
  ASSERT_FALSE(changes.ok());
  EXPECT_NE(changes.status().message().find("task.command.env: ["), std::string::npos)
      << changes.status().message();
}

TEST(StudyChangeTest, RunOnlyChangesAndRaisedLimitsAreAcceptedWithTheirPaths) {
  pb::Study stored = Parse(kCommand);
  std::string file = kCommand;
  file.replace(file.find("max_trials: 4"), 13, "max_trials: 9, max_concurrent: 2");
  file += "";
  auto changes = CompareStudies(stored, Parse(file));
  ASSERT_TRUE(changes.ok()) << changes.status().message();
  EXPECT_EQ(*changes, (std::vector<std::string>{"algorithm.max_trials: 4 -> 9",
                                                "algorithm.max_concurrent: (unset) -> 2"}));
}

// Before any trial has a result, the objective and the task may change (the
// fix after a typo stopped the study); the parameters may not.
TEST(StudyChangeTest, WithoutResultsTheObjectiveAndTaskMayChange) {
  pb::Study stored = Parse(kCommand);
  std::string fixed = kCommand;
  fixed.replace(fixed.find("metric: loss"), 12, "metric: val_loss");
  fixed.replace(fixed.find("train.py"), 8, "fit.py");
  EXPECT_FALSE(CompareStudies(stored, Parse(fixed)).ok());
  auto changes = CompareStudies(stored, Parse(fixed), /*results=*/false);
  ASSERT_TRUE(changes.ok()) << changes.status().message();
  EXPECT_EQ(changes->size(), 2u);
  std::string wider = kCommand;
  wider.replace(wider.find("max: 0.1"), 8, "max: 0.5");
  EXPECT_FALSE(CompareStudies(stored, Parse(wider), /*results=*/false).ok());
}

// Databases from before `steps` was left unset store the default 1: read
// back (with defaults resolved, as FindStudy does), it is unset again, and
// the study file that leaves it out resumes unchanged. Another count is a
// change.
TEST(StudyChangeTest, AStoredDefaultCommandStepIsTheFilesUnsetOne) {
  pb::Study stored = Parse(kCommand);
  ASSERT_FALSE(stored.task().command().has_steps());
  stored.mutable_task()->mutable_command()->set_steps(1);
  ResolveDefaults(&stored);
  EXPECT_FALSE(stored.task().command().has_steps());
  auto changes = CompareStudies(stored, Parse(kCommand));
  ASSERT_TRUE(changes.ok()) << changes.status().message();
  EXPECT_TRUE(changes->empty());
  stored.mutable_task()->mutable_command()->set_steps(3);
  EXPECT_FALSE(CompareStudies(stored, Parse(kCommand)).ok());
}

TEST(StudyChangeTest, PbtsMaxTrialsIsRefusedItsGenerationsWereDecidedByIt) {
  const std::string pbt =
      "name: p\nobjective: {metric: loss, goal: minimize}\n"
      "task:\n  command:\n    argv: [python3, train.py]\n    steps: 4\n    checkpoints: true\n"
      "algorithm: {type: pbt, max_trials: 8, pbt: {population: 4}}\nparameters:\n"
      "  lr: {type: float, min: 0.001, max: 0.1}\n";
  std::string raised = pbt;
  raised.replace(raised.find("max_trials: 8"), 13, "max_trials: 16");
  auto changes = CompareStudies(Parse(pbt), Parse(raised));
  ASSERT_FALSE(changes.ok());
  EXPECT_NE(changes.status().message().find("algorithm.max_trials: 8 -> 16 (PBT decided"),
            std::string::npos)
      << changes.status().message();
}

}  // namespace
}  // namespace sweep
