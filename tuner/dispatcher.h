// The tuner's network: the ROUTER socket, the runners that joined, the
// leases of the trials they hold, the outbox, heartbeats and liveness. It
// knows nothing of algorithms or the database: a message about a trial goes
// to the TrialOwner (a study) that assigned it, found by its study id, and
// the owners say what to assign; an AssignPolicy says which study an idle
// runner goes to. One dispatcher serves any number of owners, admitted and
// removed while it runs.
// REQUIRES: external synchronization (the tuner's thread).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/curve_keys.h"
#include "common/status.h"
#include "common/zmq_socket.h"
#include "proto/sweep.pb.h"
#include "tuner/assign_policy.h"
#include "tuner/connection_cap.h"
#include "tuner/zap_handler.h"

namespace sweep {

// What the dispatcher needs from whoever owns trials. Every call comes from
// the dispatcher's thread, during Poll, Assign or CheckLiveness.
class TrialOwner {
 public:
  virtual ~TrialOwner() = default;
  // Messages about one of its trials whose lease checked out.
  virtual void OnStarted(int64_t trial_id) = 0;
  virtual void OnReport(const std::string& runner_id, const pb::Report& report) = 0;
  virtual void OnCheckpoint(const pb::Checkpoint& checkpoint) = 0;
  virtual void OnLog(const pb::Log& log) = 0;
  // The trial ended on its runner; the lease ends when this returns.
  virtual void OnFinal(const pb::Final& final) = 0;
  // The runner lost or dropped the trial. `started`: its worker had begun
  // it, so the attempt is spent; `runner_died`: the runner was lost (else
  // the trial was presumed hung); `cause` says what happened.
  virtual void OnReleased(int64_t trial_id, bool started, const std::string& cause,
                          bool runner_died) = 0;
  // The runner of this running trial is leaving (a scheduler takes its node
  // back; `why` says so): the trial checkpoints at its next step and stops
  // there, and goes on elsewhere as the same attempt (a Final CANCELLED).
  virtual void OnRunnerLeaving(int64_t trial_id, const std::string& why) {}
  // The runner went (or was lost after it said it would) before the trial
  // stopped: the trial goes back to its queue as the same attempt, from its
  // last checkpoint. Never an attempt.
  virtual void OnRunnerLeft(int64_t trial_id, const std::string& why) {
    OnReleased(trial_id, true, why, true);
  }
  // The runner lost this tuner for a while, went on running the trial, and
  // re-attached it from connection `runner_id` (its lease still held):
  // the owner tells it, with an Ack, which step it has committed.
  virtual void OnReattached(int64_t trial_id, const std::string& runner_id) = 0;
  // Whether the trial is one of its own (to route events about a trial
  // whose lease has ended).
  virtual bool Owns(int64_t trial_id) const = 0;
  // A message on a lease that is not (or no longer) valid.
  virtual void OnRejected(int64_t trial_id, const std::string& what, const std::string& reason) = 0;
  // The next trial for the runner named `runner_name`, under `lease`, or
  // nullopt when there is none now.
  virtual std::optional<pb::Assign> NextAssign(const std::string& runner_name, uint64_t lease) = 0;
  // Whether a trial may wait at a runner behind another (not with a budget:
  // a trial starts only while the budget has room).
  virtual bool QueueAhead() const = 0;
  // At most this many of its trials run at once (0: no limit): the number
  // of runners whose current trial is the owner's. Trials queued behind
  // another at the same runner do not run at once with it.
  virtual int64_t MaxConcurrent() const = 0;
  // Its weight in a fair share of the runners (a service study's priority).
  virtual double Weight() const { return 1; }
  // What its trials need of a runner (GPUs, running commands).
  virtual RunnerNeeds Needs() const { return {}; }
  // No runner in the pool can run its trials now: `why` says what they need.
  virtual void OnWaiting(const std::string& why) {}
  // Its name, for the reasons of decisions about other studies.
  virtual const std::string& Name() const = 0;
  // Whether it may have a trial to start (a preemption for a study without
  // one would only move a runner back and forth).
  virtual bool HasWork() const { return true; }
  // A service takes the runner of this running trial back, `reason` saying
  // for whom: nullopt when the trial may not be preempted, else whether it
  // runs again from its start (true) or goes on from its next checkpoint.
  virtual std::optional<bool> Preempt(int64_t trial_id, const std::string& reason) {
    return std::nullopt;
  }
  // A running trial with no message for this long is presumed hung (0: never).
  virtual int64_t StallMs() const = 0;
};

// The owners by study id, kept by whoever admits and removes studies (the
// EventLoop). The dispatcher holds study ids, never owner pointers, so a
// study removed while its trials are in flight leaves nothing dangling.
class TrialOwners {
 public:
  virtual ~TrialOwners() = default;
  // The owner of study `study_id`; nullptr when it is not (or no longer)
  // admitted.
  virtual TrialOwner* FindOwner(int64_t study_id) = 0;
  // The admitted studies' ids, in the order they were admitted.
  virtual const std::vector<int64_t>& OwnerOrder() const = 0;
};

struct DispatcherOptions {
  std::string bind;
  int heartbeat_ms = 1000;
  int liveness = 5;
  // With a key pair, runners must authenticate with CURVE (their public key
  // allowed by AllowKey); without one, anyone who reaches `bind` may join.
  std::optional<CurveKeyPair> curve;
  // An ipc:// endpoint in a folder only this user may enter, for the local
  // runners: bound without CURVE (see common/private_endpoint.h). "": none.
  std::string private_bind;
  // Connections held open at most (0: DefaultMaxConnections()).
  int max_connections = 0;
};

class Dispatcher {
 public:
  static Result<std::unique_ptr<Dispatcher>> Listen(const DispatcherOptions& o);
  ~Dispatcher();

  const std::string& endpoint() const { return endpoint_; }
  const std::string& private_endpoint() const { return private_endpoint_; }
  const std::string& instance() const { return instance_; }
  int runners() const { return static_cast<int>(runners_.size()); }
  bool authenticated() const { return zap_ != nullptr; }
  // With CURVE: admits runners holding the secret of `public_key_z85`.
  void AllowKey(const std::string& public_key_z85) {
    if (zap_) zap_->Allow(public_key_z85);
  }
  // With CURVE: admits the keys `read` returns, read again as runners
  // connect (ZapHandler::SetReload).
  Status AllowKeysFrom(std::function<Result<std::set<std::string>>()> read) {
    return zap_ ? zap_->SetReload(std::move(read)) : Status::Ok();
  }
  // Connections the ZAP handler refused (no key, or a key not allowed).
  int64_t refused() const { return zap_ ? zap_->refused() : 0; }

  // Where owners are found; the first in its order also gets the events
  // about trials nobody owns. Set once, before the first Poll.
  void SetOwners(TrialOwners* owners) { owners_ = owners; }
  // Which study an idle runner goes to (default: round robin).
  void SetPolicy(std::unique_ptr<AssignPolicy> policy) { policy_ = std::move(policy); }
  // Study `study_id` is being removed: each trial it has at a runner is
  // rejected there (the runner abandons it) and its lease ends, without a
  // call to its owner. `reason` goes with the rejections.
  void DropStudy(int64_t study_id, const std::string& reason);

  // Waits up to `timeout_ms` for messages (or for `wake_fd`, if >= 0, to be
  // readable) and handles what has arrived (a batch), then checks liveness.
  Status Poll(int timeout_ms, int wake_fd = -1);
  // Gives idle runners trials from the owners the policy picks; a runner
  // with trials queued takes more only from the study at its back.
  void Assign();
  // After Assign: tells each study with work that no ready runner can run
  // (its trials need GPUs or commands none has) that it waits, once.
  void TellWaiting();
  // With a policy that preempts, after Assign: takes runners back from
  // studies over their fair share for studies below it with work
  // (PlanPreemptions); each trial's owner agrees (TrialOwner::Preempt) and
  // its runner is told now (pb::Preempt). The runner's next trial is the
  // policy's pick once the trial ends.
  void Preempt();
  // Asks every started trial of study `study_id` that its owner lets go
  // (TrialOwner::Preempt, `reason`) to stop; the study pauses once none
  // runs (`sweep pause`). Called every turn while it pauses: trials queued
  // at a runner that start meanwhile are asked too. Returns how many were
  // asked now.
  int PreemptStudy(int64_t study_id, const std::string& reason);
  // Queues `env` for `runner_id`; it goes out once the commit that makes it
  // true is durable (Seal, then SendSealed).
  void Queue(const std::string& runner_id, pb::Envelope env);
  // What was queued so far waits for the commit numbered `ticket`.
  void Seal(uint64_t ticket);
  // Sends, in order, what waits for commits up to `durable`.
  void SendSealed(uint64_t durable);
  // Heartbeats to runners that were sent nothing for an interval.
  void Heartbeat();
  // A local runner process died (waitpid told us): lose it now.
  void LoseRunnerByPid(pid_t pid, const std::string& how);
  // Tells every runner to exit.
  void Shutdown(const std::string& reason);
  // After Assign: an idle runner that leaves when idle (--exit-when-idle)
  // and that no admitted study can use (a CPU runner beside GPU studies) is
  // told to go now, so its allocation is not held idle.
  void SendAwayUseless();

  // Poll wakes also when `zmq_socket` (another socket of this process: a
  // service's control socket) is readable.
  void WakeOn(std::vector<void*> zmq_sockets) { wake_sockets_ = std::move(zmq_sockets); }
  // A runner in the pool, as `sweep runners` shows it.
  struct RunnerView {
    std::string name, host, device;
    RunnerAbilities abilities;
    int64_t study_id = 0;  // of the trial it runs (0: idle)
    int64_t trial_id = 0;
    double since = 0;       // wall seconds: it began that trial, or joined
    std::string slurm_job;  // as it said in Hello ("" outside Slurm)
    double idle_s = 0;      // seconds without a trial since it joined
    bool leaving = false;   // it said it goes: it gets nothing more
  };
  std::vector<RunnerView> Pool() const;
  // Runners busy with study `study_id`'s trials (their front trial is its).
  int64_t Busy(int64_t study_id) const;

 private:
  struct Runner {
    std::string name;
    std::string key;            // its authenticated CURVE public key ("" without CURVE)
    std::string host, device;   // as it said in Hello
    RunnerAbilities abilities;  // as it said in Hello; its name too
    double joined = 0;          // wall seconds
    int64_t last_seen_ms = 0;
    int64_t last_sent_ms = 0;
    // Trials assigned to this runner: the front one runs, the rest wait.
    std::deque<int64_t> trials;
    bool ready = false;          // registered (Hello) and able to take work
    int64_t pid = 0;             // as it said in Hello (local runners: our child)
    int64_t last_trial_us = -1;  // duration of its last trial, -1 before the first
    // The lease of the trial it ran when told to drop it (not ready until
    // it says Hello): if it ended that trial before it heard, it has
    // nothing to stop and is asked, once, to register again.
    uint64_t taken_back = 0;
    std::string slurm_job;     // as it said in Hello ("" outside Slurm)
    int exit_when_idle_s = 0;  // as it said in Hello
    // It said Leaving (a signal): not ready again; `leave_reason` is what its
    // trial's preemption says ("runner slurm-12_3 was preempted by Slurm").
    bool leaving = false;
    std::string leave_reason;
    int64_t busy_us = 0;  // how long its ended trials ran here
    // The studies whose trials it cannot run that were told so (TellUnable).
    std::unordered_set<int64_t> told_unable;
  };
  struct Lease {
    uint64_t lease = 0;
    std::string runner;    // routing id
    int64_t study_id = 0;  // its owner's
    bool started = false;
    int64_t progress_ms = 0;  // last message, or when it started
    int64_t started_us = 0;   // when it became the runner's front trial (0: not yet)
    // The study its runner is being taken back for (0: none; kPausing: its
    // own study pauses).
    int64_t preempted_for = 0;
  };

  static constexpr int64_t kPausing = -1;
  static constexpr int64_t kLeaving = -2;  // its runner goes (Lease::preempted_for)
  // Tells the runner of `trial` (its front one) to stop it for a preemption.
  void SendPreempt(const std::string& runner_id, int64_t trial, bool restart);
  // Trials at most queued at one runner ahead of its running one.
  static constexpr size_t kMaxQueuedTrials = 64;
  // Runners one key may hold at once (a key is one machine or one user).
  static constexpr int kMaxRunnersPerKey = 256;
  // Connections replaced by a re-attach, whose late messages are dropped
  // quietly, remembered at most.
  static constexpr size_t kMaxRetiredIds = 4096;
  // Trials of removed studies remembered at most (their late messages are
  // refused and recorded nowhere).
  static constexpr size_t kMaxDroppedTrials = 65536;

  explicit Dispatcher(const DispatcherOptions& o) : o_(o) {}
  Status Bind();
  void Handle(const std::string& id, const std::string& key, const void* data, size_t size);
  void HandleHello(const std::string& id, const std::string& key, const pb::Hello& hello);
  // dispatcher_leaving.cc: the runner goes (a signal), or is gone.
  void HandleLeaving(const std::string& id, const pb::Leaving& leaving);
  // Whether `hello` holds a valid lease of a trial at one of `holders`.
  bool ProvesAny(const pb::Hello& hello, const std::vector<std::string>& holders) const;
  // The lease of a trial message, if it is valid and from its holder; else
  // rejects the message (Reject to the runner, OnRejected to the owner).
  // `owner` (when given) gets the lease's owner, looked up once.
  Lease* CheckLease(const std::string& id, int64_t trial_id, uint64_t lease, const char* what,
                    TrialOwner** owner = nullptr);
  void EndLease(int64_t trial_id, Runner* r);
  bool SendNow(const std::string& id, pb::Envelope* env);
  void LoseRunner(const std::string& id, const std::string& cause);
  // Everything assigned to the runner goes back to its owners (a leaving
  // runner's running trial as the same attempt: TrialOwner::OnRunnerLeft).
  void ReleaseTrials(Runner* r, const std::string& cause, bool runner_died);
  void CheckLiveness();
  // Adds a gap in which this process did not run (over one heartbeat) to
  // every runner's and lease's clock.
  void Forgive(int64_t gap_ms);
  size_t QueueDepth(const Runner& r, TrialOwner* owner) const;
  // Queues a Reject: the runner drops the trial held under `lease`.
  void QueueReject(const std::string& id, int64_t trial_id, uint64_t lease,
                   const std::string& reason);
  // Rejects the trial `r` runs (lease `lease`) and marks it not ready until
  // it says Hello (it drops the trial, and those queued behind it).
  void TakeBack(const std::string& id, Runner* r, int64_t trial_id, uint64_t lease,
                const std::string& reason);
  // The owner of a lease's study; nullptr once the study was removed.
  TrialOwner* OwnerOf(const Lease& l) const {
    return owners_ ? owners_->FindOwner(l.study_id) : nullptr;
  }
  // Whoever keeps the record of a trial with no valid lease: its study if
  // one owns it, none for a removed study's trial, else the first
  // admitted (nullptr: none).
  TrialOwner* RecordKeeper(int64_t trial_id) const;

  DispatcherOptions o_;
  ZmqContext ctx_;
  std::unique_ptr<ZapHandler> zap_;  // before sock_: it outlives the socket it vets
  ZmqSocket sock_;
  std::unique_ptr<ConnectionCap> connections_;  // monitors sock_
  std::string endpoint_;
  std::string private_endpoint_;
  std::string instance_;
  uint64_t lease_key_ = 0;  // secret
  uint64_t lease_counter_ = 0;
  TrialOwners* owners_ = nullptr;
  std::unique_ptr<AssignPolicy> policy_ = std::make_unique<RoundRobinPolicy>();
  std::optional<int64_t> last_served_;  // the study the last runner went to
  AssignInput assign_in_;               // Assign's, kept for its room
  std::map<std::string, Runner> runners_;
  std::unordered_map<int64_t, Lease> leases_;  // by trial id
  // Connections replaced by their runner's new one (oldest first, bounded).
  std::unordered_set<std::string> retired_;
  std::deque<std::string> retired_order_;
  // Trials of studies removed while at a runner (oldest first, bounded):
  // no admitted study may keep the record of their late messages.
  std::unordered_set<int64_t> dropped_;
  std::deque<int64_t> dropped_order_;
  std::vector<std::pair<std::string, pb::Envelope>> outbox_;
  // Queued messages sealed with the commit they wait for, oldest first.
  std::deque<std::pair<uint64_t, std::vector<std::pair<std::string, pb::Envelope>>>> sealed_;
  int64_t bad_messages_ = 0;
  std::vector<void*> wake_sockets_;  // WakeOn (3 at most)
  // Runner-microseconds each admitted study's ended trials used (the fair
  // share's tie-break, StudyLoad::used_s); forgotten when it is dropped.
  std::unordered_map<int64_t, int64_t> used_us_;
  // Studies told that no runner in the pool can run their trials (told
  // once, until one can).
  std::unordered_set<int64_t> told_waiting_;
  // Logs once per runner connection and study that `r` cannot run the
  // study's trials, and what it lacks.
  void TellUnable(Runner& r, int64_t study_id, const RunnerNeeds& needs, const std::string& study);
  int64_t last_poll_ms_ = 0;
};

// ipc://, inproc:// and tcp:// on 127.x, localhost or [::1]: only this
// machine can connect (and, for ipc://, only users the file lets in).
bool IsLoopbackEndpoint(const std::string& endpoint);

// Routing ids are bytes chosen by the peer: print them safely.
std::string Printable(const std::string& id);

}  // namespace sweep
