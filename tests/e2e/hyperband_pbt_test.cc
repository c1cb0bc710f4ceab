// Hyperband and PBT end to end on the synthetic `curve` task: real tuner,
// real runners, real database. Rungs and generations fill exactly as planned,
// paused trials free their runners (two runners serve nine-trial rungs),
// exploit copies only committed checkpoints, and a tuner killed with SIGKILL
// resumes to the same decisions as an uninterrupted run.
#include <gtest/gtest.h>
#include <signal.h>

#include <map>
#include <set>

#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

const char* kHyperband =
    "name: hb\nobjective: {metric: value, goal: minimize}\n"
    "task: {synthetic: {function: curve, steps: 9, step_ms: STEP_MS}}\n"
    "algorithm: {type: hyperband, hyperband: {reduction_factor: 3}}\n"
    "seed: 5\nparameters:\n  x1: {type: float, min: 0, max: 1}\n"
    "  x2: {type: float, min: 0, max: 1}\n";

const char* kPbt =
    "name: pbt\nobjective: {metric: value, goal: minimize}\n"
    "task: {synthetic: {function: curve, steps: 12, step_ms: STEP_MS}}\n"
    "algorithm: {type: pbt, pbt: {population: 6, perturbation_interval: 3, quantile: 0.34}}\n"
    "seed: 9\nparameters:\n  x1: {type: float, min: 0, max: 1}\n"
    "  x2: {type: float, min: 0, max: 1}\n  opt: {type: categorical, values: [a, b, c, d]}\n";

std::string WithStepMs(std::string yaml, int ms) {
  return yaml.replace(yaml.find("STEP_MS"), 7, std::to_string(ms));
}

TEST(E2eHyperbandTest, RungsFillAsPlannedWithTwoRunners) {
  TempDir dir;
  std::string study = dir.Write("hb.yaml", WithStepMs(kHyperband, 0));
  std::string db = dir.File("hb.db"), out;
  ASSERT_EQ(RunSweep({"plan", study, "--format", "json"}, &out), 0) << out;
  // R = 9, eta = 3: s=2: 9@1 3@3 1@9 (cost 9+6+6); s=1: 5@3 1@9 (15+6); s=0: 3@9 (27).
  EXPECT_NE(out.find("\"total_resource\": 69"), std::string::npos) << out;
  ASSERT_EQ(
      RunSweep({"run", study, "--db", db, "--local-runners", "2", "--progress", "plain"}, &out), 0)
      << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials"), 17);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='paused'"), 0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM reports"), 69);  // no step ran twice
  // Where each trial ended: bracket s=2 stops 6 at step 1 and 2 at step 3.
  std::map<std::string, int64_t> ends;
  for (const auto& r : Query(db, "SELECT status, step, count(*) FROM trials GROUP BY 1, 2"))
    ends[CellText(r[0]) + "@" + CellText(r[1])] = std::get<int64_t>(r[2]);
  EXPECT_EQ(ends, (std::map<std::string, int64_t>{
                      {"stopped@1", 6}, {"stopped@3", 2 + 4}, {"completed@9", 1 + 1 + 3}}));
  // Each trial promoted after a pause was resumed from its checkpoint at
  // that rung (a paused trial freed its runner: two runners, nine-trial rungs).
  int64_t resumed_after_pause =
      QueryInt(db,
               "SELECT count(*) FROM decisions c WHERE c.decision = 'continue' AND EXISTS (SELECT "
               "1 FROM decisions p WHERE p.trial_id = c.trial_id AND p.step = c.step AND "
               "p.decision = 'pause')");
  EXPECT_GT(resumed_after_pause, 0);
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM events e WHERE e.kind = 'resumed' AND EXISTS (SELECT 1 "
                     "FROM decisions d WHERE d.trial_id = e.trial_id AND d.decision = 'pause' AND "
                     "e.detail = 'from its checkpoint at step ' || d.step)"),
            resumed_after_pause);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind = 'resumed'"),
            resumed_after_pause);
  std::string why;
  ASSERT_EQ(RunSweep({"why", "0", "--db", db}, &why), 0);
  EXPECT_NE(why.find("rung 0 (step 1) of bracket 2"), std::string::npos) << why;
}

TEST(E2eHyperbandTest, CrashingRunnersChangeNoDecision) {
  // Runners die mid-trial (SIGKILL from the task itself); lost trials re-run
  // from their last checkpoint, which may sit at a rung already decided.
  TempDir dir;
  std::string clean = dir.Write("a.yaml", WithStepMs(kHyperband, 0));
  std::string yaml = WithStepMs(kHyperband, 0);
  yaml.replace(yaml.find("step_ms: 0"), 10, "step_ms: 0, crash_prob: 0.1");
  yaml.replace(yaml.find("type: hyperband,"), 16, "type: hyperband, max_retries: 20,");
  std::string faulty = dir.Write("b.yaml", yaml);
  std::string a = dir.File("a.db"), b = dir.File("b.db"), out;
  ASSERT_EQ(
      RunSweep({"run", clean, "--db", a, "--local-runners", "2", "--progress", "plain"}, &out), 0)
      << out;
  ASSERT_EQ(
      RunSweep({"run", faulty, "--db", b, "--local-runners", "2", "--progress", "plain"}, &out), 0)
      << out;
  EXPECT_GT(QueryInt(b, "SELECT count(*) FROM events WHERE kind = 'attempt_lost'"), 0);
  EXPECT_EQ(QueryInt(b, "SELECT count(*) FROM trials WHERE status = 'failed'"), 0);
  auto x = ResumeInvariantOutcome(a), y = ResumeInvariantOutcome(b);
  EXPECT_EQ(x, y);
}

TEST(E2ePbtTest, ExploitCopiesCommittedCheckpointsAndRecordsLineage) {
  TempDir dir;
  std::string study = dir.Write("pbt.yaml", WithStepMs(kPbt, 0));
  std::string db = dir.File("pbt.db"), out;
  ASSERT_EQ(
      RunSweep({"run", study, "--db", db, "--local-runners", "2", "--progress", "plain"}, &out), 0)
      << out;
  // 6 members x 12 steps; children continue from their parents' steps.
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 6);
  int64_t children = QueryInt(db, "SELECT count(*) FROM trials WHERE parent_id IS NOT NULL");
  EXPECT_EQ(children, QueryInt(db, "SELECT count(*) FROM decisions WHERE decision='exploit'"));
  EXPECT_EQ(children, 6);  // 3 generations, 2 exploited in each (quantile 0.34 of 6)
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='stopped'"), children);
  EXPECT_EQ(QueryInt(db, "SELECT sum(step - coalesce(parent_step, 0)) FROM trials"), 6 * 12);
  // Every child's first checkpoint is byte-for-byte the one its parent
  // committed at that step (the same Adler-32), and starts where it did.
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials c JOIN checkpoint_history ch ON "
                     "ch.trial_id = c.id AND ch.step = c.parent_step JOIN checkpoint_history ph "
                     "ON ph.trial_id = c.parent_id AND ph.step = c.parent_step "
                     "WHERE ch.checksum = ph.checksum"),
            children);
  EXPECT_EQ(QueryInt(db,
                     "SELECT min(r.step) - c.parent_step FROM trials c JOIN reports r ON "
                     "r.trial_id = c.id WHERE c.parent_id IS NOT NULL GROUP BY c.id "
                     "ORDER BY 1 DESC LIMIT 1"),
            1);
  ASSERT_EQ(RunSweep({"trials", "--db", db, "--format", "json"}, &out), 0);
  EXPECT_NE(out.find("\"parent\": null"), std::string::npos);
  EXPECT_NE(out.find("\"parent\": "), std::string::npos);
  int64_t child = QueryInt(db, "SELECT min(number) FROM trials WHERE parent_id IS NOT NULL");
  ASSERT_EQ(RunSweep({"why", std::to_string(child), "--db", db}, &out), 0);
  EXPECT_NE(out.find("parent: trial "), std::string::npos) << out;
  EXPECT_NE(out.find("explore: "), std::string::npos) << out;
}

// Kills the tuner while `when` holds (trials paused, some decisions taken),
// resumes it, and compares with an uninterrupted run.
void KillResumeMatches(const std::string& yaml, const std::string& when, int sig = SIGKILL) {
  TempDir dir;
  std::string study = dir.Write("s.yaml", WithStepMs(yaml, 30));
  std::string db = dir.File("k.db"), ref = dir.File("ref.db"), out;
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "2",   "--progress", "plain"};
  {
    Process tuner(args, dir.File("t.log"));
    ASSERT_TRUE(WaitFor([&] { return QueryInt(db, when) > 0; }, 60000)) << tuner.Log();
    tuner.Signal(sig);
    int rc = tuner.Wait(10000);
    // Ctrl-C: a clean stop that keeps paused trials paused; kill -9: no say.
    EXPECT_EQ(rc, sig == SIGINT ? 130 : 128 + SIGKILL) << tuner.Log();
  }
  int64_t paused = QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'paused'");
  EXPECT_GT(paused, 0);
  ASSERT_EQ(RunSweep(args, &out), 0) << out;
  ASSERT_EQ(
      RunSweep({"run", study, "--db", ref, "--local-runners", "3", "--progress", "plain"}, &out), 0)
      << out;
  auto a = ResumeInvariantOutcome(db), b = ResumeInvariantOutcome(ref);
  EXPECT_EQ(a, b) << "paused at the kill: " << paused;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'paused'"), 0);
}

TEST(E2eHyperbandTest, KilledTunerResumesToTheSameDecisions) {
  KillResumeMatches(kHyperband,
                    "SELECT (SELECT count(*) FROM trials WHERE status = 'paused') >= 3 AND (SELECT "
                    "count(*) FROM trials WHERE status = 'stopped') > 0");
}

TEST(E2eHyperbandTest, InterruptedTunerKeepsPausedTrialsAndResumes) {
  KillResumeMatches(kHyperband,
                    "SELECT (SELECT count(*) FROM trials WHERE status = 'paused') >= 3 AND (SELECT "
                    "count(*) FROM trials WHERE status = 'stopped') > 0",
                    SIGINT);
}

TEST(E2ePbtTest, KilledTunerResumesToTheSameDecisionsAndLineage) {
  KillResumeMatches(kPbt,
                    "SELECT (SELECT count(*) FROM trials WHERE status = 'paused') >= 2 AND (SELECT "
                    "count(*) FROM trials WHERE parent_id IS NOT NULL) > 0");
}

}  // namespace
}  // namespace sweep::e2e
