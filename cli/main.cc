// `sweep`: one binary, CLI11 subcommands. Thin: the commands are listed in
// cli/commands.cc, each defined and run in its own cli/NAME.cc.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <string>

#include "cli/argv.h"
#include "cli/build_info.h"
#include "cli/commands.h"
#include "common/log.h"
#include "nn/backend.h"

namespace {

std::string SelfExe(const char* argv0) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, static_cast<size_t>(n));
  return argv0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sweep;
  nn::StopIdleBlasThreads();
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    if (std::string(argv[i]) == "runner") nn::EnsureTrainingEnvironment(argv);
    break;
  }
  CLI::App app{"sweep: hyperparameter search on your own machines"};
  app.require_subcommand(1);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Debug logging");
  app.set_version_flag("--version",
                       std::string("sweep ") + SWEEP_VERSION + "\n" + SWEEP_BUILD_INFO);
  // -v after the subcommand too (sweep run study.yaml -v).
  app.fallthrough();
  std::vector<DefinedCommand> commands = DefineCommands(&app);

  std::vector<char*> args = DbAfterCommand(argc, argv);
  try {
    app.parse(static_cast<int>(args.size() - 1), args.data());
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error exits 2.
    int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  if (verbose) SetLogLevel(LogLevel::kDebug);
  const CommandContext context{SelfExe(argv[0]), &app, SWEEP_VERSION};
  for (DefinedCommand& c : commands)
    if (c.app->parsed()) return c.command->Run(context);
  return 0;
}
