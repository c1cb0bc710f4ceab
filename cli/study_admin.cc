// `sweep delete`, `rename` and `gc`: changing studies from the command line
// (see study_admin.h).
#include "cli/study_admin.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/format.h"
#include "common/json.h"
#include "common/number_text.h"
#include "search_spaces/validate.h"
#include "storage/db_files.h"
#include "storage/db_lock.h"
#include "storage/reader.h"
#include "storage/sqlite_store.h"
#include "storage/study_admin.h"

namespace sweep {

Status NoTuner(const std::string& db, const std::string& verb) {
  struct stat st;
  if (stat(db.c_str(), &st) != 0) return Status::NotFound(db + ": no such database");
  auto holder = DbLock::Holder(db);
  if (!holder.ok()) return holder.status();
  if (*holder) {
    return Status::FailedPrecondition("a tuner (pid " + std::to_string(**holder) + ") runs on " +
                                      db + ": stop it first (`sweep stop --db " + db + "`), then " +
                                      verb);
  }
  return Status::Ok();
}

namespace {

Result<StudySummary> Target(const std::string& db, const std::string& study, const char* verb) {
  RETURN_IF_ERROR(NoTuner(db, verb));
  ASSIGN_OR_RETURN(auto reader, Reader::Open(db));
  ASSIGN_OR_RETURN(StudyRef ref, reader->ResolveStudy(study));
  ASSIGN_OR_RETURN(auto studies, reader->StudySummaries(0));
  for (const auto& s : studies)
    if (s.ref.id == ref.id) return s;
  return Status::NotFound("no study named '" + study + "' in " + db);
}

bool Confirmed(const std::string& question) {
  if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) return false;
  fprintf(stderr, "%s [y/N] ", question.c_str());
  fflush(stderr);
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer == "y" || answer == "Y" || answer == "yes";
}

}  // namespace

int DeleteStudyCommand(const std::string& db, const std::string& study, bool yes) {
  auto target = Target(db, study, "delete");
  if (!target.ok()) return Error(target.status().message());
  const std::string name = EscapeControl(target->ref.name);
  const std::string what = "study '" + name + "' and its " +
                           std::to_string(target->counts.Total()) + " trials from " +
                           EscapeControl(db);
  if (!yes && !Confirmed("delete " + what + "? This cannot be undone.")) {
    fprintf(stderr,
            "sweep: nothing deleted: deleting %s cannot be undone; confirm on a terminal or add "
            "--yes\n",
            what.c_str());
    return 2;
  }
  auto store = Store::Open(db);  // takes the lock: a tuner started meanwhile is refused
  if (!store.ok()) return Error(store.status().message());
  auto deleted = DeleteStudy(**store, target->ref.id);
  if (!deleted.ok()) return Error(deleted.status().message());
  int files = RemoveStudyFiles(db, target->ref.id, deleted->trial_ids);
  printf("deleted study '%s' from %s: %lld trials, %lld reports, %lld decisions, %d files\n",
         name.c_str(), EscapeControl(db).c_str(), static_cast<long long>(deleted->trials),
         static_cast<long long>(deleted->reports), static_cast<long long>(deleted->decisions),
         files);
  return 0;
}

int CollectCheckpointsCommand(const std::string& db, const std::string& study, int keep_best,
                              bool dry_run) {
  std::vector<StudySummary> targets;
  if (!study.empty()) {
    auto target = Target(db, study, "collect its checkpoints");
    if (!target.ok()) return Error(target.status().message());
    targets.push_back(*target);
  } else {
    Status free = NoTuner(db, "collect checkpoints");
    if (!free.ok()) return Error(free.message());
    auto reader = Reader::Open(db);
    if (!reader.ok()) return Error(reader.status().message());
    auto studies = (*reader)->StudySummaries(0);
    if (!studies.ok()) return Error(studies.status().message());
    targets = *studies;
  }
  auto store = Store::Open(db);  // takes the lock: a tuner started meanwhile is refused
  if (!store.ok()) return Error(store.status().message());
  int64_t files = 0, bytes = 0;
  for (const StudySummary& s : targets) {
    const std::string name = EscapeControl(s.ref.name);
    auto r = CollectCheckpoints(**store, s.ref.id, keep_best, dry_run);
    if (!r.ok()) {
      if (r.status().code() != StatusCode::kFailedPrecondition) return Error(r.status().message());
      printf("study '%s': kept its checkpoints: %s\n", name.c_str(), r.status().message().c_str());
      continue;
    }
    files += r->files;
    bytes += r->bytes;
    printf("study '%s': %s the checkpoints of %lld trials (%lld files, %s)%s\n", name.c_str(),
           dry_run ? "would remove" : "removed", static_cast<long long>(r->removed),
           static_cast<long long>(r->files), HumanBytes(r->bytes).c_str(),
           r->kept > 0 ? (", kept the best " + std::to_string(r->kept) + "'s").c_str() : "");
  }
  printf("%s %lld files, %s, from %s\n", dry_run ? "would free" : "freed",
         static_cast<long long>(files), HumanBytes(bytes).c_str(),
         EscapeControl(DbFolderOf(db)).c_str());
  return 0;
}

int RenameStudyCommand(const std::string& db, const std::string& study, const std::string& name) {
  if (std::string problem = StudyNameProblem(name); !problem.empty())
    return Error("a study's name " + problem + ", as in a study file");
  auto target = Target(db, study, "rename");
  if (!target.ok()) return Error(target.status().message());
  auto store = Store::Open(db);
  if (!store.ok()) return Error(store.status().message());
  Status st = RenameStudy(**store, target->ref.id, name);
  if (!st.ok()) return Error(st.message());
  printf(
      "renamed study '%s' to '%s' in %s; to resume it, its study file must now say "
      "`name: %s`\n",
      EscapeControl(target->ref.name).c_str(), EscapeControl(name).c_str(),
      EscapeControl(db).c_str(), EscapeControl(name).c_str());
  return 0;
}

namespace {

class GcCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand(
        "gc", "Remove the checkpoints of finished studies, keeping their best trials' models");
    AddDbOption(c, &db_);
    c->add_option("study", study_, "Study name (default: every finished study)");
    c->add_option("--keep-best", keep_, "Keep the checkpoints of this many best trials")
        ->check(CLI::Range(0, 1000000))
        ->default_val(1);
    c->add_flag("--dry-run,-n", dry_run_, "Say what would be removed; change nothing");
    return c;
  }
  int Run(const CommandContext&) override {
    return CollectCheckpointsCommand(db_, study_, keep_, dry_run_);
  }

 private:
  std::string db_ = "sweep.db", study_;
  int keep_ = 1;
  bool dry_run_ = false;
};

class DeleteCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c =
        app->add_subcommand("delete", "Delete a study, its trials and their files (asks first)");
    AddDbOption(c, &db_);
    c->add_option("study", study_, "Study name")->required();
    c->add_flag("--yes,-y", yes_, "Do not ask: delete");
    return c;
  }
  int Run(const CommandContext&) override { return DeleteStudyCommand(db_, study_, yes_); }

 private:
  std::string db_ = "sweep.db", study_;
  bool yes_ = false;
};

class RenameCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("rename", "Give a study a new name");
    AddDbOption(c, &db_);
    c->add_option("study", study_, "The study's name now")->required();
    c->add_option("name", name_, "Its new name")->required();
    return c;
  }
  int Run(const CommandContext&) override { return RenameStudyCommand(db_, study_, name_); }

 private:
  std::string db_ = "sweep.db", study_, name_;
};

}  // namespace

std::unique_ptr<Command> NewGcCommand() { return std::make_unique<GcCommand>(); }
std::unique_ptr<Command> NewDeleteCommand() { return std::make_unique<DeleteCommand>(); }
std::unique_ptr<Command> NewRenameCommand() { return std::make_unique<RenameCommand>(); }

}  // namespace sweep
