// Two studies through one dispatcher: each keeps its own trials, algorithm
// and decisions, exactly as if it had run alone (the shape the multi-study
// service builds on). Real runner processes over a real ipc:// socket and a
// real SQLite file.
#include "tuner/event_loop.h"

#include <gtest/gtest.h>

#include <map>

#include "common/clock.h"
#include "e2e/harness.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"

namespace sweep {
namespace {

using e2e::Process;
using e2e::QueryInt;
using e2e::TempDir;

const char* kRandom =
    "name: random-branin\nobjective: {metric: value, goal: minimize}\n"
    "task: {synthetic: {function: branin, steps: 3}}\n"
    "algorithm: {type: random, max_trials: 40}\nseed: 11\nparameters:\n"
    "  x1: {type: float, min: -5, max: 10}\n  x2: {type: float, min: 0, max: 15}\n";

const char* kHyperband =
    "name: hb-curve\nobjective: {metric: value, goal: minimize}\n"
    "task: {synthetic: {function: curve, steps: 9, step_ms: 2}}\n"
    "algorithm: {type: hyperband, hyperband: {reduction_factor: 3}}\n"
    "seed: 5\nparameters:\n  x1: {type: float, min: 0, max: 1}\n"
    "  x2: {type: float, min: 0, max: 1}\n";

pb::Study Load(const TempDir& dir, const std::string& name, const char* yaml) {
  auto parsed = LoadStudyFile(dir.Write(name, yaml));
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(ValidateStudy(&*parsed).ok());
  return parsed->study;
}

// Per trial number: status, value, parameters and every decision with its
// reason, as text (pauses excepted: who waited at a rung depends on who
// arrived first).
std::map<int64_t, std::string> Outcomes(const std::string& db, const std::string& study) {
  std::map<int64_t, std::string> out;
  auto S = [](const Cell& c) {
    if (std::holds_alternative<std::string>(c)) return std::get<std::string>(c);
    if (std::holds_alternative<double>(c)) return std::to_string(std::get<double>(c));
    if (std::holds_alternative<int64_t>(c)) return std::to_string(std::get<int64_t>(c));
    return std::string("null");
  };
  for (const auto& r :
       e2e::Query(db,
                  "SELECT t.number, t.status, t.value, t.step, t.params FROM trials t "
                  "JOIN studies s ON s.id=t.study_id WHERE s.name='" +
                      study + "'")) {
    out[std::get<int64_t>(r[0])] = S(r[1]) + " " + S(r[2]) + " @" + S(r[3]) + " " + S(r[4]);
  }
  for (const auto& r : e2e::Query(
           db,
           "SELECT t.number, d.step, d.decision, d.reason FROM decisions d JOIN trials t "
           "ON t.id=d.trial_id JOIN studies s ON s.id=t.study_id WHERE s.name='" +
               study + "' AND d.decision != 'pause' ORDER BY t.number, d.step, d.decision")) {
    out[std::get<int64_t>(r[0])] += " | " + S(r[1]) + " " + S(r[2]) + ": " + S(r[3]);
  }
  return out;
}

TEST(EventLoopTest, TwoStudiesShareOneDispatcherAndDecideAsIfAlone) {
  TempDir dir;
  std::string db = dir.File("shared.db");
  pb::Study random = Load(dir, "random.yaml", kRandom);
  pb::Study hb = Load(dir, "hb.yaml", kHyperband);
  {
    auto store = Store::Open(db);
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto a = StudyRun::Open(store->get(), random, db + ".sweep");
    ASSERT_TRUE(a.ok()) << a.status().message();
    auto b = StudyRun::Open(store->get(), hb, db + ".sweep");
    ASSERT_TRUE(b.ok()) << b.status().message();
    ASSERT_TRUE((*store)->Commit().ok());
    DispatcherOptions o;
    o.bind = "ipc://" + dir.File("t.sock");
    o.heartbeat_ms = 200;
    auto d = Dispatcher::Listen(o);
    ASSERT_TRUE(d.ok()) << d.status().message();
    EventLoop loop(store->get(), d->get(), o.heartbeat_ms);
    loop.Add(a->get());
    loop.Add(b->get());
    std::vector<std::unique_ptr<Process>> runners;
    for (int i = 0; i < 2; ++i) {
      runners.push_back(std::make_unique<Process>(
          std::vector<std::string>{"runner", "--connect", o.bind, "--name", "r" + std::to_string(i),
                                   "--heartbeat-ms", "200"},
          dir.File("r" + std::to_string(i) + ".log")));
    }
    int64_t deadline = NowMs() + 120000;
    while (!loop.Done() && NowMs() < deadline) ASSERT_TRUE(loop.Turn(false).ok());
    ASSERT_TRUE(loop.Done()) << runners[0]->Log();
    ASSERT_TRUE(loop.Flush().ok());
    (*d)->Shutdown("done");
    for (auto& r : runners) EXPECT_EQ(r->Wait(10000), 0);
    // Both studies used the runners, and both finished all they planned.
    EXPECT_EQ((*a)->Counts().completed, 40);
    EXPECT_GT((*b)->Counts().stopped, 0);
    EXPECT_EQ((*b)->Counts().paused, 0);
  }
  // Each study decided exactly as it does alone, in a database of its own.
  for (auto [name, yaml] :
       {std::pair{"random-branin", kRandom}, std::pair{"hb-curve", kHyperband}}) {
    std::string solo = dir.File(std::string(name) + ".db"), out;
    ASSERT_EQ(e2e::RunSweep({"run", dir.Write(std::string(name) + ".yaml", yaml), "--db", solo,
                             "--local-runners", "2", "--progress", "plain"},
                            &out),
              0)
        << out;
    auto shared = Outcomes(db, name), alone = Outcomes(solo, name);
    EXPECT_FALSE(alone.empty());
    EXPECT_EQ(shared, alone) << name;
  }
  // Trials of the two studies never share an id, and none was left running.
  EXPECT_EQ(QueryInt(db, "SELECT count(DISTINCT study_id) FROM trials"), 2);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE status IN ('running','queued')"), 0);
}

}  // namespace
}  // namespace sweep
