// mo_cost: what one proposal of sweep's MOTPE (`type: tpe` with two
// objectives) or NSGA-II costs the tuner over a table of N finished ZDT1
// trials (6 inputs, uniform points, seeded: the history
// bench/search/optuna_mo.py's `cost` gives Optuna). Run by
// bench/search/mo_cost.sh.
//
// Usage: mo_cost tpe|nsga2 N PROPOSALS   prints "ALGORITHM-cost N ms_per_proposal"
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

int Cost(const std::string& algorithm, int64_t n, int proposals) {
  std::string yaml =
      "name: cost\nobjectives: [{metric: f1, goal: minimize}, {metric: f2, goal: minimize}]\n"
      "task: {synthetic: {function: zdt1}}\nalgorithm: {type: " +
      algorithm + ", max_trials: 100000000}\nseed: 1\nparameters:\n";
  for (int i = 1; i <= 6; ++i)
    yaml += "  x" + std::to_string(i) + ": {type: float, min: 0, max: 1}\n";
  auto p = ParseStudyYaml(yaml, "cost.yaml");
  Status st = p.ok() ? ValidateStudy(&*p) : p.status();
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  auto space = *SearchSpace::Create(p->study);
  TrialTable table(false);
  Rng rng(HashKey({42}));
  for (int64_t k = 0; k < n; ++k) {
    std::vector<double> x(6);
    for (double& v : x) v = rng.Uniform();
    Trial t;
    t.id = k + 1;
    t.number = k;
    t.status = TrialStatus::kCompleted;
    t.objectives = Zdt1(x);
    t.value = t.objectives[0];
    for (size_t i = 0; i < x.size(); ++i) {
      pb::ParamValue* pv = t.params.add_params();
      pv->set_name("x" + std::to_string(i + 1));
      *pv->mutable_value() = NumberValue(x[i]);
    }
    table.Insert(std::move(t));
  }
  auto s = MakeScheduler(p->study, space, n, 0, &table);
  double total_ms = 0;
  for (int i = 0; i < proposals; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto spec = s->NextTrial();
    total_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!spec) return 1;
  }
  std::printf("%s-cost %lld %.4f\n", algorithm.c_str(), static_cast<long long>(n),
              total_ms / proposals);
  return 0;
}

}  // namespace
}  // namespace sweep

int main(int argc, char** argv) {
  if (argc == 4) return sweep::Cost(argv[1], std::atoll(argv[2]), std::atoi(argv[3]));
  std::fprintf(stderr, "usage: mo_cost tpe|nsga2 N PROPOSALS\n");
  return 2;
}
