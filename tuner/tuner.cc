// `sweep run`: a Server with one study, exiting when the study is done; the
// study file's checks, the progress line, Ctrl-C and the summary around it.
#include "tuner/tuner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "common/clock.h"
#include "common/json.h"
#include "common/log.h"
#include "common/number_text.h"
#include "common/objectives.h"
#include "common/terminal_text.h"
#include "common/values.h"
#include "search_spaces/validate.h"
#include "storage/reader.h"
#include "tuner/algorithms/hyperband.h"
#include "tuner/interrupts.h"
#include "tuner/progress.h"
#include "tuner/retry_failed.h"
#include "tuner/scheduler.h"
#include "tuner/server.h"
#include "tuner/study_data.h"
#include "tuner/warm_start.h"

namespace sweep {

namespace {

// REQUIRES: external synchronization (one thread runs it).
class Tuner {
 public:
  explicit Tuner(const TunerOptions& o) : o_(o) {}
  int Run();

 private:
  Status Setup();
  void PrintSummary();
  // A study with several objectives or constraints: its front, read back.
  std::string FrontSummary(const std::string& name) const;
  ProgressCounts Counts() const {
    ProgressCounts c = study_->Counts();
    c.runners = server_->dispatcher().runners();
    return c;
  }

  TunerOptions o_;
  std::unique_ptr<Server> server_;
  StudyRun* study_ = nullptr;  // the server's one study
  std::unique_ptr<Progress> progress_;
  int64_t start_ms_ = 0;
};

Status Tuner::Setup() {
  ASSIGN_OR_RETURN(ParsedStudy parsed, LoadStudyFile(o_.study_path));
  RETURN_IF_ERROR(ValidateStudy(&parsed));
  RETURN_IF_ERROR(CheckPlan(parsed.study));
  const pb::Study& study = parsed.study;
  RETURN_IF_ERROR(CheckEndpoint(o_.bind).Wrap("--bind"));
  if (study.task().has_train() && study.task().train().has_data_dir() && o_.local_runners != 0) {
    // Local runners read the data here: a missing folder would fail every
    // trial. (Remote runners may have it where this machine does not.)
    const std::string& dir = study.task().train().data_dir();
    struct stat st;
    if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return Status::InvalidArgument(
          "task.train.data_dir: " + dir +
          " is not a folder on this machine, where the local runners would read it; fix the "
          "path, or run with --local-runners 0 and remote runners that have it");
    }
  }
  ASSIGN_OR_RETURN(StudyData data, CheckStudyData(study, o_.local_runners != 0));
  // The hints quote the study file (a label's name): escaped for the log.
  for (const std::string& hint : data.hints)
    LOG_WARN << EscapeControl("study '" + study.name() + "': " + hint);
  if (!o_.from.empty()) RETURN_IF_ERROR(CheckWarmStartable(study));
  if (!o_.gpus.empty() &&
      static_cast<int>(o_.gpus.size()) < std::max(1, study.resources().gpus_per_trial())) {
    return Status::InvalidArgument(
        "--gpus lists " + std::to_string(o_.gpus.size()) + " devices but the study needs " +
        std::to_string(study.resources().gpus_per_trial()) + " per trial");
  }
  // Local runners without --gpus train on the CPU, and a runner is given
  // only trials it can run: they would never get one.
  if (o_.gpus.empty() && o_.local_runners != 0 && study.resources().has_gpus_per_trial()) {
    return Status::InvalidArgument(
        "resources.gpus_per_trial: the study trains on " +
        std::to_string(study.resources().gpus_per_trial()) +
        " GPU(s) a trial, but local runners train on the CPU unless --gpus lists devices: pass "
        "--gpus (e.g. --gpus 0,1), or --local-runners 0 and runners started with --backend cuda");
  }
  ServerOptions so;
  so.db_path = o_.db_path;
  so.bind = o_.bind;
  so.heartbeat_ms = o_.heartbeat_ms;
  so.liveness = o_.liveness;
  so.max_connections = o_.max_connections;
  so.keys_dir = o_.keys_dir;
  so.insecure = o_.insecure;
  so.local_runners = o_.local_runners;
  so.gpus = o_.gpus;
  so.gpus_per_runner = std::max(1, study.resources().gpus_per_trial());
  so.trials_per_gpu = o_.trials_per_gpu;
  so.exe = o_.exe;
  ASSIGN_OR_RETURN(server_, Server::Start(so));
  if (o_.retry_failed) RETURN_IF_ERROR(RetryFailed(server_->store(), study).status());
  ASSIGN_OR_RETURN(study_, server_->Add(study, o_.from));
  // Where it was run from, for the command that resumes it (`sweep stop`,
  // `sweep studies`).
  std::error_code ec;
  auto file = std::filesystem::absolute(o_.study_path, ec);
  if (!ec) RETURN_IF_ERROR(server_->store().SetStudyFile(study_->id(), file.lexically_normal()));
  // Synced beside the first turns: what the loop acknowledges waits for
  // later commits' tickets, and a ticket covers every commit before it.
  RETURN_IF_ERROR(server_->store().CommitNoWait().status());
  ProgressCounts c = study_->Counts();
  if (study_->trials().size() > 0) {
    LOG_INFO << "resuming study '" << study.name() << "' from " << o_.db_path << ": " << c.completed
             << " completed, " << c.failed << " failed, " << c.queued << " to run again";
  }
  // A remote runner runs a study's own program only with --allow-commands.
  std::string join = server_->JoinHint();
  if (study.task().has_command() && join.rfind("join with: ", 0) == 0) join += " --allow-commands";
  LOG_INFO << "study '" << study.name() << "': tuner listening on "
           << server_->dispatcher().endpoint() << " (" << join << ")";
  return Status::Ok();
}

void Tuner::PrintSummary() {
  double secs = static_cast<double>(NowMs() - start_ms_) / 1000.0;
  ProgressCounts c = study_->Counts();
  int64_t ran = c.completed + c.failed + c.stopped;
  const pb::Study& study = study_->study();
  char line[512];
  std::snprintf(line, sizeof line,
                "study '%s': %lld trials (%lld completed, %lld failed, %lld stopped) in %.1f s\n",
                study.name().c_str(), static_cast<long long>(ran),
                static_cast<long long>(c.completed), static_cast<long long>(c.failed),
                static_cast<long long>(c.stopped), secs);
  std::string out = line;
  if (TracksTrialValues(study)) {
    out += FrontSummary(study.name());
  } else if (const Trial* t = study_->trials().best()) {
    out += "best trial " + std::to_string(t->number) + ": " + PrimaryObjective(study).metric() +
           " = " + ScreenNumber(*t->value) + "  params " + ParamsToJson(t->params.params()) + "\n";
    // Everything else it reported at the end (test_accuracy for training).
    auto metrics = server_->store().TrialMetrics(t->id);
    if (metrics.ok() && metrics->size() > 2) out += "  final metrics " + *metrics + "\n";
  } else {
    out += std::string("no trial completed; see: sweep trials ") +
           (c.failed > 0 ? "--status failed " : "") + "--db " + o_.db_path + "\n";
  }
  out += "results: " + o_.db_path + "\n";
  fputs(out.c_str(), stdout);
  fflush(stdout);
}

std::string Tuner::FrontSummary(const std::string& name) const {
  const std::string see = "; see: sweep best --db " + o_.db_path + "\n";
  auto reader = Reader::Open(o_.db_path);
  if (!reader.ok()) return "its front: " + reader.status().message() + "\n";
  auto ref = (*reader)->ResolveStudy(name);
  auto front = ref.ok() ? (*reader)->Front(*ref) : Result<StudyFront>(ref.status());
  if (!front.ok()) return "its front: " + front.status().message() + "\n";
  if (front->front.empty()) return "no trial completed" + see;
  if (front->feasible == 0 && !front->constraints.empty())
    return "no trial is feasible (of " + std::to_string(front->trials.size()) + " completed)" + see;
  if (front->objectives.size() == 1) {
    const FrontTrial& t = front->trials[front->front[0]];
    return "best feasible trial " + std::to_string(t.number) + ": " +
           front->objectives[0].metric() + " = " + ScreenNumber(t.objectives[0]) + see;
  }
  return "Pareto front: " + std::to_string(front->front.size()) + " of " +
         std::to_string(front->trials.size()) + " completed trials" + see;
}

int Tuner::Run() {
  start_ms_ = NowMs();
  bool live = o_.progress == 1 || (o_.progress < 0 && isatty(STDERR_FILENO));
  // Local runners share this terminal: told so (they inherit the
  // environment), each of their log lines first clears the status line,
  // which the next update draws again below it, instead of being glued to
  // its end.
  if (live) setenv("SWEEP_LIVE_LINE", "1", 1);
  Status st = Setup();
  if (!st.ok()) {
    server_.reset();  // its local runners stop
    fprintf(stderr, "sweep: %s\n", st.message().c_str());
    return 1;
  }
  progress_ = std::make_unique<Progress>(study_->study().name(), live);
  CatchInterrupts();

  auto shutdown = [&](const std::string& reason) {
    server_->Shutdown(reason);
    if (progress_) progress_->Clear();
  };
  Store& store = server_->store();
  while (!study_->Done() && !Interrupted()) {
    st = server_->Turn(Interrupted());
    // Counts() walks the trials: only when the line is drawn.
    if (st.ok() && progress_->Due()) progress_->Update(Counts());
    if (!st.ok()) {
      shutdown("the tuner hit an error");
      if (!store.durability()->error().ok()) {
        // A failed sync: what was acknowledged before it is on disk; nothing
        // after it is trusted to be.
        fprintf(stderr,
                "\nsweep: stopping: %s\nResults acknowledged before this are safe in %s; nothing "
                "later is known to be on disk. Fix the disk, then run the same command to "
                "resume.\n",
                st.message().c_str(), o_.db_path.c_str());
        return 1;
      }
      fprintf(stderr,
              "\nsweep: stopping: %s\nCommitted results are safe in %s; run the same command to "
              "resume.\n",
              st.message().c_str(), o_.db_path.c_str());
      return 1;
    }
  }
  if (Interrupted()) {
    // Interrupted: running trials go back to the queue with their attempts
    // open, so the same command resumes them as the same attempts.
    int64_t requeued = 0;
    Status w = server_->SuspendAll("the tuner stopped", &requeued);
    shutdown("the tuner was interrupted");
    fprintf(stderr,
            "\nsweep: interrupted; %lld running trials will resume when you run the same command "
            "again\n",
            static_cast<long long>(requeued));
    if (!w.ok())
      fprintf(stderr, "sweep: could not record the interruption: %s\n", w.message().c_str());
    PrintSummary();
    return 130;
  }
  // Done: its algorithm had nothing left, or its first trials all failed
  // the same way (algorithm.fail_fast).
  const bool failed_fast = study_->fail_fast().stopped();
  Status w = store.Begin();
  if (w.ok()) w = store.SetStudyRunSeconds(study_->id(), study_->RunSeconds());
  if (w.ok())
    w = store.SetStudyStatus(
        study_->id(), failed_fast ? StudyStatus::kFailed : StudyStatus::kCompleted, WallSeconds());
  if (w.ok()) w = server_->loop().Flush();
  if (progress_) progress_->Update(Counts(), true);
  shutdown(failed_fast ? "the study stopped after its first trials failed"
                       : "the study is complete");
  PrintSummary();
  if (!w.ok()) {
    fprintf(stderr, "sweep: %s\n", w.message().c_str());
    return 1;
  }
  if (failed_fast) {
    const std::string& name = study_->study().name();
    // Failed trials run again only where no decision came from them.
    const std::string again =
        TraitsOf(study_->study()).runs_failed_trials_again
            ? "`sweep run " + ShellWord(o_.study_path) + " --db " + ShellWord(o_.db_path) +
                  " --retry-failed` runs the failed trials again and goes on"
            : "`sweep run " + ShellWord(o_.study_path) + " --db " + ShellWord(o_.db_path) +
                  "` goes on with new trials (the failed ones stay failed)";
    fprintf(stderr,
            "sweep: study '%s' stopped: %s\nThis is a mistake in the set-up, not in the "
            "parameters. Fix it, then %s (algorithm.fail_fast: 0 turns this check off).\n",
            EscapeControl(name).c_str(),
            EscapeControl(study_->fail_fast().Reason(), /*keep_newlines=*/true).c_str(),
            EscapeControl(again).c_str());
    return 1;
  }
  return study_->trials().best() ? 0 : 1;
}

}  // namespace

int RunTuner(const TunerOptions& options) {
  SetLogTag("tuner");
  Tuner tuner(options);
  return tuner.Run();
}

}  // namespace sweep
