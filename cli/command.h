// The shape of a `sweep` command: it adds its subcommand and flags to the
// CLI11 definition and does its work once parsed. cli/commands.cc lists
// them all; main.cc parses and runs the one chosen. Also the helpers the
// commands share.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "cli/format.h"
#include "common/status.h"
#include "storage/reader.h"

namespace sweep {

// What a command may need beyond its own flags.
struct CommandContext {
  std::string self_exe;            // this binary: the helpers it execs live beside it
  const CLI::App* root = nullptr;  // the whole command line (completion, man page)
  std::string version;             // SWEEP_VERSION
};

class Command {
 public:
  virtual ~Command() = default;
  // Adds the subcommand to `app`, its flags bound to this object's members;
  // returns it. Called once, before the parse.
  virtual CLI::App* Define(CLI::App* app) = 0;
  // Called once the parse chose this command: its exit status.
  virtual int Run(const CommandContext& context) = 0;
};

// Usage errors exit 2, as POSIX tools do (CLI11's own codes are 100 and up).
inline constexpr int kExitUsage = 2;

// Prints `sweep: MESSAGE` on stderr; returns 1. Messages may quote a study
// file or a database: no raw escape sequences, but a validation failure
// lists one error per line, so newlines stay.
int Fail(const Status& st);
// Prints `sweep: MESSAGE` on one line (every control character escaped,
// newlines too); returns 1.
int Error(const std::string& message);
// "`sweep run /path/study.yaml --db DB`": the command that resumes `study`,
// with the study file it was last run from (STUDY_FILE when not known).
std::string ResumeCommand(const std::string& db, const std::string& study);

// --db FILE (or $SWEEP_DB): the results database every reader takes.
CLI::Option* AddDbOption(CLI::App* command, std::string* db);
// [STUDY] TRIAL (required): a trial named by its number (cli/trial_ref.h).
CLI::Option* AddTrialArgument(CLI::App* command, std::vector<std::string>* trial);
// --format, one of `choices` (the help says "table|csv|json").
CLI::Option* AddFormatOption(CLI::App* command, std::string* format,
                             const std::vector<std::string>& choices);

// Opens `db` read-only, runs `body` with it and prints what it returns;
// the exit status.
int WithReader(const std::string& db, const std::string& format,
               const std::function<Result<std::string>(Reader&, Format)>& body);

// The study's parameter names in its file's order: the trials table's
// columns, whichever rows it shows.
Result<std::vector<std::string>> ParameterOrder(Reader& r, const StudyRef& s);

}  // namespace sweep
