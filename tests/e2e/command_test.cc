// End to end for command tasks: the user's own programs (Python through
// clients/python, a shell script by hand, C++ through clients/cpp) as
// trials under each algorithm, their contract, and exact resume.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "e2e/command_helpers.h"
#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

TEST(E2eCommandTest, PythonProgramReportsItsValuesAndSeesTheContract) {
  TempDir dir;
  std::string db = dir.File("py.db");
  setenv("SWEEP_LEAK", "from the runner's environment", 1);  // must not reach programs
  RunStudy(PyStudy(dir, "py", "", "{type: random, max_trials: 4}", 3), db);
  unsetenv("SWEEP_LEAK");
  ASSERT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 4);
  for (const auto& r : Query(db, "SELECT id, value, step FROM trials")) {
    double x = Param(db, std::get<int64_t>(r[0]));
    EXPECT_DOUBLE_EQ(std::get<double>(r[1]), (x - 0.3) * (x - 0.3) + 1.0 / 3);
    EXPECT_EQ(std::get<int64_t>(r[2]), 3);
  }
  // Every step reported, and the stepless final metric kept.
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM reports WHERE metric='loss'"), 12);
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE json_extract(metrics, '$.extra') = "
                     "json_extract(params, '$.x')"),
            4);
  // The environment of the contract, and only the runner's SWEEP_* variables.
  auto env = Lines(dir.File("env"));
  ASSERT_EQ(env.size(), 4u);
  for (const char* k : {"\"SWEEP_PARAMS_FILE\"", "\"SWEEP_STUDY\": \"py\"", "\"SWEEP_TRIAL\": \"",
                        "\"SWEEP_TRIAL_ID\"", "\"SWEEP_ATTEMPT\": \"1\"", "\"SWEEP_SEED\": \"7\"",
                        "\"SWEEP_STEPS\": \"3\"", "\"SWEEP_DECISION_STEPS\": \"\""})
    EXPECT_NE(env[0].find(k), std::string::npos) << k << " in " << env[0];
  EXPECT_EQ(env[0].find("SWEEP_RESUME_DIR"), std::string::npos) << env[0];
  EXPECT_EQ(env[0].find("SWEEP_LEAK"), std::string::npos) << env[0];
  // checkpoints is not set: no checkpoint folder is offered.
  EXPECT_EQ(env[0].find("SWEEP_CHECKPOINT_DIR"), std::string::npos) << env[0];
}

TEST(E2eCommandTest, ShellScriptByHandAndCppProgramThroughTheHeader) {
  TempDir dir;
  std::string sh = dir.Write(
      "sh.yaml",
      "name: sh\nobjective: {metric: loss, goal: minimize}\ntask:\n  command:\n"
      "    argv: [" +
          kPrograms + "/trial.sh, \"{x}\"]\n    env: {RECORD: " + dir.path() +
          "}\n    steps: 2\n"
          "algorithm: {type: grid}\nparameters:\n"
          "  x: {type: categorical, values: [0.5, 1e-05, 2]}\n  flag: {type: categorical, "
          "values: [true]}\n  word: {type: constant, value: \"naïve \\\"q\\\"\"}\n");
  std::string db = dir.File("sh.db");
  RunStudy(sh, db);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 3);
  // Values reach argv in shortest round-trip form.
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE value IN (0.5, 1e-05, 2)"), 3);
  auto params = Lines(dir.File("params"));
  ASSERT_EQ(params.size(), 3u);
  EXPECT_NE(params[0].find("\"flag\": true"), std::string::npos) << params[0];
  EXPECT_NE(params[0].find("\"word\": \"naïve \\\"q\\\"\""), std::string::npos) << params[0];
  EXPECT_EQ(Lines(dir.File("shell"))[0].rfind("sh ", 0), 0u);

  std::string cpp =
      dir.Write("cpp.yaml",
                "name: cpp\nobjective: {metric: loss, goal: minimize}\ntask:\n  command:\n"
                "    argv: [" +
                    std::string(SWEEP_TEST_CPP_PROGRAM) +
                    "]\n    steps: 9\n"
                    "    checkpoints: true\nalgorithm: {type: hyperband}\nseed: 3\nparameters:\n"
                    "  x: {type: float, min: 0, max: 1}\n"
                    "  word: {type: constant, value: \"na\\u00efve \\\"q\\\" \\\\ \\t "
                    "\\x7f \\u0085\"}\n");
  std::string cdb = dir.File("cpp.db");
  RunStudy(cpp, cdb);
  EXPECT_EQ(QueryInt(cdb, "SELECT count(*) FROM trials WHERE status='failed'"), 0)
      << QueryInt(cdb, "SELECT count(*) FROM trials");
  // The final report's metric names were escaped: the line parsed.
  EXPECT_EQ(QueryInt(cdb,
                     "SELECT count(*) FROM trials WHERE status='completed' AND step=9 AND "
                     "EXISTS (SELECT 1 FROM json_each(metrics) WHERE key = 'odd \"name\"' AND "
                     "value = 1) AND "
                     "json_extract(metrics, '$.final_x') IS NOT NULL"),
            QueryInt(cdb, "SELECT count(*) FROM trials WHERE status='completed' AND step=9"));
  EXPECT_GT(QueryInt(cdb, "SELECT count(*) FROM trials WHERE status='completed' AND step=9"), 0);
  // Resumed from its own checkpoints (it exits 4 on the wrong one).
  EXPECT_GT(QueryInt(cdb, "SELECT count(*) FROM decisions WHERE decision='pause'"), 0);
  for (const auto& r : Query(cdb, "SELECT id, value FROM trials WHERE status='completed'")) {
    double x = Param(cdb, std::get<int64_t>(r[0]));
    EXPECT_DOUBLE_EQ(std::get<double>(r[1]), (x - 0.3) * (x - 0.3) + 1.0 / 9);
  }
}

TEST(E2eCommandTest, RelativePathEntriesAreInTheWorkdirAndTheLastStepsObjectiveStands) {
  // The program is found through a relative PATH entry, which is relative to
  // the workdir (where it runs), not to the runner's folder. Its step-less
  // report names the objective too: the last step's value stands.
  TempDir dir;
  std::filesystem::create_directories(dir.File("w/bin"));
  std::string prog =
      dir.Write("w/bin/prog",
                "#!/bin/sh\necho \"SWEEP_REPORT {\\\"step\\\": 1, \\\"loss\\\": $1}\"\n"
                "echo 'SWEEP_REPORT {\"step\": 2, \"loss\": 0.25}'\n"
                "echo 'SWEEP_REPORT {\"loss\": 99, \"extra\": 1}'\n");
  ASSERT_EQ(chmod(prog.c_str(), 0755), 0);
  std::string study = dir.Write(
      "p.yaml",
      "name: p\nobjective: {metric: loss, goal: minimize}\ntask:\n  command:\n"
      "    argv: [prog, \"{x}\"]\n    env: {PATH: \"bin:/usr/bin:/bin\"}\n    workdir: w\n"
      "    steps: 2\nalgorithm: {type: random, max_trials: 2}\nseed: 1\nparameters:\n"
      "  x: {type: float, min: 0, max: 1}\n");
  std::string db = dir.File("p.db");
  std::string out = RunStudy(study, db, 1);
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE status='completed' AND value=0.25 AND "
                     "json_extract(metrics, '$.extra') = 1"),
            2)
      << out << QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'");
}

// A step past the declared `steps` is not stored (the trial's log says so);
// a program told no count has every step stored, as before.
TEST(E2eCommandTest, AStepPastTheDeclaredStepsIsWarnedAndNotStored) {
  TempDir dir;
  std::string prog = dir.Write(
      "prog",
      "#!/bin/sh\necho training\nfor s in 1 2 3; do echo \"SWEEP_REPORT {\\\"step\\\": $s, "
      "\\\"loss\\\": $s}\"; done\n");
  ASSERT_EQ(chmod(prog.c_str(), 0755), 0);
  auto study = [&](const std::string& name, const std::string& steps) {
    return dir.Write(name + ".yaml", "name: " + name +
                                         "\nobjective: {metric: loss, goal: minimize}\ntask:\n"
                                         "  command:\n    argv: [" +
                                         prog + "]\n" + steps +
                                         "algorithm: {type: random, max_trials: 1}\nparameters:\n"
                                         "  x: {type: float, min: 0, max: 1}\n");
  };
  std::string db = dir.File("p.db");
  RunStudy(study("declared", "    steps: 2\n"), db, 1);
  RunStudy(study("undeclared", ""), db, 1);
  auto rows = Query(db,
                    "SELECT s.name, t.value, t.step, (SELECT count(*) FROM reports r WHERE "
                    "r.trial_id=t.id) FROM trials t JOIN studies s ON s.id=t.study_id "
                    "WHERE t.status='completed' ORDER BY s.name");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(std::get<std::string>(rows[0][0]), "declared");
  EXPECT_EQ(std::get<double>(rows[0][1]), 2);
  EXPECT_EQ(std::get<int64_t>(rows[0][2]), 2);
  EXPECT_EQ(std::get<int64_t>(rows[0][3]), 2);
  EXPECT_EQ(std::get<double>(rows[1][1]), 3);
  EXPECT_EQ(std::get<int64_t>(rows[1][3]), 3);
  std::string log;
  ASSERT_EQ(RunSweep({"logs", "declared", "0", "--db", db}, &log), 0) << log;
  EXPECT_NE(log.find("step 3 is past the study's task.command.steps (2): not stored"),
            std::string::npos)
      << log;
  ASSERT_EQ(RunSweep({"logs", "undeclared", "0", "--db", db}, &log), 0) << log;
  EXPECT_EQ(log.find("past the study's"), std::string::npos) << log;
}

TEST(E2eCommandTest, HyperbandPausesAndResumesFromTheProgramsOwnCheckpoint) {
  TempDir dir;
  std::string db = dir.File("hb.db");
  RunStudy(PyStudy(dir, "hb", ", --checkpoint", "{type: hyperband}", 9, "    checkpoints: true\n"),
           db);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'"), 0);
  auto written = WrittenCheckpoints(dir);
  auto resumed = ResumedAttempts(dir);
  ASSERT_GT(resumed.size(), 0u);
  for (const auto& r : resumed) {
    // The resumed attempt got exactly the files of its last checkpoint.
    EXPECT_EQ(written[std::make_pair(r.trial, r.step)], r.sha) << r.line;
    EXPECT_TRUE(r.step == 1 || r.step == 3) << r.line;  // the rungs at 1 and 3 of 9
  }
  // A resumed attempt's first report is the step after its rung.
  int resumed_starts = 0;
  for (const auto& l : Lines(dir.File("starts"))) {
    std::istringstream in(l);
    int64_t t, attempt, start;
    in >> t >> attempt >> start;
    if (start == 1) continue;
    ++resumed_starts;
    EXPECT_TRUE(start == 2 || start == 4) << l;
    EXPECT_EQ(QueryInt(db, "SELECT min(step) FROM reports WHERE trial_id=" + std::to_string(t) +
                               " AND step > " + std::to_string(start - 1)),
              start);
  }
  EXPECT_EQ(resumed_starts, static_cast<int>(resumed.size()));
}

TEST(E2eCommandTest, HyperbandWithoutCheckpointsReRunsPromotedTrialsFromTheStart) {
  TempDir dir;
  std::string db = dir.File("hb.db"), out;
  std::string study = PyStudy(dir, "hb", "", "{type: hyperband}", 9);
  ASSERT_EQ(RunSweep({"plan", study}, &out), 0);
  EXPECT_NE(out.find("promoted trials re-run from step 1"), std::string::npos) << out;
  RunStudy(study, db);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'"), 0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed' AND step=9"),
            QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"));
  std::map<int64_t, int> runs;
  for (const auto& l : Lines(dir.File("starts"))) {
    std::istringstream in(l);
    int64_t t, attempt, start;
    in >> t >> attempt >> start;
    EXPECT_EQ(start, 1) << l;
    ++runs[t];
  }
  // Promoted trials ran once per rung they reached.
  EXPECT_GT(std::count_if(runs.begin(), runs.end(), [](auto& p) { return p.second > 1; }), 0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind LIKE '%rejected%'"), 0);
}

TEST(E2eCommandTest, PbtChildStartsFromItsParentsFilesByteForByte) {
  TempDir dir;
  std::string db = dir.File("pbt.db");
  RunStudy(PyStudy(dir, "pbt", ", --checkpoint",
                   "{type: pbt, pbt: {population: 4, perturbation_interval: 2, quantile: 0.5}}", 6,
                   "    checkpoints: true\n"),
           db);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'"), 0);
  int64_t children = QueryInt(db, "SELECT count(*) FROM trials WHERE parent_id IS NOT NULL");
  EXPECT_GT(children, 0);
  auto written = WrittenCheckpoints(dir);
  auto resumed = ResumedAttempts(dir);
  int checked = 0;
  for (const auto& r :
       Query(db, "SELECT id, parent_id, parent_step FROM trials WHERE parent_id IS NOT NULL")) {
    int64_t child = std::get<int64_t>(r[0]), parent = std::get<int64_t>(r[1]),
            step = std::get<int64_t>(r[2]);
    for (const auto& r : resumed) {
      if (r.trial != child || r.step != step) continue;
      EXPECT_EQ(r.sha, written[std::make_pair(parent, step)])
          << "child " << child << " of " << parent;
      ++checked;
    }
  }
  EXPECT_EQ(checked, children);
}

TEST(E2eCommandTest, TunerKilledDuringCommandTrialsResumesToTheSameDecisions) {
  TempDir dir;
  std::string study = PyStudy(dir, "kr", ", --checkpoint, --sleep, \"0.05\"", "{type: hyperband}",
                              9, "    checkpoints: true\n");
  std::string db = dir.File("k.db"), ref = dir.File("ref.db");
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "2",   "--progress", "plain"};
  {
    Process tuner(args, dir.File("t.log"));
    ASSERT_TRUE(WaitFor(
        [&] {
          return QueryInt(db,
                          "SELECT (SELECT count(*) FROM trials WHERE status = 'paused') >= 3 AND "
                          "(SELECT count(*) FROM trials WHERE status = 'running') > 0") > 0;
        },
        60000))
        << tuner.Log();
    tuner.Signal(SIGKILL);
    EXPECT_EQ(tuner.Wait(10000), 128 + SIGKILL);
  }
  // Its local runners died with it, and their programs with them.
  EXPECT_TRUE(AllGone(dir.File("pids"), 5000)) << "a program outlived kill -9 of the tuner";
  ASSERT_NO_FATAL_FAILURE(ResumeThenRunUninterrupted(args, ref));
  EXPECT_EQ(ResumeInvariantOutcome(db), ResumeInvariantOutcome(ref));
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status IN ('paused', 'failed')"), 0);
  EXPECT_TRUE(AllGone(dir.File("pids"), 5000));
}

// Without checkpoints a promoted trial runs its first steps again within the
// same attempt. A tuner killed after that rebuilds Hyperband's rungs from the
// stored reports: each step keeps its first report, the one the rung judged,
// at its time. (Before: the re-run replaced it, so the replay met a later
// rung's report before the rung below had resolved, dropped it, and the
// resumed study waited forever on the trial paused there.)
TEST(E2eCommandTest, TunerKilledAfterReRunsWithoutCheckpointsResumesToTheSameDecisions) {
  TempDir dir;
  std::string study = PyStudy(dir, "rr", ", --sleep, \"0.15\"", "{type: hyperband}", 9);
  std::string db = dir.File("k.db"), ref = dir.File("ref.db");
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "1",   "--progress", "plain"};
  // Two promoted trials have started again; the first waits at step 3,
  // the second has re-run its step 1 and gone on.
  ASSERT_TRUE(KillTunerWhen(
      args, dir.File("t.log"),
      [&] {
        std::map<int64_t, int> starts;
        std::vector<int64_t> again;
        for (const auto& l : Lines(dir.File("starts"))) {
          std::istringstream in(l);
          int64_t t = 0;
          in >> t;
          if (++starts[t] == 2) again.push_back(t);
        }
        if (again.size() < 2) return false;
        std::string first = std::to_string(again[0]), second = std::to_string(again[1]);
        return QueryInt(db, "SELECT count(*) FROM trials WHERE id=" + first +
                                " AND status='paused' AND step=3") == 1 &&
               QueryInt(db, "SELECT count(*) FROM trials WHERE id=" + second + " AND step>=2") == 1;
      },
      90000));
  ASSERT_NO_FATAL_FAILURE(ResumeThenRunUninterrupted(args, ref, 90000));
  EXPECT_EQ(
      QueryInt(db, "SELECT count(*) FROM trials WHERE status NOT IN ('completed', 'stopped')"), 0);
  EXPECT_EQ(ResumeInvariantOutcome(db), ResumeInvariantOutcome(ref));
}

TEST(E2eCommandTest, CtrlCOfTheTunerLeavesNoProcessAndResumes) {
  TempDir dir;
  std::string study =
      PyStudy(dir, "c", ", --grandchild, --sleep, \"0.3\"", "{type: random, max_trials: 2}", 6);
  std::string db = dir.File("c.db"), out;
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "2",   "--progress", "plain"};
  {
    Process tuner(args, dir.File("t.log"));
    ASSERT_TRUE(WaitFor([&] { return Lines(dir.File("pids")).size() == 4; }, 30000)) << tuner.Log();
    tuner.Signal(SIGINT);
    EXPECT_EQ(tuner.Wait(30000), 130) << tuner.Log();
  }
  EXPECT_TRUE(AllGone(dir.File("pids"), 5000)) << "a program outlived Ctrl-C of the tuner";
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'queued'"), 2);
  ASSERT_EQ(RunSweep(args, &out), 0) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed' AND step = 6"), 2);
}

TEST(E2eCommandTest, PbtWithoutCheckpointsIsRefusedAtValidation) {
  TempDir dir;
  std::string out;
  EXPECT_EQ(RunSweep({"validate", PyStudy(dir, "p", "", "{type: pbt}", 4)}, &out), 1) << out;
  EXPECT_NE(out.find("task.command.checkpoints: PBT needs checkpoints"), std::string::npos) << out;
  std::string bad =
      dir.Write("bad.yaml",
                "objective: {metric: loss, goal: minimize}\ntask:\n  command:\n"
                "    argv: [prog, \"{y}\", \"{x\"]\n    env: {SWEEP_X: a, OK: \"{z}\"}\n"
                "algorithm: {type: grid}\nparameters:\n  x: {type: categorical, values: [1]}\n");
  EXPECT_EQ(RunSweep({"validate", bad}, &out), 1) << out;
  EXPECT_NE(out.find("task.command.argv[1]: '{y}' is not a parameter"), std::string::npos) << out;
  EXPECT_NE(out.find("task.command.argv[2]: a '{' without its '}'"), std::string::npos) << out;
  EXPECT_NE(out.find("task.command.env.SWEEP_X: SWEEP_* variables are set by the runner"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("task.command.env.OK: '{z}' is not a parameter"), std::string::npos) << out;
}

}  // namespace
}  // namespace sweep::e2e
