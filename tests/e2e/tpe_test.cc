// TPE and BOHB end to end: real tuner, real runners over ZeroMQ, a real
// database. A tuner killed with SIGKILL resumes to exactly the trials of an
// uninterrupted run (with max_trials, and with a budget); four runners never
// run the same point at once; with runners crashing and hanging, every
// proposal's model counts each earlier trial exactly once (no zombies); BOHB
// runs Hyperband's brackets with model-based proposals, and `sweep why` says
// where each proposal came from; a killed BOHB study resumes to an
// uninterrupted run's trials; `--from` seeds a new study.
#include <gtest/gtest.h>
#include <signal.h>

#include <regex>
#include <string>
#include <vector>

#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

std::string TpeStudy(const std::string& params, int trials, int steps, int step_ms) {
  return "name: tpe\nobjective: {metric: value, goal: minimize}\n"
         "task: {synthetic: {function: branin, steps: " +
         std::to_string(steps) + ", step_ms: " + std::to_string(step_ms) +
         "}}\nalgorithm: {type: tpe, max_trials: " + std::to_string(trials) +
         "}\nseed: 11\nparameters:\n" + params;
}

const char* kContinuous =
    "  x1: {type: float, min: -5, max: 10}\n  x2: {type: float, min: 0, max: 15}\n";

TEST(E2eTpeTest, KilledTunerResumesToExactlyTheTrialsOfAnUninterruptedRun) {
  TempDir dir;
  std::string study = dir.Write("s.yaml", TpeStudy(kContinuous, 30, 3, 15));
  std::string db = dir.File("k.db"), ref = dir.File("ref.db");
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "1",   "--progress", "plain"};
  // Past the start-up draws: the model has proposed some trials.
  ASSERT_TRUE(KillTunerWhen(args, dir.File("t.log"), [&] {
    return QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'") >= 15;
  }));
  EXPECT_LT(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'"), 30);
  ASSERT_NO_FATAL_FAILURE(ResumeThenRunUninterrupted(args, ref));
  // Each number: the same status, step and parameters, and the same value.
  auto a = ResumeInvariantOutcome(db);
  ASSERT_EQ(a.size(), 30u);
  EXPECT_EQ(a, ResumeInvariantOutcome(ref));
  const char* values = "SELECT number, value FROM trials ORDER BY number";
  EXPECT_EQ(Query(db, values), Query(ref, values));
  // Trials after the start-up came from the model, in both runs.
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM events WHERE kind = 'proposed' AND detail LIKE "
                     "'TPE: %l/g of the winning candidate%'"),
            20);
}

// A trial cut short by the kill runs its first steps again in the same
// attempt. The budget counts each stored step once, live as on replay, so
// the resumed study spends it on the same trials (before, the re-run steps
// counted twice and the study ended a trial short).
TEST(E2eTpeTest, KilledTunerWithABudgetResumesToTheTrialsOfAnUninterruptedRun) {
  TempDir dir;
  std::string study =
      dir.Write("s.yaml",
                "name: tpe\nobjective: {metric: value, goal: minimize}\n"
                "task: {synthetic: {function: branin, steps: 10, step_ms: 100}}\n"
                "algorithm: {type: tpe, max_trials: 10, budget: 25}\nseed: 11\nparameters:\n" +
                    std::string(kContinuous));
  std::string db = dir.File("k.db"), ref = dir.File("ref.db");
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "1",   "--progress", "plain"};
  ASSERT_TRUE(KillTunerWhen(args, dir.File("t.log"), [&] {
    return QueryInt(db, "SELECT count(*) FROM trials WHERE number = 0 AND step >= 6") > 0;
  }));
  // Killed inside trial 0, so the resumed tuner re-runs its first steps.
  ASSERT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE number = 0 AND status = 'running'"), 1);
  ASSERT_NO_FATAL_FAILURE(ResumeThenRunUninterrupted(args, ref));
  // 10 + 10 + 10 steps: the third trial starts with 20 of 25 spent.
  auto a = ResumeInvariantOutcome(db);
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a, ResumeInvariantOutcome(ref));
  // Trial 0 ran steps 1..6 or more twice, in one attempt.
  EXPECT_EQ(QueryInt(db, "SELECT attempts FROM trials WHERE number = 0"), 1);
}

TEST(E2eTpeTest, FourRunnersNeverRunTheSamePointAtOnce) {
  // 16 x 16 = 256 points: room for every trial; 4 runners at once.
  TempDir dir;
  std::string study = dir.Write(
      "s.yaml",
      TpeStudy("  x1: {type: int, min: -5, max: 10}\n  x2: {type: int, min: 0, max: 15}\n", 48, 2,
               20));
  std::string db = dir.File("s.db"), out;
  ASSERT_EQ(
      RunSweep({"run", study, "--db", db, "--local-runners", "4", "--progress", "plain"}, &out), 0)
      << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'"), 48);
  // Trials whose runs overlapped in time never share their parameters.
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials a JOIN trials b ON a.id < b.id AND "
                     "a.params = b.params AND a.started_at < b.ended_at AND "
                     "b.started_at < a.ended_at"),
            0);
  // The constant liar was at work: proposals counted running trials as bad.
  EXPECT_GT(QueryInt(db,
                     "SELECT count(*) FROM events WHERE kind = 'proposed' AND detail LIKE "
                     "'%running, counted bad%'"),
            10);
}

// Runners crash and hang, trials fail and return NaN, and every proposal's
// model still accounts for each earlier trial exactly once: a finished one
// (completed) as good or bad, a failed one left out, and every other one
// (running, or queued again after its runner was lost) counted bad as
// running until it ends. A lost runner's trial is no zombie: it runs again,
// ends, and moves into the model.
TEST(E2eTpeTest, LostRunnersAndFailuresLeaveNoZombiesInTheModel) {
  TempDir dir;
  std::string study =
      dir.Write("s.yaml",
                "name: tpe-chaos\nobjective: {metric: value, goal: minimize}\n"
                "task:\n  synthetic: {function: branin, steps: 3, step_ms: 5, fail_prob: 0.1, "
                "nan_prob: 0.1, crash_prob: 0.1, hang_prob: 0.04}\n  stall_timeout_s: 1\n"
                "algorithm: {type: tpe, max_trials: 40, max_retries: 3}\nseed: 9\nparameters:\n" +
                    std::string(kContinuous));
  std::string db = dir.File("c.db"), out;
  ASSERT_EQ(RunSweep({"run", study, "--db", db, "--local-runners", "2", "--heartbeat-ms", "200",
                      "--progress", "plain"},
                     &out, 300000),
            0)
      << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status IN ('completed', 'failed')"),
            40);
  // Runners were lost, and trials they ran completed on a later attempt.
  EXPECT_GE(QueryInt(db, "SELECT count(*) FROM events WHERE kind = 'attempt_lost'"), 1);
  EXPECT_GE(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed' AND attempts > 1"),
            1);
  // Each proposal against the trials as they stood when it was made (times
  // only move forward, so `ended_at < at` is "ended before").
  auto rows = Query(db,
                    "SELECT t.number, e.detail, "
                    "(SELECT count(*) FROM trials u WHERE u.status = 'completed' AND u.ended_at < "
                    "e.at), (SELECT count(*) FROM trials u WHERE u.ended_at < e.at) "
                    "FROM events e JOIN trials t ON t.id = e.trial_id WHERE e.kind = 'proposed' "
                    "ORDER BY t.number");
  ASSERT_EQ(rows.size(), 40u);
  const std::regex startup(R"(^quasi-random start-up draw \((\d+) of the 10 )");
  const std::regex model(R"(^TPE: (\d+) good and (\d+) bad trials(?: \((\d+) running)?)");
  int modelled = 0, with_unfinished = 0;
  for (const auto& row : rows) {
    const int64_t number = std::get<int64_t>(row[0]);
    const std::string detail = CellText(row[1]);
    const int64_t finished = std::get<int64_t>(row[2]);
    const int64_t unfinished = number - std::get<int64_t>(row[3]);
    std::smatch m;
    if (std::regex_search(detail, m, startup)) {
      EXPECT_EQ(std::stoll(m[1]), finished) << number << ": " << detail;
      EXPECT_LT(finished, 10) << number << ": " << detail;
    } else if (std::regex_search(detail, m, model)) {
      ++modelled;
      const int64_t running = m[3].matched ? std::stoll(m[3]) : 0;
      EXPECT_EQ(std::stoll(m[1]) + std::stoll(m[2]) - running, finished)
          << number << ": " << detail;
      EXPECT_EQ(running, unfinished) << number << ": " << detail;
      if (running > 0) ++with_unfinished;
    } else {
      ADD_FAILURE() << number << ": " << detail;
    }
  }
  EXPECT_GE(modelled, 15);
  EXPECT_GE(with_unfinished, 5);
}

TEST(E2eBohbTest, RunsHyperbandsBracketsWithModelBasedProposals) {
  TempDir dir;
  std::string study = dir.Write(
      "bohb.yaml",
      "name: bohb\nobjective: {metric: value, goal: minimize}\n"
      "task: {synthetic: {function: curve, steps: 9}}\n"
      "algorithm: {type: bohb, hyperband: {reduction_factor: 3}, bohb: {random_fraction: 0.2}}\n"
      "seed: 5\nparameters:\n  x1: {type: float, min: 0, max: 1}\n"
      "  x2: {type: float, min: 0, max: 1}\n");
  std::string db = dir.File("bohb.db"), out;
  ASSERT_EQ(RunSweep({"plan", study, "--format", "json"}, &out), 0) << out;
  EXPECT_NE(out.find("\"algorithm\": \"bohb\""), std::string::npos) << out;
  // R = 9, eta = 3: the same brackets as Hyperband: 9 + 5 + 3 trials.
  EXPECT_NE(out.find("\"total_trials\": 17"), std::string::npos) << out;
  ASSERT_EQ(
      RunSweep({"run", study, "--db", db, "--local-runners", "2", "--progress", "plain"}, &out), 0)
      << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials"), 17);
  EXPECT_EQ(
      QueryInt(db, "SELECT count(*) FROM trials WHERE status NOT IN ('completed', 'stopped')"), 0);
  // The first bracket's trials are proposed before any rung has results; the
  // later brackets' come from a model of the first bracket's results.
  int64_t modelled = QueryInt(
      db,
      "SELECT count(*) FROM events WHERE kind = 'proposed' AND detail LIKE 'BOHB: TPE on the "
      "results at step %'");
  EXPECT_GT(modelled, 0);
  int64_t id =
      QueryInt(db,
               "SELECT max(t.number) FROM events e JOIN trials t ON t.id = e.trial_id WHERE "
               "e.kind = 'proposed' AND e.detail "
               "LIKE 'BOHB: TPE on the results at step %'");
  std::string why;
  ASSERT_EQ(RunSweep({"why", std::to_string(id), "--db", db}, &why), 0) << why;
  EXPECT_NE(why.find("proposed: BOHB: TPE on the results at step"), std::string::npos) << why;
}

// BOHB's model is rebuilt from the stored reports (Hyperband's replay feeds
// it): a tuner killed mid-study resumes to the trials, decisions and
// proposals' origins of an uninterrupted run.
TEST(E2eBohbTest, KilledTunerResumesToExactlyTheTrialsOfAnUninterruptedRun) {
  TempDir dir;
  std::string study = dir.Write(
      "bohb.yaml",
      "name: bohb\nobjective: {metric: value, goal: minimize}\n"
      "task: {synthetic: {function: curve, steps: 9, step_ms: 25}}\n"
      "algorithm: {type: bohb, hyperband: {reduction_factor: 3}, bohb: {min_points_in_model: 3}}\n"
      "seed: 9\nparameters:\n  x1: {type: float, min: 0, max: 1}\n"
      "  x2: {type: float, min: 0, max: 1}\n");
  std::string db = dir.File("k.db"), ref = dir.File("ref.db");
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "1",   "--progress", "plain"};
  const char* modelled =
      "SELECT count(*) FROM events WHERE kind = 'proposed' AND detail LIKE 'BOHB: TPE%'";
  // The model has proposed, and trials are paused at a rung.
  ASSERT_TRUE(KillTunerWhen(args, dir.File("t.log"), [&] {
    return QueryInt(db, modelled) >= 2 &&
           QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'paused'") > 0;
  }));
  // Proposals are left for the resumed tuner's model to make.
  EXPECT_LT(QueryInt(db, "SELECT count(*) FROM trials"), 17);
  ASSERT_NO_FATAL_FAILURE(ResumeThenRunUninterrupted(args, ref));
  auto a = ResumeInvariantOutcome(db);
  ASSERT_EQ(a.size(), 17u);
  EXPECT_EQ(a, ResumeInvariantOutcome(ref));
  const char* values = "SELECT number, value FROM trials ORDER BY number";
  EXPECT_EQ(Query(db, values), Query(ref, values));
  const char* origins =
      "SELECT t.number, e.detail FROM events e JOIN trials t ON t.id = e.trial_id "
      "WHERE e.kind = 'proposed' ORDER BY t.number";
  EXPECT_EQ(Query(db, origins), Query(ref, origins));
  EXPECT_GT(QueryInt(ref, modelled), 2);
}

TEST(E2eTpeTest, FromSeedsANewStudyWithAnotherStudysFinishedTrials) {
  TempDir dir;
  // 30 random trials of 4 steps over x1 in [-5, 10]; the new study takes x1
  // in [-5, 5] and runs 8 steps.
  std::string source = dir.Write("a.yaml",
                                 "name: a\nobjective: {metric: value, goal: minimize}\n"
                                 "task: {synthetic: {function: branin, steps: 4}}\n"
                                 "algorithm: {type: random, max_trials: 30}\n"
                                 "seed: 3\nparameters:\n  x1: {type: float, min: -5, max: 10}\n"
                                 "  x2: {type: float, min: 0, max: 15}\n");
  std::string a = dir.File("a.db"), b = dir.File("b.db"), out;
  ASSERT_EQ(
      RunSweep({"run", source, "--db", a, "--local-runners", "1", "--progress", "plain"}, &out), 0)
      << out;
  int64_t inside =
      QueryInt(a, "SELECT count(*) FROM trials WHERE json_extract(params, '$.x1') <= 5");
  ASSERT_GT(inside, 10);  // enough for TPE to model at once
  ASSERT_LT(inside, 29);
  // One trial outside the new space lost its value (a NaN objective): it is
  // counted apart.
  ExecSql(a,
          "UPDATE trials SET value = NULL WHERE id = (SELECT min(id) FROM trials WHERE "
          "json_extract(params, '$.x1') > 5)");
  // One inside was stopped halfway: it counts halfway through the new
  // study's steps too.
  ExecSql(a,
          "UPDATE trials SET status = 'stopped', step = 2 WHERE id = (SELECT min(id) FROM trials "
          "WHERE json_extract(params, '$.x1') <= 5)");
  std::string study = dir.Write(
      "b.yaml",
      TpeStudy("  x1: {type: float, min: -5, max: 5}\n  x2: {type: float, min: 0, max: 15}\n", 5, 8,
               0));
  ASSERT_EQ(RunSweep({"plan", study}, &out), 0) << out;
  EXPECT_NE(out.find("tpe: 5 trials of 8 steps (40 steps); quasi-random (Halton) proposals until "
                     "10 trials have completed or stopped, then each proposal is the best of 24 "
                     "candidates"),
            std::string::npos)
      << out;
  std::vector<std::string> args = {"run", study,        "--db", b, "--from", a, "--local-runners",
                                   "1",   "--progress", "plain"};
  ASSERT_EQ(RunSweep(args, &out), 0) << out;
  EXPECT_NE(
      out.find(std::to_string(inside) + " finished trials copied, " + std::to_string(29 - inside) +
               " outside this search space skipped, 1 without a value skipped"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("the source's trials ran 4 steps, this study's run 8"), std::string::npos)
      << out;
  EXPECT_EQ(QueryInt(b,
                     "SELECT count(*) FROM trials WHERE attempts = 0 AND status = 'completed' "
                     "AND step = 8"),
            inside - 1);
  EXPECT_EQ(QueryInt(b,
                     "SELECT count(*) FROM trials WHERE attempts = 0 AND status = 'stopped' "
                     "AND step = 4"),
            1);
  EXPECT_EQ(QueryInt(b,
                     "SELECT count(*) FROM events WHERE kind = 'proposed' AND detail LIKE "
                     "'copied by --from %, step 2 of 4 there)'"),
            1);
  // max_trials counts the study's own trials; the copied ones come first.
  EXPECT_EQ(QueryInt(b, "SELECT count(*) FROM trials"), inside + 5);
  EXPECT_EQ(QueryInt(b, "SELECT count(*) FROM trials WHERE attempts = 0"), inside);
  // The first own trial is already TPE's, modelled on the copied ones.
  EXPECT_EQ(QueryInt(b,
                     "SELECT count(*) FROM events e JOIN trials t ON t.id = e.trial_id WHERE "
                     "e.kind = 'proposed' AND t.number = " +
                         std::to_string(inside) + " AND e.detail LIKE 'TPE: %'"),
            1);
  // Run again (a resume): nothing is copied twice.
  ASSERT_EQ(RunSweep(args, &out), 0) << out;
  EXPECT_NE(out.find("the study already has trials"), std::string::npos) << out;
  EXPECT_EQ(QueryInt(b, "SELECT count(*) FROM trials"), inside + 5);
  // A source that maximizes, and a study that is not tpe, are refused.
  std::string maxi = dir.Write(
      "m.yaml",
      "name: m\nobjective: {metric: value, goal: maximize}\n"
      "task: {synthetic: {function: branin}}\nalgorithm: {type: tpe, max_trials: 3}\n"
      "parameters:\n  x1: {type: float, min: -5, max: 10}\n  x2: {type: float, min: 0, max: 15}\n");
  EXPECT_EQ(
      RunSweep({"run", maxi, "--db", dir.File("m.db"), "--from", a, "--progress", "plain"}, &out),
      1);
  EXPECT_NE(out.find("its values would mislead the model"), std::string::npos) << out;
  EXPECT_EQ(
      RunSweep({"run", source, "--db", dir.File("r.db"), "--from", a, "--progress", "plain"}, &out),
      1);
  EXPECT_NE(out.find("--from seeds a study of algorithm type tpe"), std::string::npos) << out;
}

}  // namespace
}  // namespace sweep::e2e
