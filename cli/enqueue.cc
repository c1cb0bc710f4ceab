// `sweep enqueue STUDY --params JSON [--params-file FILE]`: configurations a
// person chose run first, before the algorithm's own proposals (Optuna's
// enqueue_trial); model-based search learns from them like any trial.
#include <sys/stat.h>

#include <cstdio>
#include <fstream>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/format.h"
#include "common/clock.h"
#include "search_spaces/space_point.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "storage/db_lock.h"
#include "storage/sqlite_store.h"
#include "storage/study_admin.h"
#include "tuner/scheduler.h"

namespace sweep {
namespace {

// A file of points: one JSON object a line (blank lines and # comments
// skipped), at most this many.
constexpr size_t kMaxPoints = 10000;

class EnqueueCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand(
        "enqueue", "Add configurations you chose; they run before the algorithm's own");
    AddDbOption(c, &db_);
    c->add_option("study", study_, "A study file (its study is made if new), or a study's name")
        ->required();
    c->add_option("--params", params_, "One configuration as JSON: '{\"lr\": 0.01}'");
    c->add_option("--params-file", file_, "Configurations, one JSON object a line");
    return c;
  }

  int Run(const CommandContext&) override {
    if (params_.empty() && file_.empty()) return Error("give --params JSON or --params-file FILE");
    auto lines = Lines();
    if (!lines.ok()) return Error(lines.status().message());
    auto holder = DbLock::Holder(db_);
    if (holder.ok() && *holder)
      return Error("a tuner (pid " + std::to_string(**holder) + ") runs on " + db_ +
                   ": enqueue before `sweep run`, or stop it first (`sweep stop --db " + db_ +
                   "`); it takes the trials up when run again");
    auto study = Study();
    if (!study.ok()) return Error(study.status().message());
    if (!TraitsOf(*study).takes_enqueued_trials)
      return Error("study '" + study->name() +
                   "': its algorithm numbers its trials by their place (a grid's point, "
                   "Hyperband's and BOHB's brackets, PBT's population); enqueue works with "
                   "random, quasirandom, tpe, gp, auto, asha and median");
    auto space = SearchSpace::Create(*study);
    if (!space.ok()) return Error(space.status().message());
    std::vector<pb::ParamSet> points;
    for (const auto& [where, json] : *lines) {
      auto p = PointFromJson(*space, json);
      if (!p.ok()) return Error(where + ": " + p.status().message());
      points.push_back(std::move(*p));
    }
    auto store = Store::Open(db_);  // takes the lock: a tuner started meanwhile is refused
    if (!store.ok()) return Error(store.status().message());
    auto found = (*store)->FindStudy(study->name());
    if (!found.ok()) return Error(found.status().message());
    int64_t id = 0;
    if (*found) {
      id = (*found)->id;
    } else {
      auto made = (*store)->CreateStudy(*study);
      if (!made.ok()) return Error(made.status().message());
      id = *made;
    }
    Status st = (*store)->Begin();
    auto numbers = st.ok() ? EnqueueTrials(**store, id, points, WallSeconds())
                           : Result<std::vector<int64_t>>(st);
    if (numbers.ok()) st = (*store)->Commit();
    if (!numbers.ok() || !st.ok()) {
      (*store)->Rollback();
      return Error(numbers.ok() ? st.message() : numbers.status().message());
    }
    std::string list;
    for (int64_t n : *numbers) list += (list.empty() ? "" : ", ") + std::to_string(n);
    printf(
        "enqueued %zu trials in study '%s' (numbers %s); they run first at its next `sweep run`\n",
        numbers->size(), EscapeControl(study->name()).c_str(), list.c_str());
    return 0;
  }

 private:
  // Each configuration with where it came from ("--params", "FILE:3").
  Result<std::vector<std::pair<std::string, std::string>>> Lines() const {
    std::vector<std::pair<std::string, std::string>> out;
    if (!params_.empty()) out.emplace_back("--params", params_);
    if (!file_.empty()) {
      std::ifstream in(file_);
      if (!in) return Status::NotFound(file_ + ": cannot be read");
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        size_t start = line.find_first_not_of(" \t\r");
        if (start == std::string::npos || line[start] == '#') continue;
        if (out.size() >= kMaxPoints)
          return Status::InvalidArgument(file_ + ": more than " + std::to_string(kMaxPoints) +
                                         " configurations");
        out.emplace_back(file_ + ":" + std::to_string(n), line.substr(start));
      }
    }
    return out;
  }

  // The study file's study (validated), or the stored one by its name.
  Result<pb::Study> Study() const {
    struct stat st;
    if (stat(study_.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      ASSIGN_OR_RETURN(ParsedStudy parsed, LoadStudyFile(study_));
      RETURN_IF_ERROR(ValidateStudy(&parsed));
      return parsed.study;
    }
    if (stat(db_.c_str(), &st) != 0)
      return Status::NotFound(db_ + ": no such database (name a study file to start one)");
    ASSIGN_OR_RETURN(auto store, Store::Open(db_));
    ASSIGN_OR_RETURN(auto found, store->FindStudy(study_));
    if (!found) return Status::NotFound("no study named '" + study_ + "' in " + db_);
    return found->spec;
  }

  std::string db_ = "sweep.db", study_, params_, file_;
};

}  // namespace

std::unique_ptr<Command> NewEnqueueCommand() { return std::make_unique<EnqueueCommand>(); }

}  // namespace sweep
