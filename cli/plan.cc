// `sweep plan`: the layout an algorithm will run, from the study alone.
#include "cli/plan.h"

#include <cctype>
#include <cstdio>
#include <optional>

#include "cli/commands.h"
#include "common/duration.h"
#include "common/json.h"
#include "common/number_text.h"
#include "common/objectives.h"
#include "common/study_defaults.h"
#include "search_spaces/samplers.h"
#include "search_spaces/space.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "tuner/algorithms/asha.h"
#include "tuner/algorithms/auto_choice.h"
#include "tuner/algorithms/hyperband.h"

namespace sweep {

namespace {

std::string Num(int64_t v) { return std::to_string(v); }

Result<std::string> HyperbandLayout(const pb::Study& study, bool json) {
  RETURN_IF_ERROR(CheckPlan(study));
  HyperbandPlan plan = PlanHyperband(study);
  std::string out;
  bool bohb = study.algorithm().type() == pb::ALGORITHM_TYPE_BOHB;
  std::string name = bohb ? "bohb" : "hyperband";
  if (json) {
    out = "{\"algorithm\": \"" + name + "\", \"brackets\": [";
    for (size_t b = 0; b < plan.brackets.size(); ++b) {
      const Bracket& br = plan.brackets[b];
      out += std::string(b ? ", " : "") + "{\"bracket\": " + Num(br.s) +
             ", \"first_trial\": " + Num(br.first_trial) + ", \"resource\": " + Num(br.cost) +
             ", \"rungs\": [";
      for (size_t i = 0; i < br.rungs.size(); ++i) {
        out += std::string(i ? ", " : "") + "{\"trials\": " + Num(br.rungs[i].trials) +
               ", \"resource\": " + Num(br.rungs[i].resource) + "}";
      }
      out += "]}";
    }
    out += "], \"total_trials\": " + Num(plan.total_trials) +
           ", \"total_resource\": " + Num(plan.total_resource) +
           ", \"note\": " + JsonString(plan.note) + "}\n";
    return out;
  }
  out = name + ": " + Num(static_cast<int64_t>(plan.brackets.size())) + " brackets, " +
        Num(plan.total_trials) + " trials, " + Num(plan.total_resource) + " steps in total" +
        (study.task().has_command() && !study.task().command().checkpoints()
             ? " (the command writes no checkpoints, so promoted trials re-run from step 1 "
               "and cost more)\n"
             : " (trials continue from their checkpoints)\n");
  for (const Bracket& br : plan.brackets) {
    out += "bracket s=" + Num(br.s) + " (trials " + Num(br.first_trial) + ".." +
           Num(br.first_trial + br.rungs.front().trials - 1) + ", " + Num(br.cost) + " steps):";
    for (const Rung& r : br.rungs) out += "  " + Num(r.trials) + " @ " + Num(r.resource);
    out += "\n";
  }
  out += "ends: " + plan.note + "\n";
  if (bohb) {
    const pb::BohbConfig& c = study.algorithm().bohb();
    out += "proposals: " + FormatDouble(c.random_fraction()) +
           " of new trials at random; the others from a TPE model of the results at the "
           "largest rung step with at least " +
           Num(c.min_points_in_model()) + " results (random until one has)\n";
  }
  return out;
}

// A budget's line and JSON field ("" without one).
std::string BudgetNote(const pb::Algorithm& alg) {
  return alg.has_budget() ? "; no new trial after " + Num(alg.budget()) + " steps" : "";
}
std::string BudgetJson(const pb::Algorithm& alg) {
  return alg.has_budget() ? ", \"budget\": " + Num(alg.budget()) : "";
}

// gp and auto: the GP's proposals, and what auto chose and why.
std::string GpLayout(const pb::Study& study, int64_t resource, bool json) {
  const pb::Algorithm& alg = study.algorithm();
  bool is_auto = alg.type() == pb::ALGORITHM_TYPE_AUTO;
  AutoChoice choice;
  if (is_auto) choice = ChooseAuto(study);
  int64_t trials = alg.max_trials();
  int64_t gp_trials = is_auto ? std::min(trials, choice.gp_trials) : trials;
  int64_t startup = alg.gp().n_startup_trials();
  if (json) {
    return std::string("{\"algorithm\": \"") + (is_auto ? "auto" : "gp") +
           "\", \"max_trials\": " + Num(trials) + ", \"gp_trials\": " + Num(gp_trials) +
           ", \"tpe_trials\": " + Num(trials - gp_trials) +
           ", \"n_startup_trials\": " + Num(startup) +
           (is_auto ? ", \"reason\": " + JsonString(choice.reason) : "") +
           ", \"steps_per_trial\": " + Num(resource) + BudgetJson(alg) + "}\n";
  }
  std::string head = std::string(is_auto ? "auto" : "gp") + ": " + Num(trials) + " trials of " +
                     Num(resource) + (resource == 1 ? " step (" : " steps (") +
                     Num(trials * resource) + " steps)";
  std::string gp_text =
      "quasi-random (Halton) proposals until " + Num(startup) +
      " trials have completed, then a Gaussian process (Matérn-5/2, a lengthscale per "
      "parameter) proposes the point of highest log expected improvement, running trials "
      "entering at its own prediction";
  if (!is_auto) return head + "; " + gp_text + BudgetNote(alg) + "\n";
  std::string out = head + "; chosen: " + choice.reason + "\n";
  if (gp_trials > 0) out += "  trials 0-" + Num(gp_trials - 1) + ": " + gp_text + "\n";
  if (gp_trials < trials)
    out += "  trials " + Num(gp_trials) + "-" + Num(trials - 1) + ": tpe (as type: tpe)\n";
  return out + (BudgetNote(alg).empty() ? "" : "  " + BudgetNote(alg).substr(2) + "\n");
}

}  // namespace

Result<std::string> FormatPlan(const pb::Study& study, bool json) {
  const pb::Algorithm& alg = study.algorithm();
  int64_t resource = TaskResource(study.task());
  switch (alg.type()) {
    case pb::ALGORITHM_TYPE_HYPERBAND:
    case pb::ALGORITHM_TYPE_BOHB:
      return HyperbandLayout(study, json);
    case pb::ALGORITHM_TYPE_TPE: {
      const pb::TpeConfig& c = alg.tpe();
      int64_t trials = alg.max_trials();
      if (json)
        return "{\"algorithm\": \"tpe\", \"max_trials\": " + Num(trials) +
               ", \"n_startup_trials\": " + Num(c.n_startup_trials()) +
               ", \"n_ei_candidates\": " + Num(c.n_ei_candidates()) +
               ", \"gamma\": " + JsonNumber(c.gamma()) +
               ", \"multivariate\": " + (c.multivariate() ? "true" : "false") +
               ", \"constant_liar\": " + (c.constant_liar() ? "true" : "false") +
               ", \"steps_per_trial\": " + Num(resource) + BudgetJson(alg) + "}\n";
      const std::string motpe =
          HasSeveralObjectives(study)
              ? "; with several objectives (MOTPE) the good trials are whole Pareto fronts, then "
                "those adding the most hypervolume"
              : "";
      return "tpe: " + Num(trials) + " trials of " + Num(resource) +
             (resource == 1 ? " step (" : " steps (") + Num(trials * resource) +
             " steps); quasi-random (Halton) proposals until " + Num(c.n_startup_trials()) +
             " trials have completed or stopped, then each proposal is the best of " +
             Num(c.n_ei_candidates()) + " candidates by l(x)/g(x), the best " +
             FormatDouble(c.gamma()) + " of finished trials (at most 25) being good" +
             (c.constant_liar() ? " and running ones counted bad" : "") +
             (c.multivariate() ? "; parameters modelled jointly"
                               : "; parameters modelled one by one") +
             motpe + BudgetNote(alg) + "\n";
    }
    case pb::ALGORITHM_TYPE_GP:
    case pb::ALGORITHM_TYPE_AUTO:
      return GpLayout(study, resource, json);
    case pb::ALGORITHM_TYPE_NSGA2: {
      const pb::Nsga2Config& c = alg.nsga2();
      const int64_t trials = alg.max_trials(), population = c.population();
      const int64_t generations = (trials + population - 1) / population;
      if (json)
        return "{\"algorithm\": \"nsga2\", \"max_trials\": " + Num(trials) +
               ", \"population\": " + Num(population) + ", \"generations\": " + Num(generations) +
               ", \"crossover_prob\": " + JsonNumber(c.crossover_prob()) +
               ", \"mutation_prob\": " + JsonNumber(c.mutation_prob()) +
               ", \"steps_per_trial\": " + Num(resource) + "}\n";
      return "nsga2: " + Num(trials) + " trials in " + Num(generations) + " generations of " +
             Num(population) + "; generation 0 quasi-random (Halton), each later trial a child " +
             "of two tournament winners from the best " + Num(population) +
             " completed trials of the earlier generations (Pareto rank, then crowding): SBX "
             "crossover with probability " +
             ScreenNumber(c.crossover_prob()) + ", each parameter redrawn with probability " +
             ScreenNumber(c.mutation_prob()) +
             "; a generation starts as runners come free, without waiting for the last one\n";
    }
    case pb::ALGORITHM_TYPE_ASHA: {
      auto rungs = AshaRungs(study);
      std::string list;
      for (int64_t r : rungs) list += (list.empty() ? "" : ", ") + Num(r);
      if (json)
        return "{\"algorithm\": \"asha\", \"rungs\": [" + list +
               "], \"max_trials\": " + Num(alg.max_trials()) +
               ", \"max_resource\": " + Num(resource) + "}\n";
      return "asha: " + Num(alg.max_trials()) + " trials; rungs at steps " + list +
             "; at each, a trial continues if in the top 1/eta so far" +
             (HasSeveralObjectives(study)
                  ? " (several objectives: by Pareto front rank, then crowding distance)"
                  : "") +
             "; at most " + Num(alg.max_trials() * resource) + " steps\n";
    }
    case pb::ALGORITHM_TYPE_PBT: {
      const pb::PbtConfig& c = alg.pbt();
      int64_t population = c.population();
      int64_t interval = c.perturbation_interval();
      int64_t generations = (resource - 1) / interval;
      if (json)
        return "{\"algorithm\": \"pbt\", \"population\": " + Num(population) +
               ", \"perturbation_interval\": " + Num(interval) +
               ", \"generations\": " + Num(generations) + ", \"max_steps\": " + Num(resource) +
               ", \"total_resource\": " + Num(population * resource) + "}\n";
      return "pbt: population " + Num(population) + ", exploit/explore every " + Num(interval) +
             " steps (" + Num(generations) + " generations), " + Num(resource) +
             " steps per member, " + Num(population * resource) + " steps in total\n";
    }
    default: {
      // random, quasirandom, grid and the median rule: trial k is point k.
      std::string name = pb::AlgorithmType_Name(alg.type()).substr(15);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::optional<int64_t> trials;
      if (alg.has_max_trials()) trials = alg.max_trials();
      std::string grid_note;
      if (alg.type() == pb::ALGORITHM_TYPE_GRID) {
        ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Create(study));
        ASSIGN_OR_RETURN(uint64_t points, space.GridSize(1000000));
        // Under parameter constraints, only the points that satisfy them.
        auto n = space.constraints() ? *MakeGridSampler(space, 1000000)->Size()
                                     : static_cast<int64_t>(points);
        grid_note = trials && *trials < n
                        ? " (of the grid's " + Num(n) + " points, capped by max_trials)"
                        : " (every grid point once)";
        trials = trials ? std::min(*trials, n) : n;
      }
      std::string steps = Num(resource) + (resource == 1 ? " step" : " steps");
      if (json)
        return "{\"algorithm\": \"" + name +
               "\", \"max_trials\": " + (trials ? Num(*trials) : std::string("null")) +
               ", \"steps_per_trial\": " + Num(resource) +
               (trials ? ", \"total_steps\": " + Num(*trials * resource) : "") + BudgetJson(alg) +
               "}\n";
      std::string head = name + ": " +
                         (trials ? Num(*trials) + " trials" + grid_note
                                 : std::string("trials until the budget is spent"));
      if (alg.type() == pb::ALGORITHM_TYPE_MEDIAN) {
        return head + " of up to " + steps + "; from step " + Num(alg.median().grace_period()) +
               " a trial stops once its best is worse than the median of the running averages "
               "of the others (at least " +
               Num(alg.median().min_trials()) + ") at that step" +
               (trials ? "; at most " + Num(*trials * resource) + " steps" : "") + BudgetNote(alg) +
               "\n";
      }
      return head + ", each runs its " + steps +
             (trials ? ": " + Num(*trials * resource) + " steps in all" : "") + BudgetNote(alg) +
             "\n";
    }
  }
}

namespace {

class PlanCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand(
        "plan", "Print what the algorithm will run (brackets, rungs, total steps)");
    c->add_option("study", path_, "Study file")->required();
    c->add_option("--format", format_, "table or json")->check(CLI::IsMember({"table", "json"}));
    return c;
  }
  int Run(const CommandContext&) override {
    auto parsed = LoadStudyFile(path_);
    if (!parsed.ok()) return Fail(parsed.status());
    Status st = ValidateStudy(&*parsed);
    if (!st.ok()) return Fail(st);
    auto out = FormatPlan(parsed->study, format_ == "json");  // format_: checked by CLI11
    if (!out.ok()) return Fail(out.status());
    std::string text = *out;
    if (const pb::Algorithm& alg = parsed->study.algorithm(); alg.has_time_limit()) {
      auto parsed_limit = ParseDuration(alg.time_limit().after());  // validated
      double limit = parsed_limit.ok() ? *parsed_limit : 0;
      bool hard = alg.time_limit().hard();
      if (format_ == "json" && text.size() >= 2 && text.compare(text.size() - 2, 2, "}\n") == 0)
        text = text.substr(0, text.size() - 2) + ", \"time_limit_s\": " + FormatDouble(limit) +
               ", \"time_limit_hard\": " + (hard ? "true" : "false") + "}\n";
      else if (format_ != "json")
        text += "time limit: " + DurationText(limit) +
                " of running (a resumed study counts its earlier runs): no trial starts after "
                "it; " +
                (hard ? "running trials stop then" : "running trials finish") + "\n";
    }
    fputs(text.c_str(), stdout);
    return 0;
  }

 private:
  std::string path_, format_ = "table";
};

}  // namespace

std::unique_ptr<Command> NewPlanCommand() { return std::make_unique<PlanCommand>(); }

}  // namespace sweep
