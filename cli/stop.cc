// `sweep stop`: stopping a running sweep through the pid in its database's
// lock file.
#include "cli/stop.h"

#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>
#include <variant>

#include "cli/commands.h"
#include "cli/format.h"
#include "cli/service_client.h"
#include "common/posix_error.h"
#include "storage/db_lock.h"
#include "storage/reader.h"

namespace sweep {

namespace {

// The names of the studies a database calls running.
std::string RunningStudies(const std::string& db) {
  auto reader = Reader::Open(db);
  if (!reader.ok()) return "";
  auto running = (*reader)->RunningStudyNames();
  std::string names;
  if (!running.ok()) return names;
  for (const std::string& name : *running) names += (names.empty() ? "" : ", ") + name;
  return names;
}

}  // namespace

int StopSweep(const std::string& db, const std::string& study, double wait_s) {
  struct stat st;
  if (stat(db.c_str(), &st) != 0) return Error(db + ": no such database");
  auto holder = DbLock::Holder(db);
  if (!holder.ok()) return Error(holder.status().message());
  std::string running = RunningStudies(db);
  if (!*holder) {
    // Marked running but held by nobody: its tuner died (kill -9, a crash).
    if (!running.empty()) {
      return Error("no tuner is running on " + db + ": study '" + running +
                   "' was interrupted (its tuner is gone); " + ResumeCommand(db, running) +
                   " resumes it");
    }
    return Error("no sweep is running on " + db);
  }
  // A service: it stops with all its studies, which the next `sweep
  // serve` takes up again.
  auto service = RunningService(db);
  const bool is_service = service.ok() && service->has_value();
  if (!study.empty() && is_service) {
    return Error("a service runs on " + db + ": `sweep pause " + study + " --db " + db +
                 "` pauses one study; `sweep stop --db " + db + "` stops the service");
  }
  if (!study.empty() && running.find(study) == std::string::npos) {
    return Error("the tuner on " + db + " runs study '" + running + "', not '" + study + "'");
  }
  pid_t pid = static_cast<pid_t>(**holder);
  if (kill(pid, SIGTERM) != 0) {
    int err = errno;
    if (err == EPERM)
      return Error("not allowed to stop the tuner on " + db + " (pid " + std::to_string(pid) +
                   "): it belongs to another user");
    if (err != ESRCH) {
      return Error(PosixError("kill " + std::to_string(pid), err)
                       .Wrap("cannot stop the tuner on " + db)
                       .message());
    }
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  while (std::chrono::steady_clock::now() < deadline) {
    auto h = DbLock::Holder(db);
    if (h.ok() && !*h && is_service) {
      printf(
          "stopped the service on %s (pid %d): its studies' running trials went back to their "
          "queues; `sweep serve --db %s` takes them up again\n",
          EscapeControl(db).c_str(), static_cast<int>(pid), EscapeControl(db).c_str());
      return 0;
    }
    if (h.ok() && !*h) {
      printf(
          "stopped the tuner of study '%s' on %s (pid %d): running trials went back to the "
          "queue; %s resumes them\n",
          EscapeControl(running).c_str(), EscapeControl(db).c_str(), static_cast<int>(pid),
          EscapeControl(ResumeCommand(db, running)).c_str());
      return 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Error("the tuner on " + db + " (pid " + std::to_string(pid) + ") got SIGTERM but still " +
               "runs after " + std::to_string(static_cast<int>(wait_s)) + " s");
}

namespace {

class StopCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand(
        "stop", "Stop the sweep running on a database, as Ctrl-C would (it resumes later)");
    AddDbOption(c, &db_);
    c->add_option("study", study_, "Study name (optional: the one that runs)");
    c->add_option("--wait", wait_s_, "Seconds to wait for the tuner to stop")
        ->check(CLI::Range(0.0, 3600.0))
        ->capture_default_str();
    return c;
  }
  int Run(const CommandContext&) override { return StopSweep(db_, study_, wait_s_); }

 private:
  std::string db_ = "sweep.db", study_;
  double wait_s_ = 60;
};

}  // namespace

std::unique_ptr<Command> NewStopCommand() { return std::make_unique<StopCommand>(); }

}  // namespace sweep
