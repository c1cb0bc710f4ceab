// End to end for command tasks: the user's own programs (Python through
// clients/python, a shell script by hand, C++ through clients/cpp) as
// trials, with real runners, real process groups and real signals.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

const std::string kPrograms = std::string(SWEEP_SOURCE_DIR) + "/tests/e2e/programs";

// A study whose trials run tests/e2e/programs/trial.py with `flags`.
std::string PyStudy(const TempDir& dir, const std::string& name, const std::string& flags,
                    const std::string& algorithm, int steps, const std::string& extra = "") {
  return dir.Write(name + ".yaml",
                   "name: " + name + "\nobjective: {metric: loss, goal: minimize}\n" +
                       "task:\n  command:\n    argv: [python3, " + kPrograms +
                       "/trial.py, --x, \"{x}\", " + "--record, " + dir.path() + flags + "]\n" +
                       "    env: {PYTHONPATH: " + std::string(SWEEP_SOURCE_DIR) +
                       "/clients/python}\n    steps: " + std::to_string(steps) + "\n" + extra +
                       "algorithm: " + algorithm +
                       "\nseed: 7\nparameters:\n  x: {type: float, min: 0, max: 1}\n");
}

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

// True when `pid` is gone (or a zombie nobody can wake).
bool Gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string s((std::istreambuf_iterator<char>(stat)), {});
  size_t paren = s.rfind(')');
  return paren != std::string::npos && paren + 2 < s.size() && s[paren + 2] == 'Z';
}

bool AllGone(const std::string& pids_file, int timeout_ms) {
  return WaitFor(
      [&] {
        for (const auto& l : Lines(pids_file))
          if (!Gone(static_cast<pid_t>(std::stol(l)))) return false;
        return true;
      },
      timeout_ms);
}

// `sweep run` exits 1 when no trial completed.
std::string RunStudy(const std::string& study, const std::string& db, int runners = 2,
                     int want_rc = 0) {
  std::string out;
  int rc = RunSweep(
      {"run", study, "--db", db, "--local-runners", std::to_string(runners), "--progress", "plain"},
      &out);
  EXPECT_EQ(rc, want_rc) << out;
  return out;
}

double Param(const std::string& db, int64_t id) {
  auto rows =
      Query(db, "SELECT json_extract(params, '$.x') FROM trials WHERE id = " + std::to_string(id));
  return rows.empty() ? NAN : std::get<double>(rows[0][0]);
}

TEST(E2eCommandTest, PythonProgramReportsItsValuesAndSeesTheContract) {
  TempDir dir;
  std::string db = dir.File("py.db");
  RunStudy(PyStudy(dir, "py", "", "{type: random, max_trials: 4}", 3), db);
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
  for (const char* k :
       {"\"SWEEP_PARAMS_FILE\"", "\"SWEEP_STUDY\": \"py\"", "\"SWEEP_TRIAL_ID\"",
        "\"SWEEP_ATTEMPT\": \"1\"", "\"SWEEP_SEED\": \"7\"", "\"SWEEP_STEPS\": \"3\"",
        "\"SWEEP_CHECKPOINT_DIR\"", "\"SWEEP_DECISION_STEPS\": \"\""})
    EXPECT_NE(env[0].find(k), std::string::npos) << k << " in " << env[0];
  EXPECT_EQ(env[0].find("SWEEP_RESUME_DIR"), std::string::npos) << env[0];
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
                    "  x: {type: float, min: 0, max: 1}\n");
  std::string cdb = dir.File("cpp.db");
  RunStudy(cpp, cdb);
  EXPECT_EQ(QueryInt(cdb, "SELECT count(*) FROM trials WHERE status='failed'"), 0);
  EXPECT_GT(QueryInt(cdb, "SELECT count(*) FROM trials WHERE status='completed' AND step=9"), 0);
  // Resumed from its own checkpoints (it exits 4 on the wrong one).
  EXPECT_GT(QueryInt(cdb, "SELECT count(*) FROM decisions WHERE decision='pause'"), 0);
  for (const auto& r : Query(cdb, "SELECT id, value FROM trials WHERE status='completed'")) {
    double x = Param(cdb, std::get<int64_t>(r[0]));
    EXPECT_DOUBLE_EQ(std::get<double>(r[1]), (x - 0.3) * (x - 0.3) + 1.0 / 9);
  }
}

TEST(E2eCommandTest, HyperbandPausesAndResumesFromTheProgramsOwnCheckpoint) {
  TempDir dir;
  std::string db = dir.File("hb.db");
  RunStudy(PyStudy(dir, "hb", ", --checkpoint", "{type: hyperband}", 9, "    checkpoints: true\n"),
           db);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'"), 0);
  // Each checkpoint the program wrote, by (trial, step).
  std::map<std::pair<int64_t, int64_t>, std::string> written;
  for (const auto& l : Lines(dir.File("checkpoints"))) {
    std::istringstream in(l);
    int64_t t, s;
    std::string sha;
    in >> t >> s >> sha;
    written[{t, s}] = sha;
  }
  auto resumed = Lines(dir.File("resumed"));
  ASSERT_GT(resumed.size(), 0u);
  for (const auto& l : resumed) {
    std::istringstream in(l);
    int64_t t, attempt, step;
    std::string sha;
    in >> t >> attempt >> step >> sha;
    // The resumed attempt got exactly the files of its last checkpoint.
    EXPECT_EQ(written[std::make_pair(t, step)], sha) << l;
    EXPECT_TRUE(step == 1 || step == 3) << l;  // the rungs at 1 and 3 of 9
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
  std::map<std::pair<int64_t, int64_t>, std::string> written;
  for (const auto& l : Lines(dir.File("checkpoints"))) {
    std::istringstream in(l);
    int64_t t, s;
    std::string sha;
    in >> t >> s >> sha;
    written[{t, s}] = sha;
  }
  int checked = 0;
  for (const auto& r :
       Query(db, "SELECT id, parent_id, parent_step FROM trials WHERE parent_id IS NOT NULL")) {
    int64_t child = std::get<int64_t>(r[0]), parent = std::get<int64_t>(r[1]),
            step = std::get<int64_t>(r[2]);
    for (const auto& l : Lines(dir.File("resumed"))) {
      std::istringstream in(l);
      int64_t t, attempt, s;
      std::string sha;
      in >> t >> attempt >> s >> sha;
      if (t != child || s != step) continue;
      EXPECT_EQ(sha, written[std::make_pair(parent, step)])
          << "child " << child << " of " << parent;
      ++checked;
    }
  }
  EXPECT_EQ(checked, children);
}

std::string S(const Cell& c) {
  if (auto* s = std::get_if<std::string>(&c)) return *s;
  if (auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&c)) return std::to_string(*d);
  return "null";
}

// What must not depend on interruptions: each trial's parameters, lineage,
// status and step, and the decisions (pauses aside: who waited depends on
// who arrived first).
std::map<int64_t, std::string> Outcome(const std::string& db) {
  std::map<int64_t, std::string> out;
  for (const auto& r : Query(db,
                             "SELECT t.number, t.status, t.step, t.params, (SELECT number FROM "
                             "trials p WHERE p.id = t.parent_id), t.parent_step FROM trials t"))
    out[std::get<int64_t>(r[0])] =
        S(r[1]) + "@" + S(r[2]) + " " + S(r[3]) + " parent " + S(r[4]) + "@" + S(r[5]);
  for (const auto& r : Query(db,
                             "SELECT t.number, d.step, d.decision, d.reason FROM decisions d "
                             "JOIN trials t ON t.id = d.trial_id WHERE d.decision != 'pause' "
                             "ORDER BY t.number, d.step, d.decision"))
    out[std::get<int64_t>(r[0])] += " | " + S(r[1]) + " " + S(r[2]) + ": " + S(r[3]);
  return out;
}

TEST(E2eCommandTest, TunerKilledDuringCommandTrialsResumesToTheSameDecisions) {
  TempDir dir;
  std::string study = PyStudy(dir, "kr", ", --checkpoint, --sleep, \"0.05\"", "{type: hyperband}",
                              9, "    checkpoints: true\n");
  std::string db = dir.File("k.db"), ref = dir.File("ref.db"), out;
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
  ASSERT_EQ(RunSweep(args, &out), 0) << out;
  ASSERT_EQ(
      RunSweep({"run", study, "--db", ref, "--local-runners", "2", "--progress", "plain"}, &out), 0)
      << out;
  EXPECT_EQ(Outcome(db), Outcome(ref));
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status IN ('paused', 'failed')"), 0);
  EXPECT_TRUE(AllGone(dir.File("pids"), 5000));
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

TEST(E2eCommandTest, StopKillsAProgramThatIgnoresSigtermAndItsGrandchild) {
  TempDir dir;
  std::string db = dir.File("asha.db");
  RunStudy(
      PyStudy(dir, "asha", ", --ignore-term, --grandchild, --sleep, \"0.2\"",
              "{type: asha, max_trials: 8, asha: {reduction_factor: 2}}", 4, "    grace_s: 0.5\n"),
      db);
  EXPECT_GT(QueryInt(db, "SELECT count(*) FROM trials WHERE status='stopped'"), 0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed'"), 0);
  EXPECT_EQ(Lines(dir.File("pids")).size(), 16u);
  EXPECT_TRUE(AllGone(dir.File("pids"), 5000));
}

TEST(E2eCommandTest, KillingTheRunnerLeavesNoProcessBehind) {
  TempDir dir;
  Keys keys(dir, {"r0", "r1"});
  std::string endpoint = "ipc://" + dir.File("t.sock"), db = dir.File("k.db");
  std::string study = PyStudy(dir, "k", ", --grandchild, --sleep, \"0.5\"",
                              "{type: random, max_trials: 1, max_retries: 3}", 8);
  Process tuner(Concat({"run", study, "--db", db, "--bind", endpoint, "--local-runners", "0",
                        "--heartbeat-ms", "200", "--progress", "plain"},
                       keys.TunerArgs()),
                dir.File("tuner.log"));
  auto runner = [&](const std::string& name) {
    return std::make_unique<Process>(Concat({"runner", "--connect", endpoint, "--name", name,
                                             "--heartbeat-ms", "200", "--allow-commands"},
                                            keys.RunnerArgs(name)),
                                     dir.File(name + ".log"));
  };
  auto r0 = runner("r0");
  ASSERT_TRUE(WaitFor([&] { return Lines(dir.File("pids")).size() == 2; }, 30000))
      << tuner.Log() << r0->Log();
  ASSERT_TRUE(WaitFor([&] { return QueryInt(db, "SELECT count(*) FROM reports") > 0; }, 30000));
  r0->Signal(SIGKILL);
  EXPECT_EQ(r0->Wait(5000), 128 + SIGKILL);
  EXPECT_TRUE(AllGone(dir.File("pids"), 5000)) << "a program or its grandchild outlived kill -9";
  // The trial is retried on another runner and completes.
  auto r1 = runner("r1");
  ASSERT_EQ(tuner.Wait(120000), 0) << tuner.Log();
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed' AND attempts=2"), 1);
  EXPECT_TRUE(AllGone(dir.File("pids"), 5000));
}

TEST(E2eCommandTest, FailuresAreNamedAndGarbageOrFloodsChangeNothing) {
  TempDir dir;
  std::string db = dir.File("f.db");
  std::string study = dir.Write(
      "f.yaml",
      "name: f\nobjective: {metric: loss, goal: minimize}\ntask:\n  command:\n"
      "    argv: [python3, " +
          kPrograms +
          "/trial.py, --x, \"0.5\", --mode, \"{mode}\"]\n"
          "    env: {PYTHONPATH: " +
          std::string(SWEEP_SOURCE_DIR) +
          "/clients/python}\n"
          "    steps: 2\nalgorithm: {type: grid}\nparameters:\n"
          "  mode: {type: categorical, values: [exit3, noreport, nanloss, garbage, flood]}\n");
  RunStudy(study, db);
  auto row = [&](const std::string& mode, const std::string& col) {
    auto rows = Query(
        db, "SELECT " + col + " FROM trials WHERE json_extract(params, '$.mode')='" + mode + "'");
    return rows.empty() ? std::string("?") : std::get<std::string>(rows[0][0]);
  };
  EXPECT_EQ(row("exit3", "status"), "failed");
  EXPECT_NE(row("exit3", "failure").find("the program exited with code 3"), std::string::npos);
  EXPECT_NE(row("exit3", "failure").find("boom: failing on purpose"), std::string::npos)
      << row("exit3", "failure");
  EXPECT_EQ(row("noreport", "status"), "failed");
  EXPECT_NE(row("noreport", "failure").find("the program exited 0 without reporting 'loss'"),
            std::string::npos)
      << row("noreport", "failure");
  EXPECT_EQ(row("nanloss", "status"), "failed");
  EXPECT_NE(row("nanloss", "failure").find("'loss' is nan"), std::string::npos)
      << row("nanloss", "failure");
  EXPECT_EQ(row("garbage", "status"), "completed");
  EXPECT_EQ(row("flood", "status"), "completed");
  // Each attempt's log: its stdout and stderr lines, the warnings about its
  // reports, and how it ended; a flood is cut at the cap and says so.
  auto log_of = [&](const std::string& mode) {
    std::string out;
    auto id =
        QueryInt(db, "SELECT id FROM trials WHERE json_extract(params, '$.mode')='" + mode + "'");
    EXPECT_EQ(RunSweep({"logs", std::to_string(id), "--db", db}, &out), 0) << out;
    return out;
  };
  std::string log = log_of("exit3");
  EXPECT_NE(log.find("training step 2\n"), std::string::npos) << log;
  EXPECT_NE(log.find("boom: failing on purpose\n"), std::string::npos) << log;
  EXPECT_NE(log.find("[sweep] the program exited with code 3"), std::string::npos) << log;
  log = log_of("garbage");
  EXPECT_NE(log.find("[sweep] warning: ignored a SWEEP_REPORT line that is not a JSON object"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("SWEEP_REPORT {not json"), std::string::npos) << log;
  EXPECT_NE(log.find("\\x1b[2J garbage"), std::string::npos) << "escaped for the terminal";
  EXPECT_EQ(log.find("\x1b"), std::string::npos);
  log = log_of("flood");
  EXPECT_NE(log.find("the log is over 16 MiB"), std::string::npos) << log.substr(log.size() - 300);
  EXPECT_LE(QueryInt(db, "SELECT max(bytes) FROM trial_logs"), 16 << 20);
  size_t note = log.find("[sweep] the log is over 16 MiB: the last ");
  ASSERT_NE(note, std::string::npos);
  EXPECT_GT(std::stoll(log.substr(note + 41)), 80 << 20) << log.substr(note, 100);
  // The database keeps each log's tail, which survives the file.
  int64_t exit3 =
      QueryInt(db, "SELECT id FROM trials WHERE json_extract(params, '$.mode')='exit3'");
  std::remove((db + ".logs/trial-" + std::to_string(exit3) + ".attempt-1.log").c_str());
  log = log_of("exit3");
  EXPECT_NE(log.find("boom: failing on purpose"), std::string::npos) << log;
  // Not retried: a program's own failure is its answer.
  EXPECT_EQ(QueryInt(db, "SELECT max(attempts) FROM trials"), 1);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind='attempt_lost'"), 0);
}

TEST(E2eCommandTest, LogsFollowsARunningTrialUntilItsAttemptEnds) {
  TempDir dir;
  std::string db = dir.File("l.db");
  Process tuner({"run", PyStudy(dir, "l", ", --sleep, \"0.3\"", "{type: random, max_trials: 1}", 6),
                 "--db", db, "--local-runners", "1", "--progress", "plain"},
                dir.File("tuner.log"));
  ASSERT_TRUE(WaitFor([&] { return QueryInt(db, "SELECT count(*) FROM reports") > 0; }, 30000))
      << tuner.Log();
  std::string out;
  ASSERT_EQ(RunSweep({"logs", "1", "--db", db, "--follow"}, &out, 60000), 0) << out;
  for (int s = 1; s <= 6; ++s)
    EXPECT_NE(out.find("training step " + std::to_string(s) + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find("[sweep] the program exited with code 0"), std::string::npos) << out;
  EXPECT_EQ(out.find("SWEEP_REPORT"), std::string::npos) << "reports are not log lines";
  EXPECT_EQ(tuner.Wait(30000), 0) << tuner.Log();
  EXPECT_EQ(RunSweep({"logs", "1", "--db", db, "--attempt", "2"}, &out), 1);
  EXPECT_NE(out.find("trial 1 has no log for attempt 2 (attempts with a log: 1)"),
            std::string::npos)
      << out;
}

TEST(E2eCommandTest, TimeoutAndStallCostAnAttemptAndEndTheProgram) {
  TempDir dir;
  std::string t =
      PyStudy(dir, "t", ", --mode, hang", "{type: random, max_trials: 1, max_retries: 1}", 3,
              "    timeout_s: 1\n    grace_s: 0.2\n");
  std::string db = dir.File("t.db");
  RunStudy(t, db, 1, 1);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed' AND attempts=2"), 1);
  auto f = Query(db, "SELECT failure FROM trials");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(std::get<std::string>(f[0][0]).find("ran past its timeout of 1 s"), std::string::npos)
      << std::get<std::string>(f[0][0]);
  EXPECT_TRUE(AllGone(dir.File("pids"), 5000));

  TempDir dir2;
  std::string s =
      PyStudy(dir2, "s", ", --mode, hang", "{type: random, max_trials: 1, max_retries: 1}", 3,
              "  stall_timeout_s: 1\n");
  std::string db2 = dir2.File("s.db");
  RunStudy(s, db2, 1, 1);
  auto f2 = Query(db2, "SELECT status, attempts, failure FROM trials");
  ASSERT_EQ(f2.size(), 1u);
  EXPECT_EQ(std::get<std::string>(f2[0][0]), "failed");
  EXPECT_EQ(std::get<int64_t>(f2[0][1]), 2);
  EXPECT_NE(std::get<std::string>(f2[0][2]).find("stall"), std::string::npos)
      << std::get<std::string>(f2[0][2]);
  EXPECT_TRUE(AllGone(dir2.File("pids"), 5000));
}

TEST(E2eCommandTest, RunnersRefuseCommandsWithoutAllowCommandsOrAnAuthenticatedTuner) {
  TempDir dir;
  Keys keys(dir, {"r0"});
  std::string endpoint = "ipc://" + dir.File("t.sock"), db = dir.File("r.db");
  std::string study = PyStudy(dir, "r", "", "{type: random, max_trials: 1}", 1);
  Process tuner(Concat({"run", study, "--db", db, "--bind", endpoint, "--local-runners", "0",
                        "--heartbeat-ms", "200", "--progress", "plain"},
                       keys.TunerArgs()),
                dir.File("tuner.log"));
  Process r0(Concat({"runner", "--connect", endpoint, "--name", "r0", "--heartbeat-ms", "200"},
                    keys.RunnerArgs("r0")),
             dir.File("r0.log"));
  ASSERT_EQ(tuner.Wait(60000), 1) << tuner.Log();
  auto f = Query(db, "SELECT status, failure FROM trials");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(std::get<std::string>(f[0][0]), "failed");
  EXPECT_NE(std::get<std::string>(f[0][1]).find("start it with sweep runner --allow-commands"),
            std::string::npos)
      << std::get<std::string>(f[0][1]);
  EXPECT_TRUE(Lines(dir.File("pids")).empty());

  // --insecure: the local runners have --allow-commands but cannot know who
  // they talk to.
  TempDir dir2;
  std::string db2 = dir2.File("i.db"), out;
  ASSERT_EQ(RunSweep({"run", PyStudy(dir2, "i", "", "{type: random, max_trials: 1}", 1), "--db",
                      db2, "--local-runners", "1", "--insecure", "--progress", "plain"},
                     &out),
            1)
      << out;
  auto f2 = Query(db2, "SELECT failure FROM trials");
  ASSERT_EQ(f2.size(), 1u);
  EXPECT_NE(std::get<std::string>(f2[0][0]).find("only for a tuner it has authenticated"),
            std::string::npos)
      << std::get<std::string>(f2[0][0]);
  EXPECT_TRUE(Lines(dir2.File("pids")).empty());
}

}  // namespace
}  // namespace sweep::e2e
