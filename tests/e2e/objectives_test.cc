// Several objectives and constraints end to end: a real tuner and runners,
// a real database. A two-objective study with outcome and parameter
// constraints runs, resumes after SIGKILL to the same trials and values as
// an uninterrupted run, and `sweep best` names exactly the front that the
// trials `sweep trials` lists make (computed here by the definition).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

std::string Study(const std::string& constraint, int trials) {
  return "name: zdt\n"
         "objectives:\n  - {metric: f1, goal: minimize}\n  - {metric: f2, goal: minimize}\n"
         "constraints:\n  - " +
         constraint +
         "\n"
         "parameter_constraints: [\"x2 + x3 <= 1\"]\n"
         "task: {synthetic: {function: zdt1, steps: 3, step_ms: 5}}\n"
         "algorithm: {type: random, max_trials: " +
         std::to_string(trials) +
         "}\nseed: 3\nparameters:\n"
         "  x1: {type: float, min: 0, max: 1}\n  x2: {type: float, min: 0, max: 1}\n"
         "  x3: {type: float, min: 0, max: 1}\n";
}

struct Row {
  int64_t trial;
  std::string status;
  double f1, f2;
};

// `sweep trials --format csv` with the columns the front needs.
std::vector<Row> Trials(const std::string& db) {
  std::string out;
  EXPECT_EQ(
      RunSweep({"trials", "--db", db, "--format", "csv", "--columns", "trial,status,value,f2"},
               &out),
      0)
      << out;
  std::vector<Row> rows;
  std::istringstream in(out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "trial,status,value,f2");  // CSV names the first objective `value`
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    cells.resize(4);
    rows.push_back({std::stoll(cells[0]), cells[1], cells[2].empty() ? NAN : std::stod(cells[2]),
                    cells[3].empty() ? NAN : std::stod(cells[3])});
  }
  return rows;
}

// The trial numbers `"trial": N` of a `sweep best --format json` list.
std::set<int64_t> Numbers(const std::string& json) {
  std::set<int64_t> out;
  std::regex re("\"trial\": ([0-9]+)");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), re); it != std::sregex_iterator();
       ++it)
    out.insert(std::stoll((*it)[1]));
  return out;
}

TEST(E2eObjectivesTest, TwoObjectivesWithConstraintsResumeAndBestIsTheFront) {
  TempDir dir;
  std::string study = dir.Write("s.yaml", Study("{metric: f1, max: 0.8}", 40));
  std::string db = dir.File("k.db"), ref = dir.File("ref.db"), out;
  ASSERT_EQ(RunSweep({"validate", study}, &out), 0) << out;
  EXPECT_NE(out.find("objectives: minimize f1, minimize f2\nconstraint: f1 <= 0.8\n"
                     "parameter constraint: x2 + x3 <= 1\n"),
            std::string::npos)
      << out;
  std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                   "2",   "--progress", "plain"};
  ASSERT_TRUE(KillTunerWhen(args, dir.File("t.log"), [&] {
    return QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'") >= 12;
  }));
  EXPECT_LT(QueryInt(db, "SELECT count(*) FROM trials WHERE status = 'completed'"), 40);
  ASSERT_NO_FATAL_FAILURE(ResumeThenRunUninterrupted(args, ref));
  auto a = ResumeInvariantOutcome(db);
  ASSERT_EQ(a.size(), 40u);
  EXPECT_EQ(a, ResumeInvariantOutcome(ref));
  const char* values =
      "SELECT t.number, v.kind, v.position, v.metric, v.value, v.violation FROM trial_values v "
      "JOIN trials t ON t.id = v.trial_id ORDER BY t.number, v.kind, v.position";
  auto stored = Query(db, values);
  EXPECT_EQ(stored.size(), 40u * 3);  // f1, f2 and the constraint's f1
  EXPECT_EQ(stored, Query(ref, values));

  // Every point satisfied the parameter constraint.
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM trials WHERE json_extract(params, '$.x2') + "
                     "json_extract(params, '$.x3') > 1"),
            0);
  // Some broke the outcome constraint (x1 = f1 above 0.8), and none of them
  // is on the front.
  EXPECT_GT(QueryInt(db,
                     "SELECT count(*) FROM trial_values WHERE kind = 'constraint' AND "
                     "violation > 0"),
            0);

  // The front by its definition, from `sweep trials`.
  std::vector<Row> rows = Trials(db);
  ASSERT_EQ(rows.size(), 40u);
  std::set<int64_t> want;
  for (const Row& r : rows) {
    if (r.status != "completed" || !(r.f1 <= 0.8)) continue;
    bool dominated = false;
    for (const Row& o : rows) {
      if (o.status != "completed" || !(o.f1 <= 0.8)) continue;
      if (o.f1 <= r.f1 && o.f2 <= r.f2 && (o.f1 < r.f1 || o.f2 < r.f2)) dominated = true;
    }
    if (!dominated) want.insert(r.trial);
  }
  ASSERT_GE(want.size(), 2u);
  ASSERT_EQ(RunSweep({"best", "--db", db, "--format", "json"}, &out), 0) << out;
  EXPECT_EQ(Numbers(out), want) << out;
  EXPECT_NE(out.find("\"feasible\": true"), std::string::npos) << out;
  EXPECT_EQ(out.find("\"feasible\": false"), std::string::npos) << out;
  ASSERT_EQ(RunSweep({"best", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("study 'zdt': minimize f1, minimize f2 subject to f1 <= 0.8\nits Pareto "
                     "front: " +
                     std::to_string(want.size()) + " of 40 completed trials"),
            std::string::npos)
      << out;
  // `sweep why` says where a trial stands.
  ASSERT_EQ(RunSweep({"why", "--db", db, std::to_string(*want.begin())}, &out), 0) << out;
  EXPECT_NE(out.find("; on the Pareto front\n"), std::string::npos) << out;
  EXPECT_NE(out.find("objectives: f1 "), std::string::npos) << out;
  // `sweep trials --pareto` marks the same trials.
  ASSERT_EQ(
      RunSweep({"trials", "--db", db, "--pareto", "--format", "csv", "--columns", "trial,pareto"},
               &out),
      0)
      << out;
  std::set<int64_t> marked;
  std::istringstream in(out);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line))
    if (line.size() > 2 && line.substr(line.size() - 2) == ",1")
      marked.insert(std::stoll(line.substr(0, line.find(','))));
  EXPECT_EQ(marked, want);
}

TEST(E2eObjectivesTest, Nsga2MotpeAndMoAshaKilledResumeToTheTrialsOfAnUninterruptedRun) {
  // Each algorithm, and what shows it judged several objectives.
  const std::pair<const char*, const char*> cases[] = {
      {"{type: nsga2, max_trials: 30, nsga2: {population: 6}}",
       "SELECT count(*) FROM events WHERE kind = 'proposed' AND detail LIKE "
       "'NSGA-II generation %: crossover of trials %'"},
      {"{type: tpe, max_trials: 30, tpe: {n_startup_trials: 6}}",
       "SELECT count(*) FROM events WHERE kind = 'proposed' AND detail LIKE "
       "'MOTPE: % good (by Pareto rank, then hypervolume)%'"},
      {"{type: asha, max_trials: 30, asha: {min_resource: 1, reduction_factor: 3}}",
       "SELECT count(*) FROM decisions WHERE reason LIKE '% at rung 0 (step 1): f1 %, f2 %; "
       "front % by Pareto rank and crowding; the top % continue'"}};
  for (const auto& [algorithm, judged] : cases) {
    SCOPED_TRACE(algorithm);
    TempDir dir;
    std::string study = Study("{metric: f2, max: 3}", 30);
    study.replace(study.find("{type: random, max_trials: 30}"),
                  std::string("{type: random, max_trials: 30}").size(), algorithm);
    study = dir.Write("s.yaml", study);
    std::string db = dir.File("k.db"), ref = dir.File("ref.db");
    // One runner: each proposal follows the last result, as on a resume.
    std::vector<std::string> args = {"run", study,        "--db", db, "--local-runners",
                                     "1",   "--progress", "plain"};
    ASSERT_TRUE(KillTunerWhen(args, dir.File("t.log"), [&] {
      return QueryInt(db, "SELECT count(*) FROM trials WHERE status IN ('completed', 'stopped')") >=
             14;
    }));
    ASSERT_NO_FATAL_FAILURE(ResumeThenRunUninterrupted(args, ref));
    auto a = ResumeInvariantOutcome(db);
    ASSERT_EQ(a.size(), 30u);
    EXPECT_EQ(a, ResumeInvariantOutcome(ref));
    const char* origins =
        "SELECT t.number, e.detail FROM events e JOIN trials t ON t.id = e.trial_id "
        "WHERE e.kind = 'proposed' ORDER BY t.number";
    EXPECT_EQ(Query(db, origins), Query(ref, origins));
    EXPECT_GT(QueryInt(db, judged), 10);
  }
}

TEST(E2eObjectivesTest, BestSaysWhenNoTrialIsFeasible) {
  TempDir dir;
  std::string study = dir.Write("s.yaml", Study("{metric: f2, min: 100}", 6));
  std::string db = dir.File("n.db"), out;
  ASSERT_EQ(
      RunSweep({"run", study, "--db", db, "--local-runners", "1", "--progress", "plain"}, &out), 0)
      << out;
  ASSERT_EQ(RunSweep({"best", "--db", db}, &out), 0) << out;
  EXPECT_NE(out.find("no trial is feasible (of 6 completed); the least infeasible:"),
            std::string::npos)
      << out;
  ASSERT_EQ(RunSweep({"best", "--db", db, "--format", "json"}, &out), 0) << out;
  EXPECT_NE(out.find("\"feasible\": false"), std::string::npos) << out;
  EXPECT_EQ(out.find("\"feasible\": true"), std::string::npos) << out;
}

}  // namespace
}  // namespace sweep::e2e
