// The table of `sweep` commands. Its order is the order `sweep --help`, the
// man page and the completions list them in: a new command goes where it
// should show.
#include "cli/commands.h"

#include <cstdio>
#include <cstdlib>

namespace sweep {

namespace {

// One command a line:
// clang-format off
const CommandEntry kCommands[] = {
    {"run", NewRunCommand},
    {"automl", NewAutomlCommand},
    {"serve", NewServeCommand},
    {"submit", NewSubmitCommand},
    {"pause", NewPauseCommand},
    {"resume", NewResumeCommand},
    {"cancel", NewCancelCommand},
    {"set", NewSetCommand},
    {"runners", NewRunnersCommand},
    {"runner", NewRunnerCommand},
    {"keys", NewKeysCommand},
    {"validate", NewValidateCommand},
    {"plan", NewPlanCommand},
    {"studies", NewStudiesCommand},
    {"trials", NewTrialsCommand},
    {"best", NewBestCommand},
    {"query", NewQueryCommand},
    {"export", NewExportCommand},
    {"logs", NewLogsCommand},
    {"stop", NewStopCommand},
    {"gc", NewGcCommand},
    {"delete", NewDeleteCommand},
    {"rename", NewRenameCommand},
    {"retry", NewRetryCommand},
    {"enqueue", NewEnqueueCommand},
    {"note", NewNoteCommand},
    {"tag", NewTagCommand},
    {"watch", NewWatchCommand},
    {"why", NewWhyCommand},
    {"dashboard", NewDashboardCommand},
    {"report", NewReportCommand},
    {"export-model", NewExportModelCommand},
    {"predict", NewPredictCommand},
    {"completion", NewCompletionCommand},
    {"man", NewManCommand},
};
// clang-format on

}  // namespace

std::vector<DefinedCommand> DefineCommands(CLI::App* app) {
  std::vector<DefinedCommand> out;
  for (const CommandEntry& e : kCommands) {
    std::unique_ptr<Command> command = e.make();
    CLI::App* sub = command->Define(app);
    if (sub == nullptr || sub->get_name() != e.name) {  // a programmer's error
      fprintf(stderr, "sweep: command '%s' defines '%s'\n", e.name,
              sub ? sub->get_name().c_str() : "nothing");
      abort();
    }
    out.push_back({sub, std::move(command)});
  }
  return out;
}

}  // namespace sweep
