// tpe_cost: what one TPE (or GP: ALGORITHM=gp) proposal costs the tuner as
// a study grows, and the proposals themselves for a given history (to
// compare with Optuna's on the same history). Run by bench/search/tpe_cost.sh
// and bench/search/gp_cost.sh.
//
//   tpe_cost cost N PROPOSALS        N finished Hartmann-6 trials (uniform
//                                    points, seeded), then PROPOSALS
//                                    proposals timed one by one; prints
//                                    "tpe-cost N ms_per_proposal"
//   tpe_cost simulate OBJECTIVE TRIALS SEEDS [WORKERS]
//                                    TPE in-process (hartmann6, branin,
//                                    rosenbrock4, ackley10, levy10),
//                                    WORKERS trials at once
//                                    (default 1): the best value after
//                                    TRIALS per seed
//   tpe_cost propose HISTORY SEEDS   HISTORY: lines "x1 .. xd value" (d = 2:
//                                    the Branin space, else the unit cube);
//                                    prints the proposal of trial number
//                                    len(HISTORY) for seeds 0..SEEDS-1
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "common/rng.h"
#include "common/values.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "trial_runner/synthetic.h"
#include "tuner/scheduler.h"
#include "tuner/trial_table.h"

namespace sweep {
namespace {

// TPE_CONFIG (environment): the body of the study's `tpe:` map, e.g.
// "n_ei_candidates: 64, gamma: 0.15", to compare settings in `simulate`.
// ALGORITHM (environment): tpe (the default), gp or auto.
std::string Algorithm() {
  const char* a = std::getenv("ALGORITHM");
  return a && *a ? a : "tpe";
}

pb::Study MakeStudy(const std::string& params, uint64_t seed) {
  const char* tpe = std::getenv("TPE_CONFIG");
  std::string algorithm = Algorithm();
  auto p = ParseStudyYaml(
      "name: cost\nobjective: {metric: value, goal: minimize}\ntask: {synthetic: {function: "
      "branin}}\nalgorithm: {type: " +
          algorithm + ", max_trials: 100000000" +
          (algorithm == "gp" ? "" : ", tpe: {" + std::string(tpe ? tpe : "") + "}") +
          "}\nseed: " + std::to_string(seed) + "\nparameters:\n" + params,
      "cost.yaml");
  if (!p.ok()) {
    std::fprintf(stderr, "%s\n", p.status().message().c_str());
    std::exit(1);
  }
  Status st = ValidateStudy(&*p);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    std::exit(1);
  }
  return p->study;
}

void AddTrial(TrialTable* table, int64_t number, const std::vector<double>& x, double value) {
  Trial t;
  t.id = number + 1;
  t.number = number;
  t.status = TrialStatus::kCompleted;
  t.value = value;
  for (size_t i = 0; i < x.size(); ++i) {
    pb::ParamValue* pv = t.params.add_params();
    pv->set_name("x" + std::to_string(i + 1));
    *pv->mutable_value() = NumberValue(x[i]);
  }
  table->Insert(std::move(t));
}

int Cost(int64_t n, int proposals) {
  std::string params;
  for (int i = 1; i <= 6; ++i)
    params += "  x" + std::to_string(i) + ": {type: float, min: 0, max: 1}\n";
  pb::Study study = MakeStudy(params, 1);
  auto space = *SearchSpace::Create(study);
  TrialTable table(false);
  Rng rng(HashKey({42}));
  for (int64_t k = 0; k < n; ++k) {
    std::vector<double> x(6);
    for (double& v : x) v = rng.Uniform();
    AddTrial(&table, k, x, Hartmann6(x));
  }
  auto s = MakeScheduler(study, space, n, 0, &table);
  double total_ms = 0;
  for (int i = 0; i < proposals; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto spec = s->NextTrial();
    total_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!spec) return 1;
  }
  std::printf("%s-cost %lld %.4f\n", Algorithm().c_str(), static_cast<long long>(n),
              total_ms / proposals);
  return 0;
}

int Propose(const char* path, int seeds) {
  // Lines of d values and the objective: d = 2 is the Branin space, any
  // other d the unit cube.
  std::ifstream in(path);
  std::vector<std::vector<double>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<double> row;
    size_t pos = 0;
    while (pos < line.size()) {
      size_t used = 0;
      row.push_back(std::stod(line.substr(pos), &used));
      pos += used;
      while (pos < line.size() && line[pos] == ' ') ++pos;
    }
    if (!row.empty()) rows.push_back(row);
  }
  size_t d = rows.empty() ? 2 : rows[0].size() - 1;
  std::string params;
  for (size_t i = 1; i <= d; ++i) {
    params += "  x" + std::to_string(i) + ": {type: float, " +
              (d == 2 ? (i == 1 ? "min: -5, max: 10" : "min: 0, max: 15") : "min: 0, max: 1") +
              "}\n";
  }
  for (int seed = 0; seed < seeds; ++seed) {
    pb::Study study = MakeStudy(params, static_cast<uint64_t>(seed));
    auto space = *SearchSpace::Create(study);
    TrialTable table(false);
    for (size_t k = 0; k < rows.size(); ++k)
      AddTrial(&table, static_cast<int64_t>(k),
               std::vector<double>(rows[k].begin(), rows[k].end() - 1), rows[k].back());
    auto s = MakeScheduler(study, space, static_cast<int64_t>(rows.size()), 0, &table);
    auto spec = s->NextTrial();
    for (const auto& pv : spec->params.params()) {
      double x = 0;
      ValueAsDouble(pv.value(), &x);
      std::printf("%.17g ", x);
    }
    std::printf("\n");
  }
  return 0;
}

double BraninOf(const std::vector<double>& x) { return Branin(x[0], x[1]); }

// TPE in-process (no runners) on hartmann6, branin or rosenbrock4
// (bench/search/tpe.py's spaces), `workers` trials at once: the best value
// after `trials` trials for each seed, to study the algorithm alone over
// many seeds.
int Simulate(const std::string& objective, int trials, int seeds, int workers) {
  std::string params;
  double (*f)(const std::vector<double>&) = Hartmann6;
  if (objective == "branin") {
    params = "  x1: {type: float, min: -5, max: 10}\n  x2: {type: float, min: 0, max: 15}\n";
    f = BraninOf;
  } else if (objective == "rosenbrock4") {
    for (int i = 1; i <= 4; ++i)
      params += "  x" + std::to_string(i) + ": {type: float, min: -5, max: 10}\n";
    f = Rosenbrock;
  } else if (objective == "ackley10" || objective == "levy10") {
    bool ackley = objective == "ackley10";
    for (int i = 1; i <= 10; ++i)
      params += "  x" + std::to_string(i) + ": {type: float, " +
                (ackley ? "min: -32.768, max: 32.768" : "min: -10, max: 10") + "}\n";
    f = ackley ? Ackley : Levy;
  } else {
    for (int i = 1; i <= 6; ++i)
      params += "  x" + std::to_string(i) + ": {type: float, min: 0, max: 1}\n";
  }
  for (int seed = 0; seed < seeds; ++seed) {
    pb::Study study = MakeStudy(params, static_cast<uint64_t>(seed));
    auto space = *SearchSpace::Create(study);
    TrialTable table(false);
    auto s = MakeScheduler(study, space, 0, 0, &table);
    // Up to `workers` trials run at once; one of them, chosen at random,
    // finishes before the next proposal (trials of random lengths).
    Rng order(HashKey({static_cast<uint64_t>(seed), 7}));
    std::vector<int64_t> running;
    double best = INFINITY;
    int64_t proposed = 0;
    while (proposed < trials || !running.empty()) {
      while (proposed < trials && static_cast<int>(running.size()) < workers) {
        auto spec = s->NextTrial();
        Trial t;
        t.id = proposed + 1;
        t.number = proposed;
        t.status = TrialStatus::kRunning;
        t.params = spec->params;
        table.Insert(std::move(t));
        running.push_back(proposed++);
      }
      size_t pick = static_cast<size_t>(order.Uniform() * static_cast<double>(running.size()));
      pick = std::min(pick, running.size() - 1);
      Trial* t = table.FindNumber(running[pick]);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(pick));
      std::vector<double> x;
      for (const auto& pv : t->params.params()) {
        double v = 0;
        ValueAsDouble(pv.value(), &v);
        x.push_back(v);
      }
      t->value = f(x);
      best = std::min(best, *t->value);
      table.Transition(t, TrialStatus::kCompleted);
    }
    std::printf("%d %.6f\n", seed, best);
  }
  return 0;
}

}  // namespace
}  // namespace sweep

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "cost" && argc == 4) return sweep::Cost(std::atoll(argv[2]), std::atoi(argv[3]));
  if (mode == "simulate" && (argc == 5 || argc == 6))
    return sweep::Simulate(argv[2], std::atoi(argv[3]), std::atoi(argv[4]),
                           argc == 6 ? std::max(1, std::atoi(argv[5])) : 1);
  if (mode == "propose" && argc == 4) return sweep::Propose(argv[2], std::atoi(argv[3]));
  std::fprintf(
      stderr,
      "usage: tpe_cost cost N PROPOSALS | simulate OBJECTIVE TRIALS SEEDS [WORKERS] | propose "
      "HISTORY SEEDS\n");
  return 2;
}
