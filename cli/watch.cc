// `sweep watch`: the status of a sweep, followed from its database (see
// watch.h).
#include "cli/watch.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <thread>

#include "cli/commands.h"
#include "cli/format.h"
#include "common/clock.h"
#include "common/json.h"
#include "common/number_text.h"
#include "storage/db_lock.h"
#include "storage/reader.h"
#include "tuner/progress.h"
#include "tuner/scheduler.h"

namespace sweep {
namespace {

volatile sig_atomic_t g_interrupted = 0;
void OnInterrupt(int) { g_interrupted = 1; }

// The study to follow: the one named, else the one a tuner runs, else the
// only one.
Result<StudyRef> PickStudy(Reader& reader, const std::string& db, const std::string& name) {
  if (!name.empty()) return reader.ResolveStudy(name);
  ASSIGN_OR_RETURN(auto studies, reader.StudySummaries(WallSeconds()));
  auto holder = DbLock::Holder(db);
  if (!holder.ok() || *holder) {  // unreadable: a tuner starting
    for (auto it = studies.rbegin(); it != studies.rend(); ++it)
      if (it->status == StudyStatus::kRunning) return it->ref;
  }
  return reader.ResolveStudy("");
}

struct Snapshot {
  StudyStatus state = StudyStatus::kRunning;  // as `sweep studies` shows it
  ProgressCounts counts;
  double elapsed_s = 0;
};

Result<Snapshot> Read(Reader& reader, const std::string& db, const StudyRef& ref,
                      std::optional<int64_t> planned) {
  const double now = WallSeconds();
  ASSIGN_OR_RETURN(auto studies, reader.StudySummaries(now));
  auto it = std::find_if(studies.begin(), studies.end(),
                         [&](const StudySummary& s) { return s.ref.id == ref.id; });
  if (it == studies.end()) return Status::NotFound("study '" + ref.name + "' is gone from " + db);
  Snapshot snap;
  // A lock that cannot be read (a tuner starting) counts as held.
  auto holder = DbLock::Holder(db);
  snap.state = ShownStudyStatus(it->status, !holder.ok() || holder->has_value());
  ProgressCounts& c = snap.counts;
  c.SetStatuses(it->counts);
  c.best = it->best;
  c.planned = planned;
  // Why it waits, as its tuner's status line says (from the database: any text).
  if (snap.state == StudyStatus::kRunning && c.running == 0) {
    ASSIGN_OR_RETURN(std::string waiting, reader.Waiting(ref.id));
    c.waiting = EscapeControl(waiting);
  }
  if (c.running > 0) {
    ASSIGN_OR_RETURN(auto running, reader.Trials(ref, TrialStatus::kRunning, 0));
    for (const TrialView& t : running) {
      int64_t step = t.step.value_or(0);
      if (!c.slowest_step || step < *c.slowest_step) c.slowest_step = step;
    }
  }
  if (it->first_started) {
    const bool live = snap.state == StudyStatus::kRunning;
    double end = live ? now : it->last_ended.value_or(now);
    snap.elapsed_s = std::max(0.0, end - *it->first_started);
    // The rate (and so the time left) of the last minute: the elapsed time
    // spans every run of the study, and the pauses between them.
    double window = std::min(60.0, now - *it->first_started);
    if (live && window > 0) c.rate = static_cast<double>(it->ended_last_minute) / window;
  }
  return snap;
}

// What a line printed when not on a terminal is printed again for.
std::string Key(const ProgressCounts& c) {
  return std::to_string(c.completed) + "/" + std::to_string(c.failed) + "/" +
         std::to_string(c.stopped) + "/" + std::to_string(c.running) + "/" +
         std::to_string(c.queued) + "/" + std::to_string(c.paused) + "/" +
         (c.best ? ScreenNumber(*c.best) : "-") + "/" + c.waiting;
}

void Write(const std::string& text) {
  ssize_t ignored = write(STDOUT_FILENO, text.data(), text.size());
  (void)ignored;
}

}  // namespace

int WatchStudy(const WatchOptions& o) {
  struct stat st;
  if (stat(o.db.c_str(), &st) != 0) return Error(o.db + ": no such database");
  auto reader = Reader::Open(o.db);
  if (!reader.ok()) return Error(reader.status().message());
  auto ref = PickStudy(**reader, o.db, o.study);
  if (!ref.ok()) return Error(ref.status().message());
  auto spec = (*reader)->StudySpec(ref->id);
  if (!spec.ok()) return Error(spec.status().message());
  // `done N/M`: M as the tuner counts it (a grid's points, Hyperband's
  // brackets), from the study as stored when the watch began.
  auto copied = (*reader)->CopiedTrialCount(ref->id);
  if (!copied.ok()) return Error(copied.status().message());
  const std::optional<int64_t> planned = PlannedTrialCount(*spec, *copied);
  const bool tty = isatty(STDOUT_FILENO);
  struct sigaction sa = {};
  sa.sa_handler = OnInterrupt;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::string printed;
  Snapshot last;
  const std::string name = EscapeControl(ref->name);  // a database from elsewhere holds anything
  while (true) {
    auto snap = Read(**reader, o.db, *ref, planned);
    if (!snap.ok()) {
      if (tty) Write("\n");
      return Error(snap.status().message());
    }
    last = *snap;
    if (tty) {
      Write(LiveStatusLine(STDOUT_FILENO, name, last.counts, last.elapsed_s));
    } else if (Key(last.counts) != printed) {
      printed = Key(last.counts);
      Write(StatusLine(name, last.counts, last.elapsed_s, SIZE_MAX) + "\n");
    }
    if (last.state != StudyStatus::kRunning) break;
    auto wake = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.interval_s);
    while (!g_interrupted && std::chrono::steady_clock::now() < wake)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (g_interrupted) {
      if (tty) Write("\n");
      return 130;
    }
  }
  if (tty) Write("\n");
  const ProgressCounts& s = last.counts;
  std::string outcome = "study '" + ref->name + "' is " + StudyStatusName(last.state) + ": " +
                        std::to_string(s.completed + s.failed + s.stopped) + " trials ended (" +
                        std::to_string(s.completed) + " completed, " + std::to_string(s.failed) +
                        " failed, " + std::to_string(s.stopped) + " stopped) in " +
                        FormatDuration(last.elapsed_s) + ", best " + ref->metric + " " +
                        (s.best ? ScreenNumber(*s.best) : std::string("-"));
  if (last.state == StudyStatus::kInterrupted)
    outcome += "; its tuner is gone: " + ResumeCommand(o.db, ref->name) + " resumes it";
  Write(EscapeControl(outcome) + "\n");
  return 0;
}

namespace {

class WatchCommand : public Command {
 public:
  WatchCommand() { o_.db = "sweep.db"; }
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand(
        "watch", "Follow a sweep that runs in another terminal of this machine, read-only");
    AddDbOption(c, &o_.db);
    c->add_option("study", o_.study, "Study name (optional: the one that runs)");
    c->add_option("--interval", o_.interval_s, "Seconds between reads")
        ->check(CLI::Range(0.1, 3600.0))
        ->capture_default_str();
    return c;
  }
  int Run(const CommandContext&) override { return WatchStudy(o_); }

 private:
  WatchOptions o_;
};

}  // namespace

std::unique_ptr<Command> NewWatchCommand() { return std::make_unique<WatchCommand>(); }

}  // namespace sweep
