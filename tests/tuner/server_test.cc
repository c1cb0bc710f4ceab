// The server admits a study while another runs, and removes one while its
// trials are in flight: no message is lost or misrouted. Real local runner
// processes over a real socket, a real SQLite file; each study then compares
// equal to a run of its own.
#include "tuner/server.h"

#include <gtest/gtest.h>

#include <map>

#include "common/clock.h"
#include "e2e/harness.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"

namespace sweep {
namespace {

using e2e::QueryInt;
using e2e::TempDir;

// Trials of a second each (10 steps of 100 ms): in flight when removed.
const char* kSlow =
    "name: slow-curve\nobjective: {metric: value, goal: minimize}\n"
    "task: {synthetic: {function: curve, steps: 10, step_ms: 100}}\n"
    "algorithm: {type: random, max_trials: 4}\nseed: 3\nparameters:\n"
    "  x1: {type: float, min: 0, max: 1}\n  x2: {type: float, min: 0, max: 1}\n";

const char* kFast =
    "name: fast-branin\nobjective: {metric: value, goal: minimize}\n"
    "task: {synthetic: {function: branin, steps: 3}}\n"
    "algorithm: {type: random, max_trials: 30}\nseed: 11\nparameters:\n"
    "  x1: {type: float, min: -5, max: 10}\n  x2: {type: float, min: 0, max: 15}\n";

pb::Study Load(const TempDir& dir, const std::string& name, const char* yaml) {
  auto parsed = LoadStudyFile(dir.Write(name, yaml));
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(ValidateStudy(&*parsed).ok());
  return parsed->study;
}

// One study's trials by number (status, attempts, value, step, parameters)
// and every report of every attempt: what must not depend on which other
// studies shared the runners, or on a removal and a resume.
std::map<int64_t, std::string> Outcome(const std::string& db, const std::string& study) {
  std::map<int64_t, std::string> out;
  const std::string of = "JOIN studies s ON s.id=t.study_id WHERE s.name='" + study + "'";
  for (const auto& r :
       e2e::Query(db,
                  "SELECT t.number, t.status, t.attempts, t.value, t.step, t.params FROM "
                  "trials t " +
                      of)) {
    std::string& line = out[std::get<int64_t>(r[0])];
    for (size_t i = 1; i < r.size(); ++i) line += e2e::CellText(r[i]) + " ";
  }
  for (const auto& r :
       e2e::Query(db,
                  "SELECT t.number, r.attempt, r.step, r.metric, r.value FROM reports r JOIN "
                  "trials t ON t.id=r.trial_id " +
                      of + " ORDER BY t.number, r.attempt, r.step, r.metric")) {
    std::string& line = out[std::get<int64_t>(r[0])];
    line += "|";
    for (size_t i = 1; i < r.size(); ++i) line += " " + e2e::CellText(r[i]);
  }
  return out;
}

TEST(ServerTest, AdmitsAStudyWhileOneRunsAndRemovesOneWithTrialsInFlight) {
  TempDir dir;
  const std::string db = dir.File("shared.db");
  pb::Study slow = Load(dir, "slow.yaml", kSlow);
  pb::Study fast = Load(dir, "fast.yaml", kFast);
  int64_t slow_id = 0, fast_id = 0;
  {
    ServerOptions o;
    o.db_path = db;
    o.bind = "ipc://" + dir.File("t.sock");
    o.heartbeat_ms = 200;
    o.local_runners = 2;
    o.exe = SWEEP_BIN;
    auto server = Server::Start(o);
    ASSERT_TRUE(server.ok()) << server.status().message();
    Server& s = **server;
    auto a = s.Add(slow);
    ASSERT_TRUE(a.ok()) << a.status().message();
    slow_id = (*a)->id();
    auto turn_until = [&](const std::function<bool()>& done, int timeout_ms) {
      const int64_t deadline = NowMs() + timeout_ms;
      while (!done() && NowMs() < deadline) {
        Status st = s.Turn(false);
        if (!st.ok()) return st;
      }
      return done() ? Status::Ok() : Status::Unavailable("timed out");
    };
    // Both runners busy with the slow study's trials, each past a report.
    auto in_flight = [&] {
      return QueryInt(db,
                      "SELECT count(DISTINCT r.trial_id) FROM reports r JOIN trials t ON "
                      "t.id=r.trial_id WHERE t.status='running' AND t.study_id=" +
                          std::to_string(slow_id)) == 2;
    };
    // From inside a turn, as a service's requests are handled: once both
    // runners are busy with the first study's trials, the second is
    // admitted and the first removed.
    bool switched = false;
    s.SetTurnHook([&]() -> Status {
      if (switched || !in_flight()) return Status::Ok();
      switched = true;
      auto b = s.Add(fast);
      if (!b.ok()) return b.status();
      fast_id = (*b)->id();
      if (s.Add(fast).ok()) return Status::Internal("a study ran twice");
      s.Remove(slow_id);
      return Status::Ok();
    });
    ASSERT_TRUE(turn_until([&] { return switched && s.study(slow_id) == nullptr; }, 60000).ok());
    // Its trials were in flight: they wait in its queue, attempts open.
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status='running' AND study_id=" +
                               std::to_string(slow_id)),
              0);
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM trials WHERE status='queued' AND "
                       "attempt_open=1 AND study_id=" +
                           std::to_string(slow_id)),
              2);
    ASSERT_TRUE(turn_until([&] { return s.Done(); }, 120000).ok());
    ASSERT_TRUE(s.loop().Flush().ok());
    EXPECT_EQ(s.study(fast_id)->Counts().completed, 30);
    s.Shutdown("done");
  }
  // The late messages of the removed study's trials were recorded in none
  // of the other study's rows, its trials' or its own.
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind LIKE '%rejected' AND study_id=" +
                             std::to_string(fast_id)),
            0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events WHERE kind='removed' AND study_id=" +
                             std::to_string(slow_id)),
            1);
  // The removed study resumes where it was and ends as a run of its own
  // does, every report of every attempt included; so does the other.
  std::string out;
  ASSERT_EQ(e2e::RunSweep({"run", dir.File("slow.yaml"), "--db", db, "--local-runners", "2",
                           "--progress", "plain"},
                          &out),
            0)
      << out;
  for (auto [file, name] :
       {std::pair{"slow.yaml", "slow-curve"}, std::pair{"fast.yaml", "fast-branin"}}) {
    const std::string solo = dir.File(std::string(name) + ".db");
    ASSERT_EQ(e2e::RunSweep({"run", dir.File(file), "--db", solo, "--local-runners", "2",
                             "--progress", "plain"},
                            &out),
              0)
        << out;
    auto shared = Outcome(db, name), alone = Outcome(solo, name);
    EXPECT_FALSE(alone.empty());
    EXPECT_EQ(shared, alone) << name;
  }
}

TEST(ServerTest, AStudyThatFailsToOpenLeavesNothingBehind) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  ServerOptions o;
  o.db_path = db;
  o.bind = "ipc://" + dir.File("t.sock");
  o.local_runners = 0;
  auto server = Server::Start(o);
  ASSERT_TRUE(server.ok()) << server.status().message();
  pb::Study tpe = Load(dir, "tpe.yaml",
                       "name: seeded\nobjective: {metric: value, goal: minimize}\n"
                       "task: {synthetic: {function: branin, steps: 1}}\n"
                       "algorithm: {type: tpe, max_trials: 5}\nparameters:\n"
                       "  x1: {type: float, min: -5, max: 10}\n"
                       "  x2: {type: float, min: 0, max: 15}\n");
  // Its warm start fails after the study's row was written.
  auto added = (*server)->Add(tpe, dir.File("no-such.db"));
  ASSERT_FALSE(added.ok());
  ASSERT_TRUE((*server)->loop().Flush().ok());
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM studies"), 0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM events"), 0);
  // And the server goes on: the same study opens without the seed.
  auto again = (*server)->Add(tpe);
  ASSERT_TRUE(again.ok()) << again.status().message();
  ASSERT_TRUE((*server)->loop().Flush().ok());
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM studies WHERE name='seeded'"), 1);
}

}  // namespace
}  // namespace sweep
