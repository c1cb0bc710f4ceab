// `sweep logs`: reading a command trial's log: the per-attempt file
// (storage/log_files.h) while the sweep runs or after, control characters
// escaped for the terminal.
#include "cli/logs.h"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <thread>

#include "cli/commands.h"
#include "cli/format.h"
#include "cli/trial_ref.h"
#include "storage/db_lock.h"
#include "storage/reader.h"

namespace sweep {

namespace {

// Prints what the file holds from `*offset` on; false if it cannot be read.
bool PrintFrom(const std::string& path, int64_t* offset) {
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1 << 16];
  // Escaped a whole buffer at a time; a multi-byte character cut at a
  // buffer's edge is printed as its bytes, which a terminal rejoins.
  while (true) {
    ssize_t n = pread(fd, buf, sizeof buf, *offset);
    if (n <= 0) break;
    *offset += n;
    std::string text = EscapeControl(std::string_view(buf, static_cast<size_t>(n)), true);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  std::fflush(stdout);
  close(fd);
  return true;
}

// Whether a tuner (sweep run or serve) holds the database: the trials it
// has not made yet may still come.
bool TunerHolds(const std::string& db) {
  auto holder = DbLock::Holder(db);
  return holder.ok() && holder->has_value();
}

// Whether trial `number` of the study may still come: the study runs (a
// tuner holds the database and it is not finished) and the number is within
// its max_trials.
Result<bool> MayStillCome(Reader& reader, const std::string& db, const StudyRef& study,
                          int64_t number) {
  if (!TunerHolds(db)) return false;
  ASSIGN_OR_RETURN(auto studies, reader.StudySummaries(0));
  for (const StudySummary& s : studies) {
    if (s.ref.id != study.id) continue;
    if (s.status != StudyStatus::kRunning) return false;
    ASSIGN_OR_RETURN(pb::Study spec, reader.StudySpec(study.id));
    return !spec.algorithm().has_max_trials() || number < spec.algorithm().max_trials();
  }
  return false;
}

// --follow on a trial not made yet, or queued: waits, while its study runs,
// until it has started. Returns the trial, or the error to print (at once
// for a study that is not there, or a trial that will not come).
Result<TrialRef> WaitForTrial(Reader& reader, const std::string& db,
                              const std::vector<std::string>& args) {
  bool said = false;
  while (true) {
    auto ref = ResolveTrial(reader, args);
    if (!ref.ok() && !ref.status().IsNotFound()) return ref;
    // The study first: a misspelt one is an error now, not a wait.
    if (!ref.ok()) {
      auto study = reader.ResolveStudy(args.size() == 2 ? args[0] : "");
      if (!study.ok()) return ref;
      int64_t number = -1;
      std::from_chars(args.back().data(), args.back().data() + args.back().size(), number);
      ASSIGN_OR_RETURN(bool may, MayStillCome(reader, db, *study, number));
      if (!may) return ref;
    } else {
      ASSIGN_OR_RETURN(TrialDetail t, reader.Trial(ref->id));
      if (t.trial.status != TrialStatus::kQueued || t.trial.attempts != 0) return ref;
      ASSIGN_OR_RETURN(bool may, MayStillCome(reader, db, ref->study, ref->number));
      if (!may) return ref;
    }
    if (!said) {
      std::fprintf(stderr, "sweep: waiting for trial %s to start (Ctrl-C to stop)\n",
                   EscapeControl(args.back()).c_str());
      said = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

}  // namespace

int PrintTrialLog(const std::string& db, const std::vector<std::string>& trial_args, int attempt,
                  bool follow) {
  auto reader = Reader::Open(db);
  if (!reader.ok()) return Error(reader.status().message());
  auto ref = follow ? WaitForTrial(**reader, db, trial_args) : ResolveTrial(**reader, trial_args);
  if (!ref.ok()) return Error(ref.status().message());
  int64_t trial_id = ref->id;
  auto trial = (*reader)->Trial(trial_id);
  if (!trial.ok()) return Error(trial.status().message());
  auto logs = (*reader)->Logs(trial_id);
  if (!logs.ok()) return Error(logs.status().message());
  std::string id = std::to_string(ref->number);
  if (attempt == 0) attempt = std::max(1, trial->trial.attempts);
  const LogView* log = nullptr;
  for (const auto& l : *logs)
    if (l.attempt == attempt) log = &l;
  bool running = trial->trial.status == TrialStatus::kRunning && trial->trial.attempts == attempt;
  if (!log && !(follow && running)) {
    std::string have;
    for (const auto& l : *logs) have += (have.empty() ? "" : ", ") + std::to_string(l.attempt);
    return Error("trial " + id + " has no log for attempt " + std::to_string(attempt) +
                 (have.empty() ? " (only command trials keep logs, once they print)"
                               : " (attempts with a log: " + have + ")"));
  }
  int64_t offset = 0;
  std::string path = log ? log->path : "";
  if (log && !PrintFrom(path, &offset)) {
    std::fprintf(stderr, "sweep: %s is gone; its last %zu bytes, from the database:\n",
                 EscapeControl(path).c_str(), log->tail.size());
    std::string tail = EscapeControl(log->tail, true);
    std::fwrite(tail.data(), 1, tail.size(), stdout);
    return 0;
  }
  if (log && log->dropped > 0)
    std::fprintf(stderr, "sweep: %lld bytes past the log's cap were not kept\n",
                 static_cast<long long>(log->dropped));
  while (follow && running) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    auto now = (*reader)->Trial(trial_id);
    if (!now.ok()) return Error(now.status().message());
    running = now->trial.status == TrialStatus::kRunning && now->trial.attempts == attempt;
    if (path.empty()) {
      auto again = (*reader)->Logs(trial_id);
      if (!again.ok()) return Error(again.status().message());
      for (const auto& l : *again)
        if (l.attempt == attempt) path = l.path;
    }
    if (!path.empty()) PrintFrom(path, &offset);
  }
  return 0;
}

namespace {

class LogsCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("logs", "Print a command trial's log (its stdout and stderr)");
    AddDbOption(c, &db_);
    AddTrialArgument(c, &trial_);
    c->add_option("--attempt", attempt_, "Attempt (default: the latest)");
    c->add_flag("--follow,-f", follow_, "Keep printing while the attempt runs");
    return c;
  }
  int Run(const CommandContext&) override { return PrintTrialLog(db_, trial_, attempt_, follow_); }

 private:
  std::string db_ = "sweep.db";
  std::vector<std::string> trial_;
  int attempt_ = 0;
  bool follow_ = false;
};

}  // namespace

std::unique_ptr<Command> NewLogsCommand() { return std::make_unique<LogsCommand>(); }

}  // namespace sweep
