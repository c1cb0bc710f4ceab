// `sweep run`: set-up, local runners, progress, Ctrl-C and shutdown around
// an EventLoop that composes one Dispatcher with one StudyRun.
#include "tuner/tuner.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>

#include "common/clock.h"
#include "common/curve_keys.h"
#include "common/json.h"
#include "common/log.h"
#include "common/private_endpoint.h"
#include "common/values.h"
#include "search_spaces/validate.h"
#include "storage/sqlite_store.h"
#include "tuner/algorithms/hyperband.h"
#include "tuner/dispatcher.h"
#include "tuner/event_loop.h"
#include "tuner/local_runners.h"
#include "tuner/progress.h"
#include "tuner/study_data.h"
#include "tuner/study_run.h"
#include "tuner/warm_start.h"

namespace sweep {

namespace {

std::atomic<int> g_signals{0};

void OnSignal(int) {
  if (g_signals.fetch_add(1) >= 1) {
    const char msg[] = "\nsweep: second interrupt, exiting now (committed results are safe)\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(130);
  }
}

// tcp://0.0.0.0:5555 or tcp://*:5555 -> tcp://127.0.0.1:5555 for local runners.
std::string LocalConnectEndpoint(const std::string& bound) {
  for (const char* any : {"tcp://0.0.0.0:", "tcp://*:"}) {
    if (bound.rfind(any, 0) == 0) return "tcp://127.0.0.1:" + bound.substr(std::strlen(any));
  }
  return bound;
}

// REQUIRES: external synchronization (one thread runs it).
class Tuner {
 public:
  explicit Tuner(const TunerOptions& o) : o_(o) {}
  ~Tuner() {
    // The database closes (its last checkpoint) while the runners, told to
    // stop, exit; then they are reaped.
    loop_.reset();
    study_.reset();
    store_.reset();
    local_.reset();
    dispatcher_.reset();  // closes the private socket first
    if (!private_dir_.empty()) {
      unlink((private_dir_ + "/tuner.sock").c_str());
      rmdir(private_dir_.c_str());
    }
  }
  int Run();

 private:
  Status Setup();
  // The dispatcher's CURVE key pair and the runner keys it admits (from
  // --keys), or no key pair with --insecure.
  Status LoadKeys(DispatcherOptions* d, std::set<std::string>* allowed);
  // --from: a new study starts from another study's finished trials.
  Status SeedStudy(const pb::Study& study);
  std::string JoinHint() const;
  Status Turn();
  void Housekeeping();
  // Starts the local runners, connecting to `endpoint`: the private socket's
  // (private_dir_ set), else the bound one with keys the dispatcher admits.
  void StartLocalRunners(const pb::Study& study, const std::string& endpoint);
  int Shutdown(const std::string& reason);
  void PrintSummary();
  ProgressCounts Counts() const {
    ProgressCounts c = study_->Counts();
    c.runners = dispatcher_->runners();
    return c;
  }

  TunerOptions o_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<StudyRun> study_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<LocalRunners> local_;
  std::unique_ptr<Progress> progress_;
  std::string server_public_key_;  // with CURVE: what local runners pin
  std::string private_dir_;        // the local runners' socket's folder, if any
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
  std::string data;  // what the data holds, or that only remote runners have it
  RETURN_IF_ERROR(CheckStudyData(study, o_.local_runners != 0, &data));
  if (!o_.from.empty() && study.algorithm().type() != pb::ALGORITHM_TYPE_TPE) {
    // Other algorithms would not learn from them, and Hyperband's and BOHB's
    // trial numbers are places in their brackets.
    return Status::InvalidArgument(
        "--from seeds a study of algorithm type tpe, which learns from "
        "the copied trials; this study's algorithm does not");
  }
  if (!o_.gpus.empty() &&
      static_cast<int>(o_.gpus.size()) < std::max(1, study.resources().gpus_per_trial())) {
    return Status::InvalidArgument(
        "--gpus lists " + std::to_string(o_.gpus.size()) + " devices but the study needs " +
        std::to_string(study.resources().gpus_per_trial()) + " per trial");
  }
  DispatcherOptions d;
  d.bind = o_.bind;
  d.heartbeat_ms = o_.heartbeat_ms;
  d.liveness = o_.liveness;
  d.max_connections = o_.max_connections;
  if (o_.local_runners != 0) {
    // Local runners connect through a socket only this user can reach.
    auto dir = MakePrivateSocketDir();
    if (dir.ok()) {
      private_dir_ = *dir;
      d.private_bind = PrivateEndpoint(private_dir_);
    } else {
      LOG_WARN << "local runners will use " << o_.bind
               << " with CURVE keys: " << dir.status().message();
    }
  }
  std::set<std::string> allowed;
  RETURN_IF_ERROR(LoadKeys(&d, &allowed));
  // Local runners on the private socket start first, so that their process
  // start (the cost of loading a sweep binary) overlaps the database's
  // opening; they connect once the socket is bound (runner.cc retries every
  // few ms). A study found complete, or a database another tuner holds,
  // stops them again.
  if (!private_dir_.empty()) StartLocalRunners(study, d.private_bind);
  // The database before the bind: its lock refuses a second tuner before
  // that one can take over the first one's endpoint (an ipc:// file).
  ASSIGN_OR_RETURN(store_, Store::Open(o_.db_path));
  ASSIGN_OR_RETURN(dispatcher_, Dispatcher::Listen(d));
  for (const auto& k : allowed) dispatcher_->AllowKey(k);
  if (d.curve) server_public_key_ = d.curve->public_key;
  // Without a private socket, local runners need the bound endpoint and
  // keys the dispatcher admits: they start now, while the study opens (their
  // handshake waits for the first turn, up to 30 s, the dispatcher's
  // handshake limit).
  if (private_dir_.empty()) StartLocalRunners(study, LocalConnectEndpoint(dispatcher_->endpoint()));
  // This tuner holds the lock: no other study of the database runs now.
  RETURN_IF_ERROR(store_->Begin());
  RETURN_IF_ERROR(store_->InterruptRunningStudies(WallSeconds()));
  ASSIGN_OR_RETURN(study_, StudyRun::Open(store_.get(), study, o_.db_path + ".checkpoints",
                                          o_.db_path + ".logs"));
  RETURN_IF_ERROR(study_->write_error());
  if (!o_.from.empty()) RETURN_IF_ERROR(SeedStudy(study));
  // Synced beside the first turns: what the loop acknowledges waits for
  // later commits' tickets, and a ticket covers every commit before it.
  RETURN_IF_ERROR(store_->CommitNoWait().status());
  ProgressCounts c = study_->Counts();
  if (study_->trials().size() > 0) {
    LOG_INFO << "resuming study '" << study.name() << "' from " << o_.db_path << ": " << c.completed
             << " completed, " << c.failed << " failed, " << c.queued << " to run again";
  }
  loop_ = std::make_unique<EventLoop>(store_.get(), dispatcher_.get(), o_.heartbeat_ms);
  loop_->Add(study_.get());
  LOG_INFO << "study '" << study.name() << "': tuner listening on " << dispatcher_->endpoint()
           << " (" << JoinHint() << ")";
  return Status::Ok();
}

Status Tuner::SeedStudy(const pb::Study& study) {
  if (study_->trials().size() > 0) {
    // A resumed study was seeded when it started (or never was): say so.
    LOG_INFO << "--from " << o_.from << ": the study already has trials; it seeds new studies only";
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Create(study));
  ASSIGN_OR_RETURN(WarmStart w, SeedFromStudy(store_.get(), study_->id(), study, space, o_.from));
  LOG_INFO << "seeded study '" << study.name() << "' from " << o_.from << ": " << w.imported
           << " finished trials copied, " << w.skipped << " outside this search space skipped"
           << (w.valueless ? ", " + std::to_string(w.valueless) + " without a value skipped" : "")
           << (w.unfinished ? ", " + std::to_string(w.unfinished) + " unfinished ones left out"
                            : "")
           << "; max_trials (" << study.algorithm().max_trials() << ") new trials follow"
           << (w.source_steps != w.steps ? "; " + StepsNote(w) : "");
  // Opened again, so that the trial table and the model hold them.
  ASSIGN_OR_RETURN(study_, StudyRun::Open(store_.get(), study, o_.db_path + ".checkpoints",
                                          o_.db_path + ".logs"));
  return study_->write_error();
}

Status Tuner::LoadKeys(DispatcherOptions* d, std::set<std::string>* allowed) {
  if (o_.insecure) {
    if (!o_.keys_dir.empty())
      return Status::InvalidArgument("--insecure and --keys contradict each other; pick one");
    LOG_WARN << "--insecure: runners are not authenticated. Anyone who can reach " << o_.bind
             << " can join, receive trials with their parameters and checkpoints, and report "
                "forged results";
    return Status::Ok();
  }
  if (o_.keys_dir.empty()) {
    if (!IsLoopbackEndpoint(o_.bind)) {
      return Status::InvalidArgument(
          "--bind " + o_.bind +
          " listens beyond this machine, so runners must authenticate: make keys with `sweep "
          "keys new tuner --dir KEYS` and `sweep keys new RUNNER --dir KEYS`, then pass --keys "
          "KEYS (or --insecure to admit anyone; see docs/security.md)");
    }
    ASSIGN_OR_RETURN(CurveKeyPair k, NewCurveKeyPair());
    d->curve = k;  // admits only the local runners' fresh keys
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(CurveKeyPair k, ReadCurveSecretFile(o_.keys_dir + "/tuner.key"));
  d->curve = k;
  ASSIGN_OR_RETURN(*allowed, ReadCurveAllowList(o_.keys_dir, "tuner.pub"));
  LOG_INFO << "admitting runners with the " << allowed->size() << " public keys in " << o_.keys_dir;
  return Status::Ok();
}

std::string Tuner::JoinHint() const {
  std::string connect = "sweep runner --connect " + LocalConnectEndpoint(dispatcher_->endpoint());
  if (o_.insecure) return "join with: " + connect;
  if (o_.keys_dir.empty()) {
    return "only its own local runners can join; to admit others see `sweep keys new` and "
           "--keys";
  }
  return "join with: " + connect + " --server-key " + o_.keys_dir +
         "/tuner.pub --key NAME.key, NAME.pub in " + o_.keys_dir;
}

Status Tuner::Turn() {
  if (local_ && local_->refused() == local_->count() && dispatcher_->runners() == 0) {
    return Status::FailedPrecondition(
        "no local runner could start (their errors are above); fix the flags or "
        "start runners with `sweep runner --connect " +
        LocalConnectEndpoint(dispatcher_->endpoint()) + "`");
  }
  RETURN_IF_ERROR(loop_->Turn(g_signals != 0));
  Housekeeping();
  return Status::Ok();
}

void Tuner::Housekeeping() {
  if (local_) {
    std::vector<LocalRunners::Death> died;
    local_->Supervise(!study_->Done() && g_signals == 0, &died);
    // What the dead runner sent before it died (its Started above all) is
    // read first, so its trials are charged exactly.
    if (!died.empty()) {
      Status st = dispatcher_->Poll(0);
      if (!st.ok()) LOG_WARN << st.message();
    }
    for (const auto& d : died) dispatcher_->LoseRunnerByPid(d.pid, d.how);
  }
  // Counts() walks the trials: only when the line is drawn.
  if (progress_ && progress_->Due()) progress_->Update(Counts());
}

// Whether an NVIDIA MPS control daemon is up: its pipe in
// $CUDA_MPS_PIPE_DIRECTORY, by default /tmp/nvidia-mps. (Still inside this
// file's unnamed namespace, with the Tuner.)
bool MpsRunning() {
  const char* dir = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  std::string pipe = std::string(dir && *dir ? dir : "/tmp/nvidia-mps") + "/control";
  return access(pipe.c_str(), F_OK) == 0;
}

void Tuner::StartLocalRunners(const pb::Study& study, const std::string& endpoint) {
  int n = o_.local_runners < 0 ? static_cast<int>(std::thread::hardware_concurrency())
                               : o_.local_runners;
  // GPU runners: one per set of gpus_per_trial devices, trials_per_gpu
  // processes each (separate processes share a GPU without sharing a CUDA
  // context, so one trial's device error cannot take another down).
  std::vector<std::vector<std::string>> gpu_args;
  if (!o_.gpus.empty()) {
    size_t per = static_cast<size_t>(std::max(1, study.resources().gpus_per_trial()));
    for (size_t s = 0; s + per <= o_.gpus.size(); s += per) {
      std::string list;
      for (size_t g = s; g < s + per; ++g)
        list += (list.empty() ? "" : ",") + std::to_string(o_.gpus[g]);
      for (int k = 0; k < o_.trials_per_gpu; ++k)
        gpu_args.push_back({"--backend", "cuda", "--gpus", list});
    }
    n = static_cast<int>(gpu_args.size());
    LOG_INFO << "starting " << n << " GPU runners (" << o_.gpus.size() << " GPUs, " << per
             << " per trial, " << o_.trials_per_gpu << " trials per GPU)";
    if (o_.trials_per_gpu > 1 && !MpsRunning()) {
      // Measured on an H200 (bench/RESULTS.md): 8 small MLP trials on one
      // GPU gave 1.36x one trial's samples/s time-sliced, 5.35x with MPS.
      LOG_WARN << o_.trials_per_gpu
               << " trials per GPU take turns on it unless the NVIDIA MPS daemon runs "
                  "(nvidia-cuda-mps-control -d; docs/gpu.md): without it they gain little over "
                  "one at a time";
    }
  }
  if (n <= 0) {
    LOG_INFO << "no local runners; waiting for runners to connect";
    return;
  }
  const bool private_socket = !private_dir_.empty();
  local_ = std::make_unique<LocalRunners>(o_.exe, endpoint, n, o_.heartbeat_ms);
  // Without --gpus, local runners train on the CPU (one per core).
  for (int i = 0; i < n; ++i) {
    std::vector<std::string> args = gpu_args.empty() ? std::vector<std::string>{"--backend", "cpu"}
                                                     : gpu_args[static_cast<size_t>(i)];
    if (private_socket) args.push_back("--private-tuner");
    local_->SetArgs(i, args);
    if (private_socket || server_public_key_.empty()) continue;
    // Each local runner has a key pair of its own, made now and admitted.
    auto keys = NewCurveKeyPair();
    if (!keys.ok()) {
      LOG_ERROR << keys.status().message();
      continue;
    }
    dispatcher_->AllowKey(keys->public_key);
    local_->SetKeys(i, FormatCurveKeys(*keys, true) + "server-key = " + server_public_key_ + "\n");
  }
  local_->StartAll();
}

int Tuner::Shutdown(const std::string& reason) {
  if (dispatcher_) dispatcher_->Shutdown(reason);
  // They exit while the summary prints and the database closes; ~Tuner
  // reaps them.
  if (local_) local_->SignalAll();
  if (progress_) progress_->Clear();
  return 0;
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
  if (const Trial* t = study_->trials().best()) {
    out += "best trial " + std::to_string(t->number) + ": " + study.objective().metric() + " = " +
           FormatDouble(*t->value) + "  params " + ParamsToJson(t->params.params()) + "\n";
    // Everything else it reported at the end (test_accuracy for training).
    auto metrics = store_->TrialMetrics(t->id);
    if (metrics.ok() && metrics->size() > 2) out += "  final metrics " + *metrics + "\n";
  } else {
    out += "no trial completed; see: sweep trials --status failed --db " + o_.db_path + "\n";
  }
  out += "results: " + o_.db_path + "\n";
  fputs(out.c_str(), stdout);
  fflush(stdout);
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
    if (local_) local_->StopAll(2000);
    fprintf(stderr, "sweep: %s\n", st.message().c_str());
    return 1;
  }
  progress_ = std::make_unique<Progress>(study_->study().name(), live);
  struct sigaction sa = {};
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  while (!study_->Done() && g_signals == 0) {
    st = Turn();
    if (!st.ok()) {
      Shutdown("the tuner hit an error");
      if (!store_->durability()->error().ok()) {
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
  if (g_signals > 0) {
    // Interrupted: running trials go back to the queue with their attempts
    // open, so the same command resumes them as the same attempts.
    // What the loop did so far goes out first: after Interrupt() the
    // trials it assigned are queued again, so nothing may tell a runner
    // otherwise.
    Status w = loop_->Flush();
    if (w.ok()) w = store_->Begin();
    int64_t requeued = study_->Interrupt();
    if (w.ok())
      w = store_->AddEvent(study_->id(), 0, "interrupted",
                           std::to_string(requeued) + " running trials re-queued", WallSeconds());
    if (w.ok()) w = store_->SetStudyStatus(study_->id(), StudyStatus::kInterrupted, WallSeconds());
    if (w.ok()) w = study_->write_error();
    if (w.ok()) w = store_->Commit();
    Shutdown("the tuner was interrupted");
    fprintf(stderr,
            "\nsweep: interrupted; %lld running trials will resume when you run the same command "
            "again\n",
            static_cast<long long>(requeued));
    if (!w.ok())
      fprintf(stderr, "sweep: could not record the interruption: %s\n", w.message().c_str());
    PrintSummary();
    return 130;
  }
  Status w = store_->Begin();
  if (w.ok()) w = store_->SetStudyStatus(study_->id(), StudyStatus::kCompleted, WallSeconds());
  if (w.ok()) w = loop_->Flush();
  if (progress_) progress_->Update(Counts(), true);
  Shutdown("the study is complete");
  PrintSummary();
  if (!w.ok()) {
    fprintf(stderr, "sweep: %s\n", w.message().c_str());
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
