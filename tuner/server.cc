// The server's set-up (keys, local runners, the database, the dispatcher),
// its studies coming and going, and its turns.
#include "tuner/server.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>

#include "common/clock.h"
#include "common/curve_keys.h"
#include "common/log.h"
#include "common/private_endpoint.h"
#include "storage/db_files.h"
#include "storage/db_lock.h"
#include "tuner/warm_start.h"

namespace sweep {
namespace {

// The runner keys in a keys folder: DIR/*.pub but the tuner's, and
// DIR/runners/*.pub (`sweep keys new NAME --role runner`); clients' and
// admins' keys, in their own folders, never admit a runner.
Result<std::set<std::string>> ReadRunnerKeys(const std::string& dir) {
  ASSIGN_OR_RETURN(auto keys, ReadCurveAllowList(dir, "tuner.pub"));
  struct stat st;
  if (stat((dir + "/runners").c_str(), &st) == 0) {
    ASSIGN_OR_RETURN(auto runners, ReadCurveAllowList(dir + "/runners", ""));
    keys.insert(runners.begin(), runners.end());
  }
  return keys;
}

}  // namespace

namespace {

// Whether an NVIDIA MPS control daemon is up: its pipe in
// $CUDA_MPS_PIPE_DIRECTORY, by default /tmp/nvidia-mps.
bool MpsRunning() {
  const char* dir = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  std::string pipe = std::string(dir && *dir ? dir : "/tmp/nvidia-mps") + "/control";
  return access(pipe.c_str(), F_OK) == 0;
}

}  // namespace

std::string LocalConnectEndpoint(const std::string& bound) {
  for (const char* any : {"tcp://0.0.0.0:", "tcp://*:"}) {
    if (bound.rfind(any, 0) == 0) return "tcp://127.0.0.1:" + bound.substr(std::strlen(any));
  }
  return bound;
}

Result<std::unique_ptr<Server>> Server::Start(const ServerOptions& o) {
  std::unique_ptr<Server> s(new Server(o));
  RETURN_IF_ERROR(s->Setup());
  return s;
}

Server::~Server() {
  // The database closes (its last checkpoint) while the runners, told to
  // stop, exit; then they are reaped.
  loop_.reset();
  studies_.clear();
  store_.reset();
  local_.reset();
  dispatcher_.reset();  // closes the private socket first
  if (!private_dir_.empty()) {
    unlink((private_dir_ + "/tuner.sock").c_str());
    rmdir(private_dir_.c_str());
  }
}

Status Server::Setup() {
  // Keys first: flags that contradict each other are refused before the
  // database is touched.
  DispatcherOptions d;
  std::set<std::string> allowed;
  RETURN_IF_ERROR(LoadKeys(&d, &allowed));
  // A database another tuner holds (or a --db that cannot be written) is
  // refused before any runner starts; the Store takes this lock over.
  RETURN_IF_ERROR(CheckDbSideFiles(o_.db_path));  // before the lock makes the file
  ASSIGN_OR_RETURN(DbLock lock, DbLock::Acquire(o_.db_path));
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
  // Local runners on the private socket start first, so that their process
  // start (the cost of loading a sweep binary) overlaps the database's
  // opening; they connect once the socket is bound (runner.cc retries every
  // few ms). A database another tuner holds stops them again.
  if (!private_dir_.empty()) StartLocalRunners(d.private_bind);
  // The database before the bind: its lock refuses a second tuner before
  // that one can take over the first one's endpoint (an ipc:// file).
  ASSIGN_OR_RETURN(store_, Store::Open(o_.db_path, std::move(lock)));
  ASSIGN_OR_RETURN(dispatcher_, Dispatcher::Listen(d));
  // Read again as runners connect: a runner key made while the tuner runs
  // is admitted, a deleted one refused from then on.
  if (!o_.insecure && !o_.keys_dir.empty()) {
    RETURN_IF_ERROR(
        dispatcher_->AllowKeysFrom([dir = o_.keys_dir] { return ReadRunnerKeys(dir); }));
  }
  if (d.curve) server_public_key_ = d.curve->public_key;
  // Without a private socket, local runners need the bound endpoint and
  // keys the dispatcher admits: they start now, while the study opens (their
  // handshake waits for the first turn, up to 30 s, the dispatcher's
  // handshake limit).
  if (private_dir_.empty()) StartLocalRunners(LocalConnectEndpoint(dispatcher_->endpoint()));
  loop_ = std::make_unique<EventLoop>(store_.get(), dispatcher_.get(), o_.heartbeat_ms);
  // This server holds the lock: no other study of the database runs now.
  RETURN_IF_ERROR(store_->Begin());
  return store_->InterruptRunningStudies(WallSeconds());
}

Result<std::unique_ptr<StudyRun>> Server::OpenStudy(const pb::Study& study,
                                                    const std::string& from) {
  // Opening a study re-queues its running trials: never one that runs.
  for (const auto& [id, s] : studies_) {
    if (s->study().name() == study.name())
      return Status::FailedPrecondition("study '" + study.name() + "' runs here already");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<StudyRun> run,
                   StudyRun::Open(store_.get(), study, DbFolderOf(o_.db_path)));
  RETURN_IF_ERROR(run->write_error());
  if (!from.empty()) {
    if (run->trials().size() > 0) {
      // A resumed study was seeded when it started (or never was): say so.
      LOG_INFO << "--from " << from << ": the study already has trials; it seeds new studies only";
    } else {
      ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Create(study));
      ASSIGN_OR_RETURN(WarmStart w, SeedFromStudy(store_.get(), run->id(), study, space, from));
      LOG_INFO << "seeded study '" << study.name() << "' from " << from << ": " << w.imported
               << " finished trials copied, " << w.skipped << " outside this search space skipped"
               << (w.valueless ? ", " + std::to_string(w.valueless) + " without a value skipped"
                               : "")
               << (w.unfinished ? ", " + std::to_string(w.unfinished) + " unfinished ones left out"
                                : "")
               << "; max_trials (" << study.algorithm().max_trials() << ") new trials follow"
               << (w.source_steps != w.steps ? "; " + StepsNote(w) : "");
      // Opened again, so that the trial table and the model hold them.
      run.reset();
      ASSIGN_OR_RETURN(run, StudyRun::Open(store_.get(), study, DbFolderOf(o_.db_path)));
      RETURN_IF_ERROR(run->write_error());
    }
  }
  return run;
}

Result<StudyRun*> Server::Add(const pb::Study& study, const std::string& from) {
  // Whole or not at all: a study that fails to open (a corrupt row, a
  // failed seed) leaves no rows for the loop's next commit to keep.
  RETURN_IF_ERROR(store_->Begin());
  RETURN_IF_ERROR(store_->Savepoint("add_study"));
  auto run = OpenStudy(study, from);
  if (!run.ok()) {
    Status undo = store_->UndoToSavepoint("add_study");
    return undo.ok() ? run.status() : undo;
  }
  RETURN_IF_ERROR(store_->ReleaseSavepoint("add_study"));
  StudyRun* admitted = run->get();
  studies_[admitted->id()] = std::move(*run);
  loop_->Add(admitted);
  return admitted;
}

void Server::Remove(int64_t study_id, StudyRemoval how) { loop_->Remove(study_id, std::move(how)); }

StudyRun* Server::study(int64_t study_id) const {
  auto it = studies_.find(study_id);
  return it == studies_.end() || !loop_->Has(study_id) ? nullptr : it->second.get();
}

Status Server::Turn(bool draining) {
  if (local_ && local_->refused() == local_->count() && dispatcher_->runners() == 0) {
    return Status::FailedPrecondition(
        "no local runner could start (their errors are above); fix the flags or "
        "start runners with `sweep runner --connect " +
        LocalConnectEndpoint(dispatcher_->endpoint()) + "`");
  }
  RETURN_IF_ERROR(loop_->Turn(draining));
  // Removed, committed and forgotten by the loop and the dispatcher: gone.
  for (int64_t id : loop_->TakeRemoved()) studies_.erase(id);
  SuperviseLocalRunners(!draining && (o_.service || !loop_->Done()));
  return Status::Ok();
}

void Server::SuperviseLocalRunners(bool restart) {
  if (!local_) return;
  std::vector<LocalRunners::Death> died;
  local_->Supervise(restart, &died);
  // What the dead runner sent before it died (its Started above all) is
  // read first, so its trials are charged exactly.
  if (!died.empty()) {
    Status st = dispatcher_->Poll(0);
    if (!st.ok()) LOG_WARN << st.message();
  }
  for (const auto& d : died) dispatcher_->LoseRunnerByPid(d.pid, d.how);
}

Status Server::SuspendAll(const std::string& cause, int64_t* requeued) {
  *requeued = 0;
  Status w = loop_->Flush();
  if (w.ok()) w = store_->Begin();
  for (const auto& [id, run] : studies_) {
    if (!loop_->Has(id)) continue;  // removed, or on its way out
    // A study on its way to a pause stays paused for the next service.
    *requeued += run->pausing()
                     ? run->Suspend("paused", cause + " while it paused", StudyStatus::kPaused)
                     : run->Suspend("interrupted", cause);
    if (w.ok()) w = run->write_error();
  }
  if (w.ok()) w = store_->Commit();
  return w;
}

void Server::Shutdown(const std::string& reason) {
  if (dispatcher_) dispatcher_->Shutdown(reason);
  // They exit while the caller finishes and the database closes; the
  // destructor reaps them.
  if (local_) local_->SignalAll();
}

Status Server::LoadKeys(DispatcherOptions* d, std::set<std::string>* allowed) {
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
  ASSIGN_OR_RETURN(*allowed, ReadRunnerKeys(o_.keys_dir));
  LOG_INFO << "admitting runners with the " << allowed->size() << " public keys in " << o_.keys_dir;
  return Status::Ok();
}

std::string Server::JoinHint() const {
  std::string connect = "sweep runner --connect " + LocalConnectEndpoint(dispatcher_->endpoint());
  if (o_.insecure) return "join with: " + connect;
  if (o_.keys_dir.empty()) {
    return "only its own local runners can join; to admit others see `sweep keys new` and "
           "--keys";
  }
  return "join with: " + connect + " --server-key " + o_.keys_dir +
         "/tuner.pub --key NAME.key, NAME.pub in " + o_.keys_dir;
}

void Server::StartLocalRunners(const std::string& endpoint) {
  int n = o_.local_runners < 0 ? static_cast<int>(std::thread::hardware_concurrency())
                               : o_.local_runners;
  // GPU runners: one per set of gpus_per_runner devices, trials_per_gpu
  // processes each (separate processes share a GPU without sharing a CUDA
  // context, so one trial's device error cannot take another down).
  std::vector<std::vector<std::string>> gpu_args;
  if (!o_.gpus.empty()) {
    size_t per = static_cast<size_t>(std::max(1, o_.gpus_per_runner));
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

}  // namespace sweep
