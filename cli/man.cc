// `sweep man`: the man page (roff), made from the command line's own
// definition (cli/shell_help.h).
#include <cstdio>

#include "cli/commands.h"
#include "cli/shell_help.h"

namespace sweep {

namespace {

class ManCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    return app->add_subcommand("man", "Print the man page (roff), made from this help");
  }
  int Run(const CommandContext& context) override {
    fputs(ManPage(*context.root, context.version).c_str(), stdout);
    return 0;
  }
};

}  // namespace

std::unique_ptr<Command> NewManCommand() { return std::make_unique<ManCommand>(); }

}  // namespace sweep
