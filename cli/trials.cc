// `sweep trials [STUDY]` (a study's trials, filtered) and `sweep export
// STUDY` (all of them, as CSV or JSON): one table, two commands.
#include <unistd.h>

#include <climits>
#include <string>

#include "cli/commands.h"
#include "cli/trials_table.h"
#include "common/objectives.h"
#include "tuner/progress.h"

namespace sweep {

namespace {

class TrialsCommand : public Command {
 public:
  explicit TrialsCommand(bool is_export) : export_(is_export) {}

  CLI::App* Define(CLI::App* app) override {
    if (export_) {
      auto* c = app->add_subcommand("export", "Export all trials of a study");
      AddDbOption(c, &db_);
      c->add_option("study", study_, "Study name");
      AddFormatOption(c, &format_, {"csv", "json"})->required();
      return c;
    }
    auto* c = app->add_subcommand("trials", "List a study's trials");
    AddDbOption(c, &db_);
    c->add_option("study", study_, "Study name (optional when the database holds one)");
    c->add_option("--status", status_, "Only trials with this status")
        ->check(CLI::IsMember(TrialStatusNames()));
    c->add_option("--top", top_, "Only the K best completed trials")->check(CLI::Range(1, INT_MAX));
    c->add_flag("--pareto", columns_.mark_pareto,
                "Mark the trials of the Pareto front (several objectives) or the best feasible "
                "ones (constraints) in a column of their own");
    c->add_option("--columns", columns_.names,
                  "These columns, in this order (comma-separated names as the table or CSV "
                  "head has them: trial, status, the objective's metric, step, attempts, "
                  "parameters, metrics, start, end, duration, failure)")
        ->delimiter(',');
    AddFormatOption(c, &format_, {"table", "csv", "json"});
    return c;
  }

  int Run(const CommandContext&) override {
    return WithReader(db_, format_, [&](Reader& r, Format f) -> Result<std::string> {
      ASSIGN_OR_RETURN(StudyRef s, r.ResolveStudy(study_));
      const std::optional<TrialStatus> status = ParseTrialStatus(status_);
      ASSIGN_OR_RETURN(auto trials, r.Trials(s, status, top_));
      if (trials.empty() && f == Format::kTable && (status || top_ > 0)) {
        // Say which filter left nothing.
        std::string why = "no trial of study '" + s.name + "'";
        if (status) why += std::string(" has status ") + TrialStatusName(*status);
        if (top_ > 0) {
          why += std::string(status ? ", and" : "") + " --top ranks completed trials only" +
                 (!status || *status == TrialStatus::kCompleted ? ": none has completed yet" : "");
        }
        return "(no rows: " + EscapeControl(why) + ")\n";
      }
      ASSIGN_OR_RETURN(std::vector<std::string> order, ParameterOrder(r, s));
      if (columns_.mark_pareto) {
        ASSIGN_OR_RETURN(pb::Study spec, r.StudySpec(s.id));
        if (!TracksTrialValues(spec))
          return Status::InvalidArgument("--pareto: study '" + s.name +
                                         "' has one objective and no constraints; its best "
                                         "trial is `sweep best`");
        ASSIGN_OR_RETURN(StudyFront front, r.Front(s));
        for (size_t i : front.front) columns_.pareto.insert(front.trials[i].id);
      }
      // On a terminal the default table fits its width.
      if (isatty(STDOUT_FILENO)) columns_.width = TerminalWidth(STDOUT_FILENO);
      return FormatTrials(trials, f, s.metric, order, columns_);
    });
  }

 private:
  const bool export_;
  std::string db_ = "sweep.db", study_, format_ = "table", status_;
  int top_ = 0;
  TrialColumns columns_;
};

}  // namespace

std::unique_ptr<Command> NewTrialsCommand() { return std::make_unique<TrialsCommand>(false); }
std::unique_ptr<Command> NewExportCommand() { return std::make_unique<TrialsCommand>(true); }

}  // namespace sweep
