// The command line: validation errors, read-only queries, output formats,
// Ctrl-C and resume, and a changed study file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <fstream>

#include "e2e/harness.h"
#include "nn/backend.h"

namespace sweep::e2e {
namespace {

const std::string kExamples = std::string(SWEEP_SOURCE_DIR) + "/examples/";

TEST(E2eCliTest, ValidatePrintsTheSpaceOrTheErrorWithItsLocation) {
  std::string out;
  ASSERT_EQ(RunSweep({"validate", kExamples + "grid_4x5.yaml"}, &out), 0) << out;
  EXPECT_NE(out.find("grid points: 60"), std::string::npos) << out;
  EXPECT_NE(out.find("momentum: float [0.5, 0.9] step 0.4 when optimizer in {sgd}"),
            std::string::npos)
      << out;
  TempDir dir;
  std::string bad = dir.Write(
      "bad.yaml",
      "name: b\nobjective: {metric: value, goal: minimize}\ntask: {synthetic: {function: curve}}\n"
      "algorithm: {type: random, max_trials: 3}\nparameters:\n"
      "  x1: {type: float, min: 0, max: 1}\n  lr: {type: float, min: 0, max: 1, log: true}\n");
  EXPECT_EQ(RunSweep({"validate", bad}, &out), 1);
  EXPECT_NE(
      out.find(bad + ":7:26: parameters.lr.min: min (0) must be > 0 for a log-scale parameter"),
      std::string::npos)
      << out;
  // `run` refuses it too, before creating anything.
  EXPECT_EQ(RunSweep({"run", bad, "--db", dir.File("x.db")}, &out), 1);
  EXPECT_FALSE(std::ifstream(dir.File("x.db")).good());
}

TEST(E2eCliTest, EveryExampleIsValidAndPlanShowsTheLayout) {
  std::string out;
  for (const char* f :
       {"branin_random.yaml", "grid_4x5.yaml", "fashion_mnist_mlp.yaml", "fashion_mnist_cnn.yaml",
        "fashion_mnist_hyperband.yaml", "fashion_mnist_pbt.yaml"}) {
    EXPECT_EQ(RunSweep({"validate", kExamples + f}, &out), 0) << f << ": " << out;
    EXPECT_EQ(RunSweep({"plan", kExamples + f}, &out), 0) << f << ": " << out;
  }
  ASSERT_EQ(
      RunSweep({"plan", kExamples + "fashion_mnist_hyperband.yaml", "--format", "json"}, &out), 0);
  EXPECT_NE(out.find("{\"bracket\": 2, \"first_trial\": 0, \"resource\": 21, \"rungs\": "
                     "[{\"trials\": 9, \"resource\": 1}, {\"trials\": 3, \"resource\": 3}, "
                     "{\"trials\": 1, \"resource\": 9}]}"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\"total_resource\": 69"), std::string::npos) << out;
  // A budget that cannot hold the first bracket is refused by plan, validate and run.
  TempDir dir;
  std::string small = dir.Write("s.yaml",
                                "name: s\nobjective: {metric: value, goal: minimize}\n"
                                "task: {synthetic: {function: curve, steps: 81}}\n"
                                "algorithm: {type: hyperband, budget: 100}\nparameters:\n"
                                "  x1: {type: float, min: 0, max: 1}\n");
  for (const std::vector<std::string>& cmd : std::vector<std::vector<std::string>>{
           {"plan", small}, {"validate", small}, {"run", small, "--db", dir.File("x.db")}}) {
    EXPECT_EQ(RunSweep(cmd, &out), 1) << cmd[0];
    EXPECT_NE(out.find("hyperband cannot start: the next bracket (s=4, 297 steps) would pass "
                       "budget 100"),
              std::string::npos)
        << cmd[0] << ": " << out;
  }
}

TEST(E2eCliTest, AskingForAGpuWhereThereIsNoneIsAnErrorNotAFallback) {
  if (nn::CudaDeviceCount() > 0) GTEST_SKIP() << "this machine has a GPU";
  std::string out;
  EXPECT_EQ(RunSweep({"runner", "--connect", "ipc:///nonexistent", "--backend", "cuda"}, &out), 2);
  EXPECT_NE(out.find("--backend cuda: "), std::string::npos) << out;
  TempDir dir;
  std::string study = dir.Write(
      "g.yaml",
      "name: g\nobjective: {metric: val_accuracy, goal: maximize}\ntask:\n  train: {model: mlp, "
      "epochs: 1}\nalgorithm: {type: random, max_trials: 2}\nparameters:\n  lr: {type: float, "
      "min: 0.01, max: 0.1}\n");
  EXPECT_EQ(RunSweep({"run", study, "--db", dir.File("g.db"), "--gpus", "0", "--progress", "plain"},
                     &out),
            1);
  EXPECT_NE(out.find("no local runner could start"), std::string::npos) << out;
  EXPECT_EQ(QueryInt(dir.File("g.db"), "SELECT count(*) FROM trials WHERE status = 'completed'"),
            0);
}

TEST(E2eCliTest, VersionExitCodesAndSweepDb) {
  std::string out;
  ASSERT_EQ(RunSweep({"--version"}, &out), 0) << out;
  EXPECT_EQ(out.rfind("sweep 0.", 0), 0u) << out;
  EXPECT_NE(out.find("CUDA backend: "), std::string::npos) << out;
  // Usage errors exit 2, as POSIX tools do.
  EXPECT_EQ(RunSweep({"trials", "--no-such-flag"}, &out), 2) << out;
  EXPECT_EQ(RunSweep({}, &out), 2) << out;
  EXPECT_EQ(RunSweep({"why"}, &out), 2) << out;
  // A flag that does nothing as given says so, and nothing runs.
  TempDir dir;
  EXPECT_EQ(RunSweep({"run", kExamples + "branin_tpe.yaml", "--db", dir.File("g.db"),
                      "--trials-per-gpu", "2"},
                     &out),
            2);
  EXPECT_NE(out.find("--trials-per-gpu does nothing without --gpus"), std::string::npos) << out;
  EXPECT_EQ(FileBytes(dir.File("g.db")), "");
  // $SWEEP_DB is every command's default database; -v goes after the command too.
  std::string db = dir.File("env.db");
  setenv("SWEEP_DB", db.c_str(), 1);
  int run = RunSweep({"run", kExamples + "branin_random.yaml", "--local-runners", "1"}, &out);
  int best = RunSweep({"best", "-v"}, &out);
  unsetenv("SWEEP_DB");
  ASSERT_EQ(run, 0) << out;
  EXPECT_EQ(best, 0) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'"), 200);
  EXPECT_NE(out.find("completed"), std::string::npos) << out;
  // `best` names the goal and the metric it ranks by.
  EXPECT_NE(out.find("study 'branin-random': minimize value; its best completed trial:\n"
                     "trial  status     value"),
            std::string::npos)
      << out;
}

TEST(E2eCliTest, StopEndsASweepFromAnotherTerminalAndItResumes) {
  TempDir dir;
  std::string study =
      dir.Write("slow.yaml",
                "name: slow\nobjective: {metric: value, goal: minimize}\n"
                "task: {synthetic: {function: branin, steps: 5, step_ms: 40}}\n"
                "algorithm: {type: random, max_trials: 30}\nparameters:\n"
                "  x1: {type: float, min: -5, max: 10}\n  x2: {type: float, min: 0, max: 15}\n");
  std::string db = dir.File("s.db"), out;
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "2",   "--progress", "plain"};
  {
    Process tuner(args, dir.File("t.log"));
    ASSERT_TRUE(WaitFor(
        [&] { return QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'") >= 2; },
        60000))
        << tuner.Log();
    ASSERT_EQ(RunSweep({"studies", "--db", db, "--format", "json"}, &out), 0) << out;
    EXPECT_NE(out.find("\"status\": \"running\", \"tuner\": " + std::to_string(tuner.pid())),
              std::string::npos)
        << out;
    ASSERT_EQ(RunSweep({"stop", "slow", "--db", db}, &out), 0) << out;
    EXPECT_NE(out.find("stopped the tuner of study 'slow'"), std::string::npos) << out;
    EXPECT_NE(out.find("`sweep run " + study + " --db " + db + "` resumes them"), std::string::npos)
        << out;
    EXPECT_EQ(tuner.Wait(10000), 130) << tuner.Log();
  }
  // Exactly what Ctrl-C leaves: nothing running, the rest queued or unmade.
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'running'"), 0);
  EXPECT_LT(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'"), 30);
  EXPECT_EQ(RunSweep({"stop", "--db", db}, &out), 1);
  EXPECT_NE(out.find("no sweep is running on " + db), std::string::npos) << out;
  EXPECT_EQ(RunSweep({"stop", "--db", dir.File("none.db")}, &out), 1);
  EXPECT_NE(out.find("no such database"), std::string::npos) << out;
  // After kill -9 the study still says running: stop names what happened.
  {
    Process tuner(args, dir.File("t2.log"));
    ASSERT_TRUE(WaitFor(
        [&] { return QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'running'") > 0; },
        60000))
        << tuner.Log();
    tuner.Signal(SIGKILL);
    tuner.Wait(10000);
  }
  EXPECT_EQ(RunSweep({"stop", "--db", db}, &out), 1);
  EXPECT_NE(out.find("was interrupted (its tuner is gone)"), std::string::npos) << out;
  // The database still says running; `studies` knows better and says how to resume.
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM studies WHERE status = 'running'"), 1);
  ASSERT_EQ(RunSweep({"studies", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("interrupted"), std::string::npos) << out;
  // The command names the study file it was run from, as it was stored.
  EXPECT_NE(out.find("`sweep run " + study + " --db " + db + "` resumes it"), std::string::npos)
      << out;
  ASSERT_EQ(RunSweep(args, &out), 0) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'"), 30);
}

TEST(E2eCliTest, PlanAndValidateStateCountsInWords) {
  std::string out;
  ASSERT_EQ(RunSweep({"plan", kExamples + "grid_4x5.yaml"}, &out), 0) << out;
  EXPECT_EQ(out,
            "grid: 60 trials (every grid point once), each runs its 3 steps: 180 steps in all\n");
  ASSERT_EQ(RunSweep({"plan", kExamples + "grid_4x5.yaml", "--format", "json"}, &out), 0) << out;
  EXPECT_EQ(out,
            "{\"algorithm\": \"grid\", \"max_trials\": 60, \"steps_per_trial\": 3, "
            "\"total_steps\": 180}\n");
  ASSERT_EQ(RunSweep({"plan", kExamples + "branin_random.yaml", "--format", "json"}, &out), 0);
  EXPECT_NE(out.find("\"algorithm\": \"random\", \"max_trials\": 200"), std::string::npos) << out;
  ASSERT_EQ(RunSweep({"plan", kExamples + "branin_random.yaml"}, &out), 0);
  EXPECT_NE(out.find("each runs its 1 step: 200 steps in all"), std::string::npos) << out;
  ASSERT_EQ(RunSweep({"validate", kExamples + "branin_tpe.yaml"}, &out), 0);
  EXPECT_NE(out.find("grid points: none (x1, x2: a float without a step is continuous)"),
            std::string::npos)
      << out;
}

TEST(E2eCliTest, AMissingDataFolderIsCaughtBeforeAnyTrialRuns) {
  TempDir dir;
  std::string study =
      dir.Write("t.yaml",
                "name: t\nobjective: {metric: val_accuracy, goal: maximize}\n"
                "task: {train: {model: mlp, epochs: 1, data_dir: /nonexistent/fmnist}}\n"
                "algorithm: {type: random, max_trials: 2}\nparameters:\n"
                "  lr: {type: float, min: 0.01, max: 0.1}\n");
  std::string out;
  EXPECT_EQ(RunSweep({"run", study, "--db", dir.File("t.db")}, &out), 1);
  EXPECT_NE(out.find("task.train.data_dir: /nonexistent/fmnist is not a folder on this machine"),
            std::string::npos)
      << out;
  EXPECT_EQ(FileBytes(dir.File("t.db")), "");
}

TEST(E2eCliTest, FileAndEndpointErrorsSayWhatToTypeInstead) {
  TempDir dir;
  std::string study = kExamples + "branin_random.yaml", out;
  EXPECT_EQ(RunSweep({"run", study, "--db", dir.File("no/such/folder/x.db")}, &out), 1);
  EXPECT_NE(out.find("the folder " + dir.File("no/such/folder/") + " does not exist"),
            std::string::npos)
      << out;
  EXPECT_EQ(RunSweep({"run", study, "--db", dir.File("x.db"), "--bind", "127.0.0.1:5555"}, &out),
            1);
  EXPECT_NE(out.find("'127.0.0.1:5555' names no transport: write tcp://127.0.0.1:5555"),
            std::string::npos)
      << out;
  EXPECT_EQ(FileBytes(dir.File("x.db")), "");  // nothing made before the endpoint was checked
  EXPECT_NE(RunSweep({"runner", "--connect", "localhost:5999", "--give-up-after", "1"}, &out), 0);
  EXPECT_NE(out.find("'localhost:5999' names no transport: write tcp://localhost:5999"),
            std::string::npos)
      << out;
}

TEST(E2eCliTest, QueryCommandsAndFormats) {
  TempDir dir;
  std::string db = dir.File("q.db"), out;
  ASSERT_EQ(
      RunSweep({"run", kExamples + "grid_4x5.yaml", "--db", db, "--local-runners", "2"}, &out), 0)
      << out;
  ASSERT_EQ(RunSweep({"studies", "--db", db}, &out), 0);
  EXPECT_NE(out.find("grid-4x5"), std::string::npos) << out;
  // --db before the command is the same as after it.
  std::string before;
  ASSERT_EQ(RunSweep({"--db", db, "trials", "--format", "csv"}, &before), 0) << before;
  ASSERT_EQ(RunSweep({"trials", "--db", db, "--format", "csv"}, &out), 0);
  EXPECT_EQ(before, out);
  EXPECT_EQ(out.rfind("trial,status,value,step,attempts,x1,x2,optimizer,momentum,started_at,"
                      "ended_at,duration_s,failure,id\n",
                      0),
            0u)
      << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 61);
  ASSERT_EQ(RunSweep({"trials", "grid-4x5", "--db", db, "--top", "3", "--format", "json"}, &out),
            0);
  EXPECT_EQ(out.rfind("[{\"id\": ", 0), 0u) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 3);
  // Rosenbrock's minimum on this grid is at x1 = 1, x2 = 1.
  EXPECT_NE(out.find("\"params\": {\"x1\": 1, \"x2\": 1,"), std::string::npos) << out;
  EXPECT_NE(out.find("\"value\": 0,"), std::string::npos) << out;
  // --columns: these, in this order.
  ASSERT_EQ(RunSweep({"trials", "--db", db, "--top", "1", "--columns", "x2,trial,value"}, &out), 0)
      << out;
  EXPECT_EQ(out.rfind("x2  trial  value\n", 0), 0u) << out;
  EXPECT_EQ(RunSweep({"trials", "--db", db, "--columns", "trial,x3"}, &out), 1);
  EXPECT_NE(out.find("--columns: no column 'x3'; did you mean 'x1'?"), std::string::npos) << out;
  ASSERT_EQ(RunSweep({"trials", "--db", db, "--status", "failed"}, &out), 0);
  EXPECT_EQ(out, "(no rows: no trial of study 'grid-4x5' has status failed)\n");
  ASSERT_EQ(RunSweep({"trials", "--db", db, "--top", "3", "--status", "stopped"}, &out), 0);
  EXPECT_EQ(out,
            "(no rows: no trial of study 'grid-4x5' has status stopped, and --top ranks completed "
            "trials only)\n");

  ASSERT_EQ(RunSweep({"query", "SELECT status, count(*) AS n FROM trials GROUP BY status", "--db",
                      db, "--format", "json"},
                     &out),
            0);
  EXPECT_EQ(out, "[{\"status\": \"completed\", \"n\": 60}]\n");
  // A query with no end stops at --limit, and says so.
  const std::string endless =
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c";
  ASSERT_EQ(RunSweep({"query", endless, "--db", db, "--format", "csv", "--limit", "3"}, &out), 0);
  EXPECT_NE(out.find("x\n1\n2\n3\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("\n4\n"), std::string::npos) << out;
  EXPECT_NE(out.find("more than 3 rows"), std::string::npos) << out;
  // CSV is written as it is read: an endless query with no limit gives its
  // first rows at once (held, it would give none), and the reader decides
  // when it ends.
  {
    // Under a memory and a time limit: were rows held, it would fail, not
    // grow or hang.
    std::string cmd = "ulimit -v 2097152; timeout 60 " + std::string(SWEEP_BIN) + " query \"" +
                      endless + "\" --db " + db + " --limit 0 --format csv";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    char line[64] = "";
    int rows = 0;
    while (rows < 100001 && fgets(line, sizeof line, p)) ++rows;
    EXPECT_EQ(rows, 100001);  // the header and 100,000 rows
    EXPECT_STREQ(line, "100000\n");
    // The pipe closes: the query ends by SIGPIPE, as `| head` would make it
    // (or by its own check of the closed output: exit 1), not by the timeout.
    int status = pclose(p);
    ASSERT_TRUE(WIFEXITED(status)) << status;
    int code = WEXITSTATUS(status);
    EXPECT_TRUE(code == 128 + SIGPIPE || code == 1) << code;
  }
  ASSERT_EQ(RunSweep({"query", "SELECT 1 AS one", "--db", db, "--limit", "1"}, &out), 0);
  EXPECT_EQ(out.find("more than"), std::string::npos) << out;  // exactly the limit: nothing cut
  EXPECT_EQ(RunSweep({"query", "DELETE FROM trials", "--db", db}, &out), 1);
  EXPECT_NE(out.find("read-only"), std::string::npos) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials"), 60);
  ASSERT_EQ(RunSweep({"export", "--db", db, "--format", "json"}, &out), 0);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 60);
  EXPECT_EQ(RunSweep({"trials", "nope", "--db", db}, &out), 1);
  EXPECT_NE(out.find("no study named 'nope'"), std::string::npos) << out;
  EXPECT_EQ(RunSweep({"trials", "--db", dir.File("missing.db")}, &out), 1);
  EXPECT_NE(out.find("no such database"), std::string::npos) << out;
}

TEST(E2eCliTest, CtrlCStopsCleanlyAndTheSameCommandResumes) {
  TempDir dir;
  std::string study = dir.Write("s.yaml",
                                "name: ctrlc\nobjective: {metric: value, goal: minimize}\n"
                                "task: {synthetic: {function: curve, steps: 10, step_ms: 20}}\n"
                                "algorithm: {type: random, max_trials: 12}\nparameters:\n  x1: "
                                "{type: float, min: 0, max: 1}\n");
  std::string db = dir.File("c.db");
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "2",   "--progress", "plain"};
  {
    Process tuner(args, dir.File("t.log"));
    ASSERT_TRUE(WaitFor(
        [&] {
          return QueryInt(db, "SELECT count(*) FROM trials WHERE status='running' AND step >= 2") >=
                 1;
        },
        30000));
    tuner.Signal(SIGINT);
    ASSERT_EQ(tuner.Wait(10000), 130) << tuner.Log();
    EXPECT_NE(tuner.Log().find("resume when you run the same command"), std::string::npos)
        << tuner.Log();
  }
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='running'"), 0);
  // An interrupted trial keeps its attempt (it goes on when resumed) and
  // says where it was cut short.
  EXPECT_GE(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE status='queued' AND attempts=1 AND "
                     "step >= 2"),
            1);
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE status='queued' AND attempts=0 AND "
                     "step > 0"),
            0);
  EXPECT_GE(QueryInt(db,
                     "SELECT count(*) FROM events WHERE kind='interrupted' AND trial_id > 0 "
                     "AND detail LIKE 'attempt 1 at step %: the tuner stopped; it resumes as "
                     "the same attempt'"),
            1);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM studies WHERE status='interrupted'"), 1);
  std::string out;
  ASSERT_EQ(RunSweep(args, &out), 0) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed' AND attempts=1"),
            12);
  // A changed search space under the same name is refused, naming the
  // change (tests/e2e/extend_test.cc has the changes that are taken).
  std::string changed = dir.Write("s.yaml",
                                  "name: ctrlc\nobjective: {metric: value, goal: minimize}\n"
                                  "task: {synthetic: {function: curve, steps: 10, step_ms: 20}}\n"
                                  "algorithm: {type: random, max_trials: 12}\nparameters:\n  x1: "
                                  "{type: float, min: 0, max: 2}\n");
  EXPECT_EQ(RunSweep(args, &out), 1);
  EXPECT_NE(out.find("different definition"), std::string::npos) << out;
  EXPECT_NE(out.find("parameters.x1.max: 1 -> 2"), std::string::npos) << out;
}

TEST(E2eCliTest, ValidatePrintShowsTheStudyAsItRunsAndThatFileIsTheSameStudy) {
  TempDir dir;
  std::string yaml = dir.Write("s.yaml",
                               "name: printed\nobjective: {metric: value, goal: minimize}\n"
                               "task: {synthetic: {function: curve, steps: 9}}\n"
                               "algorithm: {type: asha, max_trials: 6}\nparameters:\n"
                               "  x1: {type: float, min: 0, max: 1}\n");
  std::string printed;
  ASSERT_EQ(RunSweep({"validate", "--print", yaml}, &printed), 0) << printed;
  // Every default, written out.
  for (const char* field : {"max_retries: 2", "stall_timeout_s: 1800", "min_resource: 1",
                            "max_resource: 9", "reduction_factor: 3", "grace_period: 1"}) {
    EXPECT_NE(printed.find(field), std::string::npos) << field << " in\n" << printed;
  }
  std::string text = dir.Write("s.textproto", printed);
  std::string again;
  ASSERT_EQ(RunSweep({"validate", "--print", text}, &again), 0) << again;
  EXPECT_EQ(again, printed);
  // The YAML file and its printed form are one study: a database made by one
  // is resumed by the other.
  std::string db = dir.File("p.db"), out;
  ASSERT_EQ(RunSweep({"run", yaml, "--db", db, "--local-runners", "1"}, &out), 0) << out;
  ASSERT_EQ(RunSweep({"run", text, "--db", db, "--local-runners", "1"}, &out), 0) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM studies"), 1);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials"), 6);
}

}  // namespace
}  // namespace sweep::e2e
