// Every `sweep` command, listed once (as git.c's commands[]): its name and
// the function that makes it. Each lives in cli/NAME.cc (a few related ones
// share a file: study_admin.cc, dashboard.cc, model_commands.cc,
// trials.cc).
#pragma once

#include <memory>
#include <vector>

#include "cli/command.h"

namespace sweep {

struct CommandEntry {
  const char* name;
  std::unique_ptr<Command> (*make)();
};

// A command defined on an app: the subcommand it added and its object.
struct DefinedCommand {
  CLI::App* app;
  std::unique_ptr<Command> command;
};

// Defines every command on `app` in the table's order, which is the order
// of the help, the man page and the completions.
std::vector<DefinedCommand> DefineCommands(CLI::App* app);

std::unique_ptr<Command> NewRunCommand();          // run.cc
std::unique_ptr<Command> NewRunnerCommand();       // runner.cc
std::unique_ptr<Command> NewKeysCommand();         // keys.cc
std::unique_ptr<Command> NewValidateCommand();     // validate.cc
std::unique_ptr<Command> NewPlanCommand();         // plan.cc
std::unique_ptr<Command> NewStudiesCommand();      // studies.cc
std::unique_ptr<Command> NewTrialsCommand();       // trials.cc
std::unique_ptr<Command> NewBestCommand();         // best.cc
std::unique_ptr<Command> NewQueryCommand();        // query.cc
std::unique_ptr<Command> NewExportCommand();       // trials.cc
std::unique_ptr<Command> NewLogsCommand();         // logs.cc
std::unique_ptr<Command> NewStopCommand();         // stop.cc
std::unique_ptr<Command> NewServeCommand();        // serve.cc
std::unique_ptr<Command> NewSubmitCommand();       // submit.cc
std::unique_ptr<Command> NewPauseCommand();        // study_control.cc
std::unique_ptr<Command> NewResumeCommand();       // study_control.cc
std::unique_ptr<Command> NewCancelCommand();       // study_control.cc
std::unique_ptr<Command> NewSetCommand();          // study_control.cc
std::unique_ptr<Command> NewRunnersCommand();      // runners.cc
std::unique_ptr<Command> NewGcCommand();           // study_admin.cc
std::unique_ptr<Command> NewDeleteCommand();       // study_admin.cc
std::unique_ptr<Command> NewRenameCommand();       // study_admin.cc
std::unique_ptr<Command> NewRetryCommand();        // retry.cc
std::unique_ptr<Command> NewEnqueueCommand();      // enqueue.cc
std::unique_ptr<Command> NewAutomlCommand();       // automl.cc
std::unique_ptr<Command> NewNoteCommand();         // study_labels.cc
std::unique_ptr<Command> NewTagCommand();          // study_labels.cc
std::unique_ptr<Command> NewWatchCommand();        // watch.cc
std::unique_ptr<Command> NewWhyCommand();          // why.cc
std::unique_ptr<Command> NewDashboardCommand();    // dashboard.cc
std::unique_ptr<Command> NewReportCommand();       // dashboard.cc
std::unique_ptr<Command> NewExportModelCommand();  // model_commands.cc
std::unique_ptr<Command> NewPredictCommand();      // model_commands.cc
std::unique_ptr<Command> NewCompletionCommand();   // completion.cc
std::unique_ptr<Command> NewManCommand();          // man.cc

}  // namespace sweep
