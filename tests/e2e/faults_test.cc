// End to end under faults: runners killed or frozen mid-trial, injected task
// failures, NaN results, crashes and hangs, and hostile messages.
#include <gtest/gtest.h>
#include <signal.h>
#include <zmq.h>

#include <chrono>
#include <memory>
#include <thread>

#include "common/curve_keys.h"
#include "common/wire.h"
#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

// A study where each trial takes about steps * step_ms.
std::string LongStudy(const TempDir& dir, int trials, int steps, int step_ms) {
  return dir.Write("s.yaml",
                   "name: faults\nobjective: {metric: value, goal: minimize}\n"
                   "task: {synthetic: {function: curve, steps: " +
                       std::to_string(steps) + ", step_ms: " + std::to_string(step_ms) +
                       "}}\n"
                       "algorithm: {type: random, max_trials: " +
                       std::to_string(trials) +
                       "}\nseed: 3\nparameters:\n  x1: {type: float, min: 0, max: 1}\n");
}

struct Cluster {
  TempDir dir;
  std::string endpoint = "ipc://" + dir.File("tuner.sock");
  std::string db = dir.File("f.db");
  Keys keys{dir, {"r0", "r1", "r2", "r3", "honest", "hostile"}};
  std::unique_ptr<Process> tuner;
  std::vector<std::unique_ptr<Process>> runners;

  void Start(const std::string& study, int runner_count) {
    tuner = std::make_unique<Process>(
        Concat({"run", study, "--db", db, "--bind", endpoint, "--local-runners", "0",
                "--heartbeat-ms", "200", "--progress", "plain"},
               keys.TunerArgs()),
        dir.File("tuner.log"));
    for (int i = 0; i < runner_count; ++i) AddRunner("r" + std::to_string(i));
  }
  Process* AddRunner(const std::string& name) {
    runners.push_back(std::make_unique<Process>(
        Concat({"runner", "--connect", endpoint, "--name", name, "--heartbeat-ms", "200"},
               keys.RunnerArgs(name)),
        dir.File(name + ".log")));
    return runners.back().get();
  }
  // Id of a trial running on `runner` past `step`, or -1.
  int64_t RunningTrialOn(const std::string& runner, int step) {
    return QueryInt(db, "SELECT id FROM trials WHERE status='running' AND runner='" + runner +
                            "' AND step >= " + std::to_string(step) + " LIMIT 1");
  }
};

TEST(E2eFaultsTest, RunnerKilledMidTrialLosesNothing) {
  Cluster c;
  c.Start(LongStudy(c.dir, 6, 20, 50), 2);
  int64_t victim = -1;
  ASSERT_TRUE(WaitFor([&] { return (victim = c.RunningTrialOn("r0", 3)) > 0; }, 30000))
      << c.tuner->Log();
  c.runners[0]->Signal(SIGKILL);
  ASSERT_EQ(c.tuner->Wait(120000), 0) << c.tuner->Log();
  std::string id = std::to_string(victim);
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM trials WHERE status='completed'"), 6);
  EXPECT_EQ(QueryInt(c.db, "SELECT attempts FROM trials WHERE id=" + id), 2);
  EXPECT_EQ(QueryInt(c.db, "SELECT step FROM trials WHERE id=" + id), 20);
  EXPECT_EQ(
      QueryInt(c.db, "SELECT count(*) FROM events WHERE kind='attempt_lost' AND trial_id=" + id),
      1);
  // Reports of both attempts are kept; the final attempt reported every step.
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM reports WHERE attempt=2 AND trial_id=" + id), 20);
  EXPECT_GE(QueryInt(c.db, "SELECT count(*) FROM reports WHERE attempt=1 AND trial_id=" + id), 3);
}

// A trial that kills its runner before its first report (a model that runs
// out of memory while it is built, a program that crashes at start) costs an
// attempt each time, and fails after max_retries re-runs instead of taking
// down runner after runner forever.
TEST(E2eFaultsTest, TrialThatKillsItsRunnerAtStartFailsAfterItsRetries) {
  TempDir dir;
  std::string study =
      dir.Write("s.yaml",
                "name: crash-at-start\nobjective: {metric: value, goal: minimize}\n"
                "task: {synthetic: {function: branin, steps: 1, crash_prob: 1}}\n"
                "algorithm: {type: random, max_trials: 2, max_retries: 1}\nseed: 3\nparameters:\n"
                "  x1: {type: float, min: -5, max: 10}\n  x2: {type: float, min: 0, max: 15}\n");
  std::string db = dir.File("c.db"), out;
  int rc = RunSweep({"run", study, "--db", db, "--local-runners", "2", "--heartbeat-ms", "200",
                     "--progress", "plain"},
                    &out, 120000);
  ASSERT_EQ(rc, 1) << out;  // ended, with no trial completed
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE status='failed' AND attempts=2 AND "
                     "failure='its runner died 2 times while running it (last: killed by "
                     "signal 9)'"),
            2)
      << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind='attempt_lost'"), 4);
}

TEST(E2eFaultsTest, FrozenRunnerIsRequeuedAndItsLateReportsRejected) {
  Cluster c;
  c.Start(LongStudy(c.dir, 6, 40, 50), 2);
  int64_t victim = -1;
  ASSERT_TRUE(WaitFor([&] { return (victim = c.RunningTrialOn("r0", 3)) > 0; }, 30000))
      << c.tuner->Log();
  std::string id = std::to_string(victim);
  c.runners[0]->Signal(SIGSTOP);
  // Presumed dead after 5 missed 200 ms beats; allow generous slack for a loaded machine.
  EXPECT_TRUE(WaitFor(
      [&] {
        return QueryInt(
                   c.db,
                   "SELECT count(*) FROM events WHERE kind='attempt_lost' AND trial_id=" + id) == 1;
      },
      4000))
      << c.tuner->Log();
  c.runners[0]->Signal(SIGCONT);
  EXPECT_TRUE(WaitFor(
      [&] {
        return QueryInt(c.db,
                        "SELECT count(*) FROM events WHERE kind LIKE '%_rejected' AND trial_id=" +
                            id) >= 1;
      },
      10000))
      << c.tuner->Log();
  ASSERT_EQ(c.tuner->Wait(120000), 0) << c.tuner->Log();
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM trials WHERE status='completed'"), 6);
  EXPECT_EQ(QueryInt(c.db, "SELECT attempts FROM trials WHERE id=" + id), 2);
  // Nothing the frozen runner sent after its lease expired was stored.
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM reports WHERE attempt=2 AND trial_id=" + id), 40);
  EXPECT_EQ(QueryInt(c.db,
                     "SELECT count(*) FROM reports r JOIN events e ON e.trial_id = r.trial_id "
                     "WHERE e.kind='attempt_lost' AND r.attempt=1 AND r.at > e.at AND r.trial_id=" +
                         id),
            0);
}

// A tuner frozen for 8 s (SIGSTOP) costs nothing: its runners give up on it
// after 1 s (5 missed 200 ms beats), but their trials go on running, and
// when the tuner runs again they re-attach them with their leases and send
// again what the old connections may have lost. Every trial completes in its
// first attempt with every step stored once.
TEST(E2eFaultsTest, FrozenTunerLosesNoAttempt) {
  Cluster c;
  c.Start(LongStudy(c.dir, 3, 40, 250), 2);
  ASSERT_TRUE(WaitFor(
      [&] { return c.RunningTrialOn("r0", 3) > 0 && c.RunningTrialOn("r1", 3) > 0; }, 60000))
      << c.tuner->Log();
  c.tuner->Signal(SIGSTOP);
  std::this_thread::sleep_for(std::chrono::seconds(8));
  c.tuner->Signal(SIGCONT);
  ASSERT_EQ(c.tuner->Wait(120000), 0) << c.tuner->Log();
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM trials WHERE status='completed' AND attempts=1"),
            3)
      << c.tuner->Log();
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM events WHERE kind='attempt_lost'"), 0)
      << c.tuner->Log();
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM events WHERE kind LIKE '%_rejected'"), 0)
      << c.tuner->Log();
  // Both runners lost the tuner and took their trials along.
  EXPECT_GE(QueryInt(c.db, "SELECT count(DISTINCT trial_id) FROM events WHERE kind='reattached'"),
            2)
      << c.tuner->Log();
  // Every step of every trial once: those run while the tuner was frozen
  // came in after it woke.
  EXPECT_EQ(QueryInt(c.db,
                     "SELECT count(*) FROM (SELECT DISTINCT trial_id, step FROM reports WHERE "
                     "metric='value')"),
            3 * 40);
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM reports WHERE metric='value'"), 3 * 40)
      << c.tuner->Log();
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM trials WHERE step=40"), 3);
  // The runners said what happened.
  EXPECT_NE(c.runners[0]->Log().find("re-attached at step"), std::string::npos)
      << c.runners[0]->Log();
}

// The same for a program's trial, with what a re-attach must not double: its
// log lines (sent in batches by time) and its checkpoints. Each log line and
// each step is stored once, and the last checkpoint is committed.
TEST(E2eFaultsTest, FrozenTunerLosesNothingOfACommandTrial) {
  Cluster c;
  std::string script =
      "s=1; while [ $s -le $SWEEP_STEPS ]; do echo \"log line of step $s\"; sleep 0.2; mkdir "
      "$SWEEP_CHECKPOINT_DIR/$s; echo $s > $SWEEP_CHECKPOINT_DIR/$s/state; echo \"SWEEP_REPORT "
      "{{\\\"step\\\": $s, \\\"loss\\\": $1, \\\"checkpoint\\\": true}}\"; s=$((s+1)); done";
  std::string study =
      c.dir.Write("cmd.yaml",
                  "name: frozen-cmd\nobjective: {metric: loss, goal: minimize}\n"
                  "task:\n  command:\n    argv: [sh, -c, '" +
                      script +
                      "', sh, \"{x}\"]\n    steps: 30\n    checkpoints: true\n"
                      "algorithm: {type: random, max_trials: 1}\nseed: 3\nparameters:\n"
                      "  x: {type: float, min: 0, max: 1}\n");
  c.tuner = std::make_unique<Process>(
      Concat({"run", study, "--db", c.db, "--bind", c.endpoint, "--local-runners", "0",
              "--heartbeat-ms", "200", "--progress", "plain"},
             c.keys.TunerArgs()),
      c.dir.File("tuner.log"));
  c.runners.push_back(
      std::make_unique<Process>(Concat({"runner", "--connect", c.endpoint, "--name", "r0",
                                        "--heartbeat-ms", "200", "--allow-commands"},
                                       c.keys.RunnerArgs("r0")),
                                c.dir.File("r0.log")));
  ASSERT_TRUE(WaitFor([&] { return c.RunningTrialOn("r0", 3) > 0; }, 60000)) << c.tuner->Log();
  c.tuner->Signal(SIGSTOP);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  c.tuner->Signal(SIGCONT);
  ASSERT_EQ(c.tuner->Wait(120000), 0) << c.tuner->Log();
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM trials WHERE status='completed' AND attempts=1"),
            1)
      << c.tuner->Log();
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM events WHERE kind='attempt_lost'"), 0);
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM events WHERE kind='reattached'"), 1)
      << c.tuner->Log();
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM reports WHERE metric='loss'"), 30);
  EXPECT_EQ(QueryInt(c.db, "SELECT count(DISTINCT step) FROM reports WHERE metric='loss'"), 30);
  EXPECT_EQ(QueryInt(c.db, "SELECT step FROM checkpoints"), 30);
  // Named by the trial's number, in its study's folder.
  std::string log =
      FileBytes(StudyFolder(c.db, QueryInt(c.db, "SELECT id FROM studies")) + "/trial-" +
                std::to_string(QueryInt(c.db, "SELECT number FROM trials")) + ".attempt-1.log");
  for (int step = 1; step <= 30; ++step) {
    std::string line = "log line of step " + std::to_string(step) + "\n";
    size_t first = log.find(line);
    EXPECT_NE(first, std::string::npos) << "step " << step << " missing:\n" << log;
    if (first != std::string::npos)
      EXPECT_EQ(log.find(line, first + 1), std::string::npos) << "step " << step << " twice";
  }
}

TEST(E2eFaultsTest, InjectedFailuresNanCrashesAndHangsAreRecordedAndTheSweepCompletes) {
  TempDir dir;
  std::string study =
      dir.Write("s.yaml",
                "name: chaos\nobjective: {metric: value, goal: minimize}\n"
                "task:\n  synthetic: {function: curve, steps: 3, step_ms: 5, fail_prob: 0.1, "
                "nan_prob: 0.1, crash_prob: 0.05, "
                "hang_prob: 0.04}\n  stall_timeout_s: 1\n"
                "algorithm: {type: random, max_trials: 60, max_retries: 3}\nseed: 5\nparameters:\n"
                "  x1: {type: float, min: 0, max: 1}\n  x2: {type: float, min: 0, max: 1}\n");
  std::string db = dir.File("c.db"), out;
  int rc = RunSweep({"run", study, "--db", db, "--local-runners", "2", "--heartbeat-ms", "200",
                     "--progress", "plain"},
                    &out, 300000);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status IN ('completed', 'failed')"),
            60);
  EXPECT_GE(
      QueryInt(
          db,
          "SELECT count(*) FROM trials WHERE status='failed' AND failure LIKE 'injected failure%'"),
      1);
  EXPECT_GE(
      QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed' AND failure LIKE '%is nan'"),
      1);
  EXPECT_GE(
      QueryInt(
          db,
          "SELECT count(*) FROM events WHERE kind='attempt_lost' AND detail LIKE '%runner lost%'"),
      1);
  EXPECT_GE(QueryInt(db,
                     "SELECT count(*) FROM events WHERE kind='attempt_lost' AND detail LIKE '%no "
                     "report for%'"),
            1);
  EXPECT_GE(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed' AND attempts > 1"),
            1);
  // Failed trials hold no value; completed ones hold finite values.
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='failed' AND value IS NOT NULL"),
            0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed' AND value IS NULL"),
            0);
}

TEST(E2eFaultsTest, HostileMessagesAreDroppedAndTheSweepGoesOn) {
  Cluster c;
  c.Start(LongStudy(c.dir, 4, 2, 1), 0);
  void* ctx = zmq_ctx_new();
  void* s = zmq_socket(ctx, ZMQ_DEALER);
  int linger = 0;
  zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
  // An insider: a peer holding an admitted key that sends garbage.
  auto hostile = ReadCurveSecretFile(c.keys.dir() + "/hostile.key");
  auto server = ReadCurvePublicFile(c.keys.dir() + "/tuner.pub");
  ASSERT_TRUE(hostile.ok() && server.ok());
  zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, server->data(), server->size());
  zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, hostile->public_key.data(), hostile->public_key.size());
  zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, hostile->secret_key.data(), hostile->secret_key.size());
  ASSERT_EQ(zmq_connect(s, c.endpoint.c_str()), 0);
  auto send = [&](const std::string& bytes) { zmq_send(s, bytes.data(), bytes.size(), 0); };
  send("garbage that is not a protobuf \xff\xff\xff");
  pb::Envelope wrong;
  wrong.mutable_hello()->set_runner("old");
  std::string bytes = EncodeEnvelope(&wrong);
  wrong.set_version(99);
  send(wrong.SerializeAsString());
  pb::Envelope forged;
  forged.mutable_report()->set_trial_id(1);
  forged.mutable_report()->set_lease(12345);
  forged.mutable_report()->set_step(1);
  send(EncodeEnvelope(&forged));
  ASSERT_TRUE(WaitFor(
      [&] {
        return QueryInt(c.db, "SELECT count(*) FROM events WHERE kind='report_rejected'") == 1;
      },
      10000))
      << c.tuner->Log();
  send(std::string(kMaxMessageBytes + 1024, 'x'));  // over the cap: ZeroMQ drops the peer
  c.AddRunner("honest");
  ASSERT_EQ(c.tuner->Wait(60000), 0) << c.tuner->Log();
  zmq_close(s);
  zmq_ctx_term(ctx);
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM trials WHERE status='completed'"), 4);
  EXPECT_EQ(QueryInt(c.db, "SELECT count(*) FROM reports WHERE value IS NULL"), 0);
  std::string log = c.tuner->Log();
  EXPECT_NE(log.find("not a sweep Envelope"), std::string::npos) << log;
  EXPECT_NE(log.find("protocol version 99 is not supported"), std::string::npos) << log;
}

}  // namespace
}  // namespace sweep::e2e
