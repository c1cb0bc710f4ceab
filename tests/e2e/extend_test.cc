// A study file changed between runs (issue 16): raising max_trials or budget
// extends the study with exactly the trials and decisions a run with the
// larger limit from the start has; changes to how trials run are taken;
// anything else is refused, named by its path, and changes nothing.
#include <gtest/gtest.h>

#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

std::string Study(const std::string& algorithm, const std::string& task = "steps: 9",
                  const std::string& x1 = "{type: float, min: 0, max: 1}") {
  return "name: ext\nobjective: {metric: value, goal: minimize}\n"
         "task: {synthetic: {function: curve, " +
         task + "}}\nalgorithm: " + algorithm + "\nseed: 5\nparameters:\n  x1: " + x1 +
         "\n  x2: {type: float, min: 0, max: 1}\n";
}

int RunStudy(const std::string& study, const std::string& db, std::string* out) {
  // One runner: the order of results, and so every decision, is the same
  // from run to run.
  return RunSweep({"run", study, "--db", db, "--local-runners", "1", "--progress", "plain"}, out);
}

// The study extended in a second run ends where a run with the larger
// limit from the start ends: the same trials, parameters and decisions.
void ExpectExtensionMatchesAFreshRun(const std::string& small, const std::string& large,
                                     const std::string& change) {
  TempDir dir;
  std::string db = dir.File("x.db"), fresh = dir.File("fresh.db"), out;
  ASSERT_EQ(RunStudy(dir.Write("a.yaml", small), db, &out), 0) << out;
  auto before = ResumeInvariantOutcome(db);
  int64_t first = QueryInt(db, "SELECT count(*) FROM trials");
  ASSERT_EQ(RunStudy(dir.Write("b.yaml", large), db, &out), 0) << out;
  EXPECT_NE(out.find("resumes changed: " + change), std::string::npos) << out;
  EXPECT_GT(QueryInt(db, "SELECT count(*) FROM trials"), first);
  // What was recorded before stays as it was.
  auto after = ResumeInvariantOutcome(db);
  for (const auto& [number, outcome] : before) EXPECT_EQ(after[number], outcome) << number;
  ASSERT_EQ(RunStudy(dir.Write("c.yaml", large), fresh, &out), 0) << out;
  EXPECT_EQ(after, ResumeInvariantOutcome(fresh));
  // The change is on record, and the stored definition is the new one: the
  // same larger file resumes with nothing to do and no change.
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind = 'changed' AND detail = '" +
                             change + "'"),
            1);
  ASSERT_EQ(RunStudy(dir.Write("b.yaml", large), db, &out), 0) << out;
  EXPECT_EQ(out.find("resumes changed"), std::string::npos) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM studies WHERE status = 'completed'"), 1);
}

TEST(E2eExtendTest, RaisingMaxTrialsOfRandomSearchAddsTheTrialsAFreshRunHas) {
  ExpectExtensionMatchesAFreshRun(Study("{type: random, max_trials: 5}"),
                                  Study("{type: random, max_trials: 9}"),
                                  "algorithm.max_trials: 5 -> 9");
}

TEST(E2eExtendTest, RaisingMaxTrialsOfAshaKeepsEveryDecision) {
  ExpectExtensionMatchesAFreshRun(Study("{type: asha, max_trials: 6}"),
                                  Study("{type: asha, max_trials: 14}"),
                                  "algorithm.max_trials: 6 -> 14");
}

TEST(E2eExtendTest, RaisingHyperbandsBudgetAddsBrackets) {
  ExpectExtensionMatchesAFreshRun(Study("{type: hyperband, budget: 40}"),
                                  Study("{type: hyperband, budget: 120}"),
                                  "algorithm.budget: 40 -> 120");
}

TEST(E2eExtendTest, HowTrialsRunMayChangeAndTheStudyResumesAsItWas) {
  TempDir dir;
  std::string db = dir.File("x.db"), out;
  ASSERT_EQ(RunStudy(dir.Write("a.yaml", Study("{type: random, max_trials: 4}")), db, &out), 0)
      << out;
  auto before = ResumeInvariantOutcome(db);
  ASSERT_EQ(RunStudy(dir.Write("b.yaml", Study("{type: random, max_trials: 4, max_concurrent: 2}",
                                               "steps: 9, step_ms: 1")),
                     db, &out),
            0)
      << out;
  EXPECT_NE(out.find("algorithm.max_concurrent: (unset) -> 2"), std::string::npos) << out;
  EXPECT_NE(out.find("task.synthetic.step_ms: "), std::string::npos) << out;
  EXPECT_EQ(ResumeInvariantOutcome(db), before);
}

TEST(E2eExtendTest, EveryChangeThatAltersTheStudyIsRefusedByNameAndChangesNothing) {
  TempDir dir;
  std::string db = dir.File("x.db"), out;
  ASSERT_EQ(RunStudy(dir.Write("a.yaml", Study("{type: random, max_trials: 4}")), db, &out), 0)
      << out;
  std::string spec = CellText(Query(db, "SELECT hex(spec) FROM studies")[0][0]);
  auto before = ResumeInvariantOutcome(db);
  // The space, the task and the limit (lowered) all change; max_concurrent
  // alone could.
  std::string changed =
      dir.Write("b.yaml", Study("{type: random, max_trials: 3, max_concurrent: 2}", "steps: 7",
                                "{type: float, min: 0, max: 2}"));
  EXPECT_EQ(RunStudy(changed, db, &out), 1) << out;
  for (const char* s : {"already exists in this database with a different definition",
                        "task.synthetic.steps: 9 -> 7", "parameters.x1.max: 1 -> 2",
                        "algorithm.max_trials: 4 -> 3 (it may only be raised", "sweep delete ext",
                        "A study resumes with changes only to"}) {
    EXPECT_NE(out.find(s), std::string::npos) << s << "\n" << out;
  }
  EXPECT_EQ(out.find("max_concurrent"), out.rfind("max_concurrent")) << "named once, as allowed";
  EXPECT_EQ(CellText(Query(db, "SELECT hex(spec) FROM studies")[0][0]), spec);
  EXPECT_EQ(ResumeInvariantOutcome(db), before);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind = 'changed'"), 0);
  // A parameter added or removed is named too.
  std::string added = dir.Write(
      "c.yaml", Study("{type: random, max_trials: 4}") + "  x3: {type: int, min: 1, max: 3}\n");
  EXPECT_EQ(RunStudy(added, db, &out), 1) << out;
  EXPECT_NE(out.find("parameters.x3: (none) -> {"), std::string::npos) << out;
}

}  // namespace
}  // namespace sweep::e2e
