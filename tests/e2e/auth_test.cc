// Nobody joins who was not invited: a default `sweep run` admits only its own
// local runners; with --keys, only runners whose public keys are listed. A
// peer without a key, or with a key not on the list, gets no trial and
// changes nothing, and one that takes a real runner's name does not disturb it.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

std::string SlowStudy(const TempDir& dir, int trials) {
  return dir.Write("s.yaml",
                   "name: auth\nobjective: {metric: value, goal: minimize}\n"
                   "task: {synthetic: {function: curve, steps: 10, step_ms: 30}}\n"
                   "algorithm: {type: random, max_trials: " +
                       std::to_string(trials) +
                       "}\nparameters:\n  x1: {type: float, min: 0, max: 1}\n");
}

TEST(E2eAuthTest, ADefaultTunerAdmitsItsLocalRunnersAndNoOneElse) {
  TempDir dir;
  std::string endpoint = "ipc://" + dir.File("t.sock"), db = dir.File("a.db");
  Process tuner({"run", SlowStudy(dir, 6), "--db", db, "--bind", endpoint, "--local-runners", "1",
                 "--heartbeat-ms", "200", "--progress", "plain"},
                dir.File("tuner.log"));
  // A stranger on the same machine, without keys, even under a local name.
  Process stranger({"runner", "--connect", endpoint, "--name", "local-0", "--heartbeat-ms", "200"},
                   dir.File("stranger.log"));
  ASSERT_EQ(tuner.Wait(60000), 0) << tuner.Log();
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 6);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE attempts != 1"), 0);
  EXPECT_EQ(QueryInt(db, "SELECT count(DISTINCT runner) FROM trials"), 1);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind='attempt_lost'"), 0);
  EXPECT_EQ(tuner.Log().find("runner 'local-0' joined (pid " + std::to_string(stranger.pid())),
            std::string::npos)
      << tuner.Log();
  EXPECT_NE(tuner.Log().find("only its own local runners can join"), std::string::npos);
  stranger.Signal(SIGKILL);
}

TEST(E2eAuthTest, WithKeysOnlyListedRunnersJoinAndAStolenNameChangesNothing) {
  TempDir dir;
  Keys keys(dir, {"r0"});
  // A key pair that exists but is not in the tuner's folder.
  TempDir other;
  Keys outsider(other, {"r0"});
  std::string endpoint = "ipc://" + dir.File("t.sock"), db = dir.File("k.db");
  Process tuner(Concat({"run", SlowStudy(dir, 8), "--db", db, "--bind", endpoint, "--local-runners",
                        "0", "--heartbeat-ms", "200", "--progress", "plain"},
                       keys.TunerArgs()),
                dir.File("tuner.log"));
  Process r0(Concat({"runner", "--connect", endpoint, "--name", "r0", "--heartbeat-ms", "200"},
                    keys.RunnerArgs("r0")),
             dir.File("r0.log"));
  ASSERT_TRUE(WaitFor([&] { return QueryInt(db, "SELECT count(*) FROM trials") >= 1; }, 20000))
      << tuner.Log();
  // The same name with the wrong key, and with no key at all.
  Process wrong(
      Concat({"runner", "--connect", endpoint, "--name", "r0", "--heartbeat-ms", "200"},
             {"--server-key", keys.dir() + "/tuner.pub", "--key", outsider.dir() + "/r0.key"}),
      dir.File("wrong.log"));
  Process keyless({"runner", "--connect", endpoint, "--name", "r0", "--heartbeat-ms", "200"},
                  dir.File("keyless.log"));
  ASSERT_EQ(tuner.Wait(60000), 0) << tuner.Log();
  EXPECT_EQ(r0.Wait(10000), 0) << r0.Log();
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed' AND attempts=1"), 8);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind='attempt_lost'"), 0);
  std::string log = tuner.Log();
  EXPECT_EQ(log.find("runner reconnected"), std::string::npos) << log;
  EXPECT_NE(log.find("refused a runner"), std::string::npos) << log;
  wrong.Signal(SIGKILL);
  keyless.Signal(SIGKILL);
  EXPECT_NE(keyless.Log().find("never answers one without --server-key and --key"),
            std::string::npos)
      << keyless.Log();
}

// A flood of connections gets no further than --max-connections: past the
// cap a runner is refused at its handshake, the runner already in works on,
// and once the flood ends the refused runner joins.
// With CURVE the refusal comes at the handshake (ZAP), without it at Hello.
void CapTest(bool insecure) {
  TempDir dir;
  Keys keys(dir, {"r0", "r1"});
  std::string path = dir.File("t.sock"), endpoint = "ipc://" + path, db = dir.File("c.db");
  std::string study = dir.Write("c.yaml",
                                "name: cap\nobjective: {metric: value, goal: minimize}\n"
                                "task: {synthetic: {function: curve, steps: 10, step_ms: 100}}\n"
                                "algorithm: {type: random, max_trials: 12}\nparameters:\n"
                                "  x1: {type: float, min: 0, max: 1}\n");
  auto none = std::vector<std::string>{};
  Process tuner(Concat({"run", study, "--db", db, "--bind", endpoint, "--local-runners", "0",
                        "--heartbeat-ms", "200", "--progress", "plain", "--max-connections", "4"},
                       insecure ? std::vector<std::string>{"--insecure"} : keys.TunerArgs()),
                dir.File("tuner.log"));
  Process r0(Concat({"runner", "--connect", endpoint, "--name", "r0", "--heartbeat-ms", "200"},
                    insecure ? none : keys.RunnerArgs("r0")),
             dir.File("r0.log"));
  ASSERT_TRUE(WaitFor([&] { return QueryInt(db, "SELECT count(*) FROM trials") >= 1; }, 20000))
      << tuner.Log();
  // Twenty raw connections that never say a word.
  std::vector<int> flood;
  for (int i = 0; i < 20; ++i) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);  // not for the runners
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << strerror(errno);
    flood.push_back(fd);
  }
  Process r1(Concat({"runner", "--connect", endpoint, "--name", "r1", "--heartbeat-ms", "200"},
                    insecure ? none : keys.RunnerArgs("r1")),
             dir.File("r1.log"));
  EXPECT_TRUE(WaitFor(
      [&] {
        return tuner.Log().find("refused a connection: ") != std::string::npos &&
               tuner.Log().find("more than this tuner holds (--max-connections 4") !=
                   std::string::npos;
      },
      10000))
      << tuner.Log();
  EXPECT_EQ(tuner.Log().find("runner 'r1' joined"), std::string::npos) << tuner.Log();
  for (int fd : flood) close(fd);
  EXPECT_TRUE(
      WaitFor([&] { return tuner.Log().find("runner 'r1' joined") != std::string::npos; }, 20000))
      << tuner.Log();
  ASSERT_EQ(tuner.Wait(60000), 0) << tuner.Log();
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed' AND attempts=1"),
            12);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind='attempt_lost'"), 0);
  EXPECT_GE(QueryInt(db, "SELECT count(*) FROM trials WHERE runner='r1'"), 1) << tuner.Log();
}

TEST(E2eAuthTest, ConnectionsPastTheCapAreRefusedAndTheSweepGoesOn) { CapTest(false); }
TEST(E2eAuthTest, WithoutCurveTheCapRefusesAtHello) { CapTest(true); }

TEST(E2eAuthTest, BindingBeyondLoopbackNeedsKeysOrInsecure) {
  TempDir dir;
  std::string out;
  EXPECT_EQ(RunSweep({"run", SlowStudy(dir, 1), "--db", dir.File("x.db"), "--bind",
                      "tcp://0.0.0.0:0", "--local-runners", "0"},
                     &out),
            1);
  EXPECT_NE(out.find("listens beyond this machine, so runners must authenticate"),
            std::string::npos)
      << out;
  EXPECT_FALSE(std::filesystem::exists(dir.File("x.db")));
  // A key file others can read is refused, naming the fix.
  Keys keys(dir, {"r0"});
  std::filesystem::permissions(keys.dir() + "/r0.key", std::filesystem::perms::group_read,
                               std::filesystem::perm_options::add);
  EXPECT_EQ(
      RunSweep(Concat({"runner", "--connect", "ipc://" + dir.File("none")}, keys.RunnerArgs("r0")),
               &out),
      1);
  EXPECT_NE(out.find("chmod 600"), std::string::npos) << out;
  // A key folder others may write to could admit anyone: refused.
  std::filesystem::permissions(keys.dir(), std::filesystem::perms::group_write,
                               std::filesystem::perm_options::add);
  EXPECT_EQ(RunSweep(Concat({"run", SlowStudy(dir, 1), "--db", dir.File("y.db"), "--bind",
                             "ipc://" + dir.File("y.sock"), "--local-runners", "0"},
                            keys.TunerArgs()),
                     &out),
            1);
  EXPECT_NE(out.find("a key folder must be yours and writable by you alone"), std::string::npos)
      << out;
  // `sweep keys new` never overwrites a key.
  EXPECT_EQ(RunSweep({"keys", "new", "r0", "--dir", keys.dir()}, &out), 1);
  EXPECT_NE(out.find("exists"), std::string::npos) << out;
}

}  // namespace
}  // namespace sweep::e2e
