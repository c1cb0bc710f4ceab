// `sweep best [STUDY]`: a study's best completed trial, and for people what
// "best" means there (its goal and metric); with several objectives its
// Pareto front, and with constraints only feasible trials while any is
// (cli/front_table.cc).
#include <string>

#include "cli/commands.h"
#include "cli/front_table.h"
#include "cli/trials_table.h"
#include "common/objectives.h"

namespace sweep {

namespace {

class BestCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("best", "Print the best trial");
    AddDbOption(c, &db_);
    c->add_option("study", study_, "Study name");
    AddFormatOption(c, &format_, {"table", "csv", "json"});
    return c;
  }

  int Run(const CommandContext&) override {
    return WithReader(db_, format_, [&](Reader& r, Format f) -> Result<std::string> {
      ASSIGN_OR_RETURN(StudyRef s, r.ResolveStudy(study_));
      ASSIGN_OR_RETURN(pb::Study spec, r.StudySpec(s.id));
      if (TracksTrialValues(spec)) {
        ASSIGN_OR_RETURN(StudyFront front, r.Front(s));
        if (front.front.empty())
          return Status::NotFound("study '" + s.name + "' has no completed trial yet");
        ASSIGN_OR_RETURN(std::vector<std::string> order, ParameterOrder(r, s));
        return FormatFront(r, s, front, f, order);
      }
      ASSIGN_OR_RETURN(auto trials, r.Trials(s, std::nullopt, 1));
      if (trials.empty())
        return Status::NotFound("study '" + s.name + "' has no completed trial yet");
      ASSIGN_OR_RETURN(std::vector<std::string> order, ParameterOrder(r, s));
      if (f == Format::kJson) return TrialJson(trials[0]) + "\n";
      ASSIGN_OR_RETURN(std::string table, FormatTrials(trials, f, s.metric, order));
      if (f == Format::kTable)
        table = "study '" + EscapeControl(s.name) +
                "': " + (s.maximize ? "maximize " : "minimize ") + EscapeControl(s.metric) +
                "; its best completed trial:\n" + table;
      return table;
    });
  }

 private:
  std::string db_ = "sweep.db", study_, format_ = "table";
};

}  // namespace

std::unique_ptr<Command> NewBestCommand() { return std::make_unique<BestCommand>(); }

}  // namespace sweep
