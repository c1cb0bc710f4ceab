// End to end for command tasks under faults: stops, kill -9 of a runner,
// programs that fail, flood, hang or time out, logs, and runners that refuse.
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
#include <thread>

#include "e2e/command_helpers.h"
#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

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
  // It ignored SIGTERM, so SIGKILL ended it after grace_s. (A trial whose
  // stop came after its program had already run to its end, under load, is
  // stopped too, with a log that says it exited: any stopped trial may show
  // the kill, so each is read.)
  std::string logs;
  bool killed = false;
  for (const auto& row : Query(db, "SELECT number FROM trials WHERE status='stopped'")) {
    std::string log;
    ASSERT_EQ(RunSweep({"logs", CellText(row[0]), "--db", db}, &log), 0) << log;
    killed = killed || log.find(
                           "[sweep] ended on the tuner's stop or pause: the program was "
                           "killed by signal 9 (SIGKILL)") != std::string::npos;
    logs += log;
  }
  EXPECT_TRUE(killed) << logs;
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
  std::string work = dir.File("work");
  ASSERT_EQ(mkdir(work.c_str(), 0700), 0);
  auto runner = [&](const std::string& name) {
    return std::make_unique<Process>(
        Concat({"runner", "--connect", endpoint, "--name", name, "--heartbeat-ms", "200",
                "--allow-commands", "--work-dir", work},
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
  EXPECT_EQ(WorkFolders(work), 1) << "kill -9 leaves its work folder";
  // The trial is retried on another runner and completes; that runner
  // removes the dead one's folder, and its own when it exits.
  auto r1 = runner("r1");
  ASSERT_EQ(tuner.Wait(120000), 0) << tuner.Log();
  EXPECT_EQ(r1->Wait(10000), 0) << r1->Log();
  EXPECT_EQ(WorkFolders(work), 0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed' AND attempts=2"), 1);
  EXPECT_TRUE(AllGone(dir.File("pids"), 5000));
}

// SIGTERM (a scheduler ending a job, the tuner stopping its local runners)
// ends a runner cleanly: its program ends and its work folder goes. Before,
// the local runners of every `sweep run` left their folders behind, since
// the tuner stops them with SIGTERM.
TEST(E2eCommandTest, SigtermEndsARunnerCleanly) {
  TempDir dir;
  Keys keys(dir, {"r0"});
  std::string endpoint = "ipc://" + dir.File("t.sock"), db = dir.File("t.db");
  std::string study =
      PyStudy(dir, "t", ", --sleep, \"0.5\"", "{type: random, max_trials: 1, max_retries: 3}", 8);
  Process tuner(Concat({"run", study, "--db", db, "--bind", endpoint, "--local-runners", "0",
                        "--heartbeat-ms", "200", "--progress", "plain"},
                       keys.TunerArgs()),
                dir.File("tuner.log"));
  std::string work = dir.File("work");
  ASSERT_EQ(mkdir(work.c_str(), 0700), 0);
  Process r0(Concat({"runner", "--connect", endpoint, "--name", "r0", "--heartbeat-ms", "200",
                     "--allow-commands", "--work-dir", work},
                    keys.RunnerArgs("r0")),
             dir.File("r0.log"));
  ASSERT_TRUE(WaitFor([&] { return QueryInt(db, "SELECT count(*) FROM reports") > 0; }, 30000))
      << tuner.Log() << r0.Log();
  r0.Signal(SIGTERM);
  EXPECT_EQ(r0.Wait(10000), 128 + SIGTERM) << r0.Log();
  // A command without checkpoint folders cannot checkpoint: it stops at
  // once (runner_leaving.cc), to run again from its start elsewhere.
  EXPECT_NE(r0.Log().find("Terminated: trial 0 stops now"), std::string::npos) << r0.Log();
  EXPECT_TRUE(AllGone(dir.File("pids"), 5000)) << "the program outlived its runner";
  EXPECT_EQ(WorkFolders(work), 0);
  tuner.Signal(SIGTERM);
  tuner.Wait(10000);

  // The local runners of a whole `sweep run` (stopped by the tuner with
  // SIGTERM at the end) leave no work folder in their TMPDIR either.
  TempDir dir2;
  std::string tmp = dir2.File("tmp");
  ASSERT_EQ(mkdir(tmp.c_str(), 0700), 0);
  const char* was = getenv("TMPDIR");
  std::string saved = was ? was : "";
  setenv("TMPDIR", tmp.c_str(), 1);
  std::string out =
      RunStudy(PyStudy(dir2, "l", "", "{type: random, max_trials: 4}", 2), dir2.File("l.db"), 2, 0);
  if (was)
    setenv("TMPDIR", saved.c_str(), 1);
  else
    unsetenv("TMPDIR");
  EXPECT_EQ(WorkFolders(tmp), 0) << out;
}

TEST(E2eCommandTest, FailuresAreNamedAndGarbageOrFloodsChangeNothing) {
  TempDir dir;
  std::string db = dir.File("f.db");
  std::string study =
      dir.Write("f.yaml",
                "name: f\nobjective: {metric: loss, goal: minimize}\ntask:\n  command:\n"
                "    argv: [python3, " +
                    kPrograms +
                    "/trial.py, --x, \"0.5\", --mode, \"{mode}\"]\n"
                    "    env: {PYTHONPATH: " +
                    std::string(SWEEP_SOURCE_DIR) +
                    "/clients/python}\n"
                    "    steps: 2\nalgorithm: {type: grid}\nparameters:\n"
                    "  mode: {type: categorical, values: [exit3, noreport, nanloss, garbage, "
                    "flood, badutf8]}\n");
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
  // Output that is not UTF-8 reaches the database replaced, never lost: the
  // trial fails at once with its reason, not after a stall and a retry.
  EXPECT_EQ(row("badutf8", "status"), "failed");
  EXPECT_NE(row("badutf8", "failure").find("the program exited with code 3"), std::string::npos)
      << row("badutf8", "failure");
  EXPECT_NE(row("badutf8", "failure").find("progress ███\xEF\xBF\xBD"), std::string::npos)
      << row("badutf8", "failure");
  // Each attempt's log: its stdout and stderr lines, the warnings about its
  // reports, and how it ended; a flood is cut at the cap and says so.
  auto log_of = [&](const std::string& mode) {
    std::string out;
    auto id = QueryInt(
        db, "SELECT number FROM trials WHERE json_extract(params, '$.mode')='" + mode + "'");
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
  std::string bad = log_of("badutf8");
  EXPECT_NE(bad.find("is empty, longer than 256 bytes or not UTF-8; ignored"), std::string::npos)
      << bad;
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
      QueryInt(db, "SELECT number FROM trials WHERE json_extract(params, '$.mode')='exit3'");
  std::string exit3_log = StudyFolder(db, QueryInt(db, "SELECT id FROM studies")) + "/trial-" +
                          std::to_string(exit3) + ".attempt-1.log";
  ASSERT_EQ(std::remove(exit3_log.c_str()), 0) << exit3_log;
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
  ASSERT_EQ(RunSweep({"logs", "0", "--db", db, "--follow"}, &out, 60000), 0) << out;
  for (int s = 1; s <= 6; ++s)
    EXPECT_NE(out.find("training step " + std::to_string(s) + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find("[sweep] the program exited with code 0"), std::string::npos) << out;
  EXPECT_EQ(out.find("SWEEP_REPORT"), std::string::npos) << "reports are not log lines";
  EXPECT_EQ(tuner.Wait(30000), 0) << tuner.Log();
  EXPECT_EQ(RunSweep({"logs", "0", "--db", db, "--attempt", "2"}, &out), 1);
  EXPECT_NE(out.find("trial 0 has no log for attempt 2 (attempts with a log: 1)"),
            std::string::npos)
      << out;
}

// `sweep logs N --follow` before trial N exists (one runner, trials one at
// a time): it waits for it to start, then follows it to its end.
TEST(E2eCommandTest, LogsFollowWaitsForATrialNotYetMade) {
  TempDir dir;
  std::string db = dir.File("w.db");
  Process tuner({"run", PyStudy(dir, "w", ", --sleep, \"0.2\"", "{type: random, max_trials: 3}", 3),
                 "--db", db, "--local-runners", "1", "--progress", "plain"},
                dir.File("tuner.log"));
  ASSERT_TRUE(WaitFor([&] { return QueryInt(db, "SELECT count(*) FROM reports") > 0; }, 30000))
      << tuner.Log();
  ASSERT_LT(QueryInt(db, "SELECT count(*) FROM trials WHERE number = 2 AND attempts > 0"), 1);
  std::string out;
  // A misspelt study, or a trial past max_trials, will never come: no wait.
  EXPECT_EQ(RunSweep({"logs", "nope", "2", "--db", db, "--follow"}, &out, 10000), 1);
  EXPECT_NE(out.find("nope"), std::string::npos) << out;
  EXPECT_EQ(RunSweep({"logs", "7", "--db", db, "--follow"}, &out, 10000), 1);
  EXPECT_NE(out.find("has no trial 7"), std::string::npos) << out;
  ASSERT_EQ(RunSweep({"logs", "2", "--db", db, "--follow"}, &out, 60000), 0) << out;
  EXPECT_NE(out.find("waiting for trial 2 to start"), std::string::npos) << out;
  EXPECT_NE(out.find("training step 3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("[sweep] the program exited with code 0"), std::string::npos) << out;
  EXPECT_EQ(tuner.Wait(30000), 0) << tuner.Log();
  // With no sweep running, a trial that is not there is an error at once.
  EXPECT_EQ(RunSweep({"logs", "9", "--db", db, "--follow"}, &out, 10000), 1);
  EXPECT_NE(out.find("has no trial 9"), std::string::npos) << out;
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

// task.command.timeout_s counts the program's own time: not a wait for a
// frozen tuner's decision at a decision step, and not the wait for output a
// descendant holds open after the program exited 0.
TEST(E2eCommandTest, TheTimeoutCountsTheProgramsTimeNotTheTunersNorAfterItsExit) {
  TempDir dir;
  std::string waits =
      dir.Write("waits.sh",
                "touch \"$RECORD/started\"\nwhile [ ! -e \"$RECORD/go\" ]; do sleep 0.05; done\n"
                "echo 'SWEEP_REPORT {\"step\": 1, \"loss\": 1}'\nsleep 0.3\n"
                "echo 'SWEEP_REPORT {\"step\": 2, \"loss\": 0.5}'\n");
  auto study = [&](const std::string& name, const std::string& script,
                   const std::string& algorithm) {
    return dir.Write(name + ".yaml", "name: " + name +
                                         "\nobjective: {metric: loss, goal: minimize}\n"
                                         "task:\n  command:\n    argv: [sh, " +
                                         script + "]\n    env: {RECORD: " + dir.path() +
                                         "}\n    steps: 2\n    timeout_s: 1.5\n"
                                         "algorithm: " +
                                         algorithm +
                                         "\nseed: 1\nparameters:\n"
                                         "  x: {type: float, min: 0, max: 1}\n");
  };
  // ASHA decides at step 1; the tuner is frozen for 3 s meanwhile.
  std::string db = dir.File("w.db");
  Process tuner({"run", study("w", waits, "{type: asha, max_trials: 1}"), "--db", db,
                 "--local-runners", "1", "--progress", "plain"},
                dir.File("w.log"));
  ASSERT_TRUE(WaitFor([&] { return access(dir.File("started").c_str(), F_OK) == 0; }, 60000))
      << tuner.Log();
  tuner.Signal(SIGSTOP);
  ASSERT_TRUE(dir.Write("go", "").size() > 0);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  tuner.Signal(SIGCONT);
  ASSERT_EQ(tuner.Wait(60000), 0) << tuner.Log();
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE status='completed' AND attempts=1 AND "
                     "value=0.5"),
            1)
      << tuner.Log();

  // It reports, leaves a process of another session holding its stdout,
  // and exits 0 at once; the runner waits 2 s for that output, past the
  // timeout.
  std::string leaves = dir.Write("leaves.sh",
                                 "echo 'SWEEP_REPORT {\"step\": 2, \"loss\": 0.25}'\n"
                                 "setsid sh -c 'echo $$ > \"$RECORD/held\"; exec sleep 4' &\n"
                                 "while [ ! -s \"$RECORD/held\" ]; do sleep 0.05; done\n");
  std::string db2 = dir.File("l.db"), out;
  RunStudy(study("l", leaves, "{type: random, max_trials: 1}"), db2, 1);
  EXPECT_EQ(QueryInt(db2,
                     "SELECT count(*) FROM trials WHERE status='completed' AND attempts=1 AND "
                     "value=0.25"),
            1)
      << QueryInt(db2, "SELECT count(*) FROM trials");
  auto held = Lines(dir.File("held"));
  ASSERT_FALSE(held.empty());
  kill(static_cast<pid_t>(std::stol(held[0])), SIGKILL);
}

// The study's `waiting` event once a runner joined that cannot run it.
bool SaysWaiting(const std::string& db) {
  return QueryInt(db,
                  "SELECT count(*) FROM events WHERE kind = 'waiting' AND detail LIKE "
                  "'%they need --allow-commands%'") == 1;
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
  // Its Hello says it runs no commands: it is given no trial, and the
  // study says why it waits. (Given one by a tuner that did not ask, it
  // would refuse it: "start it with sweep runner --allow-commands".)
  ASSERT_TRUE(WaitFor([&] { return SaysWaiting(db); }, 30000)) << tuner.Log();
  usleep(500000);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status != 'queued'"), 0);
  // The tuner names the runner and what it lacks; sweep studies says why
  // the study waits.
  EXPECT_NE(
      tuner.Log().find("runner 'r0' cannot run the trials of study 'r': it was started without "
                       "--allow-commands; they go to runners that can"),
      std::string::npos)
      << tuner.Log();
  std::string out;
  EXPECT_EQ(RunSweep({"studies", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("study 'r' is waiting: no runner in the pool can run its trials (they need "
                     "--allow-commands"),
            std::string::npos)
      << out;
  // sweep watch's status line says it too.
  {
    Process watch({"watch", "--db", db, "--interval", "0.2"}, dir.File("watch.log"));
    EXPECT_TRUE(WaitFor(
        [&] { return watch.Log().find("waiting: no runner in the pool") != std::string::npos; },
        10000))
        << watch.Log();
    watch.Signal(SIGTERM);
    watch.Wait(10000);
  }
  tuner.Signal(SIGTERM);
  EXPECT_EQ(tuner.Wait(30000), 130) << tuner.Log();
  EXPECT_TRUE(Lines(dir.File("pids")).empty());

  // --insecure: a runner with --allow-commands but no --server-key cannot
  // know who it talks to, and refuses.
  TempDir dir2;
  std::string endpoint2 = "ipc://" + dir2.File("t.sock"), db2 = dir2.File("i.db");
  Process tuner2({"run", PyStudy(dir2, "i", "", "{type: random, max_trials: 1}", 1), "--db", db2,
                  "--bind", endpoint2, "--local-runners", "0", "--insecure", "--heartbeat-ms",
                  "200", "--progress", "plain"},
                 dir2.File("tuner.log"));
  Process r2({"runner", "--connect", endpoint2, "--name", "r2", "--heartbeat-ms", "200",
              "--allow-commands"},
             dir2.File("r2.log"));
  ASSERT_TRUE(WaitFor([&] { return SaysWaiting(db2); }, 30000)) << tuner2.Log();
  usleep(500000);
  EXPECT_EQ(QueryInt(db2, "SELECT count(*) FROM trials WHERE status != 'queued'"), 0);
  EXPECT_NE(r2.Log().find("it refuses command trials"), std::string::npos) << r2.Log();
  tuner2.Signal(SIGTERM);
  EXPECT_EQ(tuner2.Wait(30000), 130) << tuner2.Log();
  EXPECT_TRUE(Lines(dir2.File("pids")).empty());
  // Its own local runners reach it through its private socket (a folder
  // only this user may enter), so they know it, --insecure or not.
  TempDir dir3;
  std::string db3 = dir3.File("l.db");
  ASSERT_EQ(RunSweep({"run", PyStudy(dir3, "l", "", "{type: random, max_trials: 1}", 1), "--db",
                      db3, "--local-runners", "1", "--insecure", "--progress", "plain"},
                     &out),
            0)
      << out;
  EXPECT_EQ(QueryInt(db3, "SELECT count(*) FROM trials WHERE status='completed'"), 1);
}

}  // namespace
}  // namespace sweep::e2e
