// Users of `sweep serve` with keys (issue 41): clients on its TCP control
// endpoint authenticate with CURVE and are named by their key files; a
// client acts on its own studies only, an admin on any; a runner key cannot
// submit, a client key cannot run trials, an unknown key is refused at the
// handshake; each refusal changes nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

const char* kStudy =
    "name: mine\nobjective: {metric: value, goal: minimize}\n"
    "task: {synthetic: {function: curve, steps: 5, step_ms: 100}}\n"
    "algorithm: {type: random, max_trials: 400}\nseed: 1\nparameters:\n"
    "  x1: {type: float, min: 0, max: 1}\n";

std::string Status(const std::string& db) {
  auto rows = Query(db, "SELECT status FROM studies WHERE name='mine'");
  return rows.empty() ? "" : CellText(rows[0][0]);
}

TEST(E2eServiceAuthTest, ClientsActOnTheirOwnStudiesAdminsOnAnyAndOtherKeysAreRefused) {
  TempDir dir;
  const std::string keys = dir.File("keys");
  std::string out;
  ASSERT_EQ(RunSweep({"keys", "new", "tuner", "--dir", keys}, &out), 0) << out;
  for (const auto& [name, role] : std::vector<std::pair<std::string, std::string>>{
           {"alice", "client"}, {"bob", "client"}, {"carol", "admin"}, {"r1", "runner"}}) {
    ASSERT_EQ(RunSweep({"keys", "new", name, "--role", role, "--dir", keys}, &out), 0) << out;
  }
  ASSERT_EQ(RunSweep({"keys", "new", "mallory", "--dir", dir.File("elsewhere")}, &out), 0) << out;
  const std::string db = dir.File("s.db");
  Process service({"serve", "--db", db, "--local-runners", "1", "--keys", keys, "--control",
                   "tcp://127.0.0.1:*", "--heartbeat-ms", "200"},
                  dir.File("serve.log"));
  std::string endpoint;
  ASSERT_TRUE(WaitFor(
      [&] {
        const std::string log = service.Log();
        size_t at = log.find("--server tcp://127.0.0.1:");
        if (at == std::string::npos) return false;
        at += 9;
        endpoint = log.substr(at, log.find(' ', at) - at);
        return true;
      },
      30000))
      << service.Log();
  auto as = [&](const std::string& key) {
    return std::vector<std::string>{"--server",          endpoint, "--server-key",
                                    keys + "/tuner.pub", "--key",  key};
  };
  const std::string alice = keys + "/clients/alice.key", bob = keys + "/clients/bob.key",
                    carol = keys + "/admins/carol.key", r1 = keys + "/runners/r1.key",
                    mallory = dir.File("elsewhere") + "/mallory.key";
  const std::string study = dir.Write("s.yaml", kStudy);
  // A runner's key and an unknown key cannot submit.
  for (const std::string& key : {r1, mallory}) {
    EXPECT_NE(RunSweep(Concat({"submit", study}, as(key)), &out, 30000), 0);
    EXPECT_NE(out.find("refused this client's key"), std::string::npos) << out;
  }
  EXPECT_NE(service.Log().find("refused a client from"), std::string::npos) << service.Log();
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM studies"), 0);
  // Alice submits: the study is hers.
  ASSERT_EQ(RunSweep(Concat({"submit", study}, as(alice)), &out), 0) << out;
  EXPECT_EQ(CellText(Query(db, "SELECT owner FROM studies WHERE name='mine'")[0][0]), "alice");
  // Bob may not touch it, whatever he asks.
  for (const std::vector<std::string>& ask : {std::vector<std::string>{"cancel", "mine"},
                                              {"pause", "mine"},
                                              {"set", "mine", "--priority", "5"}}) {
    EXPECT_NE(RunSweep(Concat(ask, as(bob)), &out), 0) << ask[0];
    EXPECT_NE(out.find("study 'mine' belongs to 'alice'"), std::string::npos) << out;
  }
  EXPECT_EQ(Status(db), "running");
  EXPECT_EQ(QueryInt(db, "SELECT CAST(priority AS INTEGER) FROM studies"), 1);
  // Nor resume it by submitting it as his.
  EXPECT_NE(RunSweep(Concat({"submit", study}, as(bob)), &out), 0);
  EXPECT_NE(out.find("belongs to 'alice'"), std::string::npos) << out;
  // Carol, an admin, may.
  ASSERT_EQ(RunSweep(Concat({"pause", "mine"}, as(carol)), &out), 0) << out;
  EXPECT_EQ(Status(db), "paused");
  ASSERT_EQ(RunSweep(Concat({"why", "--study", "mine", "--db", db}, {}), &out), 0) << out;
  EXPECT_NE(out.find("paused by carol"), std::string::npos) << out;
  ASSERT_EQ(RunSweep(Concat({"resume", "mine"}, as(alice)), &out), 0) << out;
  EXPECT_EQ(Status(db), "running");
  ASSERT_EQ(RunSweep(Concat({"studies", "--format", "csv"}, as(bob)), &out), 0) << out;
  EXPECT_NE(out.find("mine,running,alice"), std::string::npos) << out;
  // A client's key cannot run trials: as a runner it is refused at the
  // handshake and never joins.
  const std::string runners_at = RunnersJoinAt(service);
  Process thief(Concat({"runner", "--connect", runners_at, "--name", "thief", "--heartbeat-ms",
                        "200", "--give-up-after", "3"},
                       {"--server-key", keys + "/tuner.pub", "--key", alice}),
                dir.File("thief.log"));
  EXPECT_TRUE(WaitFor(
      [&] { return service.Log().find("refused a runner from") != std::string::npos; }, 10000))
      << service.Log();
  ASSERT_EQ(RunSweep({"runners", "--db", db}, &out), 0) << out;
  EXPECT_EQ(out.find("thief"), std::string::npos) << out;
  thief.Signal(SIGTERM);
  thief.Wait(10000);

  // Keys are read again as clients connect: a user added while the
  // service runs may act (on her own studies), and once her key is
  // deleted she is refused again.
  ASSERT_EQ(RunSweep({"keys", "new", "dave", "--role", "client", "--dir", keys}, &out), 0) << out;
  const std::string dave = keys + "/clients/dave.key";
  sleep(1);  // keys are read at most once a second
  ASSERT_EQ(RunSweep(Concat({"studies", "--format", "csv"}, as(dave)), &out, 30000), 0) << out;
  EXPECT_NE(RunSweep(Concat({"pause", "mine"}, as(dave)), &out, 30000), 0);
  EXPECT_NE(out.find("study 'mine' belongs to 'alice'"), std::string::npos) << out;
  ASSERT_EQ(unlink((keys + "/clients/dave.pub").c_str()), 0);
  sleep(1);
  EXPECT_NE(RunSweep(Concat({"studies"}, as(dave)), &out, 30000), 0);
  EXPECT_NE(out.find("refused this client's key"), std::string::npos) << out;
  service.Signal(SIGTERM);
  EXPECT_EQ(service.Wait(20000), 0) << service.Log();
}

}  // namespace
}  // namespace sweep::e2e
