// `sweep completion bash|zsh`: the shell completion script, made from the
// command line's own definition (cli/shell_help.h).
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/shell_help.h"

namespace sweep {

namespace {

class CompletionCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand(
        "completion", "Print the shell completion script for bash or zsh (see docs/cli.md)");
    c->add_option("shell", shell_, "bash or zsh")
        ->required()
        ->check(CLI::IsMember({"bash", "zsh"}));
    return c;
  }
  int Run(const CommandContext& context) override {
    fputs((shell_ == "bash" ? BashCompletion(*context.root) : ZshCompletion(*context.root)).c_str(),
          stdout);
    return 0;
  }

 private:
  std::string shell_;
};

}  // namespace

std::unique_ptr<Command> NewCompletionCommand() { return std::make_unique<CompletionCommand>(); }

}  // namespace sweep
