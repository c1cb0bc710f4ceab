// `sweep enqueue STUDY --params JSON [--params-file FILE]`: configurations a
// person chose run first, before the algorithm's own proposals (Optuna's
// enqueue_trial); model-based search learns from them like any trial.
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/format.h"
#include "cli/study_admin.h"
#include "common/clock.h"
#include "common/small_file.h"
#include "search_spaces/space_point.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "storage/sqlite_store.h"
#include "storage/study_admin.h"
#include "tuner/scheduler.h"
#include "tuner/study_change.h"

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
    c->add_option("--params", params_,
                  "One configuration as JSON: '{\"lr\": 0.01}' (repeat for more)")
        ->allow_extra_args(false);
    c->add_option("--params-file", file_, "Configurations, one JSON object a line");
    return c;
  }

  int Run(const CommandContext&) override {
    if (params_.empty() && file_.empty()) return Error("give --params JSON or --params-file FILE");
    auto lines = Lines();
    if (!lines.ok()) return Error(lines.status().message());
    struct stat info;
    const bool from_file = stat(study_.c_str(), &info) == 0 && S_ISREG(info.st_mode);
    if (stat(db_.c_str(), &info) == 0) {
      Status free = NoTuner(db_, "enqueue (a tuner takes enqueued trials up when it starts)");
      if (!free.ok()) return Error(free.message());
    } else if (!from_file) {
      return Error(db_ + ": no such database (name a study file to start one)");
    }
    auto store = Store::Open(db_);  // takes the lock: a tuner started meanwhile is refused
    if (!store.ok()) return Error(store.status().message());
    std::optional<Store::StoredStudy> found;
    auto study = Study(**store, from_file, &found);
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
    // A new study and its trials in one transaction: nothing stays of a
    // failed enqueue.
    Status st = (*store)->Begin();
    Result<int64_t> id = found ? Result<int64_t>(found->id) : (*store)->CreateStudy(*study);
    if (!found && id.ok()) {
      // Not running yet: stored as a study its tuner has yet to take up,
      // with the file that runs it.
      Status made = (*store)->SetStudyStatus(*id, StudyStatus::kInterrupted, WallSeconds());
      std::error_code ec;
      auto file = std::filesystem::absolute(study_, ec);
      if (made.ok() && !ec) made = (*store)->SetStudyFile(*id, file.lexically_normal());
      if (!made.ok()) id = made;
    }
    auto numbers = !st.ok()   ? Result<std::vector<int64_t>>(st)
                   : !id.ok() ? Result<std::vector<int64_t>>(id.status())
                              : EnqueueTrials(**store, *id, points, WallSeconds());
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
    for (const std::string& p : params_) out.emplace_back("--params", p);
    if (!file_.empty()) {
      ASSIGN_OR_RETURN(std::string text, ReadSmallFile(file_, {.what = "configurations file",
                                                               .max_bytes = 16 << 20}));
      std::istringstream in(text);
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

  // The study as the database holds it, where it does (*stored; a study
  // file given must be one a resume would accept), else the study file's
  // (validated), which Run makes in the database.
  Result<pb::Study> Study(Store& store, bool from_file,
                          std::optional<Store::StoredStudy>* stored) const {
    std::optional<pb::Study> file;
    if (from_file) {
      ASSIGN_OR_RETURN(ParsedStudy parsed, LoadStudyFile(study_));
      RETURN_IF_ERROR(ValidateStudy(&parsed));
      file = parsed.study;
    }
    ASSIGN_OR_RETURN(*stored, store.FindStudy(file ? file->name() : study_));
    if (!*stored && file) return *file;  // a new study
    if (!*stored) return Status::NotFound("no study named '" + study_ + "' in " + db_);
    if (file) RETURN_IF_ERROR(CompareStudies((*stored)->spec, *file).status());
    return (*stored)->spec;
  }

  std::string db_ = "sweep.db", study_, file_;
  std::vector<std::string> params_;
};

}  // namespace

std::unique_ptr<Command> NewEnqueueCommand() { return std::make_unique<EnqueueCommand>(); }

}  // namespace sweep
