// `sweep retry STUDY [TRIAL...]`: failed trials run again at the study's next
// `sweep run` (same parameters, a new attempt each); `sweep run
// --retry-failed` does the same for all of them as it starts. The work is
// tuner/retry_failed.h.
#include <cstdio>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/format.h"
#include "cli/study_admin.h"
#include "storage/sqlite_store.h"
#include "tuner/retry_failed.h"

namespace sweep {
namespace {

class RetryCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand(
        "retry", "Run failed trials again at the study's next `sweep run` (all, or those named)");
    AddDbOption(c, &db_);
    c->add_option("study", study_, "The study's name")->required();
    c->add_option("trials", numbers_, "Trial numbers (default: every failed trial)");
    return c;
  }

  int Run(const CommandContext&) override {
    Status free = NoTuner(db_, "run the study again with --retry-failed");
    if (!free.ok()) return Error(free.message());
    auto store = Store::Open(db_);  // takes the lock: a tuner started meanwhile is refused
    if (!store.ok()) return Error(store.status().message());
    auto found = (*store)->FindStudy(study_);
    if (!found.ok()) return Error(found.status().message());
    if (!*found) return Error("no study named '" + EscapeControl(study_) + "' in " + db_);
    auto n = RetryFailed(**store, (*found)->spec, numbers_);
    if (!n.ok()) return Error(n.status().message());
    printf(
        "%lld failed trials of study '%s' run again at its next `sweep run STUDY_FILE --db "
        "%s`\n",
        static_cast<long long>(*n), EscapeControl(study_).c_str(),
        EscapeControl(ShellWord(db_)).c_str());
    return 0;
  }

 private:
  std::string db_ = "sweep.db", study_;
  std::vector<int64_t> numbers_;
};

}  // namespace

std::unique_ptr<Command> NewRetryCommand() { return std::make_unique<RetryCommand>(); }

}  // namespace sweep
