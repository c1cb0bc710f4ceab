// A study of a model-based algorithm (tpe, gp, auto) over a scripted trial
// table, for the schedulers' unit tests: trials are added as a tuner would
// have stored them, then the scheduler is made as a restarted tuner makes
// it.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/values.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "tuner/scheduler.h"
#include "tuner/trial_table.h"

namespace sweep {

struct ModelStudy {
  pb::Study study;
  std::unique_ptr<SearchSpace> space;
  TrialTable table{false};
  std::unique_ptr<Scheduler> s;
  int64_t next_id = 1;

  explicit ModelStudy(const std::string& algorithm,
                      const std::string& parameters = "  x: {type: float, min: 0, max: 1}\n",
                      int seed = 5, int steps = 1, const std::string& goal = "minimize") {
    auto p = ParseStudyYaml("name: t\nobjective: {metric: value, goal: " + goal +
                                "}\n"
                                "task: {command: {argv: [train], steps: " +
                                std::to_string(steps) + "}}\nalgorithm: " + algorithm +
                                "\nseed: " + std::to_string(seed) + "\nparameters:\n" + parameters,
                            "t.yaml");
    EXPECT_TRUE(p.ok()) << p.status().message();
    Status st = ValidateStudy(&*p);
    EXPECT_TRUE(st.ok()) << st.message();
    study = p->study;
    space = std::make_unique<SearchSpace>(*SearchSpace::Create(study));
  }
  // The scheduler, made once the history is in (as a restarted tuner does).
  Scheduler& Start() {
    s = MakeScheduler(study, *space, table.size(), 0, &table);
    return *s;
  }
  Trial& Add(TrialStatus status, std::vector<std::pair<std::string, pb::Value>> params,
             std::optional<double> value, int64_t step = 1) {
    Trial t;
    t.id = next_id++;
    t.number = t.id - 1;
    t.status = status;
    for (auto& [name, v] : params) {
      pb::ParamValue* pv = t.params.add_params();
      pv->set_name(name);
      *pv->mutable_value() = v;
    }
    if (status == TrialStatus::kCompleted) t.value = value;
    t.last_objective = value;
    t.last_step = step;
    return table.Insert(std::move(t));
  }
  Trial& AddX(TrialStatus status, double x, std::optional<double> value, int64_t step = 1) {
    return Add(status, {{"x", NumberValue(x)}}, value, step);
  }
};

inline double X(const TrialSpec& spec, const std::string& name = "x") {
  for (const auto& pv : spec.params.params()) {
    double v = 0;
    if (pv.name() == name && ValueAsDouble(pv.value(), &v)) return v;
  }
  return NAN;
}

}  // namespace sweep
