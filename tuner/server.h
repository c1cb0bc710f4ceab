// The tuner's server: what lives as long as the process (the store, the
// runner keys, the dispatcher, the local runners and the event loop), with
// studies admitted into it and removed from it while it runs. `sweep run`
// is a server with one study that exits when the study is done
// (tuner/tuner.cc); the multi-study service is the same server with many.
// REQUIRES: external synchronization (one thread runs it).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "proto/sweep.pb.h"
#include "storage/sqlite_store.h"
#include "tuner/dispatcher.h"
#include "tuner/event_loop.h"
#include "tuner/local_runners.h"
#include "tuner/study_run.h"

namespace sweep {

struct ServerOptions {
  std::string db_path = "sweep.db";
  std::string bind = "tcp://127.0.0.1:*";
  int heartbeat_ms = 1000;
  int liveness = 5;
  int max_connections = 0;  // 0: the default (tuner/connection_cap.h)
  // Runner authentication (docs/security.md): keys_dir holds tuner.key and
  // the runners it admits (*.pub); without it, fresh keys that admit only
  // the local runners; insecure: no authentication.
  std::string keys_dir;
  bool insecure = false;
  // Local runners: `local_runners` CPU runners (-1: one per core), or with
  // `gpus`, one per set of `gpus_per_runner` devices, `trials_per_gpu`
  // processes each. `exe` is this binary.
  int local_runners = -1;
  std::vector<int> gpus;
  int gpus_per_runner = 1;
  int trials_per_gpu = 1;
  std::string exe;
  // A service: local runners are kept (and restarted) with no study in.
  bool service = false;
};

class Server {
 public:
  // Starts the local runners, opens the database (its lock refuses a second
  // tuner), binds the dispatcher and marks the studies a dead tuner left
  // running as interrupted. Leaves the store's transaction open.
  static Result<std::unique_ptr<Server>> Start(const ServerOptions& o);
  ~Server();

  // Opens `study` (validated, defaults resolved) in the database, resuming
  // it if it is there, and admits it to the running loop; callable from
  // inside a turn. With `from` (DB[:STUDY]), a new study first copies that
  // study's finished trials (tuner/warm_start.h). The loop's next commit
  // makes it durable; an Add that fails writes nothing (a savepoint).
  Result<StudyRun*> Add(const pb::Study& study, const std::string& from = "");
  // Takes a study out (EventLoop::Remove): its running trials go back to
  // its queue, their runners drop them, and it is destroyed once that is
  // committed; callable from inside a turn.
  void Remove(int64_t study_id, StudyRemoval how = StudyRemoval());
  // The study with this id, while admitted; nullptr otherwise.
  StudyRun* study(int64_t study_id) const;
  bool Done() const { return loop_->Done(); }

  // One turn of the loop, then the local runners' supervision and the
  // removed studies' destruction. `draining`: start nothing new, restart no
  // runner (Ctrl-C).
  Status Turn(bool draining);
  // Runs `hook` in every turn (EventLoop::SetTurnHook): a service's
  // requests, which may Add and Remove studies, are handled there.
  void SetTurnHook(std::function<Status()> hook) { loop_->SetTurnHook(std::move(hook)); }
  // Tells every runner to exit (the local ones by signal too); they are
  // reaped when the server is destroyed.
  void Shutdown(const std::string& reason);
  // Ctrl-C, `sweep stop`: what the loop did so far goes out first (after
  // this the trials it assigned are queued again, so nothing may tell a
  // runner otherwise); then every admitted study's running trials go back
  // to its queue with their attempts open (StudyRun::Suspend, stored
  // interrupted, so the same command takes them up again), committed.
  // `requeued` gets how many, whatever the status says.
  Status SuspendAll(const std::string& cause, int64_t* requeued);

  // Which study an idle runner goes to (Dispatcher::SetPolicy).
  void SetPolicy(std::unique_ptr<AssignPolicy> policy) {
    dispatcher_->SetPolicy(std::move(policy));
  }
  // A turn's poll wakes when one of `zmq_sockets` is readable
  // (Dispatcher::WakeOn).
  void WakeOn(std::vector<void*> zmq_sockets) { dispatcher_->WakeOn(std::move(zmq_sockets)); }
  Store& store() { return *store_; }
  EventLoop& loop() { return *loop_; }
  const Dispatcher& dispatcher() const { return *dispatcher_; }
  // Asks the study's running trials to stop at their next checkpoint
  // (Dispatcher::PreemptStudy): a service pausing it.
  int PreemptStudy(int64_t study_id, const std::string& reason) {
    return dispatcher_->PreemptStudy(study_id, reason);
  }
  // How a runner on another machine joins (or that none can).
  std::string JoinHint() const;
  // With CURVE: the public key runners pin ("" with --insecure), and
  // admitting one more runner key (a launcher's runners).
  const std::string& public_key() const { return server_public_key_; }
  void AllowRunnerKey(const std::string& public_key_z85) { dispatcher_->AllowKey(public_key_z85); }

 private:
  explicit Server(const ServerOptions& o) : o_(o) {}
  Status Setup();
  // Add's work inside its savepoint: opens (resumes, seeds) the study.
  Result<std::unique_ptr<StudyRun>> OpenStudy(const pb::Study& study, const std::string& from);
  // The dispatcher's CURVE key pair and the runner keys it admits (from
  // keys_dir), or no key pair when insecure.
  Status LoadKeys(DispatcherOptions* d, std::set<std::string>* allowed);
  // Starts the local runners, connecting to `endpoint`: the private
  // socket's (private_dir_ set), else the bound one with keys it admits.
  void StartLocalRunners(const std::string& endpoint);
  void SuperviseLocalRunners(bool restart);

  ServerOptions o_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<LocalRunners> local_;
  std::map<int64_t, std::unique_ptr<StudyRun>> studies_;  // admitted, and removing
  std::string server_public_key_;                         // with CURVE: what local runners pin
  std::string private_dir_;  // the local runners' socket's folder, if any
};

// tcp://0.0.0.0:5555 or tcp://*:5555 -> tcp://127.0.0.1:5555, what a runner
// on this machine connects to.
std::string LocalConnectEndpoint(const std::string& bound);

}  // namespace sweep
