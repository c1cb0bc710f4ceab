// Scripted events for algorithm tests: a study from a few YAML words, the
// scheduler it asks for, and its decisions and directives as short strings,
// so each test reads as a script of reports and asserts every decision.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "search_spaces/samplers.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "tuner/scheduler.h"

namespace sweep {

// A study with one float parameter x1 in [0, 1] (or `parameters`), a
// synthetic task of `steps` steps, and the scheduler `algorithm` asks for.
struct Fixture {
  pb::Study study;
  std::unique_ptr<SearchSpace> space;
  std::unique_ptr<Scheduler> s;
  explicit Fixture(const std::string& algorithm, const std::string& goal = "minimize",
                   int steps = 9,
                   const std::string& parameters = "  x1: {type: float, min: 0, max: 1}\n") {
    auto p = ParseStudyYaml(
        "name: t\nobjective: {metric: value, goal: " + goal +
            "}\ntask: {synthetic: {function: curve, steps: " + std::to_string(steps) +
            "}}\nalgorithm: " + algorithm + "\nparameters:\n" + parameters,
        "t.yaml");
    EXPECT_TRUE(p.ok()) << p.status().message();
    Status st = ValidateStudy(&*p);
    EXPECT_TRUE(st.ok()) << st.message();
    study = p->study;
    space = std::make_unique<SearchSpace>(*SearchSpace::Create(study));
    s = MakeScheduler(study, *space, 0, 0);
  }
  // "continue", "promote" (continue with a reason), "pause", "stop" or
  // "exploit" (PBT: stopped and replaced, see last_action.replacement).
  std::string Decide(int64_t n, int64_t step, double v) {
    last_action = s->OnReport(n, step, v);
    last_reason = last_action.reason;
    return Word(last_action, true);
  }
  // Directives as "number:continue" / "number:stop" / "number:pause" /
  // "number:exploit->child".
  std::vector<std::string> Directives() {
    std::vector<std::string> out;
    for (const auto& d : s->TakeDirectives()) {
      std::string w = std::to_string(d.number) + ":" + Word(d.action, false);
      if (d.action.replacement) w += "->" + std::to_string(d.action.replacement->trial.number);
      out.push_back(w);
    }
    return out;
  }
  static std::string Word(const Action& a, bool promote) {
    switch (a.decision) {
      case Decision::kStop:
        return "stop";
      case Decision::kExploit:
        return "exploit";
      case Decision::kPause:
        return "pause";
      case Decision::kContinue:
        break;
    }
    return promote && !a.reason.empty() ? "promote" : "continue";
  }
  Action last_action;
  std::string last_reason;
};

}  // namespace sweep
